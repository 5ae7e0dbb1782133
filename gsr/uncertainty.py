"""Uncertainty and significance over queries: bootstrap confidence intervals of GSR (Eq. 3) and relative GSR, the
slope's standard error, paired sign-flip (randomisation) tests and multiple-comparison corrections.

Every resampling statistic is computed for all resamples at once (one weight matrix, a few matrix-vector products).
Queries are the sampling unit, as in IR significance testing: a bootstrap resample draws n queries uniformly with
replacement, and a randomisation test swaps the two systems' results for each query independently with probability
1/2. numpy and scipy only.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from gsr.errors import InputError, ParamError, UndefinedMeasureError
from gsr.settings import CORRECTIONS, DEFAULT_LEVEL, DEFAULT_RESAMPLES, LEVEL

ALTERNATIVES = ("two-sided", "greater", "less")
_BLOCK_ROWS = 8192  # sign vectors per block, so memory stays bounded for large resample counts


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval: the (1 − level)/2 and (1 + level)/2 quantiles of the defined replicates.

    `resamples` counts the replicates the statistic was defined on; `undefined` the others (e.g. a resample holding
    one distinct query has no slope), which are left out. An interval that cannot be given has None bounds and,
    where known, the `reason`.

    Args:
        low: The lower bound, or None.
        high: The upper bound, or None.
        level: The confidence level, in (0, 1).
        resamples: The replicates the statistic was defined on.
        undefined: The replicates it was undefined on.
        reason: Why the interval cannot be given, where known.

    Example:
        >>> Interval(-0.5, 1.5, 0.95, 1000).to_list()
        [-0.5, 1.5]
    """

    low: float | None
    high: float | None
    level: float
    resamples: int
    undefined: int = 0
    reason: str | None = None

    def to_list(self) -> list[float | None]:
        """[low, high], as JSON outputs hold the interval.

        Returns:
            The two bounds.
        """
        return [self.low, self.high]


@dataclass(frozen=True)
class BootstrapFit:
    """Eq. 3's slope and the matching intercept on every bootstrap resample (NaN where undefined), and which queries,
    in which order, were resampled: two fits with the same `queries` and seed used the same resamples."""

    slopes: np.ndarray
    intercepts: np.ndarray
    queries: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class TestResult:
    """A paired randomisation test: the observed statistic, its p-value and whether every sign vector was enumerated
    (exact) or `resamples` were drawn."""

    statistic: float
    p_value: float
    exact: bool
    resamples: int
    n: int
    alternative: str = "two-sided"

    def to_dict(self) -> dict:
        return {
            "statistic": self.statistic,
            "p_value": self.p_value,
            "exact": self.exact,
            "resamples": self.resamples,
            "n": self.n,
            "alternative": self.alternative,
        }


# ----------------------------------------------------------------------------------------------- bootstrap
BYTES_PER_RESAMPLED_QUERY = 24  # the counts matrix (float64) and the weighted products made from it, per cell


def available_memory() -> int:
    """Bytes this machine can still give (MemAvailable; the physical memory where /proc is absent)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_resample_memory(n_queries: int, resamples: int, where: str = "resamples") -> None:
    """A ParamError naming `where` when `resamples` bootstrap resamples of `n_queries` queries would need more than
    half the memory available: found before any work, not as a MemoryError after it."""
    needed = BYTES_PER_RESAMPLED_QUERY * resamples * n_queries
    available = available_memory()
    if needed > available // 2:
        raise ParamError(
            f"{where} = {resamples:,} resamples of {n_queries:,} queries need about {needed / 2**30:.1f} "
            f"GiB, more than half of the {available / 2**30:.1f} GiB available; lower {where}"
        )


def resample_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples × n) counts, as floats: how often each of n queries is drawn in each bootstrap resample of size n.

    Row b counts the draws numpy.random.default_rng(seed).integers(0, n, (resamples, n), dtype=int64)[b].
    """
    if n < 1 or resamples < 1:
        raise UndefinedMeasureError(f"need at least one query and one resample, got n={n}, resamples={resamples}")
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n), dtype=np.int64)
    draws += n * np.arange(resamples)[:, None]
    return np.bincount(draws.ravel(), minlength=resamples * n).reshape(resamples, n).astype(np.float64)


