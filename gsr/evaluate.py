"""GSR of whole runs: per-query g(q) and g_q(L), the slope, and the perfect/random baselines of §4.2.2."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from gsr.baselines import cut_run, perfect_run, random_positions, random_run, ranked_picks, relevant_counts
from gsr.documents import open_documents
from gsr.io import InputError, Run, as_qrels, as_queries, as_run, iter_documents
from gsr.measure import GSRError, gsr_slope, list_genderedness, query_genderedness, relative_gsr, tied_rank_weights
from gsr.numeric import finite
from gsr.source_stats import cached_document_stats, needed_document_stats
from gsr.sources import DocumentSource
from gsr.stats import DocumentStats, GenderedDocuments
from gsr.text import Analyzer, default_analyzer

__all__ = ["GSR", "GSRReport", "GSRResult", "QueryResult", "cached_document_stats", "describe_queries",
           "measure_run"]


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


def measure_run(run: Run, queries: dict[str, str], documents: GenderedDocuments, *,
                query_ids: list[str] | None = None, strict: bool = False, tie_scores: bool = True) -> GSRResult:
    """Eq. 3 over `run`: g(q) and g_q(L) (Eq. 2) per query, with every skipped query listed by reason.

    Unknown document ids and documents with no measurable word are left out of Eq. 2's average but keep
    their rank, so the other documents' weights do not move; `strict` makes unknown ids an error.
    """
    analyzer = documents.analyzer
    lexicon = documents.lexicon
    index = documents.stats.doc_index
    skipped: dict[str, list[str]] = {}
    per_query: list[QueryResult] = []
    unknown_total = 0
    unmeasured_total = 0
    for qid in (query_ids if query_ids is not None else sorted(queries)):
        if qid not in queries:
            skipped.setdefault("no_query_text", []).append(qid)
            continue
        terms = analyzer.tokens(queries[qid])
        g_query = finite(query_genderedness(terms, lexicon))
        ranked = run.get(qid, [])
        rows = np.array([index.get(d, -1) for d, _ in ranked], dtype=np.int64)
        unknown = int((rows < 0).sum())
        if unknown and strict:
            first = next(d for d, _ in ranked if d not in index)
            raise InputError(f"run: document {first} retrieved for query {qid} is not in the collection")
        unknown_total += unknown
        values = np.full(len(rows), np.nan)
        if len(rows):
            known = rows >= 0
            values[known] = documents.query_document_genderedness(terms, rows[known])
        unmeasured = int(np.isnan(values).sum())
        unmeasured_total += unmeasured - unknown
        keys = [s for _, s in ranked] if tie_scores else list(range(len(ranked)))
        g_list = finite(list_genderedness(values, tied_rank_weights(keys))) if len(values) else None
        per_query.append(QueryResult(qid, g_query, g_list, len(ranked), unmeasured))
        if g_query is None:
            skipped.setdefault("query_out_of_vocabulary", []).append(qid)
        elif not ranked:
            skipped.setdefault("nothing_retrieved", []).append(qid)
        elif g_list is None:
            skipped.setdefault("no_measurable_document", []).append(qid)
    for qid in sorted(set(run) - set(queries)):
        skipped.setdefault("not_in_topics", []).append(qid)
    result = GSRResult(None, per_query, skipped, unknown_total, unmeasured_total)
    try:
        result.gsr = gsr_slope(*result.points(defined_only=False))
    except GSRError as err:
        result.error = str(err)
    return result


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
        """Per-document sums for a whole collection: DocumentStats, a path, irds:NAME, a Lucene index, a
        DocumentSource, a mapping or (docid, text) pairs. To measure one run, give `evaluate` the source instead:
        it reads only the documents that run needs."""
        if isinstance(source, GenderedDocuments):
            return source
        if isinstance(source, DocumentStats):
            stats = source
        elif isinstance(source, (str, os.PathLike, DocumentSource)):
            stats = cached_document_stats(source, self.analyzer, n_jobs=n_jobs, progress=progress)
        else:
            stats = DocumentStats.build(iter_documents(source), self.analyzer, n_jobs=n_jobs, progress=progress)
        return stats.gendered(self.lexicon, self.analyzer)

    def evaluate(self, run, queries, documents, qrels=None, strict: bool = False, n_jobs: int | None = None,
                 progress: bool = False) -> GSRReport:
        """GSR of `run`; with qrels also the perfect and random engines, all cut to the same K per query.

        `documents` given as a path, irds:NAME, a Lucene index or a DocumentSource is read only where the run and
        the engines need it; prebuilt GenderedDocuments/DocumentStats or in-memory documents are used whole.
        """
        return self.evaluate_many({"run": run}, queries, documents, qrels, strict, n_jobs, progress)["run"]

    def evaluate_many(self, runs, queries, documents, qrels=None, strict: bool = False, n_jobs: int | None = None,
                      progress: bool = False) -> dict:
        """`evaluate` of each of `runs` ({name: run}) against one read of `documents`; the perfect and random
        engines are measured once and shared by every report."""
        runs, queries, qrels = {name: as_run(run) for name, run in runs.items()}, as_queries(queries), as_qrels(qrels)
        if qrels is None:
            cut = None if self.cutoff == "relevant" else self.cutoff  # no judgments: no K to cut at
            cuts = {name: cut_run(run, cut) for name, run in runs.items()}
            gendered, _, _ = self._documents_for(documents, list(cuts.values()), {}, None, n_jobs, progress)
            return {name: GSRReport(self._measure(run, queries, gendered, None, strict)) for name, run in cuts.items()}
        counts = relevant_counts(qrels)
        judged = sorted(q for q in queries if counts.get(q, 0) > 0)
        unjudged = sorted(q for q in queries if counts.get(q, 0) == 0)
        cut = counts if self.cutoff == "relevant" else self.cutoff
        cuts = {name: cut_run(run, cut) for name, run in runs.items()}
        perfect = cut_run(perfect_run(qrels), cut)
        gendered, engines, random = self._documents_for(documents, list(cuts.values()), perfect, qrels, n_jobs,
                                                        progress)
        perfect_result = self._measure(perfect, queries, engines, judged, strict=False)
        random_result = self._measure(cut_run(random, cut), queries, engines, judged, strict=False)
        reports = {}
        for name, run in cuts.items():
            system = self._measure(run, queries, gendered, judged, strict)
            if unjudged:
                system.skipped["no_relevant_judgment"] = unjudged
            reports[name] = GSRReport(system, perfect_result, random_result)
        return reports

    def _documents_for(self, documents, runs: list[Run], perfect: Run, qrels, n_jobs,
                       progress) -> tuple[GenderedDocuments, GenderedDocuments, Run | None]:
        """The documents `runs` are measured on, those the perfect and random engines are measured on, and the
        random engine's run (drawn here; None without qrels)."""
        if not isinstance(documents, (str, os.PathLike, DocumentSource)):
            gendered = self.documents(documents, n_jobs=n_jobs, progress=progress)
            random = random_run(qrels, gendered.stats.docids, self.random_seed) if qrels is not None else None
            return gendered, gendered, random
        source = open_documents(documents, progress=progress)
        picks = random_positions(qrels, source.count(), self.random_seed) if qrels is not None else {}
        positions = np.concatenate(list(picks.values())) if picks else np.zeros(0, dtype=np.int64)
        needed = needed_document_stats(source, {d for run in runs for ranked in run.values() for d, _ in ranked},
                                       {d for ranked in perfect.values() for d, _ in ranked}, positions,
                                       self.analyzer, n_jobs, progress)
        random = ranked_picks(picks, dict(zip(positions.tolist(), needed.drawn))) if qrels is not None else None
        return (needed.runs.gendered(self.lexicon, self.analyzer), needed.engines.gendered(self.lexicon, self.analyzer),
                random)

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
