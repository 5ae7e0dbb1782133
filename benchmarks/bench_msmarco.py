"""`gsr score` at MS MARCO's size beside `python -m ir_measures` on the same files (issue 29): wall time and peak RSS;
and what FaiRR/NFaiRR adds to GSR + RaB/ARaB (issue 38).

    .venv/bin/python benchmarks/bench_msmarco.py [--passages 8800000] [--queries 6980] [--depth 1000] [--words 55]
        [--folder DIR] [--cache DIR] [--skip-cold] [--skip-fairr] [--against REF] [--repeat N] [--json PATH]

It writes, in MS MARCO's layout, `--passages` passages (collection.tsv, 'pid<TAB>text' lines of about `--words`
Zipf-drawn GloVe words, the gendered ones among them, with some punctuation and capitals), `--queries` queries
(queries.tsv, 'qid<TAB>text'), one relevant passage per query (qrels.txt, 'qid 0 pid 1'; four in five retrieved)
and a dev-size run of `--depth` passages per query (run.txt, 'qid Q0 pid rank score tag', scores with four
decimals, so a few ties). A folder holding files made with the same options is reused (params.json).

Then, each as a separate process, one at a time: (a) `python -m ir_measures QRELS RUN 'RR@10 nDCG@10'`; (b) `gsr
score --run RUN --topics QUERIES --docs COLLECTION --qrels QRELS --cutoff 10 --measures RR@10,nDCG@10` with the
collection's cache entries removed first (its first use: the listing pass over the whole collection; skipped with
--skip-cold); (c) the same command again (the collection's listing reused from the cache, $GSR_CACHE = --cache). For
each it prints the wall time, the CPU time of its process tree, the peak RSS of its largest process (/usr/bin/time
-v, else getrusage) and of its whole process tree (sampled), and the ratio of each gsr score time to ir_measures',
with the load average before and after.

Then (unless --skip-fairr), in one more process with the run read once (its reading is shared with gsr score, so
it is timed apart): RaB/ARaB@10 of every query (Rekabsaz & Schedl's tf magnitudes: the texts of the run's top 10
read and counted), then FaiRR/NFaiRR at the paper's cut-offs 5, 10, 20, 50 with the run's own top 200 per query as
the background set (the texts of those documents read and their representative words counted), first with the
word-count cache entries removed, then again (reused). It prints each time and the ratio of FaiRR/NFaiRR's to gsr
score's (first use and again) plus RaB/ARaB's: what NFaiRR adds to GSR + RaB/ARaB (the target is ≤ 0.25), by wall
time and by CPU time (each process's and its workers': the machine's load moves it far less). With --against REF the
same process times the gsr package of a git ref (exported into a temporary folder) after this code's, and with
--repeat N the gsr score timings and both processes run N rounds, one after the other, so that a change of the
machine's load reaches both sides and each round's ratio is its own; the medians over the rounds close the table.
Figures go to stdout and progress to stderr; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import (
    GENDERED_QUERY_WORDS,
    PROJECT_ROOT,
    VARIANTS,
    Phase,
    Timer,
    code_at,
    load_text,
    log,
    machine,
    vocabulary,
    write_json,
    zipf_probabilities,
)

FORMAT = 1  # bump when the generated files change for the same options
MEASURES = ("RR@10", "nDCG@10")
CUTOFF = "10"
# gendered words every collection holds (besides those GloVe's frequent words bring): g(d) is not trivial
GENDERED_WORDS = (*GENDERED_QUERY_WORDS, "nurse", "engineer", "her", "his", "him", "hers", "women", "men", "mom", "dad")
INVERSE_BITS = 20  # words drawn through an inverse-CDF table of 2**20 entries (one gather instead of a search)
FILES = {"collection": "collection.tsv", "queries": "queries.tsv", "qrels": "qrels.txt", "run": "run.txt"}


# ---------------------------------------------------------------------------------------------- the workload


def inverse_table(probabilities: np.ndarray, bits: int) -> np.ndarray:
    """table[u] = the item whose CDF interval holds (u + 0.5) / 2**bits: a uniform u in [0, 2**bits) draws an item."""
    cdf = np.cumsum(probabilities)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, (np.arange(2**bits) + 0.5) / 2**bits, side="right").astype(np.int32)


def word_forms(words: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(every word in every variant as UTF-8 bytes followed by a space, flat; each form's start; its length; the
    variants' draw table). Form k * V + i is word i in variant k."""
    forms = [
        (w.title() if form == "Title" else form.format(w)).encode("utf-8") + b" " for form, _ in VARIANTS for w in words
    ]
    lengths = np.array([len(f) for f in forms], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    flat = np.frombuffer(b"".join(forms), dtype=np.uint8)
    variants = inverse_table(np.array([p for _, p in VARIANTS]) / sum(p for _, p in VARIANTS), 10)
    return flat, starts, lengths, variants


def write_passages(path: Path, words: list[str], n: int, mean_words: int, seed: int, chunk: int = 100_000) -> None:
    """`n` 'pid<TAB>text' lines (pids 0 … n-1), vectorised by chunk: each chunk's words are drawn as form numbers
    and their bytes gathered from the flat forms in one numpy indexing."""
    rng = np.random.default_rng(seed)
    words_of = inverse_table(zipf_probabilities(len(words), 1.0), INVERSE_BITS)
    flat, starts, lengths, variants = word_forms(words)
    low, high = max(1, mean_words // 2), mean_words + mean_words // 2
    started = time.perf_counter()
    with open(path, "wb") as out:
        for first in range(0, n, chunk):
            size = min(chunk, n - first)
            per_doc = rng.integers(low, high + 1, size=size)
            forms = words_of[rng.integers(0, 2**INVERSE_BITS, size=int(per_doc.sum()))].astype(np.int64)
            forms += len(words) * variants[rng.integers(0, 1024, size=len(forms))]
            width = lengths[forms]
            ends = np.cumsum(width)
            gather = np.repeat(starts[forms] - (ends - width), width) + np.arange(int(ends[-1]))
            text = flat[gather]
            doc_ends = ends[np.cumsum(per_doc) - 1]
            text[doc_ends - 1] = ord("\n")  # each passage's last space ends its line
            data, begin = memoryview(text.tobytes()), 0
            parts: list[bytes | memoryview] = []
            for pid, end in enumerate(doc_ends.tolist(), start=first):
                parts.append(b"%d\t" % pid)
                parts.append(data[begin:end])
                begin = end
            out.write(b"".join(parts))
            if (first // chunk) % 10 == 9 or first + size == n:
                rate = (first + size) / (time.perf_counter() - started)
                log(f"  wrote {first + size:,} / {n:,} passages ({rate:,.0f} a second)")


def write_topics_qrels_run(folder: Path, words: list[str], args, stop: set[str]) -> None:
    """Queries of 3-6 words (half with one gendered word), one relevant passage each (retrieved at a rank drawn
    near the top for four queries in five), and the run: `--depth` distinct passages per query, scores falling
    from 25 with four decimals."""
    rng = np.random.default_rng(args.seed + 1)
    pool = [w for w in words[50:8_000] if w not in stop]
    qids = np.sort(rng.choice(np.arange(1_000, 1_000_000), size=args.queries, replace=False)).tolist()
    depth = min(args.depth, args.passages)
    with (
        open(folder / FILES["queries"], "w", encoding="utf-8") as queries,
        open(folder / FILES["qrels"], "w", encoding="utf-8") as qrels,
        open(folder / FILES["run"], "w", encoding="utf-8") as run,
    ):
        for number, qid in enumerate(qids):
            k = int(rng.integers(3, 7))
            terms = [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]
            if rng.random() < 0.5:
                terms[int(rng.integers(k))] = GENDERED_WORDS[int(rng.integers(len(GENDERED_WORDS)))]
            queries.write(f"{qid}\t{' '.join(terms)}\n")
            ranked = rng.choice(args.passages, size=depth, replace=False)
            if rng.random() < 0.8:
                relevant = int(ranked[min(depth - 1, int(rng.exponential(40)))])
            else:
                relevant = int(rng.integers(args.passages))
            qrels.write(f"{qid} 0 {relevant} 1\n")
            scores = 25.0 - np.cumsum(rng.exponential(0.01, size=depth))
            run.write(
                "".join(
                    f"{qid} Q0 {pid} {rank} {score:.4f} bench\n"
                    for rank, (pid, score) in enumerate(zip(ranked.tolist(), scores.tolist()), start=1)
                )
            )
            if number % 1000 == 999:
                log(f"  run of {number + 1:,} / {len(qids):,} queries written")


def workload(args) -> dict[str, Path]:
    """The folder's files, generated unless a params.json says they were made with these options."""
    folder = args.folder
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {
        "format": FORMAT,
        **{k: getattr(args, k) for k in ("passages", "queries", "depth", "words", "vocab", "seed")},
    }
    paths = {key: folder / name for key, name in FILES.items()}
    stamp = folder / "params.json"
    if stamp.exists() and json.loads(stamp.read_text()) == wanted and all(p.exists() for p in paths.values()):
        log(f"reusing the workload in {folder}")
        return paths
    stamp.unlink(missing_ok=True)
    from gsr.text.analyzer import default_analyzer
    from gsr.vectors import load_embedding

    kv = load_embedding("glove-6b-50d")
    words = vocabulary(kv, args.vocab)
    words += [w for w in GENDERED_WORDS if w not in set(words)]
    del kv
    started = time.perf_counter()
    write_passages(paths["collection"], words, args.passages, args.words, args.seed)
    write_topics_qrels_run(folder, words, args, set(default_analyzer().stopwords or ()))
    stamp.write_text(json.dumps(wanted))  # last: an interrupted generation is made again
    size = paths["collection"].stat().st_size
    log(f"workload generated in {time.perf_counter() - started:.0f} s: collection {size / 2**30:.2f} GiB")
    return paths


# ---------------------------------------------------------------------------------------------- measuring


def measured(label: str, command: list[str], env: dict, log_to: Path) -> dict:
    """Wall time, CPU time (the process tree's user + system), peak RSS of the largest process and of the process
    tree, and the exit status of `command`."""
    timed = shutil.which("time") and Path("/usr/bin/time").exists()
    report = log_to.with_suffix(".time")
    full = ["/usr/bin/time", "-v", "-o", str(report), *command] if timed else command
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu_before = children_cpu_seconds()
    with Phase(label) as phase, open(log_to, "w") as output:
        status = subprocess.run(full, cwd=PROJECT_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT).returncode
    cpu = children_cpu_seconds() - cpu_before  # the command's and its workers' (each counted once waited for)
    peak_kib = None
    if timed and report.exists():
        found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report.read_text())
        peak_kib = int(found.group(1)) if found else None
    if peak_kib is None:  # the children's high-water mark: meaningful when it grew (one child at a time)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        peak_kib = after if after > before else None
    if status != 0:
        log(f"{label}: exit status {status}; its output is in {log_to}")
    return {
        "s": phase.seconds,
        "cpu_s": cpu,
        "peak_rss_kib": peak_kib,
        "tree_peak_rss_kib": phase.tree_peak_kib,
        "status": status,
    }


def gib(kib) -> str:
    return "n/a" if not kib else f"{kib / 2**20:.2f} GiB"


def children_cpu_seconds() -> float:
    """CPU time (user + system) of this process's children that have ended, their own ended children included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its children that have ended (worker processes included)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class Step(Timer):
    """A Timer that also records the CPU time the step took (this process and its ended children): a figure the
    machine's load moves far less than the wall time."""

    def __enter__(self):
        self.cpu_start = cpu_seconds()
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self.cpu = cpu_seconds() - self.cpu_start


def bias_child(folder: Path, code: Path) -> None:
    """The FaiRR/NFaiRR and RaB/ARaB timings of the gsr package in `code`, in this process; the figures as one JSON
    line on stdout."""
    import shutil as shell

    sys.path.insert(0, str(code))  # before gsr is first imported: this script measures the code of either side
    import gsr
    from gsr.documents.opening import open_documents
    from gsr.fairness.evaluate import BiasMeasures, BiasSettings
    from gsr.fairness.fairr_runs import FaiRRMeasures
    from gsr.fairness.labels import gendered_word_counts
    from gsr.infra.store import cache_dir
    from gsr.io.run_arrays import read_run_arrays
    from gsr.io.topics import read_queries

    paths = {key: folder / name for key, name in FILES.items()}
    figures, cpu = {}, {}
    with Step("read the run") as step:
        arrays = read_run_arrays(paths["run"])
        run = arrays.as_run()
    figures["run read"], cpu["run read"] = step.seconds, step.cpu
    qids = sorted(set(read_queries(paths["queries"])) & set(run))
    documents = open_documents(paths["collection"])  # one source for both, as gsr bias opens it: hashed once
    with Step("RaB/ARaB@10") as step:
        top = {q: run[q][:10] for q in qids}  # RaB reads the top 10 only (a list is in trec_eval's order)
        mentions = gendered_word_counts(documents, None, wanted={d for r in top.values() for d, _ in r})
        rab = BiasMeasures(None, BiasSettings(k=10), mentions).evaluate(top, None, qids).measures
    figures["RaB/ARaB@10"], cpu["RaB/ARaB@10"] = step.seconds, step.cpu
    shell.rmtree(cache_dir() / "document-group-counts", ignore_errors=True)
    measures = FaiRRMeasures(documents)
    with Step("FaiRR/NFaiRR, first use") as step:
        first = measures.evaluate(arrays, query_ids=qids)
    figures["FaiRR/NFaiRR (first use)"], cpu["FaiRR/NFaiRR (first use)"] = step.seconds, step.cpu
    with Step("FaiRR/NFaiRR, again") as step:
        again = measures.evaluate(arrays, query_ids=qids)
    figures["FaiRR/NFaiRR (again)"], cpu["FaiRR/NFaiRR (again)"] = step.seconds, step.cpu
    values = {"ARaB@10": rab["ARaB@10"], **{k: v for k, v in first.measures().items() if k.startswith("NFaiRR@")}}
    same = first.measures() == again.measures()
    print(json.dumps({"seconds": figures, "cpu": cpu, "values": values, "same": same, "gsr": gsr.__file__}))


def bias_figures(python: str, env: dict, folder: Path, code: Path, label: str) -> dict | None:
    """bias_child of the gsr package in `code` in its own process: its figures, the process's peak RSS and the load
    average after it; None if it failed."""
    out = folder / f"bias-{re.sub(r'[^A-Za-z0-9]+', '-', label)}.out"
    child = [python, str(Path(__file__).resolve()), "--bias-child", "--folder", str(folder), "--code", str(code)]
    result = measured(f"FaiRR/NFaiRR and RaB/ARaB, {label}", child, env, out)
    lines = [line for line in out.read_text().splitlines() if line.startswith("{")]
    if result["status"] != 0 or not lines:
        print(f"FaiRR/NFaiRR timings of {label} failed (status {result['status']}): see {out}")
        return None
    return {**json.loads(lines[-1]), "peak_rss_kib": result["peak_rss_kib"], "load_after": os.getloadavg()[0]}


def fairr_rounds(rounds: list[dict], sides: list[str]) -> None:
    """Print every round's FaiRR/NFaiRR times beside its gsr score times, and what FaiRR/NFaiRR adds: by wall time
    and by CPU time (the load moves the latter far less), with the median over the rounds."""
    print("\n# FaiRR/NFaiRR@5,10,20,50 (background: the run's own top 200 per query) beside GSR and RaB/ARaB@10")
    print(
        f"{'round':<6}{'code':<14}{'gsr first':>10}{'gsr again':>10}{'RaB/ARaB':>9}{'FaiRR first':>12}"
        f"{'FaiRR again':>12}{'adds first':>11}{'adds again':>11}{'CPU: adds first':>16}{'load':>6}"
    )
    for number, round_ in enumerate(rounds, start=1):
        cold, warm = round_.get("gsr score (first use)"), round_["gsr score (again)"]
        for side in sides:
            found = round_["fairr"].get(side)
            if found is None:
                continue
            seconds, cpu = found["seconds"], found.get("cpu", {})
            for use, score in (("first use", cold), ("again", warm)):
                if score is not None:
                    added = seconds[f"FaiRR/NFaiRR ({use})"]
                    found[f"ratio ({use})"] = added / (score["s"] + seconds["RaB/ARaB@10"])
                    if cpu:
                        found[f"cpu ratio ({use})"] = cpu[f"FaiRR/NFaiRR ({use})"] / (
                            score["cpu_s"] + cpu["RaB/ARaB@10"]
                        )
            print(
                f"{number:<6}{side[:13]:<14}{cold['s'] if cold else float('nan'):>10.1f}{warm['s']:>10.1f}"
                f"{seconds['RaB/ARaB@10']:>9.1f}{seconds['FaiRR/NFaiRR (first use)']:>12.1f}"
                f"{seconds['FaiRR/NFaiRR (again)']:>12.1f}{found.get('ratio (first use)', float('nan')):>11.0%}"
                f"{found['ratio (again)']:>11.0%}{found.get('cpu ratio (first use)', float('nan')):>16.0%}"
                f"{found['load_after']:>6.1f}"
            )
    print(
        "(seconds of wall time; adds: FaiRR/NFaiRR's time over gsr score's plus RaB/ARaB's of the same round, CPU: the"
        " same with the CPU seconds of each process and its workers; load: 1 min, after it)"
    )
    for side in sides:
        done = [r["fairr"][side] for r in rounds if r["fairr"].get(side)]
        for key, name in (("ratio (first use)", "wall"), ("cpu ratio (first use)", "CPU")):
            ratios = [found[key] for found in done if key in found]
            if ratios:
                print(f"{side}: first use adds {float(np.median(ratios)):.0%} by {name} time (median of {len(ratios)})")
        for found in done[:1]:
            print(f"{side}: values {found['values']}; first use and again equal: {found['same']} ({found['gsr']})")
            print(f"{side}: peak RSS of its process {gib(found['peak_rss_kib'])}")
    if len(sides) == 2:
        pairs = [(r["fairr"].get(sides[0]), r["fairr"].get(sides[1])) for r in rounds]
        ratios = [
            mine["seconds"]["FaiRR/NFaiRR (first use)"] / theirs["seconds"]["FaiRR/NFaiRR (first use)"]
            for mine, theirs in pairs
            if mine and theirs
        ]
        same = all(mine["values"] == theirs["values"] for mine, theirs in pairs if mine and theirs)
        print(
            f"FaiRR/NFaiRR first use, {sides[0]} / {sides[1]} in the same round: "
            f"{', '.join(f'{r:.2f}×' for r in ratios)}; the same values: {same}"
        )


def gsr_timings(gsr: list[str], env: dict, args, cache: Path, number: int) -> dict[str, dict]:
    """`gsr score` with the collection's cache entries removed (unless --skip-cold), then again."""
    timings = {}
    if not args.skip_cold:
        for entry in ("document-listings", "document-stats", "document-offsets"):
            shutil.rmtree(cache / entry, ignore_errors=True)
        timings["gsr score (first use)"] = measured(
            "gsr score, first use", gsr, env, args.folder / f"gsr-cold-{number}.out"
        )
    timings["gsr score (again)"] = measured("gsr score, again", gsr, env, args.folder / f"gsr-warm-{number}.out")
    return timings


def fairr_timings(python: str, env: dict, args, cache: Path, gsr: list[str], figures: dict) -> list[dict]:
    """--repeat rounds, each of gsr score (the first round's: `figures`) then bias_child of this code and of the code
    at --against (exported into a temporary folder), one after the other."""
    sides = {"this code": PROJECT_ROOT}
    with tempfile.TemporaryDirectory(prefix="bench-msmarco-code-") as scratch:
        if args.against:
            sides[args.against] = code_at(args.against, Path(scratch) / "reference")
        rounds = []
        for number in range(1, args.repeat + 1):
            round_ = {key: figures[key] for key in ("gsr score (first use)", "gsr score (again)") if key in figures}
            if number > 1:
                round_ = gsr_timings(gsr, env, args, cache, number)
            round_["fairr"] = {side: bias_figures(python, env, args.folder, code, side) for side, code in sides.items()}
            rounds.append(round_)
    return rounds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=8_800_000, help="passages in collection.tsv (8,800,000)")
    parser.add_argument("--queries", type=int, default=6980, help="queries (6,980: MS MARCO's small dev set)")
    parser.add_argument("--depth", type=int, default=1000, help="passages per query in the run (1000)")
    parser.add_argument("--words", type=int, default=55, help="mean words per passage (55)")
    parser.add_argument("--vocab", type=int, default=20_000, help="GloVe's most frequent words drawn from (20,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folder", type=Path, help="where the workload is (default: a new temporary folder)")
    parser.add_argument("--cache", type=Path, help="$GSR_CACHE of the gsr score runs (default: FOLDER/gsr-cache)")
    parser.add_argument("--skip-cold", action="store_true", help="do not time gsr score's first use of the collection")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    parser.add_argument("--skip-fairr", action="store_true", help="do not time FaiRR/NFaiRR and RaB/ARaB")
    parser.add_argument("--against", metavar="REF", help="also time FaiRR/NFaiRR of the code at this git ref")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of gsr score and FaiRR/NFaiRR timings (1)")
    parser.add_argument("--bias-child", action="store_true", help=argparse.SUPPRESS)  # the timing process itself
    parser.add_argument("--code", type=Path, default=PROJECT_ROOT, help=argparse.SUPPRESS)  # whose gsr it times
    args = parser.parse_args()
    if args.bias_child:
        bias_child(args.folder, args.code)
        return 0
    args.folder = args.folder or Path(tempfile.mkdtemp(prefix="bench-msmarco-"))
    cache = args.cache or args.folder / "gsr-cache"
    paths = workload(args)
    env = {**os.environ, "GSR_CACHE": str(cache), "PYTHONPATH": str(PROJECT_ROOT)}
    python = sys.executable
    # the lexicon of the default embedding is built once beforehand: every timed gsr score finds it cached
    subprocess.run(
        [python, "-c", "from gsr.lexicon_cache import cached_lexicon; cached_lexicon('glove-6b-50d', None)"],
        cwd=PROJECT_ROOT,
        env=env,
        check=True,
    )
    gsr = [python, "-m", "experiments.cli", "score", "--run", str(paths["run"]), "--topics", str(paths["queries"])]
    gsr += ["--docs", str(paths["collection"]), "--qrels", str(paths["qrels"]), "--cutoff", CUTOFF]
    gsr += ["--measures", ",".join(MEASURES)]
    load_before = os.getloadavg()
    log(load_text())
    figures: dict[str, dict] = {}
    figures["ir_measures"] = measured(
        "python -m ir_measures",
        [python, "-m", "ir_measures", str(paths["qrels"]), str(paths["run"]), " ".join(MEASURES)],
        env,
        args.folder / "ir_measures.out",
    )
    figures.update(gsr_timings(gsr, env, args, cache, 1))
    load_after = os.getloadavg()
    anchor = figures["ir_measures"]
    for figure in figures.values():
        figure["ratio"] = figure["s"] / anchor["s"]
    print(
        f"# MS MARCO scale: {args.passages:,} passages "
        f"({paths['collection'].stat().st_size / 2**30:.2f} GiB), run {args.queries:,} × {args.depth:,}, "
        f"--cutoff {CUTOFF} --measures {','.join(MEASURES)}; {os.cpu_count()} CPUs"
    )
    print(
        f"{'command':<24} {'seconds':>8} {'× ir_measures':>14} {'CPU s':>7} {'peak RSS':>10} {'tree peak':>10}  status"
    )
    for name, figure in figures.items():
        print(
            f"{name:<24} {figure['s']:>8.1f} {figure['ratio']:>14.2f} {figure['cpu_s']:>7.1f} "
            f"{gib(figure['peak_rss_kib']):>10} {gib(figure['tree_peak_rss_kib']):>10}  {figure['status']}"
        )
    print(f"ir_measures printed: {' '.join((args.folder / 'ir_measures.out').read_text().split())}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min), {load_text()}")
    if not args.skip_fairr:
        rounds = fairr_timings(python, env, args, cache, gsr, figures)
        fairr_rounds(rounds, [side for side in rounds[0]["fairr"]])
        figures["rounds"] = rounds  # type: ignore[assignment]
        print(f"load average after FaiRR/NFaiRR {os.getloadavg()[0]:.2f} (1 min)")
    if args.json:
        write_json(
            {"benchmark": "msmarco", "options": vars(args) | {"cache": cache}, "machine": machine(), **figures},
            args.json,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
