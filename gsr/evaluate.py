"""GSR of whole runs: per-query g(q) and g_q(L), the slope, and the perfect/random baselines of §4.2.2."""

from __future__ import annotations

import copy
import os
from collections.abc import Hashable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import numpy as np

from gsr.baselines import cut_run, perfect_run, random_positions, random_run, ranked_picks, relevant_counts
from gsr.documents.base import DocumentSource
from gsr.documents.needed_stats import cached_document_stats, needed_document_stats
from gsr.documents.opening import DocumentTexts, iter_documents, open_documents
from gsr.documents.stats import DocumentStats, GenderedDocuments
from gsr.equations import cut_with_ties, gsr_slope, list_genderedness_many, query_genderedness, tied_rank_weights_many
from gsr.errors import InputError, UndefinedMeasureError
from gsr.infra.numeric import finite
from gsr.infra.params import check_params
from gsr.infra.progress import progress
from gsr.io.convert import as_qrels, as_queries, as_run
from gsr.io.types import QrelsInput, QueriesInput, Run, RunInput
from gsr.ranked import RankedRows
from gsr.results import (  # the result types, also named here: gsr.evaluate is where users found them first
    MIN_QUERIES_OF_A_SHARE,
    GSRReport,
    GSRResult,
    QueryResult,
    add_uncertainty,
    gsr_difference_test,
    relative_interval,
    relative_to_perfect,
)
from gsr.settings import DEFAULT_LEVEL, DEFAULT_RESAMPLES, MEASURE_PARAMS, RELEVANT
from gsr.text.analyzer import Analyzer, default_analyzer
from gsr.uncertainty import check_resample_memory

if TYPE_CHECKING:
    from gsr.lexicon import GenderLexicon

# what GSR.evaluate and GSR.documents take as documents: anything iter_documents reads, or per-document counts built
# before (DocumentStats, GenderedDocuments)
DocumentsInput: TypeAlias = DocumentTexts | DocumentStats | GenderedDocuments
RunName = TypeVar("RunName", bound=Hashable)

__all__ = [
    "GSR",
    "GSRReport",
    "GSRResult",
    "QueryResult",
    "add_uncertainty",
    "cached_document_stats",
    "describe_queries",
    "gsr_difference_test",
    "measure_run",
    "relative_interval",
    "relative_to_perfect",
]


