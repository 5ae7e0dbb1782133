"""Benchmark of the retrievers on a synthetic collection: Lucene indexing and search, document statistics, embedding
retrievers, loading a large word2vec file (memory-mapped), and the DRMM / MatchPyramid re-rankers.

    GSR_CACHE=/tmp/gsrcache .venv/bin/python benchmarks/bench_retrieval.py
        [--docs 500000] [--queries 250] [--depth 1000] [--words 150] [--threads 2]
        [--embedding-words 3000000] [--embedding-dim 300] [--skip-embedding-file]
        [--neural-queries 250] [--neural-depth 100] [--neural-epochs 2] [--json PATH]

Prints measured figures and ratios to stdout, progress to stderr. No asserts: it measures, it does not test.
Reuses the log/Timer/memory helpers and the synthetic-document generator of bench_gsr.py. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent
for _path in (str(_ROOT), str(_HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)


def _load_bench_gsr():
    spec = importlib.util.spec_from_file_location("bench_gsr", _HERE / "bench_gsr.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench_gsr = _load_bench_gsr()
log, Timer, mib = bench_gsr.log, bench_gsr.Timer, bench_gsr.mib
reset_peak_rss, rusage_maxrss_kib = bench_gsr.reset_peak_rss, bench_gsr.rusage_maxrss_kib
status_kib = bench_gsr._status_kib

LEXICAL_MODELS = ("bm25", "qld", "tfidf")
NEURAL_MODELS = ("drmm", "matchpyramid")


# ---------------------------------------------------------------------------------------------- memory

def _proc_kib(pid: int, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (Linux: /proc/PID/task/TID/children)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as handle:
                    kids = [int(x) for x in handle.read().split()]
            except OSError:
                continue
            found.extend(kids)
            todo.extend(kids)
    return found


class Phase:
    """Times a phase and records the memory peaks during it: this process (VmHWM after a reset) and its
    descendants (their VmHWM, sampled every `interval` s by a thread; a child's last moments can be missed)."""

    def __init__(self, label: str, interval: float = 0.1):
        self.timer = Timer(label)
        self.interval = interval
        self.child_peaks: dict[int, int] = {}

    def _sample(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self.interval):
            for pid in _descendants(me):
                kib = _proc_kib(pid, "VmHWM")
                if kib is not None and kib > self.child_peaks.get(pid, 0):
                    self.child_peaks[pid] = kib

    def __enter__(self):
        self.reset = reset_peak_rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        self.timer.__enter__()
        return self

    def __exit__(self, *exc):
        self.timer.__exit__(*exc)
        self._stop.set()
        self._thread.join()
        self.seconds = self.timer.seconds
        self.self_peak_kib = status_kib("VmHWM") if self.reset else None
        self.child_peak_kib = max(self.child_peaks.values(), default=None)
        self.children = len(self.child_peaks)

    def figures(self, prefix: str) -> dict:
        return {f"{prefix}_s": self.seconds, f"{prefix}_peak_rss_self_kib": self.self_peak_kib,
                f"{prefix}_peak_rss_child_kib": self.child_peak_kib, f"{prefix}_children": self.children}


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:,.2f} GiB"


# ---------------------------------------------------------------------------------------------- data

def write_collection(path: Path, words: list[str], n_docs: int, mean_words: int, rng: np.random.Generator,
                     zipf: float, chunk: int = 50_000) -> int:
    """Writes n_docs {"id", "contents"} lines with bench_gsr's generator, chunk by chunk (never all in memory)."""
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < n_docs:
            n = min(chunk, n_docs - written)
            docs = bench_gsr.generate_documents(words, n, mean_words, rng, exponent=zipf, chunk=chunk)
            out.write("".join(json.dumps({"id": f"doc{written + i:07d}", "contents": text}) + "\n"
                              for i, (_, text) in enumerate(docs)))
            written += n
            if n_docs > chunk:
                log(f"  written {written:,} / {n_docs:,} documents")
    return written


