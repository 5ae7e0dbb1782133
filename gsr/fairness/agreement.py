"""Whether bias measures agree about which system is more biased: Kendall τ-b between the system orderings each pair
of measures gives, with a bootstrap interval over queries; per-query rank correlations between the measures (for
each system); and, where two measures order a pair of systems oppositely, the queries that drive each verdict.

Orientation is declared once, in MORE_BIASED: each measure says which way is "more biased" — 'higher' (GSR: a
larger slope reinforces the query's gender more; KL, FSKL, NDKL, MAB), 'lower' (FaiRR, NFaiRR and their
ranker-agnostic values: larger is fairer) or 'absolute' (RaB, ARaB, MB: the sign says which gender a ranking leans
to, the distance from 0 how far). Every comparison runs on the oriented system values (v, −v or |v|), so τ = 1 means
the two measures rank the systems from least to most biased alike.

A measure's system value is an aggregate of its per-query inputs, which the bootstrap recomputes on each resample of
the queries: a mean for most measures; for GSR the least-squares slope of Eq. 3 recomputed from the resampled
(g(q), g_q(L)) pairs (its per-query inputs are those pairs, not values whose mean is the slope). AgreementMeasure
declares both the aggregate and its exact split into per-query terms (the terms' mean is the system value), which
the disagreement drivers and the per-query correlations use.

Undefined quantities are never numbers: τ with fewer than two systems, or where one measure gives every system the
same value (within the rounding a mean of n values can carry, n·ε·max|v|), and a correlation over fewer than two
queries or constant values, say "undefined" and why.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np

from gsr.equations import gsr_slope, gsr_slope_terms
from gsr.errors import InputError, UndefinedMeasureError
from gsr.fairness.equations import RAB_VARIANTS
from gsr.uncertainty import DEFAULT_LEVEL, DEFAULT_RESAMPLES, Interval, percentile_interval

HIGHER, LOWER, ABSOLUTE = "higher", "lower", "absolute"
DIRECTIONS = (HIGHER, LOWER, ABSOLUTE)
# which way each measure (its name before '@'; MB_/MAB_ for every group) is more biased: the one declaration
MORE_BIASED = {
    "GSR": HIGHER,
    "KL": HIGHER,
    "FSKL": HIGHER,
    "NDKL": HIGHER,
    "MAB": HIGHER,
    "MB": ABSOLUTE,
    "RaB": ABSOLUTE,
    "ARaB": ABSOLUTE,
    "FaiRR": LOWER,
    "NFaiRR": LOWER,
    "FaiRR_agnostic": LOWER,
    "NFaiRR_agnostic": LOWER,
}
DRIVERS = 3  # queries named per measure behind a disagreement
TWO_SYSTEMS = (
    "two systems: τ is +1 (the measures order them alike) or −1 (oppositely), and so is every resample, so an "
    "interval would say nothing"
)


def bias_direction(name: str) -> str:
    """Which way `name` (e.g. 'NFaiRR@10', 'MB_female@10', 'GSR') is more biased, from MORE_BIASED.

    Args:
        name: The measure.

    Returns:
        'higher', 'lower' or 'absolute'.

    Raises:
        InputError: If the measure has no declared direction.

    Example:
        >>> bias_direction("GSR"), bias_direction("NFaiRR@10"), bias_direction("MB_female@10")
        ('higher', 'lower', 'absolute')
        >>> bias_direction("ARaB_bool@10")  # RaB/ARaB with their magnitudes named (gsr.fairness.named)
        'absolute'
    """
    kind = name.partition("@")[0]
    base, _, suffix = kind.partition("_")
    if kind in MORE_BIASED:
        return MORE_BIASED[kind]
    if base in ("MB", "MAB") or (base in ("RaB", "ARaB") and suffix in RAB_VARIANTS):  # a group; RaB's magnitudes
        return MORE_BIASED[base]
    raise InputError(
        f"no declared direction for measure {name!r} (known: {', '.join(MORE_BIASED)}): give an AgreementMeasure"
    )


def mean_aggregate(rows: np.ndarray) -> float:
    """The mean of one-column per-query values (the system value of every measure that is a mean).

    Args:
        rows: One row per query, one column.

    Returns:
        The mean (NaN for no rows).
    """
    return float(np.mean(rows[:, 0])) if len(rows) else math.nan


def mean_terms(rows: np.ndarray) -> np.ndarray:
    """Per-query terms of a mean: the values themselves.

    Args:
        rows: One row per query, one column.

    Returns:
        The values.
    """
    return rows[:, 0].astype(np.float64)


def slope_aggregate(rows: np.ndarray) -> float:
    """GSR, Eq. 3's slope of g_q(L) on g(q), from (g(q), g_q(L)) rows; NaN where undefined.

    Args:
        rows: One (g(q), g_q(L)) row per query.

    Returns:
        The slope, or NaN.
    """
    try:
        return gsr_slope(rows[:, 0], rows[:, 1])
    except UndefinedMeasureError:
        return math.nan


def slope_terms(rows: np.ndarray) -> np.ndarray:
    """GSR split per query (gsr.equations.gsr_slope_terms): their mean is the slope.

    Args:
        rows: One (g(q), g_q(L)) row per query.

    Returns:
        One term per row.
    """
    return gsr_slope_terms(rows[:, 0], rows[:, 1])


@dataclass(frozen=True)
class AgreementMeasure:
    """How one measure enters the agreement analysis: which way is more biased, the aggregate of its per-query rows
    (each row one query's inputs: a value, or GSR's (g(q), g_q(L))), and that aggregate split into per-query terms
    whose mean is the system value.

    Args:
        name: The measure.
        more_biased: 'higher', 'lower' or 'absolute' (default: bias_direction(name)).
        aggregate: rows (n × d array) → the system value (NaN where undefined).
        terms: rows → one term per row, their mean the system value.

    Example:
        >>> AgreementMeasure("NFaiRR@10").more_biased, AgreementMeasure.gsr().more_biased
        ('lower', 'higher')
    """

    name: str
    more_biased: str = ""
    aggregate: Callable[[np.ndarray], float] = mean_aggregate
    terms: Callable[[np.ndarray], np.ndarray] = mean_terms

    def __post_init__(self):
        if not self.more_biased:
            object.__setattr__(self, "more_biased", bias_direction(self.name))
        if self.more_biased not in DIRECTIONS:
            raise InputError(
                f"{self.name}: more_biased must be one of {', '.join(DIRECTIONS)}, not {self.more_biased!r}"
            )

    @classmethod
    def gsr(cls, name: str = "GSR") -> AgreementMeasure:
        """GSR: more biased when higher, the slope of its (g(q), g_q(L)) rows.

        Args:
            name: How the table names it.

        Returns:
            The measure.
        """
        return cls(name, HIGHER, slope_aggregate, slope_terms)

    def oriented(self, value: float) -> float:
        """The value turned so that larger is more biased: v, −v or |v|.

        Args:
            value: A system value.

        Returns:
            The oriented value.
        """
        return value if self.more_biased == HIGHER else -value if self.more_biased == LOWER else abs(value)


@dataclass
class Tau:
    """Kendall τ-b between the oriented system values of two measures, with its bootstrap interval over queries.

    Args:
        measures: The two measures.
        tau: τ-b, or None.
        interval: The percentile interval of τ over query resamples.
        systems: The systems both measures give a value.
        undefined: Why τ is undefined, or None.

    Example:
        >>> Tau(("GSR", "NFaiRR@10"), None, None, 1, "fewer than two systems").to_dict()["tau"]
        'undefined: fewer than two systems'
    """

    measures: tuple[str, str]
    tau: float | None
    interval: Interval | None
    systems: int
    undefined: str | None = None

    def to_dict(self) -> dict:
        """τ as JSON: 'undefined: why' instead of a number where undefined.

        Returns:
            {measures, tau, interval, systems}.
        """
        interval = None
        if self.interval is not None:
            interval = (
                self.interval.to_list() if self.interval.low is not None else f"undefined: {self.interval.reason}"
            )
        return {
            "measures": list(self.measures),
            "tau": self.tau if self.undefined is None else f"undefined: {self.undefined}",
            "interval": interval,
            "systems": self.systems,
        }


@dataclass
class QueryCorrelation:
    """Spearman's ρ and Kendall's τ-b across queries between two measures' oriented per-query terms, for one system.

    Args:
        system: The system.
        measures: The two measures.
        spearman: ρ, or None.
        kendall: τ-b, or None.
        queries: The queries both measures have a term for.
        undefined: Why they are undefined, or None.

    Example:
        >>> QueryCorrelation("bm25", ("GSR", "NFaiRR@10"), None, None, 1, "fewer than two queries").to_dict()["kendall"]
        'undefined: fewer than two queries'
    """

    system: str
    measures: tuple[str, str]
    spearman: float | None
    kendall: float | None
    queries: int
    undefined: str | None = None

    def to_dict(self) -> dict:
        """The correlations as JSON ('undefined: why' where undefined).

        Returns:
            {system, measures, spearman, kendall, queries}.
        """
        missing = f"undefined: {self.undefined}" if self.undefined else None
        return {
            "system": self.system,
            "measures": list(self.measures),
            "spearman": self.spearman if missing is None else missing,
            "kendall": self.kendall if missing is None else missing,
            "queries": self.queries,
        }


@dataclass
class Driver:
    """One query's share of a measure's difference between two systems: its oriented contribution (the
    contributions of all queries sum to the difference of the oriented system values) and its per-query inputs.

    Args:
        qid: The query.
        contribution: Its share of (oriented value of the first system − of the second).
        first: Its per-query input for the first system (None where it has none).
        second: For the second system.

    Example:
        >>> Driver("q1", 0.25, [0.5], None).to_dict()
        {'qid': 'q1', 'contribution': 0.25, 'first': [0.5], 'second': None}
    """

    qid: str
    contribution: float
    first: list[float] | None
    second: list[float] | None

    def to_dict(self) -> dict:
        """The driver as JSON.

        Returns:
            {qid, contribution, first, second}.
        """
        return {"qid": self.qid, "contribution": self.contribution, "first": self.first, "second": self.second}


@dataclass
class Disagreement:
    """Two measures that order two systems oppositely: `measures[0]` finds `systems[0]` more biased, `measures[1]`
    finds `systems[1]` more biased; for each measure the queries that push most towards its own verdict.

    Args:
        measures: (the measure finding systems[0] more biased, the one finding systems[1] more biased).
        systems: The two systems.
        differences: Each measure's oriented difference, systems[0] − systems[1].
        drivers: {measure: the queries with the largest contributions towards its verdict}.

    Example:
        >>> Disagreement(("GSR", "NFaiRR@10"), ("a", "b"), {"GSR": 0.1, "NFaiRR@10": -0.2}, {}).to_dict()["systems"]
        ['a', 'b']
    """

    measures: tuple[str, str]
    systems: tuple[str, str]
    differences: dict[str, float]
    drivers: dict[str, list[Driver]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The disagreement as JSON.

        Returns:
            {measures, systems, differences, drivers}.
        """
        return {
            "measures": list(self.measures),
            "systems": list(self.systems),
            "differences": self.differences,
            "drivers": {m: [d.to_dict() for d in ds] for m, ds in self.drivers.items()},
        }


