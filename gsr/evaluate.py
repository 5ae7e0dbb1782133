"""GSR of whole runs: per-query g(q) and g_q(L), the slope, and the perfect/random baselines of §4.2.2."""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field, replace

import numpy as np

from gsr.baselines import cut_run, perfect_run, random_positions, random_run, ranked_picks, relevant_counts
from gsr.documents.base import DocumentSource
from gsr.documents.needed import cached_document_stats, needed_document_stats
from gsr.documents.opening import iter_documents, open_documents
from gsr.documents.stats import DocumentStats, GenderedDocuments
from gsr.errors import InputError, UndefinedMeasureError
from gsr.infra.numeric import finite
from gsr.infra.params import check_params
from gsr.io.convert import as_qrels, as_queries, as_run
from gsr.io.types import Run
from gsr.measure import (
    gsr_slope,
    list_genderedness_many,
    query_genderedness,
    relative_gsr,
    slope_noise_floor,
    tied_rank_weights_many,
)
from gsr.ranked import RankedRows
from gsr.settings import DEFAULT_LEVEL, DEFAULT_RESAMPLES, MEASURE_PARAMS, RELEVANT
from gsr.text.analyzer import Analyzer, default_analyzer
from gsr.uncertainty import (
    BootstrapFit,
    Interval,
    TestResult,
    bootstrap_fit,
    check_resample_memory,
    paired_gsr_test,
    percentile_interval,
    relative_replicates,
    resample_counts,
    slope_standard_error,
)

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
    """GSR of one system: the slope, every query's point and what could not be measured, and why; with its
    analytic standard error `se` and bootstrap interval `ci` (over queries; `bootstrap` holds the replicates)."""

    gsr: float | None
    per_query: list[QueryResult]
    skipped: dict[str, list[str]] = field(default_factory=dict)
    unknown_docids: int = 0
    unmeasurable_docs: int = 0
    error: str | None = None
    se: float | None = None
    ci: Interval | None = None
    bootstrap: BootstrapFit | None = None

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

    def noise_floor(self) -> float:
        """The largest |GSR| that is zero up to rounding for this result's points (measure.slope_noise_floor)."""
        return slope_noise_floor(*self.points())
    def aligned_points(self, queries: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(g(q), g_q(L)) for `queries` in that order, NaN where this result has no defined value."""
        by_qid = {q.qid: q for q in self.per_query}
        points = [by_qid.get(qid) for qid in queries]
        return (np.array([math.nan if p is None or p.g_query is None else p.g_query for p in points], dtype=float),
                np.array([math.nan if p is None or p.g_list is None else p.g_list for p in points], dtype=float))

    def to_dict(self) -> dict:
        out = {"gsr": self.gsr, "ci": self.ci.to_list() if self.ci else None, "se": self.se,
               "n_queries": self.n_queries, "n_skipped": self.n_skipped,
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
        """The run's GSR as % above the perfect engine's (None without qrels, or when undefined)."""
        return self.relative_of(self.system)

    def relative_of(self, result: GSRResult) -> float | None:
        """Any engine's GSR as % above the perfect engine's (None without qrels, or when undefined)."""
        return relative_to_perfect(result, self.perfect)[0]

    def relative_ci_of(self, result: GSRResult) -> Interval | None:
        """Bootstrap interval of an engine's relative GSR (None without qrels or resamples)."""
        return relative_interval(result, self.perfect) if self.perfect is not None else None

    def to_dict(self) -> dict:
        out = self.system.to_dict()
        if self.perfect is not None:
            out["perfect"] = self.perfect.to_dict()
            out["random"] = dict(self.random.to_dict(), **_relative_dict(self.random, self.perfect))
            out.update(_relative_dict(self.system, self.perfect))
        return out


def relative_to_perfect(result: GSRResult, perfect: GSRResult | None) -> tuple[float | None, str | None]:
    """(relative GSR in %, None), or (None, why it is undefined): no perfect engine, an undefined GSR, or a perfect
    engine whose GSR is zero up to rounding (|m_P| ≤ its noise floor, measure.slope_noise_floor)."""
    if perfect is None:
        return None, "no qrels, so no perfect engine to compare with"
    if perfect.gsr is None:
        return None, f"relative GSR is undefined: the perfect engine's GSR is undefined ({perfect.error})"
    if result.gsr is None:
        return None, f"relative GSR is undefined: GSR is undefined ({result.error})"
    try:
        return finite(relative_gsr(result.gsr, perfect.gsr, perfect.noise_floor())), None
    except UndefinedMeasureError as err:
        return None, str(err)


def _relative_dict(result: GSRResult, perfect: GSRResult) -> dict:
    """relative, relative_ci and, where undefined, relative_error / relative_ci_error saying why."""
    relative, why = relative_to_perfect(result, perfect)
    out = {"relative": relative} if why is None else {"relative": None, "relative_error": why}
    interval = relative_interval(result, perfect)
    out["relative_ci"] = _listed(interval)
    if interval is not None and interval.reason:
        out["relative_ci_error"] = interval.reason
    return out


def _listed(interval: Interval | None) -> list | None:
    return interval.to_list() if interval is not None else None


def relative_interval(result: GSRResult, perfect: GSRResult | None) -> Interval | None:
    """Percentile interval of relative GSR: the system and the perfect engine on the same bootstrap resamples of the
    queries, (m_s − m_P)/|m_P| × 100 per resample (None when either has no bootstrap).

    A ratio's interval is bounded only when its denominator's excludes 0 (Fieller 1954): where the perfect engine's
    own interval reaches 0 (or its noise floor, measure.slope_noise_floor), resamples with m_P near 0 give arbitrary
    percentages such as ±4.6e18 %, so the interval is undefined (None bounds) with that reason instead.
    """
    if perfect is None or result.bootstrap is None or perfect.bootstrap is None or perfect.ci is None:
        return None
    if relative_to_perfect(result, perfect)[1] is not None:  # undefined relative GSR has no interval either
        return None
    level, ci = perfect.ci.level, perfect.ci
    if ci.low is None or ci.high is None:
        return Interval(None, None, level, 0, len(perfect.bootstrap.slopes),
                        "the perfect engine's GSR has no bootstrap interval")
    floor = perfect.noise_floor()
    if ci.low - floor <= 0.0 <= ci.high + floor:
        return Interval(None, None, level, 0, len(perfect.bootstrap.slopes),
                        f"the perfect engine's GSR interval [{ci.low:.3g}, {ci.high:.3g}] includes 0, so the "
                        "ratio's interval is unbounded (Fieller)")
    return percentile_interval(relative_replicates(result.bootstrap, perfect.bootstrap), level)


def add_uncertainty(results: list[GSRResult], resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL,
                    seed: int = 0) -> None:
    """Set `se` and, with resamples > 0, `bootstrap` and `ci` of each result. The queries resampled are those at least
    one result measures (in the first result's order), with one seed: every engine sees the same resamples, so
    relative GSR can be bootstrapped too, and each engine's slope on a resample uses its measurable queries."""
    measured = {q.qid for result in results for q in result.per_query if q.g_query is not None and q.g_list is not None}
    queries = [q.qid for q in results[0].per_query if q.qid in measured] if results else []
    counts = resample_counts(len(queries), resamples, seed) if resamples and queries else None
    for result in results:
        x, y = result.aligned_points(queries)
        result.se = slope_standard_error(x, y) if result.gsr is not None else None
        if counts is not None:
            result.bootstrap = bootstrap_fit(queries, x, y, resamples, seed, counts)
            result.ci = percentile_interval(result.bootstrap.slopes, level)


def gsr_difference_test(a: GSRResult, b: GSRResult, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                        alternative: str = "two-sided") -> TestResult:
    """Paired randomisation test of GSR_a − GSR_b on the queries both measure (gsr.statistics.paired_gsr_test); the
    two results must share g(q), i.e. be measured with the same embedding and topics."""
    queries = sorted({q.qid for q in a.per_query} & {q.qid for q in b.per_query})
    x, y_a = a.aligned_points(queries)
    x_b, y_b = b.aligned_points(queries)
    both = ~(np.isnan(x) | np.isnan(x_b))
    if not np.allclose(x[both], x_b[both], rtol=1e-9, atol=1e-12):
        raise InputError("the two results have different query genderedness: compare results measured with the same "
                       "embedding and topics")
    try:
        return paired_gsr_test(x, y_a, y_b, resamples=resamples, seed=seed, alternative=alternative)
    except ValueError as err:
        raise UndefinedMeasureError(str(err)) from None


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
        raise InputError("the run was placed on another collection's DocumentStats than the one being measured")
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
    except UndefinedMeasureError as err:
        result.error = str(err)
    return result


class GSR:
    """The Gender Stereotype Reinforcement measure, configured once and applied to any run.

    lexicon: a GenderLexicon (g of each word, Eq. 1; GenderLexicon.from_embedding). analyzer: the text handling
    (default: gsr.text.default_analyzer()). The other settings are declared in PARAMS (gsr.settings), the same
    declarations the configs and `gsr score` check against:
    cutoff: 'relevant' (top-K with K = number of relevant documents, §4.2.2; needs qrels), an int K, or None.
    tie_scores: documents with equal scores (or grades) share their rank's weight in Eq. 2.
    exclusion: which document words g_q(d) leaves out as query terms, 'exact', 'lemma' or 'stem'; default: the
        analyzer's ('lemma' for the default analyzer).
    random_seed: seed of the random engine. resamples, level, seed: the bootstrap over queries (percentile intervals
    at `level`; 0 resamples: no intervals).
    """

    PARAMS = MEASURE_PARAMS

    def __init__(self, lexicon, analyzer: Analyzer | None = None, cutoff: str | int | None = RELEVANT,
                 tie_scores: bool = True, random_seed: int = 0, exclusion: str | None = None,
                 resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL, seed: int = 0):
        given = {"cutoff": cutoff, "tie_scores": tie_scores, "random_seed": random_seed, "resamples": resamples,
                 "level": level, "seed": seed}
        if exclusion is not None:
            given["exclusion"] = exclusion
        settings = check_params(self.PARAMS, given)
        self.lexicon = lexicon
        self.analyzer = analyzer or default_analyzer()
        if exclusion is not None:
            self.analyzer = replace(self.analyzer, exclusion=settings["exclusion"])
        self.cutoff = settings["cutoff"]
        self.tie_scores = settings["tie_scores"]
        self.random_seed = settings["random_seed"]
        self.resamples, self.level, self.seed = settings["resamples"], settings["level"], settings["seed"]

    def documents(self, source, n_jobs: int | None = None) -> GenderedDocuments:
        """Per-document sums for a whole collection: DocumentStats, a path, irds:NAME, a Lucene index, a
        DocumentSource, a mapping or (docid, text) pairs. To measure one run, give `evaluate` the source instead:
        it reads only the documents that run needs."""
        if isinstance(source, GenderedDocuments):
            return source
        if isinstance(source, DocumentStats):
            stats = source
        elif isinstance(source, (str, os.PathLike, DocumentSource)):
            stats = cached_document_stats(source, self.analyzer, n_jobs=n_jobs)
        else:
            stats = DocumentStats.build(iter_documents(source), self.analyzer, n_jobs=n_jobs)
        return stats.gendered(self.lexicon, self.analyzer)

    def evaluate(self, run, queries, documents, qrels=None, strict: bool = False,
                 n_jobs: int | None = None) -> GSRReport:
        """GSR of `run`; with qrels also the perfect and random engines, all cut to the same K per query.

        `documents` given as a path, irds:NAME, a Lucene index or a DocumentSource is read only where the run and
        the engines need it; prebuilt GenderedDocuments/DocumentStats or in-memory documents are used whole.
        """
        return self.evaluate_many({"run": run}, queries, documents, qrels, strict, n_jobs)["run"]

    def evaluate_many(self, runs, queries, documents, qrels=None, strict: bool = False,
                      n_jobs: int | None = None) -> dict:
        """`evaluate` of each of `runs` ({name: run}) against one read of `documents`; the perfect and random
        engines are measured once and shared by every report."""
        runs, queries, qrels = {name: as_run(run) for name, run in runs.items()}, as_queries(queries), as_qrels(qrels)
        check_resample_memory(len(queries), self.resamples)
        if qrels is None:
            cut = None if self.cutoff == "relevant" else self.cutoff  # no judgments: no K to cut at
            cuts = {name: cut_run(run, cut) for name, run in runs.items()}
            gendered, _, _ = self._documents_for(documents, list(cuts.values()), {}, None, n_jobs)
            reports = {}
            for name, run in cuts.items():
                system = self._measure(run, queries, gendered, None, strict)
                add_uncertainty([system], self.resamples, self.level, self.seed)
                reports[name] = GSRReport(system)
            return reports
        if not set(qrels) & set(queries):
            raise InputError(f"qrels: none of the {len(qrels)} judged query ids is a topic id (qrels e.g. "
                             f"{sorted(qrels)[:3]}, topics e.g. {sorted(queries)[:3]}); do they belong together?")
        counts = relevant_counts(qrels)
        judged = sorted(q for q in queries if counts.get(q, 0) > 0)
        unjudged = sorted(q for q in queries if counts.get(q, 0) == 0)
        cut = counts if self.cutoff == "relevant" else self.cutoff
        cuts = {name: cut_run(run, cut) for name, run in runs.items()}
        perfect = cut_run(perfect_run(qrels), cut)
        gendered, engines, random = self._documents_for(documents, list(cuts.values()), perfect, qrels, n_jobs)
        perfect_result = self._measure(perfect, queries, engines, judged, strict=False)
        random_result = self._measure(cut_run(random, cut), queries, engines, judged, strict=False)
        reports = {}
        for name, run in cuts.items():
            system = self._measure(run, queries, gendered, judged, strict)
            if unjudged:
                system.skipped["no_relevant_judgment"] = unjudged
            # each report resamples its own queries: the engines' intervals belong to the report they sit in
            report = GSRReport(system, copy.copy(perfect_result), copy.copy(random_result))
            add_uncertainty([report.system, report.perfect, report.random], self.resamples, self.level, self.seed)
            reports[name] = report
        return reports

    def _documents_for(self, documents, runs: list[Run], perfect: Run, qrels,
                       n_jobs) -> tuple[GenderedDocuments, GenderedDocuments, Run | None]:
        """The documents `runs` are measured on, those the perfect and random engines are measured on, and the
        random engine's run (drawn here; None without qrels)."""
        if not isinstance(documents, (str, os.PathLike, DocumentSource)):
            gendered = self.documents(documents, n_jobs=n_jobs)
            random = random_run(qrels, gendered.stats.docids, self.random_seed) if qrels is not None else None
            return gendered, gendered, random
        source = open_documents(documents)
        picks = random_positions(qrels, source.count(), self.random_seed) if qrels is not None else {}
        positions = np.concatenate(list(picks.values())) if picks else np.zeros(0, dtype=np.int64)
        needed = needed_document_stats(source, {d for run in runs for ranked in run.values() for d, _ in ranked},
                                       {d for ranked in perfect.values() for d, _ in ranked}, positions,
                                       self.analyzer, n_jobs)
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