def weighted_fits(x: ArrayLike, y: ArrayLike, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 3's least-squares slope (and intercept) of y on x for each row of query weights, vectorised.

    A weight w_i counts query i w_i times (a bootstrap resample); queries where x or y is NaN get weight 0, so each
    resample uses only its measurable queries. A row whose weighted x has no spread (fewer than two distinct
    queries) gives NaN, as Eq. 3 is undefined there. One matrix product gives every row's weighted moments.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    weights = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    if x.shape != y.shape or weights.shape[1] != len(x):
        raise InputError(f"{len(x)} x values, {len(y)} y values and weights of shape {weights.shape}")
    keep = ~(np.isnan(x) | np.isnan(y))
    if not keep.any():
        nan = np.full(len(weights), np.nan)
        return nan, nan.copy()
    # centring on the full sample first keeps the raw-moment formulas below free of cancellation
    x0, y0 = x[keep].mean(), y[keep].mean()
    xs, ys = np.where(keep, x - x0, 0.0), np.where(keep, y - y0, 0.0)
    moments = weights @ np.column_stack([keep.astype(np.float64), xs, ys, xs * xs, xs * ys])
    total = moments[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my, second = moments[:, 1] / total, moments[:, 2] / total, moments[:, 3] / total
        sxx = second - mx * mx
        sxy = moments[:, 4] / total - mx * my
        defined = (total > 0) & (sxx > 1e-12 * second)
        slopes = np.where(defined, sxy / np.where(defined, sxx, 1.0), np.nan)
    intercepts = (my + y0) - slopes * (mx + x0)
    return slopes, intercepts


def bootstrap_fit(
    queries: Sequence[str],
    x: ArrayLike,
    y: ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    counts: np.ndarray | None = None,
) -> BootstrapFit:
    """Eq. 3 on `resamples` bootstrap resamples of `queries` (x = g(q), y = g_q(L), NaN where undefined); `counts`
    (resample_counts(len(queries), resamples, seed)) may be passed when several fits share the resamples.

    Args:
        queries: The query ids, in the order of `x` and `y`.
        x: g(q) of each query.
        y: g_q(L) of each query.
        resamples: The bootstrap resamples.
        seed: The seed of the resamples.
        counts: The resamples' query counts, drawn before (for several fits on the same resamples).

    Returns:
        The slope and intercept on every resample (NaN where undefined).

    Raises:
        UndefinedMeasureError: If there is no query or no resample.

    Example:
        >>> fit = bootstrap_fit(["q1", "q2", "q3"], [-0.5, 0.0, 0.5], [-0.25, 0.0, 0.25], resamples=4)
        >>> fit.slopes.tolist()  # NaN: a resample holding one distinct query has no slope
        [0.5, nan, nan, 0.5]
    """
    if counts is None:
        counts = resample_counts(len(queries), resamples, seed)
    slopes, intercepts = weighted_fits(x, y, counts)
    return BootstrapFit(slopes, intercepts, tuple(queries), seed)


def percentile_interval(replicates: ArrayLike, level: float = DEFAULT_LEVEL) -> Interval:
    """The percentile bootstrap interval (Efron & Tibshirani 1993, §13.3) of the defined (finite) replicates,
    quantiles by linear interpolation (numpy's default); None bounds when fewer than two replicates are defined.

    Args:
        replicates: The statistic on each resample (NaN or infinite where undefined).
        level: The confidence level, in (0, 1).

    Returns:
        The interval.

    Raises:
        ParamError: If `level` is not in (0, 1).

    Example:
        >>> percentile_interval([1.0, 2.0, 3.0, float("nan")], level=0.5)
        Interval(low=1.5, high=2.5, level=0.5, resamples=3, undefined=1, reason=None)
    """
    LEVEL.check(level)
    values = np.asarray(replicates, dtype=np.float64)
    finite = values[np.isfinite(values)]
    undefined = len(values) - len(finite)
    if len(finite) < 2:
        return Interval(None, None, level, len(finite), undefined)
    low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return Interval(float(low), float(high), level, len(finite), undefined)


def bootstrap_mean(
    values: ArrayLike, resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval of the mean of per-query values (queries resampled with replacement)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return Interval(None, None, level, 0, resamples)
    counts = resample_counts(len(values), resamples, seed)
    return percentile_interval(counts @ values / len(values), level)


def relative_replicates(system: BootstrapFit, perfect: BootstrapFit) -> np.ndarray:
    """Relative GSR, (m_s − m_P)/|m_P| × 100, on each resample; both fits must come from the same resamples."""
    if system.queries != perfect.queries or system.seed != perfect.seed or len(system.slopes) != len(perfect.slopes):
        raise InputError(
            "relative GSR needs the system and the perfect engine resampled identically "
            "(same queries, seed and number of resamples)"
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(perfect.slopes != 0, 100.0 * (system.slopes - perfect.slopes) / np.abs(perfect.slopes), np.nan)


def slope_standard_error(x: ArrayLike, y: ArrayLike) -> float | None:
    """The least-squares slope's analytic standard error, sqrt(Σ e_i² / (n − 2) / Σ (x_i − x̄)²), over the queries
    where both values are defined (None for fewer than three queries or no spread in x)."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(xs) | np.isnan(ys))
    xs, ys = xs[keep], ys[keep]
    if len(xs) < 3:
        return None
    dx, dy = xs - xs.mean(), ys - ys.mean()
    sxx = float(dx @ dx)
    if sxx <= 1e-24 * float(xs @ xs) or sxx == 0:
        return None
    slope = float(dx @ dy) / sxx
    residuals = dy - slope * dx
    return math.sqrt(float(residuals @ residuals) / (len(xs) - 2) / sxx)


# ----------------------------------------------------------------------------------------------- randomisation
def sign_flip_test(
    contributions: ArrayLike, resamples: int = DEFAULT_RESAMPLES, seed: int = 0, alternative: str = "two-sided"
) -> TestResult:
    """Paired randomisation test of T = Σ c_i: under H0 each query's contribution is as likely to have the opposite
    sign (the two systems' results for that query exchanged).

    Exact when 2^n ≤ resamples: every sign vector is enumerated and p = #{T* at least as extreme as T} / 2^n.
    Otherwise `resamples` sign vectors are drawn (seeded) and p = (1 + #{T* at least as extreme}) / (1 + resamples)
    (Phipson & Smyth 2010), never 0. Two-sided compares |T*| with |T|.
    """
    if alternative not in ALTERNATIVES:
        raise ParamError(f"alternative must be one of {', '.join(ALTERNATIVES)}, not {alternative!r}")
    c = np.asarray(contributions, dtype=np.float64)
    if c.ndim != 1 or len(c) == 0 or np.isnan(c).any():
        raise UndefinedMeasureError("sign_flip_test needs at least one contribution and no NaN")
    n = len(c)
    observed = float(c.sum())
    tolerance = 1e-9 * float(np.abs(c).sum())  # so that T* equal to T up to rounding counts as extreme

    def extreme(statistics: np.ndarray) -> int:
        if alternative == "greater":
            return int((statistics >= observed - tolerance).sum())
        if alternative == "less":
            return int((statistics <= observed + tolerance).sum())
        return int((np.abs(statistics) >= abs(observed) - tolerance).sum())

    exact = n < 63 and 2**n <= resamples
    count = 0
    if exact:
        total = 2**n
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, _BLOCK_ROWS):
            codes = np.arange(start, min(start + _BLOCK_ROWS, total), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
            count += extreme(signs @ c)
        return TestResult(observed, count / total, True, total, n, alternative)
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, _BLOCK_ROWS):
        rows = min(_BLOCK_ROWS, resamples - start)
        signs = (1 - 2 * rng.integers(0, 2, size=(rows, n), dtype=np.int8)).astype(np.float64)
        count += extreme(signs @ c)
    return TestResult(observed, (1 + count) / (1 + resamples), False, resamples, n, alternative)


def slope_difference_terms(x: ArrayLike, y_a: ArrayLike, y_b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Per-query terms (x_i − x̄)(y_a,i − y_b,i) / Σ (x_j − x̄)², summing to m_a − m_b (Eq. 3 of each system) over the
    queries where all three values are defined; returns (terms, mask of those queries). Swapping the two systems'
    lists for query i flips the sign of term i."""
    x, y_a, y_b = (np.asarray(v, dtype=np.float64) for v in (x, y_a, y_b))
    keep = ~(np.isnan(x) | np.isnan(y_a) | np.isnan(y_b))
    dx = x[keep] - x[keep].mean() if keep.any() else x[keep]
    sxx = float(dx @ dx)
    if keep.sum() < 2 or sxx <= 1e-24 * float(x[keep] @ x[keep]) or sxx == 0:
        raise UndefinedMeasureError(
            f"a GSR difference needs at least two common queries with different g(q), got {keep.sum()}"
        )
    return dx * (y_a[keep] - y_b[keep]) / sxx, keep


def paired_gsr_test(
    x: ArrayLike,
    y_a: ArrayLike,
    y_b: ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alternative: str = "two-sided",
) -> TestResult:
    """Randomisation test of GSR_a − GSR_b (Eq. 3 of two systems, or a system and the perfect engine) on the same
    queries: per query, the two systems' ranked lists are exchanged with probability 1/2 (g(q) stays). The statistic
    is the slope difference over the queries both systems can be measured on.

    Args:
        x: g(q) of each query.
        y_a: g_q(L) of system a on each query.
        y_b: g_q(L) of system b on each query.
        resamples: Sign vectors drawn (all 2^n are enumerated when 2^n ≤ resamples).
        seed: The seed of the sign vectors.
        alternative: 'two-sided', 'greater' (GSR_a > GSR_b) or 'less'.

    Returns:
        The test (statistic GSR_a − GSR_b).

    Raises:
        UndefinedMeasureError: If fewer than two common queries with different g(q) are measured.
        ParamError: If `alternative` is unknown.

    Example:
        >>> test = paired_gsr_test([-0.5, 0.0, 0.5], [-0.25, 0.0, 0.25], [0.0, 0.0, 0.0])
        >>> test.statistic, test.p_value, test.exact
        (0.5, 0.5, True)
    """
    terms, _ = slope_difference_terms(x, y_a, y_b)
    return sign_flip_test(terms, resamples, seed, alternative)


def randomization_test(
    a: ArrayLike, b: ArrayLike, resamples: int = DEFAULT_RESAMPLES, seed: int = 0, alternative: str = "two-sided"
) -> TestResult:
    """Paired randomisation test of mean(a) − mean(b) over queries (per-query values of an effectiveness measure)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or len(a) == 0:
        raise InputError(f"paired values needed, got {len(a)} and {len(b)}")
    return sign_flip_test((a - b) / len(a), resamples, seed, alternative)


# ----------------------------------------------------------------------------------------------- corrections
def adjust_p_values(p_values: Sequence[float | None], method: str = "holm") -> list[float | None]:
    """p-values adjusted for multiple comparisons over the family `p_values` (None entries are not tests and stay
    None): Holm's step-down (1979), Bonferroni, or none. A test is significant at α when its adjusted p < α."""
    if method not in CORRECTIONS:
        raise ParamError(f"correction must be one of {', '.join(CORRECTIONS)}, not {method!r}")
    tested = [(i, float(p)) for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    m = len(tested)
    if method == "none":
        for i, p in tested:
            adjusted[i] = p
    elif method == "bonferroni":
        for i, p in tested:
            adjusted[i] = min(1.0, m * p)
    else:
        running = 0.0
        for rank, (i, p) in enumerate(sorted(tested, key=lambda item: item[1])):
            running = max(running, min(1.0, (m - rank) * p))
            adjusted[i] = running
    return adjusted
