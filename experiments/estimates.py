"""How long a step of `gsr run` takes on this machine, known before it runs (`gsr run --dry-run`): the work a step
does (documents to index or encode, words to train on, queries to search) divided by the rate measured for that
work on the project's machine, scaled by how fast this machine runs a fixed loop now against when the rates were
measured. The rates and where each was measured are in RATES and docs/benchmarks.md ("What `gsr run --dry-run`
estimates from"); a system type says what work its run does through SystemType.cost.

Estimates are for planning: the rates were measured on 2 shared cores whose own speed moves by a third within
minutes, and the work is counted from the collection's size (its words estimated from its bytes), so a figure within
a factor of 2 is what to expect. A step that would take hours says so, with what to do instead.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from experiments.runner import Experiment

HOURS = 3600.0  # a step estimated at this or more gets a warning
BYTES_PER_WORD = 7.0  # of a canonical documents file: the demo's 13.7 MB hold 1.78 M words (7.7), Robust04's ~6


@dataclass(frozen=True)
class Rate:
    """Work done per second on the project's machine (2 shared cores), `fixed_s` added once per step (a JVM's
    start, a model's loading), and where it was measured."""

    per_second: float
    unit: str
    measured: str
    fixed_s: float = 0.0


# Measured on the project's 2-core machine; docs/benchmarks.md lists them with their benchmarks.
RATES: dict[str, Rate] = {
    "lucene indexing": Rate(
        3.66e6,
        "words",
        "bench_retrieval.py: 500,000 documents of ~300 words in 49.4 s; the demo's 20,000 in ~10 s",
        8.4,
    ),
    "document statistics": Rate(6.6e6, "words", "bench_retrieval.py: 500,000 documents of ~300 words in 22.6 s", 3.0),
    "lucene search": Rate(
        4.2e9, "query × collection word", "bench_retrieval.py: 250 queries, top 1,000, 150 M words in 9 s", 3.0
    ),
    "document vectors": Rate(
        1.4e5, "documents", "bench_retrieval.py: 500,000 documents in 3.5 s (vectors + search)", 2.0
    ),
    "word2vec": Rate(1.11e5, "words × epochs", "docs/demo.md: the demo's 5.3 M words (3 epochs, one core) in 48 s"),
    "fasttext": Rate(6.8e4, "words × epochs", "docs/demo.md: the demo's 5.3 M words (3 epochs, one core) in 79 s"),
    "debiasing": Rate(6.0e7, "vector values", "bench_pipeline.py: 5 M × 300 vectors debiased twice, with I/O", 1.0),
    "drmm": Rate(2.0e4, "query × candidate × epoch", "docs/demo.md: 250 queries × 100 × 5 epochs, 5 folds", 2.0),
    "matchpyramid": Rate(3.0e3, "query × candidate × epoch", "bench_pipeline.py: 250 × ~100 × 10 epochs in 79 s", 2.0),
    "dense encoding, CPU": Rate(
        20.3, "documents", "bench_dense.py: 20.3 documents/s at ≥ 200 words (256 word pieces), 39.8 at ~90", 5.0
    ),
    "dense encoding, GPU": Rate(
        1.9e3, "documents", "bench_encode.py: 6,469 passages of ~56 words/s on an H100, scaled to 256 word pieces", 10.0
    ),
    "re-ranking": Rate(1.0e5, "query × candidate", "docs/demo.md: the fair re-rankers, 250 × 100 in 0.2-0.7 s", 0.5),
    "run file": Rate(2.0e6, "lines", "bench_run_io.py: a 250 × 1,000 run read in ~0.1 s", 0.5),
    "measures and report": Rate(
        170.0,
        "query × system",
        "docs/demo.md: effectiveness, GSR, analyses and report of 33 systems × 250 topics in 62 s, of which the "
        "report's figures and page ~15 s whatever changed",
        15.0,
    ),
}
SHORT_DOCUMENT_WORDS, LONG_DOCUMENT_WORDS = 90, 200  # dense encoding on a CPU: 39.8 and 20.3 documents/s
SHORT_DOCUMENTS_PER_S = 39.8


@dataclass(frozen=True)
class Work:
    """`units` of the work RATES[rate] measures; `shared` names work several steps need once (the Lucene index, a
    collection encoded for a dense system and its debiased variants): the first step that needs it counts it."""

    rate: str
    units: float
    shared: str | None = None
    per_second: float | None = None  # overrides the rate's (dense encoding of short documents)
    advice: str | None = None  # what to do instead where the step would take hours


@dataclass(frozen=True)
class CollectionSize:
    documents: int
    words: float  # estimated from the canonical file's size (BYTES_PER_WORD)
    queries: int

    @property
    def words_per_document(self) -> float:
        return self.words / max(self.documents, 1)


def collection_size(experiment: Experiment) -> CollectionSize:
    """The documents (lines of the canonical file, counted in blocks), their words (estimated from its bytes) and the
    topics of the experiment's collection; counted once."""

    def count() -> CollectionSize:
        path = experiment.collection.documents
        lines = 0
        with open(path, "rb") as handle:
            while block := handle.read(1 << 24):
                lines += block.count(b"\n")
        return CollectionSize(lines, path.stat().st_size / BYTES_PER_WORD, len(experiment.collection.queries))

    return experiment.shared("collection size", count)


def dense_encoding_rate(words_per_document: float, gpu: bool) -> float | None:
    """Documents encoded per second by MiniLM on the CPU (interpolated between the two lengths measured) or on a GPU;
    None (the rate's own) beyond the measured lengths."""
    if gpu:
        return None
    if words_per_document <= SHORT_DOCUMENT_WORDS:
        return SHORT_DOCUMENTS_PER_S
    if words_per_document >= LONG_DOCUMENT_WORDS:
        return None
    share = (words_per_document - SHORT_DOCUMENT_WORDS) / (LONG_DOCUMENT_WORDS - SHORT_DOCUMENT_WORDS)
    return SHORT_DOCUMENTS_PER_S + share * (RATES["dense encoding, CPU"].per_second - SHORT_DOCUMENTS_PER_S)


# ---------------------------------------------------------------------------------------------- the machine's speed

PROBE_LOOPS = 300_000
REFERENCE_PROBE_S = 0.017  # probe_seconds() on the project's machine at a load of 3 (docs/benchmarks.md)


def probe_seconds() -> float:
    """The best of three runs of a fixed Python loop (about 30 ms here): how fast this machine runs Python now."""
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(PROBE_LOOPS):
            total += i * i % 7
        best = min(best, time.perf_counter() - started)
    return best


def slowdown(experiment: Experiment) -> float:
    """How many times slower this machine runs the probe than the project's did when the rates were measured
    (measured once per experiment; kept within [1/8, 8]: a probe is noisy)."""
    return experiment.shared("slowdown", lambda: min(8.0, max(1 / 8, probe_seconds() / REFERENCE_PROBE_S)))


def seconds(work: list[Work], slower: float, counted: set[str]) -> float:
    """The time of `work` at the measured rates times `slower`; shared work already in `counted` is not counted
    again (and is added to it)."""
    total = 0.0
    for item in work:
        if item.shared is not None:
            if item.shared in counted:
                continue
            counted.add(item.shared)
        rate = RATES[item.rate]
        total += rate.fixed_s + item.units / (item.per_second or rate.per_second)
    return total * slower


def duration(seconds: float) -> str:
    """'about 40 s', 'about 12 min', 'about 7.2 h'."""
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / HOURS:.1f} h"
