"""Bias measures by name, as `gsr score --bias-measures` and the measure_agreement analysis name them, and their
values over several runs at once.

A name is KIND@k, k a positive integer:

- FaiRR, NFaiRR, FaiRR_agnostic, NFaiRR_agnostic (Rekabsaz, Kopeinik & Schedl 2021; gsr.fairness.fairr_runs);
- RaB, ARaB (Rekabsaz & Schedl 2020) with the default magnitudes of whoever asks (`gsr score`: tf, their paper's
  ln(1 + count); a config: its `bias_rab`), or with the magnitudes named: RaB_tf / ARaB_tf, RaB_tc / ARaB_tc (the
  count), RaB_bool / ARaB_bool (count > 0);
- KL, FSKL, NDKL, MB_<group>, MAB_<group> (groups female, male): the label-based measures, where labels are given.

Every measure is a mean over the queries where it is defined, as BiasReport computes it (the values are BiasReport's:
`gsr bias` on the same run and settings gives the same numbers); `per_query` holds each measure's per-query values
(β for MB, |β| for MAB).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gsr.errors import InputError
from gsr.fairness.equations import LABEL_MAGNITUDES, RAB_VARIANTS
from gsr.fairness.evaluate import BiasMeasures, BiasReport, BiasSettings, per_query_value
from gsr.fairness.fairr_runs import KINDS as FAIRR_KINDS
from gsr.fairness.fairr_runs import FaiRRMeasures, FaiRRSettings
from gsr.fairness.labels import DocumentLabels

RAB_KINDS = ("RaB", "ARaB")
LABEL_KINDS = ("KL", "FSKL", "NDKL", "MB_female", "MB_male", "MAB_female", "MAB_male")
FAIRR, RAB, LABELS = "fairr", "rab", "labels"
if TYPE_CHECKING:
    from gsr.fairness.agreement import AgreementReport
    from gsr.io.types import RunInput
    from gsr.results import GSRResult

_NAME = re.compile(r"(?P<kind>[A-Za-z_]+)@(?P<k>[^@]*)")


@dataclass(frozen=True)
class BiasMeasureName:
    """One named bias measure: its kind (as BiasReport names it), cut-off and, for RaB/ARaB, the magnitudes named.

    Args:
        name: The name as given, e.g. 'RaB_bool@10'.
        kind: 'NFaiRR', 'RaB', 'MAB_female', ...
        k: The cut-off.
        magnitude: RaB/ARaB's magnitudes where the name says them (tf, tc, bool); None: the default.

    Example:
        >>> parse_bias_measure("ARaB_bool@10")
        BiasMeasureName(name='ARaB_bool@10', kind='ARaB', k=10, magnitude='bool')
    """

    name: str
    kind: str
    k: int
    magnitude: str | None = None

    @property
    def family(self) -> str:
        """'fairr', 'rab' or 'labels': what the measure reads besides the run."""
        return FAIRR if self.kind in FAIRR_KINDS else RAB if self.kind in RAB_KINDS else LABELS

    @property
    def reported(self) -> str:
        """Its name in a BiasReport: KIND@k."""
        return f"{self.kind}@{self.k}"


def known_kinds() -> list[str]:
    """Every KIND a name may have."""
    rab = [f"{kind}{suffix}" for kind in RAB_KINDS for suffix in ("", *(f"_{m}" for m in RAB_VARIANTS))]
    return [*FAIRR_KINDS, *rab, *LABEL_KINDS]


def parse_bias_measure(text: str) -> BiasMeasureName:
    """The named measure `text` names (see the module docstring).

    Args:
        text: KIND@k.

    Returns:
        The measure.

    Raises:
        InputError: Naming what is wrong: no '@k', a cut-off that is not a positive integer, an unknown kind.

    Example:
        >>> parse_bias_measure("NFaiRR@10").family, parse_bias_measure("RaB@5").magnitude
        ('fairr', None)
    """
    name = text.strip()
    found = _NAME.fullmatch(name)
    if found is None:
        raise InputError(f"bias measure {text!r}: give KIND@k, e.g. NFaiRR@10, RaB@10 or ARaB_bool@10")
    kind, cutoff = found["kind"], found["k"].strip()
    if not re.fullmatch(r"[1-9][0-9]*", cutoff):
        raise InputError(f"bias measure {text!r}: the cut-off must be a positive integer, not {cutoff!r}")
    if kind not in known_kinds():
        raise InputError(f"bias measure {text!r}: unknown kind {kind!r} (known: {', '.join(known_kinds())})")
    base, _, suffix = kind.partition("_")
    if base in RAB_KINDS and suffix:
        return BiasMeasureName(name, base, int(cutoff), suffix)
    return BiasMeasureName(name, kind, int(cutoff))


def parse_bias_measures(names: Sequence[str]) -> list[BiasMeasureName]:
    """Each name parsed (parse_bias_measure); a name given twice is an error.

    Args:
        names: The names.

    Returns:
        The measures, in order.

    Raises:
        InputError: For a bad name, or one given twice.
    """
    measures = [parse_bias_measure(name) for name in names]
    seen = [m.name for m in measures]
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise InputError(f"bias measure {twice[0]} is named twice")
    return measures


@dataclass
class BiasValues:
    """Named measures of several runs: each measure's mean per run, its per-query values, and the settings.

    Args:
        measures: The measures, in order.
        means: {measure name: {run: mean, None where it is defined on no query}}.
        per_query: {measure name: {run: {qid: value}}}, the queries where it is defined.
        queries: The measured queries.
        settings: What the values were computed with, per family, and each run's skipped queries.

    Example:
        >>> BiasValues([parse_bias_measure("RaB@10")], {"RaB@10": {"a": 0.5}}, {}, ["q1"], {}).names
        ['RaB@10']
    """

    measures: list[BiasMeasureName]
    means: dict[str, dict[str, float | None]]
    per_query: dict[str, dict[str, dict[str, float]]]
    queries: list[str]
    settings: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The measures' names, in order."""
        return [m.name for m in self.measures]

    def query_rows(self, run: str) -> list[dict]:
        """One run's per-query values as `gsr bias --json` lists them: [{qid, measure: value or None}].

        Args:
            run: The run.

        Returns:
            One row per measured query.
        """
        return [{"qid": q, **{name: self.per_query[name][run].get(q) for name in self.names}} for q in self.queries]