def synthetic_qrels(queries: dict[str, str], candidates: dict[str, list[tuple[str, float]]],
                    texts: dict[str, str], analyzer) -> dict[str, dict[str, int]]:
    """Grade 2 when a candidate holds every distinct query term, 1 when it holds at least half of them."""
    qrels: dict[str, dict[str, int]] = {}
    for qid, ranked in candidates.items():
        terms = set(analyzer.tokens(queries[qid]))
        if not terms:
            continue
        need = math.ceil(len(terms) / 2)
        judged = {}
        for docid, _ in ranked:
            found = len(terms & set(analyzer.tokens(texts[docid])))
            if found >= need:
                judged[docid] = 2 if found == len(terms) else 1
        if judged:
            qrels[qid] = judged
    return qrels


# ---------------------------------------------------------------------------------------------- embedding file

def write_word2vec_binary(path: Path, n_words: int, dim: int, seed: int, chunk: int = 100_000) -> int:
    """A word2vec binary file of n_words random float32 vectors ("w0000123 " + dim floats + newline), in chunks."""
    width = len(str(max(n_words - 1, 0)))
    record = np.dtype([("word", f"S{width + 2}"), ("vector", "<f4", (dim,)), ("newline", "S1")])
    rng = np.random.default_rng(seed)
    with open(path, "wb") as out:
        out.write(f"{n_words} {dim}\n".encode())
        for start in range(0, n_words, chunk):
            n = min(chunk, n_words - start)
            rows = np.empty(n, dtype=record)
            rows["word"] = np.char.encode(np.char.add(np.char.add("w", np.char.zfill(
                np.arange(start, start + n).astype(str), width)), " "), "ascii")
            rows["vector"] = rng.standard_normal((n, dim), dtype=np.float32)
            rows["newline"] = b"\n"
            rows.tofile(out)
    return path.stat().st_size


def _memory_snapshot() -> dict:
    return {field: status_kib(field) for field in ("VmHWM", "VmRSS", "RssAnon", "RssFile")}


