"""Benchmark of the GSR pipeline on a synthetic collection: statistics build, scoring, and the naive approach.

    .venv/bin/python benchmarks/bench_gsr.py [--docs 500000] [--queries 250] [--depth 1000] [--words 150]
                                             [--jobs 2] [--naive-queries 25] [--seed 0] [--json PATH]

Prints measured figures and ratios to stdout, progress to stderr. No asserts: it measures, it does not test.
See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import sys
import time

import numpy as np

GENDERED_QUERY_WORDS = ("she", "he", "woman", "man", "mother", "father", "girl", "boy", "wife", "husband",
                        "actress", "actor", "queen", "king", "sister", "brother", "daughter", "son")

# Word variants (how a drawn word is written in the text) and their probabilities.
VARIANTS = (("{}", 0.86), ("{},", 0.06), ("{}.", 0.04), ("{}'s", 0.01), ("{}!", 0.005), ("{}?", 0.005),
            ("Title", 0.02))


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Timer:
    def __init__(self, label: str):
        self.label = label

    def __enter__(self):
        log(f"{self.label} ...")
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        log(f"{self.label}: {self.seconds:.2f} s")


# ---------------------------------------------------------------------------------------------- memory

def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset this process's high-water RSS mark (Linux: write 5 to /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def rusage_maxrss_kib(who) -> int:
    value = resource.getrusage(who).ru_maxrss
    return value // 1024 if sys.platform == "darwin" else value  # bytes on macOS, KiB on Linux


def mib(kib: int | None) -> str:
    return "n/a" if kib is None else f"{kib / 1024:,.0f} MiB"


# ---------------------------------------------------------------------------------------------- data

def vocabulary(kv, size: int) -> list[str]:
    """The `size` most frequent purely alphabetic words of the embedding (index_to_key is frequency-ordered)."""
    words = []
    for word in kv.index_to_key:
        if word.isascii() and word.isalpha():
            words.append(word)
            if len(words) == size:
                break
    return words


def zipf_probabilities(n: int, exponent: float) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    return p / p.sum()


def generate_documents(words: list[str], n_docs: int, mean_words: int, rng: np.random.Generator,
                       exponent: float = 1.0, chunk: int = 50_000) -> list[tuple[str, str]]:
    """n_docs (docid, text) pairs; Zipf-distributed words, some punctuation and capitals, vectorised by chunk."""
    V = len(words)
    cdf = np.cumsum(zipf_probabilities(V, exponent))
    cdf[-1] = 1.0
    forms = [v for v, _ in VARIANTS]
    table = []  # table[k * V + i] = word i written in variant k
    for form in forms:
        table.extend(w.title() for w in words) if form == "Title" else table.extend(form.format(w) for w in words)
    table = np.array(table, dtype=object)
    variant_cdf = np.cumsum([p for _, p in VARIANTS])
    variant_cdf /= variant_cdf[-1]
    low, high = max(1, mean_words // 2), mean_words + mean_words // 2  # uniform lengths, mean ≈ mean_words
    docs: list[tuple[str, str]] = []
    for start in range(0, n_docs, chunk):
        n = min(chunk, n_docs - start)
        lengths = rng.integers(low, high + 1, size=n)
        total = int(lengths.sum())
        ids = np.searchsorted(cdf, rng.random(total), side="right").astype(np.int64)
        ids += V * np.searchsorted(variant_cdf, rng.random(total), side="right").astype(np.int64)
        flat = table[ids].tolist()
        ends = np.cumsum(lengths).tolist()
        begin = 0
        join = " ".join
        for i, end in enumerate(ends):
            docs.append((f"doc{start + i:07d}", join(flat[begin:end])))
            begin = end
        if n_docs > chunk:
            log(f"  generated {len(docs):,} / {n_docs:,} documents")
    return docs


def generate_queries(words: list[str], n_queries: int, rng: np.random.Generator, analyzer) -> dict[str, str]:
    """2-4 word queries from mid-frequency non-stop words; a quarter contain one common gendered word."""
    stop = analyzer.stopwords
    pool = [w for w in words[100:20_000] if w not in stop and len(w) > 1]
    queries = {}
    for q in range(n_queries):
        k = int(rng.integers(2, 5))
        terms = [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]
        if rng.random() < 0.25:
            terms[int(rng.integers(k))] = GENDERED_QUERY_WORDS[int(rng.integers(len(GENDERED_QUERY_WORDS)))]
        queries[f"q{q:04d}"] = " ".join(terms)
    return queries


def generate_run(qids: list[str], docids: list[str], depth: int, rng: np.random.Generator):
    """qid -> [(docid, score), ...], best first: distinct random documents, strictly decreasing scores."""
    run = {}
    depth = min(depth, len(docids))
    for qid in qids:
        rows = rng.choice(len(docids), size=depth, replace=False)
        scores = (30.0 - np.cumsum(rng.exponential(0.01, size=depth) + 1e-6)).tolist()
        run[qid] = [(docids[r], s) for r, s in zip(rows.tolist(), scores)]
    return run


# ---------------------------------------------------------------------------------------------- naive

def naive_gsr(run, queries, qids, texts: dict[str, str], lex):
    """GSR as the original scripts computed it: re-tokenise every retrieved document for every query."""
    from gsr import default_analyzer
    from gsr.measure import gsr_slope, list_genderedness, query_genderedness, rank_discounts

    analyzer = default_analyzer()
    out = {}
    for qid in qids:
        terms = analyzer.tokens(queries[qid])
        g_query = query_genderedness(terms, lex)
        banned = {analyzer.inflection_class(t) for t in terms}
        values = []
        for docid, _score in run[qid]:
            known = []
            for token in analyzer.tokens(texts[docid]):
                if analyzer.inflection_class(token) in banned:
                    continue
                g = lex.get(token)
                if g is not None:
                    known.append(g)
            values.append(sum(known) / len(known) if known else math.nan)
        g_list = list_genderedness(values, rank_discounts(len(values)))
        out[qid] = (g_query, g_list)
    x = [out[q][0] for q in qids]
    y = [out[q][1] for q in qids]
    try:
        slope = gsr_slope(x, y)
    except Exception as err:  # too few queries, no variance
        slope = f"undefined ({err})"
    return out, slope


# ---------------------------------------------------------------------------------------------- main

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=500_000, help="documents in the collection (500,000)")
    parser.add_argument("--queries", type=int, default=250, help="queries in the run (250)")
    parser.add_argument("--depth", type=int, default=1000, help="documents retrieved per query (1000)")
    parser.add_argument("--words", type=int, default=150, help="mean words per document (150)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for DocumentStats.build (2)")
    parser.add_argument("--shard-size", type=int, default=10_000, help="documents per build shard (10,000)")
    parser.add_argument("--naive-queries", type=int, default=25,
                        help="queries the naive approach is timed on, extrapolated to --queries (25)")
    parser.add_argument("--vocab", type=int, default=50_000, help="words drawn from (50,000 most frequent)")
    parser.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent of word frequencies (1.0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    args = parser.parse_args(argv)

    from embeddings import load_embedding
    from embeddings import gender_lexicon
    from gsr import DocumentStats, default_analyzer
    from gsr.evaluate import measure_run
    from gsr.measure import gsr_slope

    fig: dict = {"args": vars(args), "python": platform.python_version(), "cpus": os.cpu_count()}
    rng = np.random.default_rng(args.seed)
    analyzer = default_analyzer()

    # ---- setup (not part of the measured pipeline)
    with Timer("load embedding glove-6b-50d") as t:
        kv = load_embedding("glove-6b-50d")
    fig["embedding_load_s"] = t.seconds
    words = vocabulary(kv, args.vocab)
    with Timer(f"generate {args.docs:,} documents (~{args.words} words each)") as t:
        docs = generate_documents(words, args.docs, args.words, rng, exponent=args.zipf)
    fig["generate_docs_s"] = t.seconds
    with Timer(f"generate {args.queries} queries and a {args.queries} x {args.depth} run") as t:
        queries = generate_queries(words, args.queries, rng, analyzer)
        qids = sorted(queries)
        run = generate_run(qids, [d for d, _ in docs], args.depth, rng)
    fig["generate_run_s"] = t.seconds
    fig["text_mib"] = sum(len(text) for _, text in docs) / 2**20
    fig["generation_peak_rss_kib"] = rusage_maxrss_kib(resource.RUSAGE_SELF)
    fig["rss_before_pipeline_kib"] = _status_kib("VmRSS")
    fig["peak_reset"] = reset_peak_rss()
    log(f"RSS after generation {mib(fig['rss_before_pipeline_kib'])} "
        f"(peak so far {mib(fig['generation_peak_rss_kib'])}); text {fig['text_mib']:,.0f} MiB")

    # ---- the fast pipeline
    with Timer(f"DocumentStats.build (n_jobs={args.jobs}, shard_size={args.shard_size:,})") as t:
        stats = DocumentStats.build(docs, n_jobs=args.jobs, shard_size=args.shard_size, progress=True)
    fig["build_s"] = t.seconds
    fig["build_peak_rss_self_kib"] = _status_kib("VmHWM")
    with Timer("gender_lexicon") as t:
        lex = gender_lexicon(kv)
    fig["lexicon_s"] = t.seconds
    with Timer("stats.gendered(lex)") as t:
        gendered = stats.gendered(lex)
    fig["gendered_s"] = t.seconds
    with Timer(f"measure_run {args.queries} x {args.depth} (first call)") as t:
        res = measure_run(run, queries, gendered)
    fig["score_s"] = t.seconds
    with Timer(f"measure_run {args.queries} x {args.depth} (again, warm)") as t:
        measure_run(run, queries, gendered)
    fig["score_warm_s"] = t.seconds
    fig["gsr"] = res.gsr
    fig["n_queries"] = res.n_queries
    fig["gsr_error"] = res.error
    fig["n_docs"] = len(stats)
    fig["n_tokens"] = int(stats.counts.data.sum())
    fig["n_postings"] = int(stats.counts.nnz)
    fig["vocabulary"] = len(stats.vocabulary)
    fig["known_tokens"] = float(gendered.doc_count.sum())

    # ---- the naive approach, on a subset of queries
    texts = dict(docs)  # the naive scripts look a document's text up by id; not timed
    n_naive = min(args.naive_queries, len(qids))
    naive_qids = qids[:n_naive]
    with Timer(f"naive scoring on {n_naive} queries x {args.depth}") as t:
        naive, naive_slope = naive_gsr(run, queries, naive_qids, texts, lex)
    fig["naive_queries"] = n_naive
    fig["naive_measured_s"] = t.seconds
    fig["naive_extrapolated_s"] = t.seconds / n_naive * len(qids) if n_naive else math.nan
    fast = {q.qid: q for q in res.per_query}
    diff_list = diff_query = 0.0
    mismatched = []
    for qid in naive_qids:
        g_query, g_list = naive[qid]
        for value, other, name in ((g_list, fast[qid].g_list, "list"), (g_query, fast[qid].g_query, "query")):
            a = math.nan if value is None else value
            b = math.nan if other is None else other
            if math.isnan(a) != math.isnan(b):
                mismatched.append(f"{qid}:{name}")
                continue
            if not math.isnan(a):
                if name == "list":
                    diff_list = max(diff_list, abs(a - b))
                else:
                    diff_query = max(diff_query, abs(a - b))
    fig["max_abs_diff_g_list"] = diff_list
    fig["max_abs_diff_g_query"] = diff_query
    fig["nan_mismatches"] = mismatched
    fig["naive_gsr_subset"] = naive_slope
    sub = [fast[q] for q in naive_qids]
    try:
        fig["fast_gsr_subset"] = gsr_slope([math.nan if q.g_query is None else q.g_query for q in sub],
                                           [math.nan if q.g_list is None else q.g_list for q in sub])
    except Exception as err:
        fig["fast_gsr_subset"] = f"undefined ({err})"

    # ---- memory
    fig["peak_rss_self_kib"] = rusage_maxrss_kib(resource.RUSAGE_SELF)
    fig["peak_rss_pipeline_kib"] = _status_kib("VmHWM") if fig["peak_reset"] else None
    fig["peak_rss_children_kib"] = rusage_maxrss_kib(resource.RUSAGE_CHILDREN)

    # ---- ratios
    fast_total = fig["build_s"] + fig["gendered_s"] + fig["score_s"]
    fig["fast_total_s"] = fast_total
    fig["docs_per_s"] = fig["n_docs"] / fig["build_s"]
    fig["speedup_scoring"] = fig["naive_extrapolated_s"] / fig["score_s"]
    fig["speedup_scoring_warm"] = fig["naive_extrapolated_s"] / fig["score_warm_s"]
    fig["speedup_vs_build_and_score"] = fig["naive_extrapolated_s"] / fast_total

    report(fig, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(fig, handle, indent=2, default=str)
        log(f"figures written to {args.json}")
    return 0


def report(f: dict, args) -> None:
    a = args
    Q, D = a.queries, a.depth
    print()
    print(f"gsr-bench benchmark: {f['n_docs']:,} synthetic documents, {Q} queries x {D} retrieved, "
          f"n_jobs={a.jobs}, {f['cpus']} CPUs, Python {f['python']}")
    print()
    print("Setup (not part of the measured pipeline)")
    print(f"  load embedding                 {f['embedding_load_s']:8.2f} s")
    print(f"  generate documents             {f['generate_docs_s']:8.2f} s   ({f['text_mib']:,.0f} MiB of text)")
    print(f"  generate queries + run         {f['generate_run_s']:8.2f} s")
    print()
    print("Fast pipeline (gsr.DocumentStats + measure_run)")
    print(f"  DocumentStats.build            {f['build_s']:8.2f} s   ({f['docs_per_s']:,.0f} docs/s)")
    print(f"  gender_lexicon                 {f['lexicon_s']:8.2f} s")
    print(f"  stats.gendered(lex)            {f['gendered_s']:8.2f} s")
    print(f"  {'measure_run %dx%d (1st call)' % (Q, D):<31}{f['score_s']:8.2f} s   (includes the inflection-class index)")
    print(f"  {'measure_run %dx%d (warm)' % (Q, D):<31}{f['score_warm_s']:8.2f} s")
    print(f"  GSR = {f['gsr']!r} over n_queries = {f['n_queries']}"
          + (f"  (error: {f['gsr_error']})" if f["gsr_error"] else ""))
    print()
    n = f["naive_queries"]
    print(f"Naive approach (re-tokenise each retrieved document per query), MEASURED ON {n} QUERIES ONLY")
    print(f"  {'measured on %d x %d' % (n, D):<31}{f['naive_measured_s']:8.2f} s")
    print(f"  {'EXTRAPOLATED linearly to %d' % Q:<31}{f['naive_extrapolated_s']:8.2f} s   "
          f"(= measured / {n} * {Q})")
    print(f"  max |g_q(L) naive - fast|      {f['max_abs_diff_g_list']:.3e}   "
          f"({'OK' if f['max_abs_diff_g_list'] <= 1e-9 and not f['nan_mismatches'] else 'DISAGREE'}: tolerance 1e-9)")
    print(f"  max |g(q) naive - fast|        {f['max_abs_diff_g_query']:.3e}")
    if f["nan_mismatches"]:
        print(f"  NaN in one but not the other:  {', '.join(f['nan_mismatches'])}")
    print(f"  GSR on those {n} queries: naive {f['naive_gsr_subset']!r}, fast {f['fast_gsr_subset']!r}")
    print()
    print("Summary")
    rows = [
        ("documents", f"{f['n_docs']:,}"),
        ("tokens (after stop words)", f"{f['n_tokens']:,}"),
        ("  of which in the embedding", f"{f['known_tokens']:,.0f}"),
        ("document-term pairs (nnz)", f"{f['n_postings']:,}"),
        ("vocabulary size", f"{f['vocabulary']:,}"),
        ("build time", f"{f['build_s']:.2f} s"),
        ("build throughput", f"{f['docs_per_s']:,.0f} docs/s"),
        ("lexicon fit", f"{f['lexicon_s']:.2f} s"),
        ("gendered sums", f"{f['gendered_s']:.2f} s"),
        (f"scoring {Q}x{D} (fast, 1st / warm)", f"{f['score_s']:.2f} s / {f['score_warm_s']:.2f} s"),
        (f"naive scoring {Q}x{D} (extrapolated from {n})", f"{f['naive_extrapolated_s']:.1f} s"),
        ("speed-up naive / fast scoring (1st / warm)",
         f"{f['speedup_scoring']:,.0f}x / {f['speedup_scoring_warm']:,.0f}x"),
        ("speed-up naive / (build + gendered + score)", f"{f['speedup_vs_build_and_score']:,.2f}x"),
        ("peak RSS, this process (ru_maxrss, whole run)", mib(f["peak_rss_self_kib"])),
        ("  of which generation phase peak", mib(f["generation_peak_rss_kib"])),
        ("peak RSS, this process, pipeline only (VmHWM)", mib(f["peak_rss_pipeline_kib"])),
        ("  RSS at pipeline start (data in memory)", mib(f["rss_before_pipeline_kib"])),
        ("peak RSS, largest pool worker (RUSAGE_CHILDREN)", mib(f["peak_rss_children_kib"])),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"  {key:<{width}}  {value}")
    print()
    print("Notes: the lexicon fit is needed by both approaches and is left out of the naive/fast ratios. "
          "RUSAGE_CHILDREN is the largest single worker's peak (not a sum); forked workers count pages "
          "shared with the parent.")


if __name__ == "__main__":
    sys.exit(main())
