"""GSR of whole runs: per-query g(q) and g_q(L), the slope, and the perfect/random baselines of §4.2.2."""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gsr.baselines import cut_run, perfect_run, random_run, relevant_counts
from gsr.io import InputError, Run, as_qrels, as_queries, as_run, iter_documents
from gsr.measure import (GSRError, gsr_slope, list_genderedness_many, query_genderedness, relative_gsr,
                         tied_rank_weights_many)
from gsr.numeric import finite
from gsr.ranked import RankedRows
from gsr.stats import DocumentStats, GenderedDocuments
from gsr.store import cache_dir, cached_folder, file_version_key
from gsr.text import Analyzer, default_analyzer


@dataclass
class QueryResult:
    """One query's point in the GSR scatter plot."""

    qid: str
    g_query: float | None
    g_list: float | None
    n_docs: int = 0
    n_unmeasured: int = 0

    def to_dict(self) -> dict:
        return {"qid": self.qid, "g_query": self.g_query, "g_list": self.g_list,
                "n_docs": self.n_docs, "n_unmeasured_docs": self.n_unmeasured}


@dataclass
class GSRResult:
    """GSR of one system: the slope, every query's point and what could not be measured, and why."""

    gsr: float | None
    per_query: list[QueryResult]
    skipped: dict[str, list[str]] = field(default_factory=dict)
    unknown_docids: int = 0
    unmeasurable_docs: int = 0
    error: str | None = None

    @property
    def n_queries(self) -> int:
        """Queries that contribute a point to the slope."""
        return sum(1 for q in self.per_query if q.g_query is not None and q.g_list is not None)

    @property
    def n_skipped(self) -> int:
        return sum(len(v) for v in self.skipped.values())

    def points(self, defined_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(g(q), g_q(L)) of the contributing queries (of every query, NaN where undefined, if not defined_only)."""
        used = [q for q in self.per_query if q.g_query is not None and q.g_list is not None] if defined_only \
            else self.per_query
        return (np.array([math.nan if q.g_query is None else q.g_query for q in used], dtype=np.float64),
                np.array([math.nan if q.g_list is None else q.g_list for q in used], dtype=np.float64))

    def to_dict(self) -> dict:
        out = {"gsr": self.gsr, "n_queries": self.n_queries, "n_skipped": self.n_skipped,
               "skipped": self.skipped, "unknown_docids": self.unknown_docids,
               "unmeasurable_docs": self.unmeasurable_docs,
               "per_query": [q.to_dict() for q in self.per_query]}
        if self.error:
            out["error"] = self.error
        return out


@dataclass
class GSRReport:
    """GSR of a run, with the perfect and random engines and relative GSR when qrels are given."""

    system: GSRResult
    perfect: GSRResult | None = None
    random: GSRResult | None = None

    @property
    def relative(self) -> float | None:
        """The run's GSR as % above the perfect engine's (None without qrels)."""
        return self.relative_of(self.system)

    def relative_of(self, result: GSRResult) -> float | None:
        """Any engine's GSR as % above the perfect engine's (None without qrels)."""
        if self.perfect is None or self.perfect.gsr is None or result.gsr is None:
            return None
        return finite(relative_gsr(result.gsr, self.perfect.gsr))

    def to_dict(self) -> dict:
        out = self.system.to_dict()
        if self.perfect is not None:
            out["perfect"] = self.perfect.to_dict()
            out["random"] = dict(self.random.to_dict(), relative=self.relative_of(self.random))
            out["relative"] = self.relative
        return out


def measure_run(run: Run | RankedRows, queries: dict[str, str], documents: GenderedDocuments, *,
                query_ids: list[str] | None = None, strict: bool = False, tie_scores: bool = True) -> GSRResult:
    """Eq. 3 over `run`: g(q) and g_q(L) (Eq. 2) per query, with every skipped query listed by reason.

    Unknown document ids and documents with no measurable word are left out of Eq. 2's average but keep
    their rank, so the other documents' weights do not move; `strict` makes unknown ids an error. All queries
    are scored together (gsr.stats.GenderedDocuments.query_document_genderedness_many); `run` may be given
    already placed on the collection (gsr.ranked.RankedRows.place), which skips the document-id look-ups.
    """
    if not isinstance(run, RankedRows):
        run = RankedRows.place(run, documents.stats)
    elif run.stats is not documents.stats:
        raise ValueError("the run was placed on another collection's DocumentStats than the one being measured")
    analyzer, lexicon = documents.analyzer, documents.lexicon
    order = query_ids if query_ids is not None else sorted(queries)
    measured = [qid for qid in order if qid in queries]
    terms = [analyzer.tokens(queries[qid]) for qid in measured]
    rows, scores, offsets = run.select(measured)
    lengths = np.diff(offsets)
    pair_query = np.repeat(np.arange(len(measured)), lengths)
    unknown = rows < 0
    unknown_per_query = np.bincount(pair_query[unknown], minlength=len(measured))
    if strict and unknown.any():
        qid = measured[int(np.flatnonzero(unknown_per_query)[0])]
        raise InputError(f"run: document {run.unknown[qid]} retrieved for query {qid} is not in the collection")
    values = np.full(len(rows), np.nan)
    known_offsets = np.zeros(len(measured) + 1, dtype=np.int64)
    np.cumsum(lengths - unknown_per_query, out=known_offsets[1:])
    values[~unknown] = documents.query_document_genderedness_many(terms, rows[~unknown], known_offsets)
    g_lists = list_genderedness_many(values, tied_rank_weights_many(scores if tie_scores else None, offsets), offsets)
    unmeasured = np.bincount(pair_query[np.isnan(values)], minlength=len(measured))
    per_query: list[QueryResult] = []
    skipped: dict[str, list[str]] = {}
    measured_index = {qid: i for i, qid in enumerate(measured)}
    for qid in order:
        if qid not in measured_index:
            skipped.setdefault("no_query_text", []).append(qid)
            continue
        i = measured_index[qid]
        n_docs = int(lengths[i])
        g_query = finite(query_genderedness(terms[i], lexicon))
        g_list = finite(g_lists[i]) if n_docs else None
        per_query.append(QueryResult(qid, g_query, g_list, n_docs, int(unmeasured[i])))
        if g_query is None:
            skipped.setdefault("query_out_of_vocabulary", []).append(qid)
        elif not n_docs:
            skipped.setdefault("nothing_retrieved", []).append(qid)
        elif g_list is None:
            skipped.setdefault("no_measurable_document", []).append(qid)
    for qid in sorted(set(run.qids) - set(queries)):
        skipped.setdefault("not_in_topics", []).append(qid)
    result = GSRResult(None, per_query, skipped, int(unknown.sum()), int(np.isnan(values).sum() - unknown.sum()))
    try:
        result.gsr = gsr_slope(*result.points(defined_only=False))
    except GSRError as err:
        result.error = str(err)
    return result


def cached_document_stats(path, analyzer: Analyzer, n_jobs: int | None = None,
                          progress: bool = False) -> DocumentStats:
    """DocumentStats of a documents file, built once per (file version, stop list) and reused from the cache.

    The cache entry is written atomically and verified on reuse (gsr.store.cached_folder).
    """
    path = Path(path)
    try:
        key = file_version_key(path, sorted(analyzer.stopwords))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    built = []

    def build(staging: Path) -> None:
        built.append(DocumentStats.build(iter_documents(path), analyzer, n_jobs=n_jobs, progress=progress))
        built[0].write_files(staging)

    folder, reused = cached_folder(cache_dir() / "document-stats" / key, build)
    if reused and progress:
        print(f"document statistics of {path}: reused from {folder}", file=sys.stderr)
    return built[0] if built else DocumentStats.load(folder)


class GSR:
    """The Gender Stereotype Reinforcement measure, configured once and applied to any run.

    lexicon: a GenderLexicon (g of each word; see embeddings.gender_lexicon).
    cutoff: "relevant" (top-K with K = number of relevant documents, §4.2.2; needs qrels), an int, or None.
    tie_scores: documents with equal scores (or grades) share their rank's weight in Eq. 2.
    """

    def __init__(self, lexicon, analyzer: Analyzer | None = None, cutoff: str | int | None = "relevant",
                 tie_scores: bool = True, random_seed: int = 0):
        if not (cutoff is None or cutoff == "relevant" or (isinstance(cutoff, int) and cutoff > 0)):
            raise ValueError(f"cutoff must be 'relevant', a positive integer or None, not {cutoff!r}")
        self.lexicon = lexicon
        self.analyzer = analyzer or default_analyzer()
        self.cutoff = cutoff
        self.tie_scores = tie_scores
        self.random_seed = random_seed

    def documents(self, source, n_jobs: int | None = None, progress: bool = False) -> GenderedDocuments:
        """Per-document sums for a collection given as DocumentStats, a path, a mapping or (docid, text) pairs."""
        if isinstance(source, GenderedDocuments):
            return source
        if isinstance(source, DocumentStats):
            stats = source
        elif isinstance(source, (str, os.PathLike)):
            stats = cached_document_stats(source, self.analyzer, n_jobs=n_jobs, progress=progress)
        else:
            stats = DocumentStats.build(iter_documents(source), self.analyzer, n_jobs=n_jobs, progress=progress)
        return stats.gendered(self.lexicon, self.analyzer)

    def evaluate(self, run, queries, documents, qrels=None, strict: bool = False) -> GSRReport:
        """GSR of `run`; with qrels also the perfect and random engines, all cut to the same K per query."""
        run, queries, qrels = as_run(run), as_queries(queries), as_qrels(qrels)
        gendered = self.documents(documents)
        if qrels is None:
            cut = None if self.cutoff == "relevant" else self.cutoff  # no judgments: no K to cut at
            return GSRReport(self._measure(cut_run(run, cut), queries, gendered, None, strict))
        counts = relevant_counts(qrels)
        judged = sorted(q for q in queries if counts.get(q, 0) > 0)
        cut = counts if self.cutoff == "relevant" else self.cutoff
        system = self._measure(cut_run(run, cut), queries, gendered, judged, strict)
        unjudged = sorted(q for q in queries if counts.get(q, 0) == 0)
        if unjudged:
            system.skipped["no_relevant_judgment"] = unjudged
        perfect = self._measure(cut_run(perfect_run(qrels), cut), queries, gendered, judged, strict=False)
        random = self._measure(cut_run(random_run(qrels, gendered.stats.docids, self.random_seed), cut),
                               queries, gendered, judged, strict=False)
        return GSRReport(system, perfect, random)

    def _measure(self, run: Run, queries, gendered, query_ids, strict) -> GSRResult:
        return measure_run(run, queries, gendered, query_ids=query_ids, strict=strict, tie_scores=self.tie_scores)


def describe_queries(queries: dict[str, str], lexicon, analyzer: Analyzer | None = None) -> list[dict]:
    """Fig. 7's data: each query's g(q) and its terms' projections, most female first, unmeasurable last."""
    analyzer = analyzer or default_analyzer()
    rows = []
    for qid, text in queries.items():
        terms = analyzer.tokens(text)
        rows.append({"qid": qid, "text": text, "genderedness": finite(query_genderedness(terms, lexicon)),
                     "terms": [{"term": t, "g": lexicon.get(t)} for t in terms]})
    rows.sort(key=lambda r: (r["genderedness"] is None, -(r["genderedness"] or 0.0), r["qid"]))
    return rows