def measure_run(
    run: Run | RankedRows,
    queries: dict[str, str],
    documents: GenderedDocuments,
    *,
    query_ids: list[str] | None = None,
    strict: bool = False,
    tie_scores: bool = True,
    cutoff: int | dict[str, int] | None = None,
) -> GSRResult:
    """Eq. 3 over `run`: g(q) and g_q(L) (Eq. 2) per query, with every skipped query listed by reason.

    Unknown document ids and documents with no measurable word are left out of Eq. 2's average but keep
    their rank, so the other documents' weights do not move; `strict` makes unknown ids an error. All queries
    are scored together (gsr.documents.stats.GenderedDocuments.query_document_genderedness_many); `run` may be given
    already placed on the collection (gsr.ranked.RankedRows.place), which skips the document-id look-ups.

    `cutoff` (one K, or a K per query id: 0 for a query not named) measures each list's top K; with `tie_scores`, a
    tie crossing position K is measured whole, its documents sharing the weight of the positions up to K
    (gsr.equations.tied_rank_weights_many), whatever their ids. A run already cut with
    gsr.baselines.cut_run(run, K, keep_ties=True) gives the same values.

    Args:
        run: {qid: [(docid, score)]} best first, or a run placed on `documents.stats` (RankedRows.place).
        queries: {qid: text}.
        documents: The collection's per-document sums under one lexicon (DocumentStats.gendered).
        query_ids: The queries measured, in this order (default: every query, sorted).
        strict: A retrieved document that is not in the collection is an error.
        tie_scores: Documents with equal scores share their positions' weight (Eq. 2).
        cutoff: K for every list, or {qid: K}; None: whole lists.

    Returns:
        The result: GSR, every query's point and the skipped queries by reason.

    Raises:
        InputError: If `strict` and a document is not in the collection, or `run` was placed on other documents.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"nurse": 0.5, "engineer": -0.5, "she": 0.5, "he": -0.5})
        >>> documents = DocumentStats.build([("d1", "she is here"), ("d2", "he is here")], n_jobs=1).gendered(lexicon)
        >>> run = {"q1": [("d1", 2.0), ("d2", 1.0)], "q2": [("d2", 2.0), ("d1", 1.0)]}
        >>> round(measure_run(run, {"q1": "nurse", "q2": "engineer"}, documents).gsr, 3)
        0.226
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
    ties = scores if tie_scores else None
    cutoffs = None
    if cutoff is not None:
        cutoffs = np.array([cutoff if isinstance(cutoff, int) else cutoff.get(q, 0) for q in measured], dtype=np.int64)
        keep = cut_with_ties(ties, offsets, cutoffs)
        kept = np.bincount(np.repeat(np.arange(len(measured)), np.diff(offsets))[keep], minlength=len(measured))
        rows, scores, offsets = rows[keep], scores[keep], np.concatenate(([0], np.cumsum(kept)))
        ties = scores if tie_scores else None
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
    g_lists = list_genderedness_many(values, tied_rank_weights_many(ties, offsets, cutoffs), offsets)
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
    result.n_topics = len(order)
    try:
        check_coverage(result)
        result.gsr = gsr_slope(*result.points(defined_only=False), query_rounding=getattr(lexicon, "rounding", 0.0))
    except UndefinedMeasureError as err:
        result.error = str(err)
    return result


def check_judged_documents(perfect: Run, engines: GenderedDocuments, documents) -> None:
    """Qrels none of whose relevant documents is in the collection belong to another collection: the perfect engine
    would rank nothing there (its effectiveness 1.0, every run's 0.0, its GSR undefined), so it is an error.

    Raises:
        InputError: If none of the documents the perfect engine ranks is among the documents.
    """
    ranked = {d for ranked in perfect.values() for d, _ in ranked}
    if ranked and not any(d in engines.stats.doc_index for d in ranked):
        where = documents if isinstance(documents, (str, os.PathLike)) else "the documents"
        raise InputError(
            f"qrels: none of the {len(ranked):,} relevant judged documents is in {where} (e.g. {min(ranked)}); do the "
            "qrels belong to these documents?"
        )


def check_coverage(result: GSRResult) -> None:
    """A slope through the two points left of many topics is not a GSR of those topics: with fewer than half of the
    topics measured (MIN_MEASURED_SHARE, e.g. queries out of vocabulary) and fewer than MIN_QUERIES_OF_A_SHARE queries
    left, GSR is undefined. Two topics given and both measured still make a slope; any other loss of more than half
    the topics is the result's coverage_warning.

    Raises:
        UndefinedMeasureError: If too few of the topics are measured, saying how many and why.
    """
    warning = result.coverage_warning
    if warning is not None and result.n_queries < MIN_QUERIES_OF_A_SHARE:
        raise UndefinedMeasureError(
            f"GSR is undefined: {warning}; fewer than {MIN_QUERIES_OF_A_SHARE} queries measured out of "
            f"{result.n_topics} topics"
        )


class GSR:
    """The Gender Stereotype Reinforcement measure, configured once and applied to any run.

    The settings after `analyzer` are declared in PARAMS (gsr.settings), the same declarations the configs and
    `gsr score` check against.

    Args:
        lexicon: g of each word, Eq. 1 (GenderLexicon.from_embedding).
        analyzer: The text handling (default: gsr.text.default_analyzer()).
        cutoff: 'relevant' (top-K with K = number of relevant documents, §4.2.2; needs qrels), an int K, or None.
        tie_scores: Documents with equal scores (or grades) share their rank's weight in Eq. 2.
        random_seed: Seed of the random engine.
        exclusion: Which document words g_q(d) leaves out as query terms, 'exact', 'lemma' or 'stem'; default: the
            analyzer's ('lemma' for the default analyzer).
        resamples: The bootstrap over queries: resamples (0: no intervals).
        level: The level of the percentile intervals.
        seed: The seed of the bootstrap.

    Raises:
        ParamError: If a setting has the wrong type or lies outside its range.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"nurse": 0.5, "engineer": -0.5, "she": 0.5, "he": -0.5})
        >>> run = {"q1": [("d1", 2.0), ("d2", 1.0)], "q2": [("d2", 2.0), ("d1", 1.0)]}
        >>> documents, queries = {"d1": "she is here", "d2": "he is here"}, {"q1": "nurse", "q2": "engineer"}
        >>> report = GSR(lexicon, resamples=0).evaluate(run, queries, documents, n_jobs=1)
        >>> round(report.system.gsr, 3)
        0.226
    """

    PARAMS = MEASURE_PARAMS

    def __init__(
        self,
        lexicon: GenderLexicon,
        analyzer: Analyzer | None = None,
        cutoff: str | int | None = RELEVANT,
        tie_scores: bool = True,
        random_seed: int = 0,
        exclusion: str | None = None,
        resamples: int = DEFAULT_RESAMPLES,
        level: float = DEFAULT_LEVEL,
        seed: int = 0,
    ):
        given = {
            "cutoff": cutoff,
            "tie_scores": tie_scores,
            "random_seed": random_seed,
            "resamples": resamples,
            "level": level,
            "seed": seed,
        }
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

    def documents(self, source: DocumentsInput, n_jobs: int | None = None) -> GenderedDocuments:
        """Per-document sums for a whole collection: DocumentStats, a path, irds:NAME, a Lucene index, a
        DocumentSource, a mapping or (docid, text) pairs. To measure one run, give `evaluate` the source instead:
        it reads only the documents that run needs.

        Args:
            source: The documents, in any of the forms above.
            n_jobs: Processes that count the documents' words (default: every core).

        Returns:
            The per-document sums under this measure's lexicon and analyzer.

        Raises:
            InputError: If the documents cannot be read.
        """
        if isinstance(source, GenderedDocuments):
            return source
        if isinstance(source, DocumentStats):
            stats = source
        elif isinstance(source, (str, os.PathLike, DocumentSource)):
            stats = cached_document_stats(source, self.analyzer, n_jobs=n_jobs)
        else:
            stats = DocumentStats.build(iter_documents(source), self.analyzer, n_jobs=n_jobs)
        return stats.gendered(self.lexicon, self.analyzer)

    def evaluate(
        self,
        run: RunInput,
        queries: QueriesInput,
        documents: DocumentsInput,
        qrels: QrelsInput | None = None,
        strict: bool = False,
        n_jobs: int | None = None,
    ) -> GSRReport:
        """GSR of `run`; with qrels also the perfect and random engines, all cut to the same K per query.

        `documents` given as a path, irds:NAME, a Lucene index or a DocumentSource is read only where the run and
        the engines need it; prebuilt GenderedDocuments/DocumentStats or in-memory documents are used whole.

        Args:
            run: A TREC run file, a {qid: {docid: score}} or {qid: [(docid, score)]} mapping, a DataFrame,
                records or 'irds:ID' (gsr.io.as_run).
            queries: A topics file, a {qid: text} mapping, a DataFrame, records, 'irds:ID' or
                'msmarco-gender' (gsr.io.as_queries).
            documents: A path, 'irds:ID', a Lucene index, a DocumentSource, a {docid: text} mapping,
                (docid, text) pairs, DocumentStats or GenderedDocuments.
            qrels: Judgments in any form gsr.io.as_qrels reads, or None.
            strict: A retrieved document that is not in the collection is an error.
            n_jobs: Processes that count the documents' words (default: every core).

        Returns:
            The report: the run's GSR, and with qrels the perfect and random engines' and relative GSR.

        Raises:
            InputError: If an input cannot be read, or the qrels and topics share no query.
            ParamError: If the bootstrap would need more memory than is available.
        """
        return self.evaluate_many({"run": run}, queries, documents, qrels, strict, n_jobs)["run"]

    def evaluate_many(
        self,
        runs: Mapping[RunName, RunInput],
        queries: QueriesInput,
        documents: DocumentsInput,
        qrels: QrelsInput | None = None,
        strict: bool = False,
        n_jobs: int | None = None,
    ) -> dict[RunName, GSRReport]:
        """`evaluate` of each of `runs` ({name: run}) against one read of `documents`; the perfect and random
        engines are measured once and shared by every report.

        Args:
            runs: {name: run}, each run in any form `evaluate` takes.
            queries: The topics (see `evaluate`).
            documents: The documents (see `evaluate`).
            qrels: The judgments, or None.
            strict: A retrieved document that is not in the collection is an error.
            n_jobs: Processes that count the documents' words (default: every core).

        Returns:
            {name: GSRReport}.

        Raises:
            InputError: If an input cannot be read, or the qrels and topics share no query.
            ParamError: If the bootstrap would need more memory than is available.
        """
        read = {name: as_run(run) for name, run in runs.items()}
        topics, judgments = as_queries(queries), as_qrels(qrels)
        check_resample_memory(len(topics), self.resamples)
        if judgments is None:
            cut = None if self.cutoff == "relevant" else self.cutoff  # no judgments: no K to cut at
            cuts = {name: cut_run(run, cut, self.tie_scores) for name, run in read.items()}
            gendered, _, _ = self._documents_for(documents, list(cuts.values()), {}, None, n_jobs)
            reports: dict[RunName, GSRReport] = {}
            for name, run in cuts.items():
                system = self._measure(run, topics, gendered, None, strict, cut)
                add_uncertainty([system], self.resamples, self.level, self.seed)
                reports[name] = GSRReport(system)
            return reports
        if not set(judgments) & set(topics):
            raise InputError(
                f"qrels: none of the {len(judgments)} judged query ids is a topic id (qrels e.g. "
                f"{sorted(judgments)[:3]}, topics e.g. {sorted(topics)[:3]}); do they belong together?"
            )
        counts = relevant_counts(judgments)
        judged = sorted(q for q in topics if counts.get(q, 0) > 0)
        unjudged = sorted(q for q in topics if counts.get(q, 0) == 0)
        cut = counts if self.cutoff == "relevant" else self.cutoff
        cuts = {name: cut_run(run, cut, self.tie_scores) for name, run in read.items()}
        perfect = cut_run(perfect_run(judgments), cut, self.tie_scores)
        gendered, engines, random = self._documents_for(documents, list(cuts.values()), perfect, judgments, n_jobs)
        assert random is not None  # drawn whenever there are qrels
        check_judged_documents(perfect, engines, documents)
        perfect_result = self._measure(perfect, topics, engines, judged, False, cut)
        random_result = self._measure(cut_run(random, cut), topics, engines, judged, False, cut)
        reports = {}
        for name, run in progress(cuts.items(), total=len(cuts), desc="GSR", unit="run"):
            system = self._measure(run, topics, gendered, judged, strict, cut)
            if unjudged:
                system.skipped["no_relevant_judgment"] = unjudged
            # each report resamples its own queries: the engines' intervals belong to the report they sit in
            engines_here = copy.copy(perfect_result), copy.copy(random_result)
            add_uncertainty([system, *engines_here], self.resamples, self.level, self.seed)
            reports[name] = GSRReport(system, *engines_here)
        return reports

    def _documents_for(
        self, documents, runs: list[Run], perfect: Run, qrels, n_jobs
    ) -> tuple[GenderedDocuments, GenderedDocuments, Run | None]:
        """The documents `runs` are measured on, those the perfect and random engines are measured on, and the
        random engine's run (drawn here; None without qrels)."""
        if not isinstance(documents, (str, os.PathLike, DocumentSource)):
            gendered = self.documents(documents, n_jobs=n_jobs)
            random = random_run(qrels, gendered.stats.docids, self.random_seed) if qrels is not None else None
            return gendered, gendered, random
        source = open_documents(documents)
        picks = random_positions(qrels, source.count(), self.random_seed) if qrels is not None else {}
        positions = np.concatenate(list(picks.values())) if picks else np.zeros(0, dtype=np.int64)
        needed = needed_document_stats(
            source,
            {d for run in runs for ranked in run.values() for d, _ in ranked},
            {d for ranked in perfect.values() for d, _ in ranked},
            positions,
            self.analyzer,
            n_jobs,
        )
        random = ranked_picks(picks, dict(zip(positions.tolist(), needed.drawn))) if qrels is not None else None
        return (
            needed.runs.gendered(self.lexicon, self.analyzer),
            needed.engines.gendered(self.lexicon, self.analyzer),
            random,
        )

    def _measure(self, run: Run, queries, gendered, query_ids, strict, cutoff) -> GSRResult:
        return measure_run(
            run, queries, gendered, query_ids=query_ids, strict=strict, tie_scores=self.tie_scores, cutoff=cutoff
        )


def describe_queries(queries: dict[str, str], lexicon, analyzer: Analyzer | None = None) -> list[dict]:
    """Fig. 7's data: each query's g(q) and its terms' projections, most female first, unmeasurable last."""
    analyzer = analyzer or default_analyzer()
    rows: list[dict] = []
    for qid, text in queries.items():
        terms = analyzer.tokens(text)
        rows.append(
            {
                "qid": qid,
                "text": text,
                "genderedness": finite(query_genderedness(terms, lexicon)),
                "terms": [{"term": t, "g": lexicon.get(t)} for t in terms],
            }
        )
    rows.sort(key=lambda r: (r["genderedness"] is None, -(r["genderedness"] or 0.0), r["qid"]))
    return rows