def embedding_child(phase: str, path: str) -> int:
    """Run in a fresh process: 'baseline' (imports only), 'convert' (first load), 'mmap' (second load + 1% rows)."""
    started = time.perf_counter()
    from embeddings.loading import load_embedding  # noqa: F401  (imports gensim; counted in every phase)
    importlib.import_module("gensim.models")

    result: dict = {"phase": phase, "import_s": time.perf_counter() - started}
    if phase != "baseline":
        started = time.perf_counter()
        kv = load_embedding(path)
        result["load_s"] = time.perf_counter() - started
        result["words"] = len(kv.index_to_key)
        result["vectors_is_memmap"] = isinstance(kv.vectors, np.memmap) or isinstance(
            getattr(kv.vectors, "base", None), np.memmap)
        result["after_load"] = _memory_snapshot()
        if phase == "mmap":
            started = time.perf_counter()
            rng = np.random.default_rng(0)
            n = len(kv.index_to_key)
            rows = np.sort(rng.choice(n, size=max(1, n // 100), replace=False))
            total = 0.0
            for start in range(0, len(rows), 10_000):
                part = rows[start:start + 10_000]
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
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH")) if p)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--embedding-child", phase, str(path)],
                          env=env, capture_output=True, text=True)
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
            log(f"  {phase}: peak {mib(result['end']['VmHWM'])}, RSS {mib(result['end']['VmRSS'])} "
                f"(anon {mib(result['end']['RssAnon'])}, file {mib(result['end']['RssFile'])})")
        fig["embedding_cache_bytes"] = _dir_bytes(cache)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- neural

def neural(args, fig, queries, bm25_run, collection: Path, kv) -> None:
    import torch

    from experiments.collections import read_texts
    from gsr import default_analyzer
    from retrievers.neural import (LEARNING_RATES, build_ranking_data, model_inputs, new_model, rerank,
                                   sample_training_groups, train_ranker)

    analyzer = default_analyzer()
    qids = list(queries)[:args.neural_queries]
    candidates = {q: bm25_run[q][:args.neural_depth] for q in qids if bm25_run.get(q)}
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
            data = build_ranking_data({q: queries[q] for q in qids}, texts, candidates, qrels, kv, qids=qids,
                                      depth=args.neural_depth)
        fig.update(p.figures("neural_data"))
        fig["neural_pairs"] = int(len(data.pair_doc))
        scorable = list(data.query_pairs)
        cut = max(1, int(len(scorable) * 0.8))
        train_qids = scorable[:cut]
        for name in NEURAL_MODELS:
            with Phase(f"{name}: model_inputs") as p:
                inputs = model_inputs(name, data)
            fig.update(p.figures(f"{name}_inputs"))
            with Timer(f"{name}: warm-up (1 epoch on {min(5, len(train_qids))} queries, not measured)"):
                warm = new_model(name)
                train_ranker(warm, inputs, data, train_qids[:5], (), epochs=1, seed=args.seed,
                             learning_rate=LEARNING_RATES[name])
                rerank(warm, inputs, data, scorable[:5])
                del warm
            torch.manual_seed(args.seed)
            network = new_model(name)
            with Phase(f"{name}: train {args.neural_epochs} epoch(s) on {len(train_qids)} queries") as p:
                report = train_ranker(network, inputs, data, train_qids, (), epochs=args.neural_epochs,
                                      seed=args.seed, learning_rate=LEARNING_RATES[name])
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
    parser.add_argument("--docs", type=int, default=500_000, help="documents in the collection (500,000)")
    parser.add_argument("--queries", type=int, default=250, help="queries searched (250)")
    parser.add_argument("--depth", type=int, default=1000, help="documents retrieved per query (1000)")
    parser.add_argument("--words", type=int, default=150, help="mean words per document (150)")
    parser.add_argument("--threads", type=int, default=2,
                        help="Lucene threads, DocumentStats processes and torch threads (2)")
    parser.add_argument("--shard-size", type=int, default=10_000, help="documents per DocumentStats shard (10,000)")
    parser.add_argument("--vocab", type=int, default=50_000, help="words drawn from (50,000 most frequent)")
    parser.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent of word frequencies (1.0)")
    parser.add_argument("--embedding-words", type=int, default=3_000_000,
                        help="words of the synthetic word2vec file (3,000,000)")
    parser.add_argument("--embedding-dim", type=int, default=300, help="dimensions of that file (300)")
    parser.add_argument("--skip-embedding-file", action="store_true", help="leave out the embedding-file memory test")
    parser.add_argument("--neural-queries", type=int, default=250, help="queries re-ranked by DRMM/MatchPyramid (250)")
    parser.add_argument("--neural-depth", type=int, default=100, help="BM25 candidates re-ranked per query (100)")
    parser.add_argument("--neural-epochs", type=int, default=2, help="training epochs timed per model (2)")
    parser.add_argument("--skip-neural", action="store_true", help="leave out the neural re-rankers")
    parser.add_argument("--tmp-dir", help="folder for the collection, index and embedding file (system temp)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    args = parser.parse_args(argv)

    from embeddings import load_embedding
    from gsr import Analyzer, DocumentStats, default_analyzer
    from gsr.io import iter_documents
    from retrievers import lucene
    from retrievers.vector_average import VectorAverageRetriever as VectorRetriever

    fig: dict = {"args": vars(args), "python": platform.python_version(), "cpus": os.cpu_count(),
                 "gsr_cache": os.environ.get("GSR_CACHE")}
    rng = np.random.default_rng(args.seed)
    work = Path(tempfile.mkdtemp(prefix="gsr-bench-retrieval-", dir=args.tmp_dir))
    started = time.perf_counter()
    try:
        # ---- setup (not measured as part of any retriever)
        with Timer("load embedding glove-6b-50d") as t:
            kv = load_embedding("glove-6b-50d")
        fig["embedding_load_s"] = t.seconds
        words = bench_gsr.vocabulary(kv, args.vocab)
        collection = work / "collection.jsonl"
        with Timer(f"generate and write {args.docs:,} documents (~{args.words} words each)") as t:
            fig["n_docs"] = write_collection(collection, words, args.docs, args.words, rng, args.zipf)
        fig["generate_docs_s"] = t.seconds
        fig["collection_bytes"] = collection.stat().st_size
        queries = bench_gsr.generate_queries(words, args.queries, rng, default_analyzer())
        fig["rss_before_measures_kib"] = status_kib("VmRSS")

        # ---- indexing vs document statistics
        index_dir = work / "index"
        with Phase(f"Lucene build_index (threads={args.threads})") as p:
            lucene.build_index(collection, index_dir, threads=args.threads, progress=True)
        fig.update(p.figures("index"))
        fig["index_bytes"] = _dir_bytes(index_dir)
        fig["index_docs_per_s"] = fig["n_docs"] / fig["index_s"]
        with Phase(f"DocumentStats.build from the JSONL (n_jobs={args.threads})") as p:
            stats = DocumentStats.build(iter_documents(collection), Analyzer(), n_jobs=args.threads,
                                        shard_size=args.shard_size, progress=True)
        fig.update(p.figures("stats"))
        fig["stats_docs_per_s"] = len(stats) / fig["stats_s"]
        fig["stats_vs_index_speed"] = fig["stats_docs_per_s"] / fig["index_docs_per_s"]
        fig["stats_nnz"] = int(stats.counts.nnz)
        fig["stats_vocabulary"] = len(stats.vocabulary)

        # ---- lexical search
        with Phase("Lucene JVM start-up: bm25, 1 query, k=10") as p:
            lucene.search(index_dir, {"q": queries[next(iter(queries))]}, "bm25", k=10, threads=1, progress=False)
        fig.update(p.figures("jvm_startup"))
        runs = {}
        for model in LEXICAL_MODELS:
            with Phase(f"Lucene {model}: {len(queries)} queries x top {args.depth}") as p:
                runs[model] = lucene.search(index_dir, queries, model, k=args.depth, threads=args.threads,
                                            progress=False)
            fig.update(p.figures(f"search_{model}"))
            fig[f"search_{model}_qps"] = len(queries) / p.seconds
            net = p.seconds - fig["jvm_startup_s"]
            fig[f"search_{model}_qps_net"] = len(queries) / net if net > 0.1 else None  # None: within the noise
            fig[f"search_{model}_hits"] = sum(len(v) for v in runs[model].values())

        # ---- embedding retrievers
        for weighting in ("add", "si"):
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

    report(fig, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(fig, handle, indent=2, default=str)
        log(f"figures written to {args.json}")
    return 0


# ---------------------------------------------------------------------------------------------- report

def report(f: dict, a) -> None:
    Q, D = a.queries, a.depth

    def peaks(prefix: str) -> str:
        child = f.get(f"{prefix}_peak_rss_child_kib")
        return f"self {mib(f.get(f'{prefix}_peak_rss_self_kib'))}" + (f", child {mib(child)}" if child else "")

    rows: list[tuple[str, str, str]] = []  # (what, figure, peak memory)
    rows.append(("Lucene indexing", f"{f['index_s']:.1f} s = {f['index_docs_per_s']:,.0f} docs/s", peaks("index")))
    rows.append(("DocumentStats.build", f"{f['stats_s']:.1f} s = {f['stats_docs_per_s']:,.0f} docs/s",
                 peaks("stats")))
    rows.append(("  stats speed / indexing speed", f"{f['stats_vs_index_speed']:.2f}x "
                 f"({'not slower' if f['stats_vs_index_speed'] >= 1 else 'SLOWER'} than indexing)", ""))
    rows.append(("Lucene JVM start + 1 query", f"{f['jvm_startup_s']:.1f} s", peaks("jvm_startup")))
    for model in LEXICAL_MODELS:
        net = f[f"search_{model}_qps_net"]
        rows.append((f"{model} {Q} x top {D}", f"{f[f'search_{model}_s']:.1f} s = {f[f'search_{model}_qps']:.1f} q/s "
                     + (f"({net:.1f} q/s net of JVM start)" if net else "(net of JVM start: n/a)"),
                     peaks(f"search_{model}")))
    for w in ("add", "si"):
        rows.append((f"vector {w}: document vectors", f"{f[f'vector_{w}_build_s']:.1f} s", peaks(f"vector_{w}_build")))
        rows.append((f"vector {w}: {Q} x top {D}",
                     f"{f[f'vector_{w}_search_s']:.1f} s = {f[f'vector_{w}_qps']:.1f} q/s",
                     peaks(f"vector_{w}_search")))
    if "neural_skipped" not in f:
        rows.append(("neural inputs (tokenise candidates)", f"{f['neural_data_s']:.1f} s for {f['neural_pairs']:,} "
                     f"pairs ({f['neural_queries_with_relevant']}/{f['neural_queries']} queries with a relevant doc)",
                     peaks("neural_data")))
        for name in NEURAL_MODELS:
            rows.append((f"{name}: model inputs", f"{f[f'{name}_inputs_s']:.1f} s", peaks(f"{name}_inputs")))
            rows.append((f"{name}: training", f"{f[f'{name}_epoch_s']:.3f} s/epoch "
                         f"({f[f'{name}_train_groups_per_epoch']:,} training pairs/epoch)", peaks(f"{name}_train")))
            rows.append((f"{name}: re-ranking", f"{f[f'{name}_rerank_docs_per_s']:,.0f} docs/s "
                         f"({f[f'{name}_rerank_docs_per_s_with_inputs']:,.0f} with inputs)", peaks(f"{name}_rerank")))
    if "embedding_convert" in f:
        size = f["embedding_file_bytes"]
        base = f["embedding_baseline"]["end"]["VmHWM"] * 1024
        for phase, label in (("convert", "1st load (convert)"), ("mmap", "2nd load (mmap) + 1% rows")):
            r = f[f"embedding_{phase}"]
            peak, anon = r["end"]["VmHWM"] * 1024, r["end"]["RssAnon"] * 1024
            extra = f", touch {r['touch_s']:.1f} s" if phase == "mmap" else ""
            rows.append((f"{a.embedding_words:,}x{a.embedding_dim} {label}",
                         f"{r['load_s']:.1f} s{extra}; peak RSS / file {peak / size:.2f} "
                         f"({(peak - base) / size:.2f} above imports); anon RSS at end / file {anon / size:.2f}",
                         f"peak {gib(peak)}, file {gib(size)}"))
    else:
        rows.append(("embedding file", f"skipped: {f.get('embedding_skipped')}", ""))

    print()
    print(f"gsr-bench retrieval benchmark: {f['n_docs']:,} synthetic documents (~{a.words} words), {Q} queries x top "
          f"{D}, threads={a.threads}, {f['cpus']} CPUs, Python {f['python']}")
    print(f"collection {gib(f['collection_bytes'])}, Lucene index {gib(f['index_bytes'])}, "
          f"DocumentStats {f['stats_nnz']:,} doc-term pairs / {f['stats_vocabulary']:,} terms; "
          f"setup: generation {f['generate_docs_s']:.1f} s")
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
            print(f"  embedding child {phase:<8}: peak {mib(e['VmHWM'])}; at end RSS {mib(e['VmRSS'])} "
                  f"(anon {mib(e['RssAnon'])}, file-backed {mib(e['RssFile'])})"
                  + (f"; vectors memory-mapped: {r['vectors_is_memmap']}" if "vectors_is_memmap" in r else ""))
        print(f"  file {gib(f['embedding_file_bytes'])} written in {f['embedding_write_s']:.1f} s; "
              f"converted cache {gib(f['embedding_cache_bytes'])}")
    print(f"  peak RSS whole run: this process {mib(f['peak_rss_self_kib'])}, largest child (ru_maxrss) "
          f"{mib(f['peak_rss_children_kib'])}; total wall time {f['total_s']:.0f} s")
    print()
    print("Notes: 'self' peaks are this process's VmHWM after a reset at the start of each phase (so they include "
          "what it already held); 'child' peaks are the largest VmHWM of a child (Lucene's JVM worker, a pool "
          "worker), sampled every 0.1 s. Lucene times include the JVM start-up, the document check and the "
          "result transfer; 'net' subtracts the 1-query start-up time. Neural training excludes validation. "
          "File-backed RSS of a memory-mapped embedding is page cache (shared, reclaimable, and widened by kernel "
          "read-around); anonymous RSS is the memory the load itself needs.")


if __name__ == "__main__":
    sys.exit(main())
