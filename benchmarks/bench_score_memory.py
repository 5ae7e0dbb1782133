"""Memory and time of `gsr score` (GSR.evaluate on a documents file) against a collection far larger than the run.

    GSR_CACHE=/tmp/gsrcache .venv/bin/python benchmarks/bench_score_memory.py [--docs 5000000] [--queries 250]
        [--depth 1000] [--words 150] [--cutoff none] [--jobs 2] [--bound-mib 1536] [--plain] [--dir DIR]

It streams `--docs` generated documents into one gzip'd JSONL file (plain with --plain), never holding them (a file
already in --dir is reused), and writes a TREC run of `--queries` × `--depth` random documents, qrels of 10-150
relevant documents per query and the topics. Then, in this process and with the cache ($GSR_CACHE) as it finds it, it
lists the file (the one full read of a first use), scores the run as `gsr score --docs FILE --qrels QRELS` does (the
run, the perfect and the random engines: only their documents are read and tokenised), scores it again (statistics
from the cache) and with another seed (a new random draw: only the engines' part is read again). For each step it
prints the time and the peak RSS (VmHWM, reset before each step), then the listing's size, the largest worker
process's peak, and whether the peak stays under `--bound-mib`.
Figures go to stdout and progress to stderr; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import log, reset_peak_rss, status_kib, vocabulary


def write_documents(
    path: Path, words: list[str], n_docs: int, mean_words: int, rng, plain: bool, chunk: int = 20_000
) -> None:
    """n_docs documents doc0000000… of Zipf-drawn words, written chunk by chunk (never all in memory)."""
    p = 1.0 / np.arange(1, len(words) + 1)
    cdf = np.cumsum(p / p.sum())
    cdf[-1] = 1.0
    table = np.array(words, dtype=object)
    opener = open(path, "w", encoding="utf-8") if plain else gzip.open(path, "wt", encoding="utf-8", compresslevel=1)
    with opener as out:
        for start in range(0, n_docs, chunk):
            n = min(chunk, n_docs - start)
            lengths = rng.integers(mean_words // 2, mean_words + mean_words // 2 + 1, size=n)
            flat = table[np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right")].tolist()
            ends = np.cumsum(lengths).tolist()
            lines, begin = [], 0
            for i, end in enumerate(ends):
                lines.append(json.dumps({"id": f"doc{start + i:07d}", "contents": " ".join(flat[begin:end])}))
                begin = end
            out.write("\n".join(lines) + "\n")
            if (start // chunk) % 25 == 0:
                log(f"  wrote {start + n:,} / {n_docs:,} documents")


def write_run_topics_qrels(folder: Path, words: list[str], n_docs: int, n_queries: int, depth: int, rng) -> None:
    pool = words[200:20_000]
    with (
        open(folder / "topics.tsv", "w") as topics,
        open(folder / "run.txt", "w") as run,
        open(folder / "qrels.txt", "w") as qrels,
    ):
        for q in range(n_queries):
            qid = f"q{q:04d}"
            topics.write(f"{qid}\t{' '.join(pool[i] for i in rng.choice(len(pool), 3, replace=False))}\n")
            ranked = rng.choice(n_docs, size=depth, replace=False)
            run.writelines(f"{qid} Q0 doc{d:07d} {r + 1} {depth - r} bench\n" for r, d in enumerate(ranked))
            k = int(rng.integers(10, 151))  # relevant documents: some retrieved, some not
            relevant = np.concatenate(
                [ranked[rng.choice(depth, k // 2, replace=False)], rng.choice(n_docs, k - k // 2, replace=False)]
            )
            qrels.writelines(f"{qid} 0 doc{d:07d} 1\n" for d in dict.fromkeys(relevant.tolist()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=5_000_000)
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--words", type=int, default=150, help="mean words per document")
    parser.add_argument(
        "--cutoff",
        default="none",
        help="'none' (every retrieved document is measured) or 'relevant' (the paper's top-K)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--bound-mib", type=float, default=1536.0)
    parser.add_argument("--plain", action="store_true", help="plain JSONL instead of gzip'd")
    parser.add_argument("--dir", type=Path, help="folder for the generated files (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from gsr import GSR
    from gsr.documents.opening import open_documents
    from gsr.lexicon import gender_lexicon
    from gsr.vectors import load_embedding

    kv = load_embedding("glove-6b-50d")
    lexicon = gender_lexicon(kv, name="glove-6b-50d")
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench-score-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    docs = folder / ("documents.jsonl" if args.plain else "documents.jsonl.gz")
    words = vocabulary(kv, 50_000)
    started = time.perf_counter()
    if not docs.exists():  # a file from an earlier run with the same options is reused
        write_documents(docs, words, args.docs, args.words, np.random.default_rng(args.seed), args.plain)
    write_run_topics_qrels(folder, words, args.docs, args.queries, args.depth, np.random.default_rng(args.seed + 1))
    log(f"generated in {time.perf_counter() - started:.0f} s: {docs} ({docs.stat().st_size / 2**30:.2f} GiB)")
    del kv, words

    cutoff = None if args.cutoff == "none" else args.cutoff

    def score(seed: int):
        return GSR(lexicon, cutoff=cutoff, random_seed=seed).evaluate(
            folder / "run.txt", folder / "topics.tsv", docs, folder / "qrels.txt", n_jobs=args.jobs
        )

    rows = []
    for label, call in (
        ("listing pass (first use of the file)", lambda: open_documents(docs).count()),
        ("needed documents read, statistics built", lambda: score(0)),
        ("same run again (statistics cached)", lambda: score(0)),
        ("another random draw (engines' part rebuilt)", lambda: score(1)),
    ):
        reset_peak_rss()
        before = status_kib("VmRSS")
        started = time.perf_counter()
        result = call()
        seconds = time.perf_counter() - started
        peak = status_kib("VmHWM")
        rows.append((label, seconds, before, peak, result))
        log(f"{label}: {seconds:.1f} s, peak RSS {peak / 1024:,.0f} MiB")
    listing = open_documents(docs).listing()
    listing_bytes = sum(a.nbytes for a in (listing.ids, listing.files, listing.offsets))
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss

    print(
        f"# gsr score memory: {args.docs:,} documents ({'plain' if args.plain else 'gzip'} JSONL, "
        f"{docs.stat().st_size / 2**30:.2f} GiB), run {args.queries} × {args.depth}, cutoff {args.cutoff}, "
        f"{args.jobs} job(s), {os.cpu_count()} cores"
    )
    print(f"{'step':<44} {'seconds':>8} {'RSS before':>11} {'peak RSS':>9}  {'GSR':>8} {'perfect':>8} {'random':>8}")
    for label, seconds, before, peak, report in rows:
        gsr = (
            ""
            if isinstance(report, int)
            else f"{report.system.gsr:>+8.5f} {report.perfect.gsr:>+8.5f} {report.random.gsr:>+8.5f}"
        )
        print(f"{label:<44} {seconds:>8.1f} {before / 1024:>7,.0f} MiB {peak / 1024:>5,.0f} MiB  {gsr}")
    first = rows[1][4]
    print(
        f"documents measured: {sum(q.n_docs for q in first.system.per_query):,} retrieved, "
        f"{sum(q.n_docs for q in first.random.per_query):,} drawn by the random engine"
    )
    print(
        f"listing (ids, files, offsets; memory-mapped): {listing_bytes / 2**20:,.0f} MiB, "
        f"{listing_bytes / args.docs:.1f} bytes per document"
    )
    print(f"largest worker process peak RSS: {children / 1024:,.0f} MiB")
    worst = max(peak for _, _, _, peak, _ in rows) / 1024
    print(
        f"peak RSS {worst:,.0f} MiB {'≤' if worst <= args.bound_mib else '>'} bound {args.bound_mib:,.0f} MiB: "
        f"{'within' if worst <= args.bound_mib else 'OVER'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
