"""Benchmark of the retrievers on a synthetic collection: Lucene indexing and search, document statistics, embedding
retrievers, loading a large word2vec file (memory-mapped), and the DRMM / MatchPyramid re-rankers.

    GSR_CACHE=/tmp/gsrcache .venv/bin/python benchmarks/bench_retrieval.py
        [--docs 500000] [--queries 250] [--depth 1000] [--words 150] [--threads 2]
        [--embedding-words 3000000] [--embedding-dim 300] [--skip-embedding-file]
        [--neural-queries 250] [--neural-depth 100] [--neural-epochs 2] [--json PATH]

Prints measured figures and ratios to stdout, progress to stderr. No asserts: it measures, it does not test.
Shares its helpers and synthetic data with the other benchmarks (benchmarks/common.py). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import (
    PROJECT_ROOT,
    Phase,
    Timer,
    collection_arguments,
    dir_bytes,
    generate_queries,
    gib,
    load_text,
    log,
    machine,
    mib,
    rusage_maxrss_kib,
    status_kib,
    synthetic_qrels,
    vocabulary,
    write_collection,
    write_json,
    write_word2vec_binary,
)


def lexical_models() -> list[str]:
    """The registered system types that search the Lucene index (BM25, QLM, tf-idf)."""
    from experiments.registry import SYSTEMS
    from retrievers.lucene import MODELS

    return [t.name for t in SYSTEMS if t.name in MODELS]


def neural_models() -> list[str]:
    """The registered neural re-rankers (DRMM, MatchPyramid); the label-based re-rankers are not neural."""
    from experiments.registry import SYSTEMS
    from retrievers.neural.models import MODELS

    return [t.name for t in SYSTEMS if t.name in MODELS]


def vector_weightings() -> list[str]:
    """The registered first-stage embedding systems (add, si)."""
    from experiments.registry import SYSTEMS

    return [t.name for t in SYSTEMS if t.needs_embedding and not t.reranks]


# ---------------------------------------------------------------------------------------------- embedding file


def _memory_snapshot() -> dict:
    return {field: status_kib(field) for field in ("VmHWM", "VmRSS", "RssAnon", "RssFile")}


def embedding_child(phase: str, path: str) -> int:
    """Run in a fresh process: 'baseline' (imports only), 'convert' (first load), 'mmap' (second load + 1% rows)."""
    started = time.perf_counter()
    from gsr.vectors.loading import load_embedding

    importlib.import_module("gensim.models")

    result: dict = {"phase": phase, "import_s": time.perf_counter() - started}
    if phase != "baseline":
        started = time.perf_counter()
        kv = load_embedding(path)
        result["load_s"] = time.perf_counter() - started
        result["words"] = len(kv.index_to_key)
        result["vectors_is_memmap"] = isinstance(kv.vectors, np.memmap) or isinstance(
            getattr(kv.vectors, "base", None), np.memmap
        )
        result["after_load"] = _memory_snapshot()
        if phase == "mmap":
            started = time.perf_counter()
            rng = np.random.default_rng(0)
            n = len(kv.index_to_key)
            rows = np.sort(rng.choice(n, size=max(1, n // 100), replace=False))
            total = 0.0
            for start in range(0, len(rows), 10_000):
                part = rows[start : start + 10_000]
                keys = [kv.index_to_key[r] for r in part]
                total += float(np.asarray(kv.vectors[[kv.key_to_index[k] for k in keys]]).sum())
            result["touched_rows"] = int(len(rows))
            result["touch_s"] = time.perf_counter() - started
            result["checksum"] = total
    result["end"] = _memory_snapshot()
    print(json.dumps(result), flush=True)
    return 0


def _run_embedding_child(phase: str, path: Path, cache: Path) -> dict:
    env = dict(os.environ, GSR_CACHE=str(cache))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--embedding-child", phase, str(path)],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        tail = "\n".join((done.stderr or "").splitlines()[-15:])
        raise RuntimeError(f"embedding child '{phase}' exited with {done.returncode}:\n{tail}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    return result


def embedding_memory(args, fig: dict) -> None:
    n, dim = args.embedding_words, args.embedding_dim
    expected = len(f"{n} {dim}\n") + n * (len(str(max(n - 1, 0))) + 2 + 4 * dim + 1)
    base = Path(args.tmp_dir or tempfile.gettempdir())
    free = shutil.disk_usage(base).free
    needed = int(expected * 2.2) + 2**30  # the file, its converted copy (vectors .npy + keys), a margin
    fig["embedding_file_expected_bytes"] = expected
    fig["embedding_disk_free_bytes"] = free
    if free < needed:
        fig["embedding_skipped"] = f"{gib(free)} free under {base}, {gib(needed)} needed"
        log(f"embedding memory: SKIPPED ({fig['embedding_skipped']})")
        return
    work = Path(tempfile.mkdtemp(prefix="gsr-bench-embedding-", dir=base))
    try:
        path = work / f"synthetic-{n}x{dim}.bin"
        with Timer(f"write a {n:,} x {dim} word2vec binary file ({gib(expected)})") as t:
            size = write_word2vec_binary(path, n, dim, args.seed)
        fig["embedding_write_s"] = t.seconds
        fig["embedding_file_bytes"] = size
        cache = work / "cache"
        for phase in ("baseline", "convert", "mmap"):
            with Timer(f"embedding child: {phase}") as t:
                result = _run_embedding_child(phase, path, cache)
            fig[f"embedding_{phase}"] = result
            log(
                f"  {phase}: peak {mib(result['end']['VmHWM'])}, RSS {mib(result['end']['VmRSS'])} "
                f"(anon {mib(result['end']['RssAnon'])}, file {mib(result['end']['RssFile'])})"
            )
        fig["embedding_cache_bytes"] = dir_bytes(cache)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- neural


def neural(args, fig, queries, bm25_run, collection: Path, kv) -> None:
    import torch

    from experiments.collections import read_texts
    from gsr import default_analyzer
    from retrievers.neural.inputs import build_ranking_data
    from retrievers.neural.models import LEARNING_RATES, model_inputs, new_model
    from retrievers.neural.training import rerank, sample_training_groups, train_ranker

    analyzer = default_analyzer()
    qids = list(queries)[: args.neural_queries]
    candidates = {q: bm25_run[q][: args.neural_depth] for q in qids if bm25_run.get(q)}
    qids = [q for q in qids if q in candidates]
    wanted = {d for q in qids for d, _ in candidates[q]}
    with Timer(f"read the texts of {len(wanted):,} candidates and make synthetic qrels (setup)") as t:
        texts = read_texts(collection, wanted)
        qrels = synthetic_qrels({q: queries[q] for q in qids}, candidates, texts, analyzer)
    fig["neural_setup_s"] = t.seconds
    fig["neural_queries"] = len(qids)
    fig["neural_candidate_docs"] = len(wanted)
    fig["neural_queries_with_relevant"] = len(qrels)
    fig["neural_relevant"] = sum(len(v) for v in qrels.values())
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(args.threads)
    try:
        with Phase(f"build_ranking_data ({len(qids)} queries x top {args.neural_depth})") as p:
            data = build_ranking_data(
                {q: queries[q] for q in qids}, texts, candidates, qrels, kv, qids=qids, depth=args.neural_depth
            )
        fig.update(p.figures("neural_data"))
        fig["neural_pairs"] = int(len(data.pair_doc))
        scorable = list(data.query_pairs)
        cut = max(1, int(len(scorable) * 0.8))
        train_qids = scorable[:cut]
        for name in neural_models():
            with Phase(f"{name}: model_inputs") as p:
                inputs = model_inputs(name, data)
            fig.update(p.figures(f"{name}_inputs"))
            with Timer(f"{name}: warm-up (1 epoch on {min(5, len(train_qids))} queries, not measured)"):
                warm = new_model(name)
                train_ranker(
                    warm, inputs, data, train_qids[:5], (), epochs=1, seed=args.seed, learning_rate=LEARNING_RATES[name]
                )
                rerank(warm, inputs, data, scorable[:5])
                del warm
            torch.manual_seed(args.seed)
            network = new_model(name)
            with Phase(f"{name}: train {args.neural_epochs} epoch(s) on {len(train_qids)} queries") as p:
                report = train_ranker(
                    network,
                    inputs,
                    data,
                    train_qids,
                    (),
                    epochs=args.neural_epochs,
                    seed=args.seed,
                    learning_rate=LEARNING_RATES[name],
                )
            fig.update(p.figures(f"{name}_train"))
            fig[f"{name}_epoch_s"] = p.seconds / args.neural_epochs
            fig[f"{name}_losses"] = report.losses
            groups = sample_training_groups(data, train_qids, 1, np.random.default_rng(args.seed))
            fig[f"{name}_train_groups_per_epoch"] = int(len(groups))
            with Phase(f"{name}: rerank {len(scorable)} queries x top {args.neural_depth}") as p:
                rerank(network, inputs, data, scorable)
            fig.update(p.figures(f"{name}_rerank"))
            pairs = len(data.pairs_of(scorable))
            fig[f"{name}_rerank_pairs"] = pairs
            fig[f"{name}_rerank_docs_per_s"] = pairs / p.seconds
            fig[f"{name}_rerank_docs_per_s_with_inputs"] = pairs / (p.seconds + fig[f"{name}_inputs_s"])
            del inputs, network
    finally:
        torch.set_num_threads(previous_threads)


# ---------------------------------------------------------------------------------------------- main


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--embedding-child"]:
        return embedding_child(argv[1], argv[2])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    collection_arguments(parser, docs=500_000)
    parser.add_argument("--depth", type=int, default=1000, help="documents retrieved per query (1000)")
    parser.add_argument(
        "--threads", type=int, default=2, help="Lucene threads, DocumentStats processes and torch threads (2)"
    )
    parser.add_argument("--shard-size", type=int, default=10_000, help="documents per DocumentStats shard (10,000)")
    parser.add_argument(
        "--embedding-words", type=int, default=3_000_000, help="words of the synthetic word2vec file (3,000,000)"
    )
    parser.add_argument("--embedding-dim", type=int, default=300, help="dimensions of that file (300)")
    parser.add_argument("--skip-embedding-file", action="store_true", help="leave out the embedding-file memory test")
    parser.add_argument("--neural-queries", type=int, default=250, help="queries re-ranked by DRMM/MatchPyramid (250)")
    parser.add_argument("--neural-depth", type=int, default=100, help="BM25 candidates re-ranked per query (100)")
    parser.add_argument("--neural-epochs", type=int, default=2, help="training epochs timed per model (2)")
    parser.add_argument("--skip-neural", action="store_true", help="leave out the neural re-rankers")
    parser.add_argument("--tmp-dir", help="folder for the collection, index and embedding file (system temp)")
    args = parser.parse_args(argv)

    from gsr import Analyzer, DocumentStats, default_analyzer
    from gsr.documents.opening import iter_documents
    from gsr.vectors import load_embedding
    from retrievers import lucene
    from retrievers.vector_average import VectorAverageRetriever as VectorRetriever

    fig: dict = {"args": vars(args), **machine(), "gsr_cache": os.environ.get("GSR_CACHE")}
    log(load_text())
    rng = np.random.default_rng(args.seed)
    work = Path(tempfile.mkdtemp(prefix="gsr-bench-retrieval-", dir=args.tmp_dir))
    started = time.perf_counter()
    try:
        # ---- setup (not measured as part of any retriever)
        with Timer("load embedding glove-6b-50d") as t:
            kv = load_embedding("glove-6b-50d")
        fig["embedding_load_s"] = t.seconds
        words = vocabulary(kv, args.vocab)
        collection = work / "collection.jsonl"
        with Timer(f"generate and write {args.docs:,} documents (~{args.words} words each)") as t:
            fig["n_docs"] = write_collection(collection, words, args.docs, args.words, rng, args.zipf)
        fig["generate_docs_s"] = t.seconds
        fig["collection_bytes"] = collection.stat().st_size
        queries = generate_queries(words, args.queries, rng, default_analyzer())
        fig["rss_before_measures_kib"] = status_kib("VmRSS")

        # ---- indexing vs document statistics; indexing and searches in one JVM, as `gsr run` does
        session = lucene.LuceneSession()
        index_dir = work / "index"
        with Phase(f"Lucene build_index (threads={args.threads}), JVM start included") as p:
            lucene.build_index(collection, index_dir, threads=args.threads, session=session)
        fig.update(p.figures("index"))
        fig["index_bytes"] = dir_bytes(index_dir)
        fig["index_docs_per_s"] = fig["n_docs"] / fig["index_s"]
        with Phase(f"DocumentStats.build from the JSONL (n_jobs={args.threads})") as p:
            stats = DocumentStats.build(
                iter_documents(collection), Analyzer(), n_jobs=args.threads, shard_size=args.shard_size
            )
        fig.update(p.figures("stats"))
        fig["stats_docs_per_s"] = len(stats) / fig["stats_s"]
        fig["stats_vs_index_speed"] = fig["stats_docs_per_s"] / fig["index_docs_per_s"]
        fig["stats_nnz"] = int(stats.counts.nnz)
        fig["stats_vocabulary"] = len(stats.vocabulary)

        # ---- lexical search
        with Phase("Lucene JVM start-up: a worker of its own, bm25, 1 query, k=10") as p:
            lucene.search(index_dir, {"q": queries[next(iter(queries))]}, "bm25", k=10, threads=1)
        fig.update(p.figures("jvm_startup"))
        runs = {}
        for model in lexical_models():
            with Phase(f"Lucene {model}: {len(queries)} queries x top {args.depth} (the indexing JVM)") as p:
                runs[model] = lucene.search(
                    index_dir, queries, model, k=args.depth, threads=args.threads, session=session
                )
            fig.update(p.figures(f"search_{model}"))
            fig[f"search_{model}_qps"] = len(queries) / p.seconds
            fig[f"search_{model}_hits"] = sum(len(v) for v in runs[model].values())
        fig["lucene_workers_started"] = session.workers_started
        session.close()

        # ---- embedding retrievers
        for weighting in vector_weightings():
            with Phase(f"VectorRetriever {weighting}: document vectors") as p:
                retriever = VectorRetriever(kv, stats, weighting)
            fig.update(p.figures(f"vector_{weighting}_build"))
            with Phase(f"VectorRetriever {weighting}: {len(queries)} queries x top {args.depth}") as p:
                run = retriever.search(queries, k=args.depth)
            fig.update(p.figures(f"vector_{weighting}_search"))
            fig[f"vector_{weighting}_qps"] = len(queries) / p.seconds
            fig[f"vector_{weighting}_hits"] = sum(len(v) for v in run.values())
            del retriever, run
        del stats

        # ---- neural re-rankers
        if args.skip_neural:
            fig["neural_skipped"] = "--skip-neural"
        else:
            neural(args, fig, queries, runs["bm25"], collection, kv)
        del runs
        shutil.rmtree(work, ignore_errors=True)  # before the embedding file, which needs the disk space

        # ---- a large word2vec file: conversion, then memory-mapped loads
        if args.skip_embedding_file:
            fig["embedding_skipped"] = "--skip-embedding-file"
        else:
            embedding_memory(args, fig)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    fig["peak_rss_self_kib"] = rusage_maxrss_kib(resource.RUSAGE_SELF)
    fig["peak_rss_children_kib"] = rusage_maxrss_kib(resource.RUSAGE_CHILDREN)
    fig["total_s"] = time.perf_counter() - started

    fig["load_after"] = machine()["load"]
    report(fig, args)
    if args.json:
        write_json(fig, args.json)
    return 0


# ---------------------------------------------------------------------------------------------- report


def report(f: dict, a) -> None:
    Q, D = a.queries, a.depth

    def peaks(prefix: str) -> str:
        child = f.get(f"{prefix}_peak_rss_child_kib")
        return f"self {mib(f.get(f'{prefix}_peak_rss_self_kib'))}" + (f", child {mib(child)}" if child else "")

    rows: list[tuple[str, str, str]] = []  # (what, figure, peak memory)
    rows.append(("Lucene indexing", f"{f['index_s']:.1f} s = {f['index_docs_per_s']:,.0f} docs/s", peaks("index")))
    rows.append(("DocumentStats.build", f"{f['stats_s']:.1f} s = {f['stats_docs_per_s']:,.0f} docs/s", peaks("stats")))
    rows.append(
        (
            "  stats speed / indexing speed",
            f"{f['stats_vs_index_speed']:.2f}x "
            f"({'not slower' if f['stats_vs_index_speed'] >= 1 else 'SLOWER'} than indexing)",
            "",
        )
    )
    rows.append(("Lucene JVM start + 1 query (own worker)", f"{f['jvm_startup_s']:.1f} s", peaks("jvm_startup")))
    for model in lexical_models():
        rows.append(
            (
                f"{model} {Q} x top {D} (indexing JVM)",
                f"{f[f'search_{model}_s']:.1f} s = {f[f'search_{model}_qps']:.1f} q/s",
                peaks(f"search_{model}"),
            )
        )
    for w in vector_weightings():
        rows.append((f"vector {w}: document vectors", f"{f[f'vector_{w}_build_s']:.1f} s", peaks(f"vector_{w}_build")))
        rows.append(
            (
                f"vector {w}: {Q} x top {D}",
                f"{f[f'vector_{w}_search_s']:.1f} s = {f[f'vector_{w}_qps']:.1f} q/s",
                peaks(f"vector_{w}_search"),
            )
        )
    if "neural_skipped" not in f:
        rows.append(
            (
                "neural inputs (tokenise candidates)",
                f"{f['neural_data_s']:.1f} s for {f['neural_pairs']:,} "
                f"pairs ({f['neural_queries_with_relevant']}/{f['neural_queries']} queries with a relevant doc)",
                peaks("neural_data"),
            )
        )
        for name in neural_models():
            rows.append((f"{name}: model inputs", f"{f[f'{name}_inputs_s']:.1f} s", peaks(f"{name}_inputs")))
            rows.append(
                (
                    f"{name}: training",
                    f"{f[f'{name}_epoch_s']:.3f} s/epoch "
                    f"({f[f'{name}_train_groups_per_epoch']:,} training pairs/epoch)",
                    peaks(f"{name}_train"),
                )
            )
            rows.append(
                (
                    f"{name}: re-ranking",
                    f"{f[f'{name}_rerank_docs_per_s']:,.0f} docs/s "
                    f"({f[f'{name}_rerank_docs_per_s_with_inputs']:,.0f} with inputs)",
                    peaks(f"{name}_rerank"),
                )
            )
    if "embedding_convert" in f:
        size = f["embedding_file_bytes"]
        base = f["embedding_baseline"]["end"]["VmHWM"] * 1024
        for phase, label in (("convert", "1st load (convert)"), ("mmap", "2nd load (mmap) + 1% rows")):
            r = f[f"embedding_{phase}"]
            peak, anon = r["end"]["VmHWM"] * 1024, r["end"]["RssAnon"] * 1024
            extra = f", touch {r['touch_s']:.1f} s" if phase == "mmap" else ""
            rows.append(
                (
                    f"{a.embedding_words:,}x{a.embedding_dim} {label}",
                    f"{r['load_s']:.1f} s{extra}; peak RSS / file {peak / size:.2f} "
                    f"({(peak - base) / size:.2f} above imports); anon RSS at end / file {anon / size:.2f}",
                    f"peak {gib(peak)}, file {gib(size)}",
                )
            )
    else:
        rows.append(("embedding file", f"skipped: {f.get('embedding_skipped')}", ""))

    print()
    print(
        f"gsr-bench retrieval benchmark: {f['n_docs']:,} synthetic documents (~{a.words} words), {Q} queries x top "
        f"{D}, threads={a.threads}, {f['cpus']} CPUs, Python {f['python']}; load average at the start "
        f"{f['load'][0]:.2f}, at the end {f['load_after'][0]:.2f}"
    )
    print(
        f"collection {gib(f['collection_bytes'])}, Lucene index {gib(f['index_bytes'])}, "
        f"DocumentStats {f['stats_nnz']:,} doc-term pairs / {f['stats_vocabulary']:,} terms; "
        f"setup: generation {f['generate_docs_s']:.1f} s"
    )
    print()
    w1 = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    print(f"  {'measure':<{w1}}  {'figure':<{w2}}  peak RSS in the phase")
    for what, figure, memory in rows:
        print(f"  {what:<{w1}}  {figure:<{w2}}  {memory}")
    print()
    if "embedding_convert" in f:
        for phase in ("baseline", "convert", "mmap"):
            r = f[f"embedding_{phase}"]
            e = r["end"]
            print(
                f"  embedding child {phase:<8}: peak {mib(e['VmHWM'])}; at end RSS {mib(e['VmRSS'])} "
                f"(anon {mib(e['RssAnon'])}, file-backed {mib(e['RssFile'])})"
                + (f"; vectors memory-mapped: {r['vectors_is_memmap']}" if "vectors_is_memmap" in r else "")
            )
        print(
            f"  file {gib(f['embedding_file_bytes'])} written in {f['embedding_write_s']:.1f} s; "
            f"converted cache {gib(f['embedding_cache_bytes'])}"
        )
    print(
        f"  peak RSS whole run: this process {mib(f['peak_rss_self_kib'])}, largest child (ru_maxrss) "
        f"{mib(f['peak_rss_children_kib'])}; total wall time {f['total_s']:.0f} s"
    )
    print()
    print(
        "Notes: 'self' peaks are this process's VmHWM after a reset at the start of each phase (so they include "
        "what it already held); 'child' peaks are the largest VmHWM of a child (Lucene's JVM worker, a pool "
        "worker), sampled every 0.1 s. Indexing includes the document check and the JVM start; the searches run "
        "in the indexing JVM (one LuceneSession, as gsr run does) and include the result transfer. Neural "
        "training excludes validation. "
        "File-backed RSS of a memory-mapped embedding is page cache (shared, reclaimable, and widened by kernel "
        "read-around); anonymous RSS is the memory the load itself needs."
    )


if __name__ == "__main__":
    sys.exit(main())
