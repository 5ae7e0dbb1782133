"""The bias measures of whole runs: per query, then the mean over the queries where each is defined.

BiasMeasures(labels, settings).evaluate(run, qrels) gives a BiasReport: every measure's system value, every query's
values and label counts, and the settings (label source, neutral policy, target, k, epsilon, skipped queries), which
is what `gsr bias --json` prints. Queries: with qrels, the topics with a relevant judgment (as GSR and the
effectiveness measures); without, the run's queries. A judged topic the run does not answer is undefined
(`empty_run`), never 0.

Measures that need no labels come along where their inputs are given: RaB/ARaB with entity-word counts
(`mentions`), FaiRR@k / NFaiRR@k with a gsr.fairness.fairr_runs.FaiRRMeasures (`fairr`; its settings, background
and skipped queries under settings['fairr']). Without labels (labels=None) only those are computed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from gsr.fairness.equations import (
    DEFAULT_EPSILON,
    LABEL_MAGNITUDES,
    RAB_VARIANTS,
    SHORT_LISTS,
    TARGETS,
    BiasError,
    average_rank_bias,
    bias_aggregates,
    check_target,
    feng_shah_bias,
    gender_magnitude,
    groups_of,
    label_counts,
    ndkl,
    rank_bias,
    representation_bias,
    top_k_kl,
)
from gsr.fairness.fairr_runs import FaiRRMeasures
from gsr.fairness.labels import DocumentLabels, LabelSourceError
from gsr.io.convert import as_qrels, as_run
from gsr.io.run_arrays import RunArrays
from gsr.io.types import Qrels, QrelsInput, Run, RunInput, rank_order
from gsr.text.intrinsic_gender import FEMALE, LABELS, MALE

EMPTY_RUN, NO_GENDERED, NO_GENDERED_RELEVANT = "empty_run", "no_gendered_document", "no_gendered_relevant_document"


@dataclass(frozen=True)
class BiasSettings:
    """How the measures read a ranking: cut-off k, target distribution (a TARGETS name or explicit shares), neutral
    policy, smoothing epsilon, β's denominator for short lists and RaB's gender magnitudes ('tf', 'tc', 'bool' from
    the documents' entity-word counts, or 'labels').

    Args:
        k: The cut-off.
        target (str | Mapping[str, float]): 'collection', 'relevant', 'uniform', 'retrieved' or {group: share}.
        neutral: 'exclude' (groups female, male) or 'group' (neutral a third group).
        epsilon: What a zero of a distribution counts as, in (0, 1).
        short_lists: β's denominator for lists shorter than k: 'present' or 'paper'.
        rab: RaB's gender magnitudes: 'tf', 'tc', 'bool' or 'labels'.

    Example:
        >>> BiasSettings(k=5, target="uniform").to_dict()
        {'k': 5, 'target': 'uniform', 'neutral': 'exclude', 'epsilon': 0.0001, 'short_lists': 'present', 'rab': 'tf'}
    """

    k: int = 10
    target: str | Mapping[str, float] = "collection"
    neutral: str = "exclude"
    epsilon: float = DEFAULT_EPSILON
    short_lists: str = "present"
    rab: str = "tf"

    def __post_init__(self):
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise BiasError(f"k must be a positive integer, not {self.k!r}")
        groups = groups_of(self.neutral)
        if isinstance(self.target, str):
            if self.target not in TARGETS:
                raise BiasError(f"target must be one of {', '.join(TARGETS)} or explicit shares, not {self.target!r}")
        else:
            check_target(self.target, groups)
        if not (isinstance(self.epsilon, float) and 0 < self.epsilon < 1):
            raise BiasError(f"epsilon must be a number in (0, 1), not {self.epsilon!r}")
        if self.short_lists not in SHORT_LISTS:
            raise BiasError(f"short_lists must be one of {', '.join(SHORT_LISTS)}, not {self.short_lists!r}")
        if self.rab not in (*RAB_VARIANTS, LABEL_MAGNITUDES):
            raise BiasError(f"rab must be one of {', '.join((*RAB_VARIANTS, LABEL_MAGNITUDES))}, not {self.rab!r}")

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups of the distributions: (female, male), and neutral under neutral = 'group'."""
        return groups_of(self.neutral)

    def to_dict(self) -> dict:
        """The settings as outputs report them (an explicit target as {group: share}).

        Returns:
            Every setting by name.
        """
        out = asdict(self)
        if not isinstance(self.target, str):
            out["target"] = {g: float(s) for g, s in check_target(self.target, self.groups).items()}
        return out


def measure_names(settings: BiasSettings, rab: bool = True, labels: bool = True) -> list[str]:
    """The per-query measures, named with their cut-off: KL@k, FSKL@k, NDKL@k, beta_<group>@k (with labels), RaB@k
    and ARaB@k with their female and male components (with `rab`)."""
    k = settings.k
    names = [f"KL@{k}", f"FSKL@{k}", f"NDKL@{k}"] + [f"beta_{g}@{k}" for g in settings.groups] if labels else []
    if rab:
        names += [f"{m}{part}@{k}" for m in ("RaB", "ARaB") for part in ("", "_female", "_male")]
    return names


@dataclass
class QueryBias:
    """One query: its list's length, label counts in the top k, missing labels, and each measure (None: undefined)."""

    qid: str
    documents: int
    counts: dict[str, int]
    unlabelled: int
    values: dict[str, float | None]
    skipped: str | None = None

    def to_dict(self) -> dict:
        return {
            "qid": self.qid,
            "documents": self.documents,
            **self.counts,
            "unlabelled": self.unlabelled,
            **self.values,
            **({"skipped": self.skipped} if self.skipped else {}),
        }


@dataclass
class BiasReport:
    """System values (each a mean over the queries where it is defined; β also as SB, min and max, which are not
    means), per-query values, and the settings and label source they were computed with.

    Args:
        measures: {measure: system value, None where undefined}.
        per_query (list[QueryBias]): Every query's values and label counts.
        settings: The settings, the label source and the skipped queries.
        queries: {measure: the queries where it is defined}.

    Example:
        >>> BiasReport({"NDKL@10": 0.5}, [], {}).to_dict()
        {'measures': {'NDKL@10': 0.5}, 'per_query': [], 'settings': {}, 'queries': {}}
    """

    measures: dict[str, float | None]
    per_query: list[QueryBias]
    settings: dict
    queries: dict[str, int] = field(default_factory=dict)  # measure -> queries where it is defined

    def defined(self, name: str) -> int | None:
        """Queries behind a system measure (β's aggregates: the queries where β is defined).

        Args:
            name: The measure, e.g. 'NDKL@10' or 'MB_female@10'.

        Returns:
            The number of queries, or None for an unknown measure.
        """
        kind, _, cutoff = name.partition("@")
        for prefix in ("MB_", "SB_", "MAB_", "min_beta_", "max_beta_"):
            if kind.startswith(prefix):
                return self.queries.get(f"beta_{kind[len(prefix) :]}@{cutoff}")
        return self.queries.get(name)

    def values(self, name: str) -> dict[str, float]:
        """{qid: value} of one per-query measure where it is defined.

        Args:
            name: The per-query measure, e.g. 'NDKL@10' or 'beta_female@10'.

        Returns:
            {qid: value}.
        """
        return {q.qid: value for q in self.per_query if (value := q.values.get(name)) is not None}

    def to_dict(self) -> dict:
        """The report as `gsr bias --json` prints it.

        Returns:
            {measures, per_query, settings, queries}.
        """
        return {
            "measures": self.measures,
            "per_query": [q.to_dict() for q in self.per_query],
            "settings": self.settings,
            "queries": self.queries,
        }


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


class BiasMeasures:
    """The label-based measures of runs under one label source and one BiasSettings, with RaB/ARaB and FaiRR/NFaiRR
    where their inputs are given.

    Args:
        labels: The documents' labels (None: only the measures that need none).
        settings: The settings (default: BiasSettings()).
        mentions: {docid: (female, male) entity-word counts} (gsr.fairness.labels.gendered_word_counts) for
            RaB/ARaB with rab = 'tf' | 'tc' | 'bool'; without them (and rab not 'labels') RaB is not computed.
        gender_words: The name of the word list they count (gsr.fairness.labels.gender_words_name: 'appendix-b',
            'msmarco-gender', 'file:PATH'), reported in the settings as `gender_words` where RaB reads the counts.
        fairr: FaiRR@k, NFaiRR@k and their ranker-agnostic values, for every cut-off of its settings.

    Raises:
        BiasError: If RaB is to read the labels and there are none.

    Example:
        >>> labels = DocumentLabels({"d1": "female", "d2": "male", "d3": "female"}, "example")
        >>> report = BiasMeasures(labels, BiasSettings(k=2, target="uniform")).evaluate({"q1": [("d1", 2), ("d3", 1)]})
        >>> report.measures["MB_female@2"], round(report.measures["NDKL@2"], 3)
        (0.5, 0.693)
    """

    def __init__(
        self,
        labels: DocumentLabels | None,
        settings: BiasSettings | None = None,
        mentions: Mapping[str, tuple[int, int]] | None = None,
        gender_words: str | None = None,
        fairr: FaiRRMeasures | None = None,
    ):
        self.labels = labels
        self.settings = settings or BiasSettings()
        self.mentions = mentions
        self.gender_words = gender_words
        self.fairr = fairr
        if labels is None and self.settings.rab == LABEL_MAGNITUDES:
            raise BiasError("RaB's magnitudes 'labels' need document labels")
        self.with_rab = self.settings.rab == LABEL_MAGNITUDES or mentions is not None
        self.names = measure_names(self.settings, self.with_rab, labels is not None)
        self.names += fairr.settings.names if fairr is not None else []
        target = self.settings.target
        groups = self.settings.groups
        self._fixed_target = None
        if labels is not None and not isinstance(target, str):
            self._fixed_target = check_target(target, groups)
        elif labels is not None and target == "uniform":
            self._fixed_target = {g: Fraction(1, len(groups)) for g in groups}
        elif labels is not None and target == "collection":
            self._fixed_target = labels.collection_shares(groups)

    def target_of(self, ranked: list[str], relevant: list[str]) -> dict[str, Fraction] | None:
        """T for one query: fixed, or the shares of its relevant documents / its whole retrieved list in the groups
        (None when they hold no document in the groups).

        Args:
            ranked: The labels of the query's retrieved documents (for target 'retrieved').
            relevant: The labels of its relevant documents (for target 'relevant').

        Returns:
            {group: share}, or None.
        """
        if self._fixed_target is not None:
            return self._fixed_target
        groups = self.settings.groups
        counts = label_counts(relevant if self.settings.target == "relevant" else ranked, groups)
        total = sum(counts)
        return {g: Fraction(c, total) for g, c in zip(groups, counts)} if total else None

    def _magnitudes(self, docids: list[str], labels: list[str], qid: str) -> tuple[list[float], list[float]]:
        if self.settings.rab == LABEL_MAGNITUDES:
            return [float(x == FEMALE) for x in labels], [float(x == MALE) for x in labels]
        female, male = [], []
        mentions = self.mentions or {}
        for docid in docids:
            if docid not in mentions:
                raise LabelSourceError(f"RaB: no text for document {docid} (retrieved for query {qid})")
            f, m = mentions[docid]
            female.append(gender_magnitude(f, self.settings.rab))
            male.append(gender_magnitude(m, self.settings.rab))
        return female, male

    def query(self, qid: str, ranked: list[tuple[str, float]], relevant: list[str] | None = None) -> QueryBias:
        """Every measure of one query's ranking (re-sorted in trec_eval's order) and its relevant documents.

        Args:
            qid: The query id.
            ranked: [(docid, score)].
            relevant: Its relevant documents' ids.

        Returns:
            The query's values (None where undefined) and label counts.
        """
        s = self.settings
        values: dict[str, float | None] = dict.fromkeys(self.names)
        if self.labels is None and not self.with_rab:  # nothing is read from the list here (FaiRR reads the run)
            return QueryBias(qid, len(ranked), {}, 0, values, None if len(ranked) else EMPTY_RUN)
        ordered = [d for d, _ in rank_order(ranked)]
        top = ordered[: s.k]
        labels, unlabelled = self.labels.ranked(top, qid) if self.labels is not None else ([], 0)
        counts = dict(zip(LABELS, label_counts(labels, LABELS))) if self.labels is not None else {}
        if not top:
            return QueryBias(qid, 0, counts, unlabelled, values, EMPTY_RUN)
        if self.with_rab:
            female, male = self._magnitudes(top, labels, qid)
            for name, result in (("RaB", rank_bias(female, male, s.k)), ("ARaB", average_rank_bias(female, male, s.k))):
                if result is not None:  # `top` is not empty, so both are defined
                    values[f"{name}@{s.k}"], values[f"{name}_female@{s.k}"], values[f"{name}_male@{s.k}"] = result
        if self.labels is None:
            return QueryBias(qid, len(ordered), counts, unlabelled, values)
        skipped = None
        retrieved = self.labels.ranked(ordered, qid)[0] if s.target == "retrieved" else []
        target = self.target_of(retrieved, [self.labels.lenient(d) for d in relevant or []])
        if target is None:
            skipped = NO_GENDERED_RELEVANT if s.target == "relevant" else NO_GENDERED
        elif not any(label in s.groups for label in labels):
            skipped = NO_GENDERED
        else:
            values[f"KL@{s.k}"] = top_k_kl(labels, target, s.k, s.neutral, s.epsilon)
            values[f"FSKL@{s.k}"] = feng_shah_bias(labels, target, s.k, s.neutral, s.epsilon)
            values[f"NDKL@{s.k}"] = ndkl(labels, target, s.k, s.neutral, s.epsilon)
            for group in s.groups:
                values[f"beta_{group}@{s.k}"] = representation_bias(
                    labels, group, target, s.k, s.neutral, s.short_lists
                )
        return QueryBias(qid, len(ordered), counts, unlabelled, values, skipped)

    def evaluate(
        self,
        run: RunInput,
        qrels: QrelsInput | None = None,
        query_ids: list[str] | None = None,
        background: RunInput | RunArrays | None = None,
        background_name: str | None = None,
    ) -> BiasReport:
        """Every measure over the queries (see the module docstring), with the system values and the settings.

        Args:
            run: The run, in any form gsr.io.as_run reads.
            qrels: The judgments, in any form gsr.io.as_qrels reads, or None.
            query_ids: The queries measured (default: see the module docstring).
            background (object): FaiRR's background run (default: the run itself).
            background_name: How outputs name the background run (default: its path).

        Returns:
            The report.

        Raises:
            BiasError: If the target is 'relevant' and no qrels are given.
            FaiRRError: If the background run misses a measured query the run answers.
        """
        ranked: Run = as_run(run)
        judged: Qrels | None = as_qrels(qrels) if qrels is not None else None
        if self.settings.target == "relevant" and judged is None:
            raise BiasError("target 'relevant' needs qrels (the relevant documents' label shares)")
        if query_ids is None:
            query_ids = (
                sorted(q for q, grades in judged.items() if any(g > 0 for g in grades.values()))
                if judged is not None
                else sorted(ranked)
            )
        fairr = None
        if self.fairr is not None:
            fairr = self.fairr.evaluate(ranked, background, query_ids, background_name)
        per_query = []
        fairr_values = fairr.per_query() if fairr is not None else {}
        for qid in query_ids:
            relevant = [d for d, g in (judged or {}).get(qid, {}).items() if g > 0]
            query = self.query(qid, ranked.get(qid, []), relevant)
            query.values.update(fairr_values.get(qid, {}))
            per_query.append(query)
        return self.report(per_query, fairr.settings | {"skipped": fairr.skipped} if fairr is not None else None)

    def report(self, per_query: list[QueryBias], fairr: dict | None = None) -> BiasReport:
        """The system values of per-query results: means over the defined queries, β's MB / SB / MAB / min / max.

        Args:
            per_query (list[QueryBias]): Every query's values.
            fairr: FaiRR's settings (gsr.fairness.fairr_runs.FaiRRResult.settings and its skipped queries).

        Returns:
            The report.
        """
        k = self.settings.k
        measures: dict[str, float | None] = {}
        defined: dict[str, int] = {}
        for name in self.names:
            known = [value for q in per_query if (value := q.values[name]) is not None]
            defined[name] = len(known)
            if name.startswith("beta_"):
                group = name[len("beta_") :].split("@")[0]
                aggregates = bias_aggregates(known)
                measures.update(
                    {
                        f"MB_{group}@{k}": aggregates["MB"],
                        f"SB_{group}@{k}": aggregates["SB"],
                        f"MAB_{group}@{k}": aggregates["MAB"],
                        f"min_beta_{group}@{k}": aggregates["min"],
                        f"max_beta_{group}@{k}": aggregates["max"],
                    }
                )
            else:
                measures[name] = _mean(known)
        skipped: dict[str, list[str]] = {}
        for q in per_query:
            if q.skipped:
                skipped.setdefault(q.skipped, []).append(q.qid)
        settings = {
            "labels": self.labels.source if self.labels is not None else None,
            **self.settings.to_dict(),
            "skipped": skipped,
            "unlabelled": sum(q.unlabelled for q in per_query),
            "label_counts": self.labels.to_dict() if self.labels is not None else None,
        }
        if self.gender_words is not None and self.with_rab and self.settings.rab != LABEL_MAGNITUDES:
            settings["gender_words"] = self.gender_words
        if fairr is not None:
            settings["fairr"] = fairr
        return BiasReport(measures, per_query, settings, defined)


def per_query_value(name: str) -> Callable[[QueryBias], float | None]:
    """The per-query value behind a system measure's name: β for MB_g@k, |β| for MAB_g@k, the value itself otherwise
    (None for SB, min and max, which are not per-query means)."""
    kind, _, cutoff = name.partition("@")
    if kind.startswith("MB_"):
        source = f"beta_{kind[3:]}@{cutoff}"
        return lambda q: q.values.get(source)
    if kind.startswith("MAB_"):
        source = f"beta_{kind[4:]}@{cutoff}"
        return lambda q: None if (value := q.values.get(source)) is None else abs(value)
    if kind.startswith(("SB_", "min_", "max_")):
        return lambda q: None
    return lambda q: q.values.get(name)