@dataclass
class AgreementReport:
    """The agreement of several measures over several systems: τ for every pair of measures, per-query
    correlations for every system and pair, and the disagreements with their driving queries.

    Args:
        measures: The measures, in order.
        systems: The systems, in order.
        taus (list[Tau]): τ of every pair of measures.
        correlations (list[QueryCorrelation]): Per system and pair of measures.
        disagreements (list[Disagreement]): Every pair of systems two measures order oppositely.
        settings: The bootstrap's resamples, level and seed.
        values: {measure: {system: its system value, None where undefined}}, as given.
        more_biased: {measure: 'higher', 'lower' or 'absolute'}.

    Example:
        >>> AgreementReport(["GSR"], ["a"], [], [], [], {}).to_dict()["systems"] == ["a"]
        True
    """

    measures: list[str]
    systems: list[str]
    taus: list[Tau]
    correlations: list[QueryCorrelation]
    disagreements: list[Disagreement]
    settings: dict
    values: dict[str, dict[str, float | None]] = field(default_factory=dict)
    more_biased: dict[str, str] = field(default_factory=dict)

    def disagreements_of(self, measures: tuple[str, str]) -> list[Disagreement]:
        """The pairs of systems two measures order oppositely, clearest first: by the smaller of the two differences,
        each taken against its measure's range over the systems (both measures far from a tie).

        Args:
            measures: The two measures.

        Returns:
            Their disagreements, clearest first.
        """
        found = [d for d in self.disagreements if set(d.measures) == set(measures)]
        spreads = {}
        for m in measures:
            oriented = [AgreementMeasure(m, self.more_biased.get(m, HIGHER)).oriented(v)
                        for v in self.values.get(m, {}).values() if v is not None]  # fmt: skip
            spreads[m] = max(oriented) - min(oriented) if len(oriented) > 1 else 0.0

        def strength(d: Disagreement) -> float:
            return min(abs(d.differences[m]) / spreads[m] if spreads[m] else 0.0 for m in measures)

        return sorted(found, key=strength, reverse=True)

    def median_correlation(self, measures: tuple[str, str]) -> tuple[float | None, int, str | None]:
        """The median over the systems of two measures' per-query Spearman ρ, where it is defined.

        Args:
            measures: The two measures, in the report's order.

        Returns:
            (median, the systems it is defined for, None), or (None, 0, why it is defined for none).
        """
        found = [c for c in self.correlations if c.measures == tuple(measures)]
        defined = [c.spearman for c in found if c.spearman is not None]
        if not defined:
            reasons = sorted({c.undefined for c in found if c.undefined})
            return None, 0, "; ".join(reasons) if reasons else "no system"
        return float(np.median(defined)), len(defined), None

    def to_dict(self) -> dict:
        """The report as JSON.

        Returns:
            {measures, systems, taus, correlations, disagreements, settings, values, more_biased}.
        """
        return {
            "measures": self.measures,
            "systems": self.systems,
            "taus": [t.to_dict() for t in self.taus],
            "correlations": [c.to_dict() for c in self.correlations],
            "disagreements": [d.to_dict() for d in self.disagreements],
            "settings": self.settings,
            "values": self.values,
            "more_biased": self.more_biased,
        }


