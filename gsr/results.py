"""The GSR of one system as data: every query's point, the slope with its standard error and bootstrap interval,
the report beside the perfect and random engines, relative GSR and its interval, and the paired test of two
systems' GSR. gsr.evaluate measures runs into these."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gsr.equations import relative_gsr, slope_noise_floor
from gsr.errors import InputError, UndefinedMeasureError
from gsr.infra.numeric import finite
from gsr.settings import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from gsr.uncertainty import (
    BootstrapFit,
    Interval,
    TestResult,
    bootstrap_fit,
    paired_gsr_test,
    percentile_interval,
    relative_replicates,
    resample_counts,
    slope_standard_error,
)

__all__ = [
    "GSRReport",
    "GSRResult",
    "QueryResult",
    "add_uncertainty",
    "gsr_difference_test",
    "relative_interval",
    "relative_to_perfect",
]


MIN_MEASURED_SHARE = 0.5
"""A GSR measured on fewer than this share of its topics carries a warning (GSRResult.coverage_warning); with fewer
than MIN_QUERIES_OF_A_SHARE measured queries too, it is undefined (gsr.evaluate.measure_run).

Example:
    >>> MIN_MEASURED_SHARE, MIN_QUERIES_OF_A_SHARE
    (0.5, 3)
"""
MIN_QUERIES_OF_A_SHARE = 3
LOST_REASONS = ("query_out_of_vocabulary", "nothing_retrieved", "no_measurable_document", "no_query_text")


@dataclass
class QueryResult:
    """One query's point in the GSR scatter plot.

    Args:
        qid: The query id.
        g_query: g(q) (§3.3), None where undefined.
        g_list: g_q(L) (Eq. 2), None where undefined.
        n_docs: The documents of its ranked list.
        n_unmeasured: Those without a measurable word (or not in the collection).

    Example:
        >>> QueryResult("q1", 0.25, 0.125, n_docs=10).to_dict()
        {'qid': 'q1', 'g_query': 0.25, 'g_list': 0.125, 'n_docs': 10, 'n_unmeasured_docs': 0}
    """

    qid: str
    g_query: float | None
    g_list: float | None
    n_docs: int = 0
    n_unmeasured: int = 0

    def to_dict(self) -> dict:
        """The point as `gsr score --json` prints it.

        Returns:
            {qid, g_query, g_list, n_docs, n_unmeasured_docs}.
        """
        return {
            "qid": self.qid,
            "g_query": self.g_query,
            "g_list": self.g_list,
            "n_docs": self.n_docs,
            "n_unmeasured_docs": self.n_unmeasured,
        }


@dataclass
class GSRResult:
    """GSR of one system: the slope, every query's point and what could not be measured, and why; with its
    analytic standard error `se` and bootstrap interval `ci` (over queries; `bootstrap` holds the replicates).

    Args:
        gsr: The slope (Eq. 3), None where undefined.
        per_query: Every query's point.
        skipped: {reason: query ids} of the queries without a point.
        unknown_docids: Retrieved documents that are not in the collection.
        unmeasurable_docs: Retrieved documents without a measurable word.
        error: Why `gsr` is undefined.
        se: The slope's analytic standard error.
        ci: The bootstrap interval of the slope.
        bootstrap (BootstrapFit | None): The slope on every bootstrap resample.
        n_topics: The topics it was asked to measure (the judged ones, with qrels); 0: not known.

    Example:
        >>> result = GSRResult(0.5, [QueryResult("q1", -0.5, -0.25), QueryResult("q2", 0.5, 0.25)])
        >>> result.n_queries, result.points()[0].tolist()
        (2, [-0.5, 0.5])
    """

    gsr: float | None
    per_query: list[QueryResult]
    skipped: dict[str, list[str]] = field(default_factory=dict)
    unknown_docids: int = 0
    unmeasurable_docs: int = 0
    error: str | None = None
    se: float | None = None
    ci: Interval | None = None
    bootstrap: BootstrapFit | None = None
    n_topics: int = 0

    @property
    def n_queries(self) -> int:
        """Queries that contribute a point to the slope."""
        return sum(1 for q in self.per_query if q.g_query is not None and q.g_list is not None)

    @property
    def n_skipped(self) -> int:
        """Queries without a point (every reason of `skipped` together)."""
        return sum(len(v) for v in self.skipped.values())

    @property
    def coverage_warning(self) -> str | None:
        """'GSR from 3 of 117 topics (114 query_out_of_vocabulary)' when fewer than half the topics it was asked to
        measure have a point (MIN_MEASURED_SHARE): a slope over the few that remain may not speak for the topics."""
        if not self.n_topics or self.n_queries >= MIN_MEASURED_SHARE * self.n_topics:
            return None
        lost = ", ".join(f"{len(self.skipped[r])} {r}" for r in LOST_REASONS if self.skipped.get(r))
        return f"GSR from {self.n_queries} of {self.n_topics} topics ({lost})"

    def points(self, defined_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(g(q), g_q(L)) of the contributing queries (of every query, NaN where undefined, if not defined_only).

        Args:
            defined_only: Only the queries where both values are defined.

        Returns:
            The two arrays.
        """
        used = (
            [q for q in self.per_query if q.g_query is not None and q.g_list is not None]
            if defined_only
            else self.per_query
        )
        return (
            np.array([math.nan if q.g_query is None else q.g_query for q in used], dtype=np.float64),
            np.array([math.nan if q.g_list is None else q.g_list for q in used], dtype=np.float64),
        )

    def noise_floor(self) -> float:
        """The largest |GSR| that is zero up to rounding for this result's points (measure.slope_noise_floor).

        Returns:
            The noise floor.
        """
        return slope_noise_floor(*self.points())

    def aligned_points(self, queries: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(g(q), g_q(L)) for `queries` in that order, NaN where this result has no defined value.

        Args:
            queries: The query ids.

        Returns:
            The two arrays.
        """
        by_qid = {q.qid: q for q in self.per_query}
        points = [by_qid.get(qid) for qid in queries]
        return (
            np.array([math.nan if p is None or p.g_query is None else p.g_query for p in points], dtype=float),
            np.array([math.nan if p is None or p.g_list is None else p.g_list for p in points], dtype=float),
        )

    def to_dict(self) -> dict:
        """The result as `gsr score --json` prints it.

        Returns:
            gsr, ci, se, the query counts, skipped, per_query (and error where GSR is undefined).
        """
        out: dict = {
            "gsr": self.gsr,
            "ci": self.ci.to_list() if self.ci else None,
            "se": self.se,
            "n_queries": self.n_queries,
            "n_skipped": self.n_skipped,
            "skipped": self.skipped,
            "unknown_docids": self.unknown_docids,
            "unmeasurable_docs": self.unmeasurable_docs,
            "per_query": [q.to_dict() for q in self.per_query],
        }
        if self.error:
            out["error"] = self.error
        if self.coverage_warning:
            out["warning"] = self.coverage_warning
        return out


@dataclass
class GSRReport:
    """GSR of a run, with the perfect and random engines and relative GSR when qrels are given.

    Args:
        system: The run's result.
        perfect: The perfect engine's (with qrels).
        random: The random engine's (with qrels).

    Example:
        >>> points = [QueryResult("q1", -0.5, -0.25), QueryResult("q2", 0.5, 0.25)]
        >>> GSRReport(GSRResult(0.5, points), perfect=GSRResult(0.25, points)).relative
        100.0
    """

    system: GSRResult
    perfect: GSRResult | None = None
    random: GSRResult | None = None

    @property
    def relative(self) -> float | None:
        """The run's GSR as % above the perfect engine's (None without qrels, or when undefined)."""
        return self.relative_of(self.system)

    @property
    def relative_undefined_because(self) -> str | None:
        """Why `relative` is None (no qrels, an undefined GSR, a perfect engine's GSR of zero), or None when defined."""
        if self.perfect is None:
            return "relative GSR needs qrels: it compares the run with the perfect engine"
        return relative_to_perfect(self.system, self.perfect)[1]

    def relative_of(self, result: GSRResult) -> float | None:
        """Any engine's GSR as % above the perfect engine's (None without qrels, or when undefined).

        Args:
            result: The engine's result (the system's, or the random engine's).

        Returns:
            Relative GSR in percent, or None.
        """
        return relative_to_perfect(result, self.perfect)[0]

    def relative_ci_of(self, result: GSRResult) -> Interval | None:
        """Bootstrap interval of an engine's relative GSR (None without qrels or resamples).

        Args:
            result: The engine's result.

        Returns:
            The interval, or None.
        """
        return relative_interval(result, self.perfect) if self.perfect is not None else None

    def to_dict(self) -> dict:
        """The report as `gsr score --json` prints it.

        Returns:
            The system's result, with perfect, random and relative GSR when qrels were given.
        """
        out = self.system.to_dict()
        if self.perfect is not None and self.random is not None:  # the two engines come together, with qrels
            out["perfect"] = self.perfect.to_dict()
            out["random"] = dict(self.random.to_dict(), **_relative_dict(self.random, self.perfect))
            out.update(_relative_dict(self.system, self.perfect))
        return out


def relative_to_perfect(result: GSRResult, perfect: GSRResult | None) -> tuple[float | None, str | None]:
    """(relative GSR in %, None), or (None, why it is undefined): no perfect engine, an undefined GSR, or a perfect
    engine whose GSR is zero up to rounding (|m_P| ≤ its noise floor, measure.slope_noise_floor).

    Args:
        result: The engine's result.
        perfect: The perfect engine's result, or None (no qrels).

    Returns:
        (relative GSR in percent, None) or (None, the reason).

    Example:
        >>> points = [QueryResult("q1", -0.5, -0.25), QueryResult("q2", 0.5, 0.25)]
        >>> relative_to_perfect(GSRResult(0.5, points), GSRResult(0.25, points))
        (100.0, None)
    """
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
    out: dict = {"relative": relative} if why is None else {"relative": None, "relative_error": why}
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
        return Interval(
            None, None, level, 0, len(perfect.bootstrap.slopes), "the perfect engine's GSR has no bootstrap interval"
        )
    floor = perfect.noise_floor()
    if ci.low - floor <= 0.0 <= ci.high + floor:
        return Interval(
            None,
            None,
            level,
            0,
            len(perfect.bootstrap.slopes),
            f"the perfect engine's GSR interval [{ci.low:.3g}, {ci.high:.3g}] includes 0, so the "
            "ratio's interval is unbounded (Fieller)",
        )
    return percentile_interval(relative_replicates(result.bootstrap, perfect.bootstrap), level)


def add_uncertainty(
    results: list[GSRResult], resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL, seed: int = 0
) -> None:
    """Set `se` and, with resamples > 0, `bootstrap` and `ci` of each result. The queries resampled are those at least
    one result measures (in the first result's order), with one seed: every engine sees the same resamples, so
    relative GSR can be bootstrapped too, and each engine's slope on a resample uses its measurable queries.

    Args:
        results: The results of one report (the system first), changed in place.
        resamples: Bootstrap resamples (0: the standard error only).
        level: The intervals' confidence level.
        seed: The seed of the resamples.

    Example:
        >>> result = GSRResult(2.0, [QueryResult(f"q{i}", g, 2 * g) for i, g in enumerate([-0.5, -0.25, 0.25, 0.5])])
        >>> add_uncertainty([result], resamples=100)
        >>> result.se, result.ci.to_list()
        (0.0, [2.0, 2.0])
    """
    measured = {q.qid for result in results for q in result.per_query if q.g_query is not None and q.g_list is not None}
    queries = [q.qid for q in results[0].per_query if q.qid in measured] if results else []
    counts = resample_counts(len(queries), resamples, seed) if resamples and queries else None
    for result in results:
        x, y = result.aligned_points(queries)
        result.se = slope_standard_error(x, y) if result.gsr is not None else None
        if counts is not None and result.gsr is not None:  # an undefined slope has no interval either
            result.bootstrap = bootstrap_fit(queries, x, y, resamples, seed, counts)
            result.ci = percentile_interval(result.bootstrap.slopes, level)


def gsr_difference_test(
    a: GSRResult, b: GSRResult, resamples: int = DEFAULT_RESAMPLES, seed: int = 0, alternative: str = "two-sided"
) -> TestResult:
    """Paired randomisation test of GSR_a − GSR_b on the queries both measure (gsr.uncertainty.paired_gsr_test); the
    two results must share g(q), i.e. be measured with the same embedding and topics.

    Args:
        a: The first system's result.
        b: The second system's (or an engine's) result.
        resamples: Sign vectors drawn (all 2^n are enumerated when 2^n ≤ resamples).
        seed: The seed of the sign vectors.
        alternative: 'two-sided', 'greater' (GSR_a > GSR_b) or 'less'.

    Returns:
        The test (statistic GSR_a − GSR_b).

    Raises:
        InputError: If the two results have different g(q).
        UndefinedMeasureError: If fewer than two common queries with different g(q) are measured.

    Example:
        >>> a = GSRResult(0.5, [QueryResult(f"q{i}", g, g / 2) for i, g in enumerate([-0.5, 0.0, 0.5])])
        >>> b = GSRResult(0.0, [QueryResult(q.qid, q.g_query, 0.0) for q in a.per_query])
        >>> gsr_difference_test(a, b).to_dict()
        {'statistic': 0.5, 'p_value': 0.5, 'exact': True, 'resamples': 8, 'n': 3, 'alternative': 'two-sided'}
    """
    queries = sorted({q.qid for q in a.per_query} & {q.qid for q in b.per_query})
    x, y_a = a.aligned_points(queries)
    x_b, y_b = b.aligned_points(queries)
    both = ~(np.isnan(x) | np.isnan(x_b))
    if not np.allclose(x[both], x_b[both], rtol=1e-9, atol=1e-12):
        raise InputError(
            "the two results have different query genderedness: compare results measured with the same "
            "embedding and topics"
        )
    try:
        return paired_gsr_test(x, y_a, y_b, resamples=resamples, seed=seed, alternative=alternative)
    except ValueError as err:
        raise UndefinedMeasureError(str(err)) from None