def _named_values(measure: BiasMeasureName, report: BiasReport) -> tuple[float | None, dict[str, float]]:
    value_of = per_query_value(measure.reported)
    per_query = {q.qid: value for q in report.per_query if (value := value_of(q)) is not None}
    return report.measures.get(measure.reported), per_query


def bias_values(
    measures: Sequence[BiasMeasureName],
    runs: Mapping[str, RunInput],
    documents,
    query_ids: Sequence[str],
    *,
    gender_words: str | None = None,
    fairr: FaiRRSettings | None = None,
    fairr_words=None,
    background=None,
    background_name: str | None = None,
    labels: DocumentLabels | None = None,
    label_settings: BiasSettings | None = None,
    qrels=None,
    rab: str = "tf",
    n_jobs: int | None = None,
) -> BiasValues:
    """Every named measure of every run over `query_ids` (a query a run does not answer is undefined for it).

    Args:
        measures: The measures.
        runs: {name: run} (any form gsr.io.as_run reads).
        documents: The documents (a path, a DocumentSource, a mapping).
        query_ids: The queries measured.
        gender_words: RaB/ARaB's word list (gsr.fairness.labels.gender_words; default Appendix B).
        fairr: FaiRR's settings (their cut-offs are the measures'; default FaiRRSettings()).
        fairr_words (object): FaiRR's word list (gsr.fairness.neutrality.group_words; default the paper's).
        background (object): FaiRR's background run for every run (default: each run's own).
        background_name: How outputs name the background run.
        labels: The documents' labels, for the label-based measures.
        label_settings: Their settings (k from each name; default BiasSettings()).
        qrels (object): The judgments (the label-based measures' 'relevant' target reads them).
        rab: RaB/ARaB's magnitudes where a name does not say them.
        n_jobs: Processes counting words (FaiRR).

    Returns:
        The values.

    Raises:
        InputError: If a label-based measure is asked for without labels, or an input cannot be read.
    """
    from gsr.fairness.labels import gender_words_name, gendered_word_counts
    from gsr.io.convert import as_run

    if rab not in (*RAB_VARIANTS, LABEL_MAGNITUDES):
        raise InputError(f"RaB's magnitudes must be one of {', '.join((*RAB_VARIANTS, LABEL_MAGNITUDES))}")
    wanted_labels = [
        m for m in measures if m.family == LABELS or (m.family == RAB and (m.magnitude or rab) == LABEL_MAGNITUDES)
    ]
    if wanted_labels and labels is None:
        raise InputError(f"{wanted_labels[0].name} reads document labels: give labels")
    ranked = {name: as_run(run) for name, run in runs.items()}
    queries = list(query_ids)
    fairr_cutoffs = sorted({m.k for m in measures if m.family == FAIRR})
    fairr_measures = None
    if fairr_cutoffs:
        fairr_measures = FaiRRMeasures(
            documents, replace(fairr or FaiRRSettings(), cutoffs=tuple(fairr_cutoffs)), fairr_words, n_jobs=n_jobs
        )
    rab_groups = sorted({(m.k, m.magnitude or rab) for m in measures if m.family == RAB})
    mentions = None
    if any(magnitude != LABEL_MAGNITUDES for _, magnitude in rab_groups):
        depth = max(k for k, _ in rab_groups)
        wanted = {d for run in ranked.values() for q in queries for d, _ in _top(run.get(q, []), depth)}
        mentions = gendered_word_counts(documents, gender_words, wanted=wanted)
    label_cutoffs = sorted({m.k for m in measures if m.family == LABELS})
    base = label_settings or BiasSettings()
    means: dict[str, dict[str, float | None]] = {m.name: {} for m in measures}
    per_query: dict[str, dict[str, dict[str, float]]] = {m.name: {} for m in measures}
    skipped: dict[str, dict[str, list[str]]] = {}
    fairr_settings: dict = {}
    missing: dict[str, int] = {}  # run -> its ranked documents the collection lacks (FaiRR, missing = 'neutral')
    for name, run in ranked.items():
        reports: dict[tuple, BiasReport] = {}
        if fairr_measures is not None:
            report = BiasMeasures(None, fairr=fairr_measures).evaluate(run, None, queries, background, background_name)
            reports[(FAIRR,)] = report
            read = report.settings["fairr"]
            fairr_settings = {k: v for k, v in read.items() if k not in ("skipped", "missing_documents")}
            missing[name] = read["missing_documents"]
            skipped.setdefault(name, {}).update(
                {f"NFaiRR, {reason}": qids for reason, qids in report.settings["fairr"]["skipped"].items()}
            )
        for k, magnitude in rab_groups:
            settings = replace(base, k=k, rab=magnitude)
            words = gender_words_name(gender_words) if magnitude != LABEL_MAGNITUDES else None
            bias = BiasMeasures(labels if magnitude == LABEL_MAGNITUDES else None, settings, mentions, words)
            reports[(RAB, k, magnitude)] = bias.evaluate(run, qrels, queries)
        for k in label_cutoffs:
            reports[(LABELS, k)] = BiasMeasures(labels, replace(base, k=k)).evaluate(run, qrels, queries)
        for measure in measures:
            key = {FAIRR: (FAIRR,), RAB: (RAB, measure.k, measure.magnitude or rab), LABELS: (LABELS, measure.k)}[
                measure.family
            ]
            means[measure.name][name], per_query[measure.name][name] = _named_values(measure, reports[key])
        for report in reports.values():
            for reason, qids in report.settings["skipped"].items():
                skipped.setdefault(name, {}).setdefault(reason, qids)
    described: dict = {"queries": len(queries), "skipped": skipped}
    if rab_groups:
        described["rab"] = {
            "gender_words": gender_words_name(gender_words),
            "magnitudes": sorted({magnitude for _, magnitude in rab_groups}),
        }
    if fairr_measures is not None:
        described["fairr"] = {**fairr_settings, "missing_documents": missing}
    if label_cutoffs:
        described["labels"] = {"source": labels.source if labels else None, **base.to_dict()}
    return BiasValues(list(measures), means, per_query, queries, described)


