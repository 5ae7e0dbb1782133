"""What the benchmarks share: progress lines and timers, memory readings, the machine's load, and the synthetic
collection, queries, qrels, runs and embedding files they measure on (seeded, so every benchmark sees the same
data for the same arguments).

Importing it puts the project folder first on sys.path, so a benchmark run as `python benchmarks/NAME.py`
measures the code beside it, not another installed copy.
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parents[1]
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

GENDERED_QUERY_WORDS = (
    "she",
    "he",
    "woman",
    "man",
    "mother",
    "father",
    "girl",
    "boy",
    "wife",
    "husband",
    "actress",
    "actor",
    "queen",
    "king",
    "sister",
    "brother",
    "daughter",
    "son",
)

# Word variants (how a drawn word is written in the text) and their probabilities.
VARIANTS = (("{}", 0.86), ("{},", 0.06), ("{}.", 0.04), ("{}'s", 0.01), ("{}!", 0.005), ("{}?", 0.005), ("Title", 0.02))


# ---------------------------------------------------------------------------------------------- progress, timing


def log(message: str) -> None:
    """A time-stamped progress line on stderr (figures go to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Timer:
    """`with Timer(label) as t:` logs the start and the end of a step; t.seconds is its wall time."""

    def __init__(self, label: str):
        self.label = label

    def __enter__(self):
        log(f"{self.label} ...")
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        log(f"{self.label}: {self.seconds:.2f} s")


def machine() -> dict:
    """CPUs, Python and the load averages (1, 5, 15 min): timings on a shared machine depend on the load."""
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "load": list(os.getloadavg())}


def cpu_loop_seconds(iterations: int = 5_000_000) -> float:
    """Seconds one core takes for a fixed pure-Python loop: how fast the machine is right now. On a shared virtual
    machine it moved by a third within minutes (2.6-4.7 s for four times this loop), so timings carry it."""
    started = time.perf_counter()
    total = 0
    for i in range(iterations):
        total += i * i
    return time.perf_counter() - started


def code_at(ref: str, folder: Path) -> Path:
    """The project's files at git `ref`, exported into `folder` (git archive: no worktree to register or remove)."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=PROJECT_ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def collection_arguments(parser, docs: int, queries: int = 250) -> None:
    """The options every benchmark's synthetic collection takes: --docs, --queries, --words, --vocab, --zipf,
    --seed and --json."""
    parser.add_argument("--docs", type=int, default=docs, help=f"documents in the collection ({docs:,})")
    parser.add_argument("--queries", type=int, default=queries, help=f"queries ({queries})")
    parser.add_argument("--words", type=int, default=150, help="mean words per document (150)")
    parser.add_argument("--vocab", type=int, default=50_000, help="words drawn from (the 50,000 most frequent)")
    parser.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent of word frequencies (1.0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")


def best_of(repeats: int, call) -> tuple[float, object]:
    """(the fastest of `repeats` timed calls, the last call's result): warm timings on a shared machine."""
    best, result = math.inf, None
    for _ in range(repeats):
        started = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - started)
    return best, result


def write_json(figures: dict, path: str | os.PathLike) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(figures, handle, indent=2, default=str)
    log(f"figures written to {path}")


# ---------------------------------------------------------------------------------------------- memory