# ----------------------------------------------------------------------------------------------- the computation


def _rows(per_query: Mapping[str, object], qids: Sequence[str], width: int, where: str) -> np.ndarray:
    """A (len(qids) × width) float array of one measure and system, NaN rows where a query has no input."""
    rows = np.full((len(qids), width), np.nan)
    for i, qid in enumerate(qids):
        value = per_query.get(qid)
        if value is None:
            continue
        values = [value] if isinstance(value, (int, float)) else list(cast(Iterable[float], value))
        if len(values) != width:
            raise InputError(f"{where}, query {qid}: {len(values)} inputs where the others have {width}")
        rows[i] = values
    return rows


def _width(per_system: Mapping[str, Mapping[str, object]]) -> int:
    for values in per_system.values():
        for value in values.values():
            if value is not None:
                return 1 if isinstance(value, (int, float)) else len(cast(Sequence[float], value))
    return 1


def near_tie_ranks(values: Sequence[float], queries: int) -> np.ndarray:
    """Dense ranks of `values` where values closer than a mean's rounding error (queries · ε · max|v|) share a rank,
    so that τ-b counts them as ties, not as an order made by rounding.

    Args:
        values: The oriented system values.
        queries: The most queries a value averages.

    Returns:
        One rank per value.

    Example:
        >>> near_tie_ranks([0.3, 0.1 + 0.2, 0.5], 10).tolist()
        [0, 0, 1]
    """
    array = np.asarray(values, dtype=np.float64)
    if not len(array):
        return np.zeros(0, dtype=np.int64)
    tolerance = max(1, queries) * np.finfo(np.float64).eps * float(np.max(np.abs(array)))
    order = np.argsort(array, kind="stable")
    steps = np.diff(array[order]) > tolerance
    ranks = np.empty(len(array), dtype=np.int64)
    ranks[order] = np.concatenate(([0], np.cumsum(steps)))
    return ranks


