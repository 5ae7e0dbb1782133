"""FaiRR and NFaiRR of whole runs (gsr.fairness.fairr's equations over every query at once, on a run's flat arrays).

FaiRRMeasures(documents, FaiRRSettings()).evaluate(run, background) gives a FaiRRResult: each query's FaiRR@k,
NFaiRR@k and the ranker-agnostic FaiRR_agnostic@k / NFaiRR_agnostic@k of its background set, their means over the
queries where each is defined, and the settings. Only the documents of the run's top max(k) and of the background's
top `background_depth` per query are read (their representative-word counts are cached, gsr.fairness.neutrality).

The background set of a query is the background run's top `background_depth` (default 200) documents for it, in
trec_eval's order; without a background run it is the run's own (say so: NFaiRR is then relative to the best
reordering of what the system itself retrieved). A background run that misses a measured query the run answers is
an error before any document is read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from gsr.errors import InputError
from gsr.fairness.fairr import (
    DEFAULT_BACKGROUND_DEPTH,
    DEFAULT_CUTOFFS,
    DEFAULT_SHARES,
    DEFAULT_THRESHOLD,
    FaiRRError,
    check_cutoffs,
    check_shares,
    check_threshold,
    document_neutrality,
    fairr_per_query,
    ideal_rankings,
    ideal_tolerance,
    ranker_agnostic_per_query,
)
from gsr.fairness.fairr_options import MISSING_POLICIES, TOKENISATIONS
from gsr.fairness.neutrality import GroupWords, count_documents, group_words
from gsr.io.run_arrays import RunArrays

RUN_ITSELF = "the run itself"
EMPTY_RUN, ZERO_IDEAL = "empty_run", "zero_ideal_fairr"
KINDS = ("FaiRR", "NFaiRR", "FaiRR_agnostic", "NFaiRR_agnostic")


@dataclass(frozen=True)
class FaiRRSettings:
    """How FaiRR reads runs and documents: the cut-offs, the neutrality threshold τ and group shares J, the background
    depth, the tokenisation, and what a document missing from the collection counts as.

    Args:
        cutoffs: The cut-offs k (default 5, 10, 20, 50, the paper's).
        threshold: τ ≥ 0: a document with at most τ representative words is neutral (default 1).
        shares (Mapping[str, float]): J_g of each group of the word list (default {'f': ½, 'm': ½}).
        background_depth: The background run's documents per query that form its background set (default 200).
        tokens: 'whitespace' (the reference's) or 'words' (the analyzer's).
        missing: 'error' (default) or 'neutral' (ω = 1, the reference's stated intent; counted in the settings).

    Raises:
        FaiRRError: If a setting is out of range.

    Example:
        >>> " ".join(FaiRRSettings(cutoffs=[10, 5]).names[:4])
        'FaiRR@5 FaiRR@10 NFaiRR@5 NFaiRR@10'
    """

    cutoffs: tuple[int, ...] = DEFAULT_CUTOFFS
    threshold: float = DEFAULT_THRESHOLD
    shares: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_SHARES))
    background_depth: int = DEFAULT_BACKGROUND_DEPTH
    tokens: str = "whitespace"
    missing: str = "error"

    def __post_init__(self):
        object.__setattr__(self, "cutoffs", check_cutoffs(self.cutoffs))
        object.__setattr__(self, "threshold", check_threshold(self.threshold))
        object.__setattr__(self, "shares", check_shares(self.shares))
        depth = self.background_depth
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise FaiRRError(f"the background depth must be a positive integer, not {depth!r}")
        if self.tokens not in TOKENISATIONS:
            raise FaiRRError(f"tokens must be one of {', '.join(TOKENISATIONS)}, not {self.tokens!r}")
        if self.missing not in MISSING_POLICIES:
            raise FaiRRError(f"missing must be one of {', '.join(MISSING_POLICIES)}, not {self.missing!r}")

    @property
    def names(self) -> list[str]:
        """The per-query measures: FaiRR@k, NFaiRR@k, FaiRR_agnostic@k, NFaiRR_agnostic@k for every k."""
        return [f"{kind}@{k}" for kind in KINDS for k in self.cutoffs]

    def to_dict(self) -> dict:
        """The settings as outputs report them.

        Returns:
            Every setting by name.
        """
        return {
            "cutoffs": list(self.cutoffs),
            "threshold": self.threshold,
            "shares": dict(self.shares),
            "background_depth": self.background_depth,
            "tokens": self.tokens,
            "missing": self.missing,
        }


@dataclass
class FaiRRResult:
    """Every measured query's values (NaN where undefined), the queries skipped by reason, and the settings.

    Args:
        qids: The measured queries, in order.
        values: {measure: one value per query of `qids`, NaN where undefined}.
        skipped: {reason: the queries}: 'empty_run' (the run does not answer it), 'zero_ideal_fairr' (its background
            set's IFaiRR is 0: NFaiRR undefined).
        settings: The settings, the background, the word list and the documents missing from the collection.

    Example:
        >>> import numpy as np
        >>> result = FaiRRResult(["q1", "q2"], {"FaiRR@5": np.array([1.0, np.nan])}, {"empty_run": ["q2"]}, {})
        >>> result.measures(), result.query_values("q2")
        ({'FaiRR@5': 1.0}, {'FaiRR@5': None})
    """

    qids: list[str]
    values: dict[str, np.ndarray]
    skipped: dict[str, list[str]]
    settings: dict

    def measures(self) -> dict[str, float | None]:
        """Each measure's mean over the queries where it is defined (None where it is defined for none).

        Returns:
            {measure: mean}.
        """
        return {
            name: (float(np.mean(v[~np.isnan(v)])) if (~np.isnan(v)).any() else None) for name, v in self.values.items()
        }

    def defined(self) -> dict[str, int]:
        """{measure: the queries where it is defined}.

        Returns:
            The counts.
        """
        return {name: int((~np.isnan(v)).sum()) for name, v in self.values.items()}

    def query_values(self, qid: str) -> dict[str, float | None]:
        """One query's values (None where undefined).

        Args:
            qid: The query.

        Returns:
            {measure: value}.
        """
        at = self.qids.index(qid)
        return {name: (None if math.isnan(v[at]) else float(v[at])) for name, v in self.values.items()}

    def per_query(self) -> dict[str, dict[str, float | None]]:
        """{qid: {measure: value}} of every measured query (None where undefined).

        Returns:
            The values.
        """
        columns = {name: v.tolist() for name, v in self.values.items()}
        return {
            qid: {name: (None if math.isnan(column[i]) else column[i]) for name, column in columns.items()}
            for i, qid in enumerate(self.qids)
        }

    def to_dict(self) -> dict:
        """The result as JSON: {measures, per_query: [{qid, measure: value}], settings, queries}.

        Returns:
            The result.
        """
        return {
            "measures": self.measures(),
            "per_query": [{"qid": qid, **values} for qid, values in self.per_query().items()],
            "settings": {**self.settings, "skipped": self.skipped},
            "queries": self.defined(),
        }


def run_arrays_of(source) -> RunArrays:
    """RunArrays of a run in any form gsr.io.as_run reads (a TREC file by the array reader)."""
    from gsr.io.convert import as_run
    from gsr.io.records import is_irds
    from gsr.io.run_arrays import read_run_arrays

    if isinstance(source, RunArrays):
        return source
    if isinstance(source, (str, os.PathLike)) and not is_irds(source):
        return read_run_arrays(source)
    return RunArrays.from_run(as_run(source))


def check_background(run_queries: Iterable[str], background_queries: Iterable[str], name: str) -> None:
    """A background run must hold every measured query the run answers (NFaiRR divides by its ideal FaiRR).

    Args:
        run_queries: The measured queries the run answers.
        background_queries: The background run's queries.
        name: How messages name the background run.

    Raises:
        FaiRRError: Naming the first missing query and how many more there are.

    Example:
        >>> check_background(["q1"], ["q1", "q2"], "bm25.run")
    """
    missing = sorted(set(run_queries) - set(background_queries))
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise FaiRRError(
            f"background run {name} misses query {missing[0]}{more} of the run: NFaiRR normalises each query by "
            "its background documents"
        )


def documents_name(documents) -> str:
    """How messages name the documents: a path as given, a source by its name, anything else 'the documents'."""
    from gsr.documents.base import DocumentSource

    if isinstance(documents, (str, os.PathLike)):
        return str(documents)
    return documents.name if isinstance(documents, DocumentSource) else "the documents"


def _rows(arrays: RunArrays, index: Mapping[str, int], depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query number, 0-based rank, docid) of the rows of measured queries ranked above `depth`."""
    code_of = np.array([index.get(q, -1) for q in arrays.qids], dtype=np.int64)
    kept = np.where(code_of >= 0, np.minimum(np.diff(arrays.offsets), depth), 0)  # each list's first rows
    ends = np.cumsum(kept)
    ranks = np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - kept, kept)
    return np.repeat(code_of, kept), ranks, arrays.docids[np.repeat(arrays.offsets[:-1], kept) + ranks]


class FaiRRMeasures:
    """FaiRR and NFaiRR of runs over one collection, word list and settings.

    Args:
        documents (object): The documents: a path, 'irds:NAME', a DocumentSource, a mapping or (docid, text) pairs.
        settings: The settings (default: FaiRRSettings()).
        words (GroupWords | str | None): The representative words (see gsr.fairness.neutrality.group_words; default
            the paper's gender-representative list).
        n_jobs: Processes counting words in documents (default: every core).

    Raises:
        FaiRRError: If the word list's groups are not the shares' groups.

    Example:
        >>> docs = {"d1": "she and he", "d2": "she and her", "d3": "a report"}
        >>> result = FaiRRMeasures(docs, FaiRRSettings(cutoffs=[2])).evaluate({"q1": {"d2": 2.0, "d1": 1.0}})
        >>> round(result.measures()["FaiRR@2"], 4), round(result.measures()["NFaiRR@2"], 4)
        (0.6309, 0.6309)
    """

    def __init__(self, documents, settings: FaiRRSettings | None = None, words=None, n_jobs: int | None = None):
        self.documents = documents
        self.settings = settings or FaiRRSettings()
        groups = tuple(self.settings.shares)
        self.words = words if isinstance(words, GroupWords) else group_words(words, groups)
        if self.words.groups != groups:
            raise FaiRRError(
                f"the word list {self.words.source} has groups {', '.join(self.words.groups)}, the shares "
                f"{', '.join(groups)}"
            )
        self.n_jobs = n_jobs

    def evaluate(
        self, run, background=None, query_ids: Iterable[str] | None = None, background_name: str | None = None
    ) -> FaiRRResult:
        """FaiRR@k, NFaiRR@k and the ranker-agnostic values of every measured query, and their means.

        Args:
            run (object): The run (any form gsr.io.as_run reads, or RunArrays).
            background (object): The background run (default: the run itself).
            query_ids: The queries measured (default: the run's, sorted).
            background_name: How outputs name the background run (default: its path, or 'the run itself').

        Returns:
            The values.

        Raises:
            FaiRRError: If the background run misses a measured query of the run.
            InputError: If a document is not in the collection (with missing = 'error') or cannot be read.
        """
        s = self.settings
        arrays = run_arrays_of(run)
        own = background is None
        back = arrays if own else run_arrays_of(background)
        name = RUN_ITSELF if own else str(background_name or background)
        qids = sorted(arrays.qids) if query_ids is None else list(query_ids)
        index = {q: i for i, q in enumerate(qids)}
        answered = np.zeros(len(qids), dtype=bool)
        answered[[index[q] for q in arrays.qids if q in index]] = True
        check_background([qids[i] for i in np.flatnonzero(answered)], back.qids, name)
        run_codes, run_ranks, run_ids = _rows(arrays, index, max(s.cutoffs))
        back_codes, _, back_ids = _rows(back, index, s.background_depth)
        # the background's documents first (a background run several systems share is read once), then the run's
        # documents outside it
        back_counts = self._counts(back_ids)
        in_back, back_rows = back_counts.table.lookup(run_ids)
        run_counts = self._counts(run_ids[~in_back])
        missing = self._missing(qids, (run_codes[~in_back], run_counts), (back_codes, back_counts))
        omega_of_back = self._neutrality(back_counts)  # by the table's rows
        run_omega = np.empty(len(run_ids))
        run_omega[in_back] = omega_of_back[back_rows[in_back]]
        run_omega[~in_back] = self._neutrality(run_counts)[run_counts.wanted]
        back_omega = omega_of_back[back_counts.wanted]
        n = len(qids)
        values: dict[str, np.ndarray] = {}
        zero_ideal = np.zeros(n, dtype=bool)
        ideal_order = ideal_rankings(back_codes, back_omega)  # sorted once for every cut-off
        for k in s.cutoffs:
            ideal = fairr_per_query(*ideal_order, k, n)  # IFaiRR@k, ideal_fairr_per_query
            usable = ideal > ideal_tolerance(k)
            zero_ideal |= answered & ~usable
            normaliser = np.where(usable, ideal, np.nan)
            fair = fairr_per_query(run_codes, run_ranks, run_omega, k, n)
            agnostic = ranker_agnostic_per_query(back_codes, back_omega, k, n)
            values[f"FaiRR@{k}"] = np.where(answered, fair, np.nan)
            values[f"NFaiRR@{k}"] = np.where(answered, fair / normaliser, np.nan)
            values[f"FaiRR_agnostic@{k}"] = np.where(answered, agnostic, np.nan)
            values[f"NFaiRR_agnostic@{k}"] = np.where(answered, agnostic / normaliser, np.nan)
        values = {name: values[name] for name in s.names}
        skipped = {
            reason: [qids[i] for i in np.flatnonzero(mask)]
            for reason, mask in ((EMPTY_RUN, ~answered), (ZERO_IDEAL, zero_ideal))
            if mask.any()
        }
        settings = {**s.to_dict(), "background": name, "gender_words": self.words.source, "missing_documents": missing}
        return FaiRRResult(qids, values, skipped, settings)

    def _counts(self, docids: np.ndarray):
        """The representative-word counts of `docids` (gsr.fairness.neutrality.count_documents)."""
        return count_documents(self.documents, docids, self.words, self.settings.tokens, n_jobs=self.n_jobs)

    def _missing(self, qids: list[str], *rows) -> int:
        """How many needed documents the collection lacks; with missing = 'error' the first one is an InputError
        naming it and its query. `rows`: (each id's query number, the GroupCounts asked for those ids), the run's
        first."""
        absent = sum(int((~counts.found).sum()) for _, counts in rows)
        if absent and self.settings.missing == "error":
            for codes, counts in rows:
                lost = np.flatnonzero(~counts.found[counts.wanted])
                if len(lost):
                    docid, qid = counts.table.ids[counts.wanted[lost[0]]].decode("utf-8"), qids[codes[lost[0]]]
                    raise InputError(
                        f"{documents_name(self.documents)}: no document {docid} (retrieved for query {qid}); FaiRR "
                        f"needs every ranked document's text ({absent} are missing; missing='neutral', "
                        "gsr bias's --missing-documents neutral, counts them as neutral, ω = 1, as the reference code "
                        "intends)"
                    )
        return absent

    def _neutrality(self, counts) -> np.ndarray:
        """ω of each document of `counts` (by its table's rows): from its counts, 1 for one the collection lacks."""
        omega = document_neutrality(counts.counts, self.settings.shares, self.settings.threshold)
        return np.where(counts.found, omega, 1.0)