def status_kib(field: str, pid: int | str = "self") -> int | None:
    """A /proc/PID/status field in KiB (VmHWM, VmRSS, RssAnon, RssFile), None where unreadable."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
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


def gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:,.2f} GiB"


def descendants(pid: int) -> list[int]:
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


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


class Phase:
    """Times a phase and records the memory peaks during it: this process (VmHWM after a reset) and its
    descendants (their VmHWM, sampled every `interval` s by a thread; a child's last moments can be missed),
    and their sum at any sample (the whole process tree's RSS)."""

    def __init__(self, label: str, interval: float = 0.1):
        self.timer = Timer(label)
        self.interval = interval
        self.child_peaks: dict[int, int] = {}
        self.tree_peak_kib = 0

    def _sample(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self.interval):
            tree = status_kib("VmRSS") or 0
            for pid in descendants(me):
                kib = status_kib("VmHWM", pid)
                if kib is not None and kib > self.child_peaks.get(pid, 0):
                    self.child_peaks[pid] = kib
                tree += status_kib("VmRSS", pid) or 0
            self.tree_peak_kib = max(self.tree_peak_kib, tree)

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
        self.tree_peak_kib = max(self.tree_peak_kib, self.self_peak_kib or 0)

    def figures(self, prefix: str) -> dict:
        return {
            f"{prefix}_s": self.seconds,
            f"{prefix}_peak_rss_self_kib": self.self_peak_kib,
            f"{prefix}_peak_rss_child_kib": self.child_peak_kib,
            f"{prefix}_children": self.children,
            f"{prefix}_peak_rss_tree_kib": self.tree_peak_kib,
        }


# ---------------------------------------------------------------------------------------------- synthetic data


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


def generate_documents(
    words: list[str],
    n_docs: int,
    mean_words: int,
    rng: np.random.Generator,
    exponent: float = 1.0,
    chunk: int = 50_000,
    first_id: int = 0,
    planted: dict[int, list[str]] | None = None,
) -> list[tuple[str, str]]:
    """n_docs (docid, text) pairs; Zipf-distributed words, some punctuation and capitals, vectorised by chunk.

    `planted` maps a document number to words put at the front of its text (a query's terms, for relevance).
    """
    V = len(words)
    cdf = np.cumsum(zipf_probabilities(V, exponent))
    cdf[-1] = 1.0
    table = []  # table[k * V + i] = word i written in variant k
    for form, _ in VARIANTS:
        table.extend(w.title() for w in words) if form == "Title" else table.extend(form.format(w) for w in words)
    table = np.array(table, dtype=object)
    variant_cdf = np.cumsum([p for _, p in VARIANTS])
    variant_cdf /= variant_cdf[-1]
    low, high = max(1, mean_words // 2), mean_words + mean_words // 2  # uniform lengths, mean ≈ mean_words
    planted = planted or {}
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
            number = first_id + start + i
            text = join(flat[begin:end])
            if number in planted:
                text = join(planted[number]) + " " + text
            docs.append((f"doc{number:07d}", text))
            begin = end
        if n_docs > chunk:
            log(f"  generated {len(docs):,} / {n_docs:,} documents")
    return docs


def write_collection(
    path: Path,
    words: list[str],
    n_docs: int,
    mean_words: int,
    rng: np.random.Generator,
    zipf: float,
    chunk: int = 50_000,
    planted: dict[int, list[str]] | None = None,
) -> int:
    """Writes n_docs {"id", "contents"} lines of generate_documents, chunk by chunk (never all in memory)."""
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < n_docs:
            n = min(chunk, n_docs - written)
            docs = generate_documents(
                words, n, mean_words, rng, exponent=zipf, chunk=chunk, first_id=written, planted=planted
            )
            out.write("".join(json.dumps({"id": docid, "contents": text}) + "\n" for docid, text in docs))
            written += n
            if n_docs > chunk:
                log(f"  written {written:,} / {n_docs:,} documents")
    return written


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


def planted_judgments(
    queries: dict[str, str],
    n_docs: int,
    rng: np.random.Generator,
    analyzer,
    median_relevant: float = 45.0,
    judged_per_topic: int = 1_250,
):
    """Robust04-like qrels for generated documents: K relevant documents per topic (log-normal, median 45,
    mean about 70, between 3 and 450, as the 17,412 relevant judgments of Robust04's 249 judged topics), graded
    1 or 2, each given the query's terms at its front; the rest of `judged_per_topic` judged non-relevant.

    Returns (qrels {qid: {docid: grade}}, planted {document number: words}) for generate_documents.
    """
    qrels: dict[str, dict[str, int]] = {}
    planted: dict[int, list[str]] = {}
    for qid, text in queries.items():
        k = int(np.clip(round(rng.lognormal(np.log(median_relevant), 0.9)), 3, 450))
        picked = rng.choice(n_docs, size=min(n_docs, judged_per_topic), replace=False)
        terms = analyzer.tokens(text)
        judged = {}
        for position, number in enumerate(picked.tolist()):
            if position < k:
                grade = 2 if rng.random() < 0.3 else 1
                planted.setdefault(number, []).extend(terms * (grade + int(rng.integers(0, 2))))
                judged[f"doc{number:07d}"] = grade
            else:
                judged[f"doc{number:07d}"] = 0
        qrels[qid] = judged
    return qrels, planted


def write_topics_and_qrels(
    folder: Path, queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> tuple[Path, Path]:
    """queries as a TSV topics file and qrels as a TREC qrels file under `folder`."""
    topics, judgments = folder / "topics.tsv", folder / "qrels.txt"
    topics.write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()), encoding="utf-8")
    judgments.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()), encoding="utf-8"
    )
    return topics, judgments


def synthetic_qrels(
    queries: dict[str, str], candidates: dict[str, list[tuple[str, float]]], texts: dict[str, str], analyzer
) -> dict[str, dict[str, int]]:
    """Grade 2 when a candidate holds every distinct query term, 1 when it holds at least half of them."""
    qrels: dict[str, dict[str, int]] = {}
    for qid, ranked in candidates.items():
        terms = set(analyzer.tokens(queries[qid]))
        if not terms:
            continue
        need = -(-len(terms) // 2)
        judged = {}
        for docid, _ in ranked:
            found = len(terms & set(analyzer.tokens(texts[docid])))
            if found >= need:
                judged[docid] = 2 if found == len(terms) else 1
        if judged:
            qrels[qid] = judged
    return qrels


def write_word2vec_binary(
    path: Path, n_words: int, dim: int, seed: int, chunk: int = 100_000, words: list[str] | None = None
) -> int:
    """A word2vec binary file of n_words random float32 vectors ("WORD " + dim floats + newline), in chunks.

    The first words are `words` (e.g. the collection's vocabulary, so that its words have vectors), the rest
    "w0000123"-style fillers of one width, written as fixed-size numpy records.
    """
    words = list(words or [])[:n_words]
    rng = np.random.default_rng(seed)
    width = len(str(max(n_words - 1, 0)))
    record = np.dtype([("word", f"S{width + 2}"), ("vector", "<f4", (dim,)), ("newline", "S1")])
    with open(path, "wb") as out:
        out.write(f"{n_words} {dim}\n".encode())
        for start in range(0, len(words), chunk):
            vectors = rng.standard_normal((min(chunk, len(words) - start), dim), dtype=np.float32)
            out.write(
                b"".join(
                    word.encode() + b" " + vector.tobytes() + b"\n"
                    for word, vector in zip(words[start : start + chunk], vectors)
                )
            )
        for start in range(len(words), n_words, chunk):
            n = min(chunk, n_words - start)
            rows = np.empty(n, dtype=record)
            rows["word"] = np.char.encode(
                np.char.add(np.char.add("w", np.char.zfill(np.arange(start, start + n).astype(str), width)), " "),
                "ascii",
            )
            rows["vector"] = rng.standard_normal((n, dim), dtype=np.float32)
            rows["newline"] = b"\n"
            rows.tofile(out)
    return path.stat().st_size