def kendall_tau(first: Sequence[float], second: Sequence[float], queries: int = 1) -> tuple[float | None, str | None]:
    """Kendall τ-b (scipy.stats.kendalltau, ties handled) of two measures' oriented system values, near ties merged
    (near_tie_ranks); (None, why) where undefined.

    Args:
        first: The first measure's oriented values, one per system.
        second: The second measure's, in the same order.
        queries: The most queries a value averages (it bounds the rounding).

    Returns:
        (τ, None) or (None, the reason).

    Example:
        >>> round(kendall_tau([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])[0], 4), kendall_tau([1.0], [2.0])
        (0.3333, (None, 'fewer than two systems (1)'))
    """
    from scipy.stats import kendalltau

    if len(first) < 2:
        return None, f"fewer than two systems ({len(first)})"
    a, b = near_tie_ranks(first, queries), near_tie_ranks(second, queries)
    for ranks, which in ((a, "first"), (b, "second")):
        if len(set(ranks.tolist())) < 2:
            return None, f"the {which} measure gives all {len(ranks)} systems the same value"
    tau = float(kendalltau(a, b).statistic)
    return (None, "τ-b is not a number for these values") if math.isnan(tau) else (tau, None)


def measure_agreement(
    table: Mapping[str, Mapping[str, float | None]],
    per_query: Mapping[str, Mapping[str, Mapping[str, object]]],
    measures: Sequence[AgreementMeasure | str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    drivers: int = DRIVERS,
) -> AgreementReport:
    """How far several measures agree about which systems are more biased (see the module docstring).

    Args:
        table: {measure: {system: system value, None where undefined}}, as reported.
        per_query: {measure: {system: {qid: input}}}: a value, or GSR's (g(q), g_q(L)); None where undefined.
        measures: The measures compared, in order: names (declared in MORE_BIASED; a name starting with 'GSR' is GSR)
            or AgreementMeasures (default: every measure of `table`).
        resamples: Bootstrap resamples of the queries for τ's interval.
        level: The interval's confidence level.
        seed: The resampling seed.
        drivers: Queries named per measure behind a disagreement.

    Returns:
        The report.

    Raises:
        InputError: If a measure has no declared direction, or no per-query inputs.

    Example:
        >>> table = {"GSR": {"a": 0.2, "b": 0.1}, "NFaiRR@10": {"a": 0.9, "b": 0.8}}
        >>> per_query = {
        ...     "GSR": {"a": {"q1": (-1.0, -0.2), "q2": (1.0, 0.2)}, "b": {"q1": (-1.0, -0.1), "q2": (1.0, 0.1)}},
        ...     "NFaiRR@10": {"a": {"q1": 1.0, "q2": 0.8}, "b": {"q1": 0.9, "q2": 0.7}},
        ... }
        >>> report = measure_agreement(table, per_query, resamples=50)
        >>> report.taus[0].tau, [d.systems for d in report.disagreements]
        (-1.0, [('a', 'b')])
    """
    specs = _specs(table, measures)
    systems = sorted({s for spec in specs for s, v in table.get(spec.name, {}).items() if v is not None})
    qids = sorted({q for spec in specs for values in per_query.get(spec.name, {}).values() for q in values})
    rows: dict[str, dict[str, np.ndarray]] = {}
    for spec in specs:
        if spec.name not in per_query:
            raise InputError(f"{spec.name}: no per-query inputs (the bootstrap and the drivers need them)")
        width = _width(per_query[spec.name])
        rows[spec.name] = {
            s: _rows(per_query[spec.name].get(s, {}), qids, width, f"{spec.name}, system {s}") for s in systems
        }
    oriented = {
        spec.name: {s: spec.oriented(v) for s, v in table[spec.name].items() if v is not None and math.isfinite(v)}
        for spec in specs
    }
    replicates = _bootstrap(specs, rows, systems, len(qids), resamples, seed)
    taus = [_tau(a, b, oriented, replicates, systems, len(qids), level) for a, b in itertools.combinations(specs, 2)]
    terms = {spec.name: {s: _oriented_terms(spec, rows[spec.name][s], table) for s in systems} for spec in specs}
    correlations = [
        _correlation(s, a.name, b.name, terms[a.name][s], terms[b.name][s])
        for s in systems
        for a, b in itertools.combinations(specs, 2)
    ]
    disagreements = [
        found
        for a, b in itertools.combinations(specs, 2)
        for s, t in itertools.combinations(systems, 2)
        if (found := _disagreement(a, b, s, t, oriented, rows, terms, qids, drivers)) is not None
    ]
    settings = {"resamples": resamples, "level": level, "seed": seed, "queries": len(qids)}
    values = {spec.name: {s: _value(table[spec.name].get(s)) for s in systems} for spec in specs}
    directions = {spec.name: spec.more_biased for spec in specs}
    names = [spec.name for spec in specs]
    return AgreementReport(names, systems, taus, correlations, disagreements, settings, values, directions)


def _value(value) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _specs(table, measures) -> list[AgreementMeasure]:
    names = list(table) if measures is None else measures
    specs = []
    for item in names:
        if isinstance(item, AgreementMeasure):
            specs.append(item)
        elif str(item).startswith("GSR"):
            specs.append(AgreementMeasure.gsr(str(item)))
        else:
            specs.append(AgreementMeasure(str(item)))
    for spec in specs:
        if spec.name not in table:
            raise InputError(f"{spec.name}: not in the table of system values ({', '.join(table)})")
    return specs


def _bootstrap(specs, rows, systems, n, resamples, seed) -> dict[str, np.ndarray]:
    """{measure: (resamples × systems) oriented system values recomputed on each resample of the queries}."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(resamples, n)) if n else np.zeros((resamples, 0), dtype=np.int64)
    out = {}
    for spec in specs:
        values = np.full((resamples, len(systems)), np.nan)
        for j, system in enumerate(systems):
            data = rows[spec.name][system]
            if spec.aggregate is mean_aggregate:  # the common case, vectorised: NaN rows are the undefined queries
                drawn = data[draws, 0]
                defined = (~np.isnan(drawn)).sum(axis=1)
                totals = np.where(np.isnan(drawn), 0.0, drawn).sum(axis=1)
                values[:, j] = np.where(defined > 0, totals / np.maximum(defined, 1), np.nan)
            else:
                for r in range(resamples):
                    sample = data[draws[r]]
                    values[r, j] = spec.aggregate(sample[~np.isnan(sample).any(axis=1)])
        out[spec.name] = np.vectorize(spec.oriented, otypes=[float])(values) if values.size else values
    return out


def _tau(a, b, oriented, replicates, systems, n, level) -> Tau:
    both = [s for s in systems if s in oriented[a.name] and s in oriented[b.name]]
    tau, why = kendall_tau([oriented[a.name][s] for s in both], [oriented[b.name][s] for s in both], n)
    interval = None
    if why is None:
        columns = [systems.index(s) for s in both]
        first, second = replicates[a.name][:, columns], replicates[b.name][:, columns]
        if len(both) == 2:
            interval = Interval(None, None, level, 0, reason=TWO_SYSTEMS)
        elif not len(first):
            interval = Interval(None, None, level, 0, reason="no bootstrap resamples")
        else:
            interval = percentile_interval(replicate_taus(first, second, n), level)
            if interval.low is None:
                interval = replace(interval, reason="τ is undefined on all but fewer than two resamples")
    return Tau((a.name, b.name), tau, interval, len(both), why)


def replicate_taus(first: np.ndarray, second: np.ndarray, queries: int, chunk: int = 512) -> np.ndarray:
    """Kendall τ-b of each row pair, as kendall_tau computes it (near ties merged per row, over the systems both rows
    give a finite value; NaN where τ is undefined), for every bootstrap replicate at once: kendall_tau on each of
    10,000 replicates × dozens of measure pairs took minutes, this the same numbers in a few array operations.

    Args:
        first: (replicates × systems) oriented values of the first measure, NaN where undefined.
        second: The second measure's.
        queries: The most queries a value averages (the rounding near_tie_ranks allows).
        chunk: Replicates per step (bounds the replicates × systems × systems arrays).

    Returns:
        One τ-b per replicate, NaN where undefined.

    Example:
        >>> replicate_taus(np.array([[1.0, 2.0, 3.0]]), np.array([[1.0, 3.0, 2.0]]), 1).round(4).tolist()
        [0.3333]
    """
    out = np.full(len(first), np.nan)
    for start in range(0, len(first), chunk):
        a, b = first[start : start + chunk], second[start : start + chunk]
        keep = np.isfinite(a) & np.isfinite(b)
        ra, rb = _row_ranks(np.where(keep, a, np.nan), queries), _row_ranks(np.where(keep, b, np.nan), queries)
        upper = np.triu(np.ones((a.shape[1], a.shape[1]), dtype=bool), k=1)
        pairs = keep[:, :, None] & keep[:, None, :] & upper
        da = np.sign(ra[:, :, None] - ra[:, None, :])
        db = np.sign(rb[:, :, None] - rb[:, None, :])
        total = pairs.sum(axis=(1, 2))
        untied_a = (pairs & (da != 0)).sum(axis=(1, 2))
        untied_b = (pairs & (db != 0)).sum(axis=(1, 2))
        score = np.where(pairs, da * db, 0.0).sum(axis=(1, 2))
        defined = (total >= 1) & (untied_a > 0) & (untied_b > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            taus = score / np.sqrt(untied_a) / np.sqrt(untied_b)  # as scipy divides and clips: the same double
        out[start : start + chunk] = np.where(defined, np.clip(taus, -1.0, 1.0), np.nan)
    return out


def _row_ranks(values: np.ndarray, queries: int) -> np.ndarray:
    """near_tie_ranks of each row's finite values (NaN elsewhere): dense ranks, values closer than
    max(1, queries) · ε · max|v| of the row sharing one."""
    magnitude = np.nanmax(np.abs(np.where(np.isfinite(values), values, np.nan)), axis=1, initial=0.0)
    tolerance = max(1, queries) * np.finfo(np.float64).eps * magnitude
    order = np.argsort(values, axis=1, kind="stable")  # NaN last
    ordered = np.take_along_axis(values, order, axis=1)
    steps = np.diff(ordered, axis=1) > tolerance[:, None]  # a step into NaN is False: those ranks are dropped below
    ranks_sorted = np.concatenate([np.zeros((len(values), 1)), np.cumsum(steps, axis=1)], axis=1)
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    return np.where(np.isfinite(values), ranks, np.nan)


def _oriented_terms(spec: AgreementMeasure, rows: np.ndarray, table) -> np.ndarray:
    """Per-query terms turned like the system value (for 'absolute', by the sign of the system's own value), NaN
    where a query has no input."""
    defined = ~np.isnan(rows).any(axis=1)
    terms = np.full(len(rows), np.nan)
    if defined.sum() >= 1:
        try:
            terms[defined] = spec.terms(rows[defined])
        except UndefinedMeasureError:
            return terms
    if spec.more_biased == LOWER:
        return -terms
    if spec.more_biased == ABSOLUTE:
        value = spec.aggregate(rows[defined]) if defined.any() else math.nan
        return terms * (1.0 if not value < 0 else -1.0)
    return terms


def _correlation(system, a, b, first, second) -> QueryCorrelation:
    from scipy.stats import kendalltau, spearmanr

    both = np.isfinite(first) & np.isfinite(second)
    x, y = first[both], second[both]
    why = None
    if len(x) < 2:
        why = f"fewer than two queries with both values ({len(x)})"
    elif np.ptp(x) == 0 or np.ptp(y) == 0:
        why = f"{a if np.ptp(x) == 0 else b} is the same on every query"
    if why is not None:
        return QueryCorrelation(system, (a, b), None, None, int(len(x)), why)
    return QueryCorrelation(
        system, (a, b), float(spearmanr(x, y).statistic), float(kendalltau(x, y).statistic), int(len(x))
    )


def _disagreement(a, b, s, t, oriented, rows, terms, qids, count) -> Disagreement | None:
    if not all(s in oriented[m.name] and t in oriented[m.name] for m in (a, b)):
        return None
    differences = {m.name: oriented[m.name][s] - oriented[m.name][t] for m in (a, b)}
    n = len(qids)
    if any(
        abs(d) <= max(1, n) * np.finfo(np.float64).eps * max(abs(oriented[m][s]), abs(oriented[m][t]))
        for m, d in differences.items()
    ):
        return None  # a tie (within rounding) is no opposite verdict
    if (differences[a.name] > 0) == (differences[b.name] > 0):
        return None
    first, second = (a, b) if differences[a.name] > 0 else (b, a)
    systems = (s, t)
    drivers = {}
    for spec, sign in ((first, 1.0), (second, -1.0)):
        contributions = _contributions(terms[spec.name][s], terms[spec.name][t])
        order = np.argsort(-sign * np.nan_to_num(contributions, nan=-np.inf * sign))
        drivers[spec.name] = [
            Driver(qids[i], float(contributions[i]), _row(rows[spec.name][s][i]), _row(rows[spec.name][t][i]))
            for i in order[:count]
            if np.isfinite(contributions[i]) and sign * contributions[i] > 0
        ]
    return Disagreement((first.name, second.name), systems, differences, drivers)


def _contributions(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Each query's share of mean(first terms) − mean(second terms): term/n of each system where it has one."""
    n1, n2 = np.isfinite(first).sum(), np.isfinite(second).sum()
    share = np.where(np.isfinite(first), first / max(n1, 1), 0.0) - np.where(
        np.isfinite(second), second / max(n2, 1), 0.0
    )
    return np.where(np.isfinite(first) | np.isfinite(second), share, np.nan)


def _row(row: np.ndarray) -> list[float] | None:
    return None if np.isnan(row).any() else [float(v) for v in row]