def _top(ranked, depth: int):
    from gsr.io.types import rank_order

    return rank_order(ranked)[:depth]


def agreement_of(
    gsr: Mapping[str, Mapping[str, GSRResult]],
    values: BiasValues,
    systems: Sequence[str],
    resamples: int,
    level: float,
    seed: int,
) -> AgreementReport:
    """How GSR and the named measures agree about `systems` (gsr.fairness.agreement.measure_agreement): GSR entered
    with its (g(q), g_q(L)) pairs (resampled as a slope), every other measure with its per-query values.

    Args:
        gsr: {GSR column name (starting with 'GSR'): {system: gsr.results.GSRResult}}.
        values: The named measures' values of the same systems.
        systems: The systems compared.
        resamples: Bootstrap resamples of the queries for τ's interval.
        level: Its confidence level.
        seed: The resampling seed.

    Returns:
        The AgreementReport.
    """
    from gsr.fairness.agreement import AgreementMeasure, measure_agreement

    table: dict[str, dict[str, float | None]] = {}
    per_query: dict[str, dict[str, dict[str, object]]] = {}
    specs = []
    for column, results in gsr.items():
        table[column] = {s: results[s].gsr for s in systems}
        per_query[column] = {
            s: {p.qid: (p.g_query, p.g_list) for p in results[s].per_query if _point(p)} for s in systems
        }
        specs.append(AgreementMeasure.gsr(column))
    for name in values.names:
        table[name] = {s: values.means[name][s] for s in systems}
        per_query[name] = {s: dict(values.per_query[name][s]) for s in systems}
        specs.append(AgreementMeasure(name))
    return measure_agreement(table, per_query, specs, resamples, level, seed)


def _point(point) -> bool:
    return point.g_query is not None and point.g_list is not None
