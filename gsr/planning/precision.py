"""How precise GSR (Eq. 3) is for a study of n topics: the expected half-width of its interval, resampled from a
pilot and by the slope's analytic standard error, and the n a target half-width needs.

Resampled: `studies` studies of n topics are drawn like the pilot's (gsr.planning.studies), Eq. 3 is fitted on
each, and the half-width is half the distance between the (1 − level)/2 and (1 + level)/2 quantiles of their slopes
(gsr.uncertainty.percentile_interval). That is the spread of GSR over studies of n topics; the percentile bootstrap
interval a study of n topics prints estimates the same spread from its own topics, so this is its expected
half-width. At the pilot's own n the studies are `gsr score`'s bootstrap resamples (same seed), and the half-width is
that of the interval it printed.

Analytic: the least-squares slope's standard error, σ̂ / √Σ(x − x̄)², for a study whose g(q) spread per topic is the
pilot's: SE_n = SE_pilot · √(n_pilot / n), times Student's t quantile with n − 2 degrees of freedom. It assumes
noise of equal variance at every g(q) (homoscedastic) and no topic with outsized leverage.

The two agree (judged) when, at the pilot's own n, they differ by at most AGREEMENT (10%) of the analytic one, or by
three standard deviations of what chance alone makes them differ by under the model where that is larger (the Monte
Carlo error of the studies and the pilot's own sampling error, agreement_tolerance), and when their ratio stays within
DESIGN_AGREEMENT (15%) of that at every other n. Where they agree, the analytic one (free of Monte Carlo error)
answers; otherwise the model fails (noise that grows with |g(q)|, a few high-leverage topics, a skewed g(q)), and the
resampled one answers, and the plan says why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri, stdtrit

from gsr.planning.studies import StudyDraws, out_of_reach, smallest_topics
from gsr.uncertainty import percentile_interval, slope_standard_error, weighted_fits

# The least tolerance at the pilot's n, which large pilots (whose chance term is small) get: the formula idealises a
# fixed design and normal noise, and the percentile spread of drawn studies differs from it by a few percent even
# when the model holds.
AGREEMENT = 0.10
# How far the resampled / analytic ratio may move between study sizes when the model holds: studies of 25 topics
# drawn like the pilot vary in their g(q) spread (E[1/Σ(x − x̄)²] > 1/E[Σ(x − x̄)²]), which the t quantile offsets
# only on average; benchmarks/bench_plan.py prints the largest move over 20 pilots of normal g(q).
DESIGN_AGREEMENT = 0.15
MAX_REFINEMENTS = 8  # fixed-point steps of the resampled n for a target half-width (it settles in two or three)


@dataclass(frozen=True)
class Precision:
    """One run's precision plan: the expected half-width of GSR's interval for each study size, both ways, and the
    topics a target half-width needs.

    Args:
        n_pilot: The pilot's topics (those with both g(q) and g_q(L)).
        half_width: {n: resampled half-width}, None where fewer than two studies had a slope.
        half_width_analytic: {n: analytic half-width}.
        undefined_studies: {n: studies without a slope (one distinct g(q))}, where any.
        method: Which answers n_for_target_width: 'analytic' or 'resampled'.
        method_why: Why that one.
        n_for_target_width: The topics the target half-width needs, None where undefined.
        why: Why n_for_target_width is None.
    """

    n_pilot: int
    half_width: dict[int, float | None]
    half_width_analytic: dict[int, float | None]
    undefined_studies: dict[int, int] = field(default_factory=dict)
    method: str = "analytic"
    method_why: str = ""
    n_for_target_width: int | None = None
    why: str | None = None


def analytic_half_width(standard_error: float, n_pilot: int, n: int, level: float) -> float:
    """The slope's interval half-width for n topics with the pilot's g(q) spread per topic: t_{n−2, (1+level)/2} ·
    SE_pilot · √(n_pilot / n), where SE_pilot = √(Σe²/(n_pilot − 2) / Σ(x − x̄)²) (ordinary least squares slope
    inference, e.g. Weisberg, Applied Linear Regression, §2.6).

    Args:
        standard_error: The pilot's slope standard error (gsr.uncertainty.slope_standard_error).
        n_pilot: The pilot's topics.
        n: The study's topics, at least 3.
        level: The confidence level.

    Returns:
        The half-width.
    """
    return float(stdtrit(n - 2, (1 + level) / 2)) * standard_error * math.sqrt(n_pilot / n)


def design_half_width(residual_sd: float, spread: float, n: int, level: float) -> float | None:
    """The slope's interval half-width for a design of n topics with g(q) spread Σ(x − x̄)² = `spread`:
    t_{n−2, (1+level)/2} · σ̂ / √spread (the least-squares slope's standard error; Weisberg, §2.6). None when the
    design has no spread (the slope is undefined).

    Args:
        residual_sd: σ̂, the residual standard deviation of the pilot's fit.
        spread: Σ(x − x̄)² of the design's g(q).
        n: The design's topics, at least 3.
        level: The confidence level.

    Returns:
        The half-width, or None.
    """
    if spread <= 0:
        return None
    return float(stdtrit(n - 2, (1 + level) / 2)) * residual_sd / math.sqrt(spread)


def resampled_half_width(x: np.ndarray, y: np.ndarray, n: int, level: float, draws: StudyDraws):
    """Half the central `level` range of Eq. 3's slope over the studies of n topics `draws` draws from the pilot's
    (x = g(q), y = g_q(L)); (half-width or None, studies without a slope).

    Args:
        x: The pilot's g(q).
        y: The pilot's g_q(L).
        n: The topics of each study.
        level: The confidence level.
        draws: The simulated studies.

    Returns:
        (the half-width, None when fewer than two studies have a slope; the studies without one).
    """
    slopes, _ = weighted_fits(x, y, draws.counts(len(x), n))
    interval = percentile_interval(slopes, level)
    if interval.low is None or interval.high is None:
        return None, interval.undefined
    return (interval.high - interval.low) / 2, interval.undefined


def monte_carlo_error(level: float, studies: int) -> float:
    """The relative standard error of a resampled half-width from `studies` studies, for normally distributed
    slopes: √(p(1 − 2p)/(2B)) / (φ(z)·z) with p = (1 − level)/2 and z = Φ⁻¹(1 − p), from the asymptotic variance
    and covariance of two sample quantiles (David & Nagaraja, Order Statistics, §10.3).

    Args:
        level: The confidence level.
        studies: The studies (B).

    Returns:
        The relative standard error.
    """
    p = (1 - level) / 2
    z = float(ndtri(1 - p))
    density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    return math.sqrt(p * (1 - 2 * p) / (2 * studies)) / (density * z)


def design_tolerance(level: float, studies: int) -> float:
    """The largest relative move of the resampled / analytic ratio between two study sizes that counts as none:
    DESIGN_AGREEMENT, or three Monte Carlo standard errors of a ratio of two resampled half-widths (√2 times one's),
    whichever is larger."""
    return max(DESIGN_AGREEMENT, 3 * math.sqrt(2) * monte_carlo_error(level, studies))


def pilot_error(x: np.ndarray) -> float:
    """The standard deviation of the resampled over the analytic half-width between pilots with these g(q) when the
    model holds (normal noise of equal variance): the bootstrap estimates the slope's variance as White's (1980)
    heteroscedasticity-consistent Σ(x − x̄)²e² / (Σ(x − x̄)²)², the formula as σ̂² / Σ(x − x̄)²; by the delta method
    their ratio has variance 2(Σ(x − x̄)⁴ / (Σ(x − x̄)²)² − 1/n), and its square root half that relative spread.

    Args:
        x: The pilot's g(q).

    Returns:
        The relative standard deviation.
    """
    dx = np.asarray(x, dtype=np.float64) - float(np.mean(x))
    squares = dx * dx
    spread = float(squares.sum())
    return 0.5 * math.sqrt(max(0.0, 2 * (float(squares @ squares) / spread**2 - 1 / len(dx))))


def agreement_tolerance(level: float, studies: int, x: np.ndarray) -> float:
    """The largest relative difference of the resampled from the analytic half-width that counts as agreement:
    AGREEMENT, or three standard deviations of what chance alone gives under the model (the Monte Carlo error of
    the studies and the pilot's own, combined), whichever is larger."""
    chance = math.hypot(monte_carlo_error(level, studies), pilot_error(x))
    return max(AGREEMENT, 3 * chance)


def judged(
    resampled: dict[int, float | None], analytic: dict[int, float], m: int, level: float, studies: int, x: np.ndarray
) -> tuple[str, str]:
    """Which half-width answers, and why: 'analytic' where the two agree, else 'resampled'. Two checks: at the
    pilot's own n the ratio resampled / analytic is within agreement_tolerance of 1 (else the noise is not of equal
    variance: the bootstrap's variance is White's, the formula's is not); at every other n the ratio is within
    design_tolerance of the pilot's own ratio (else studies drawn like the pilot vary in their spread of g(q) more
    than the formula's fixed spread per topic allows: a few high-leverage topics, a skewed g(q))."""
    ratios = {n: w / analytic[n] for n, w in resampled.items() if w is not None and analytic[n] > 0}
    if not ratios.get(m):  # no noise at all (both 0, or the resampled 0 and the formula's rounding), or no answer
        return "analytic", "the pilot's points lie on a line, or its own studies have no slope: nothing to compare"
    reasons = []
    tolerance = agreement_tolerance(level, studies, x)
    if abs(ratios[m] - 1) > tolerance:
        reasons.append(
            f"at the pilot's {m} topics the resampled half-width is {ratios[m]:.2f} × the analytic one (more than "
            f"±{tolerance:.0%} apart): the noise is not of equal variance at every g(q)"
        )
    spread_tolerance = design_tolerance(level, studies)
    moved = [n for n, r in ratios.items() if abs(r / ratios[m] - 1) > spread_tolerance]
    if moved:
        reasons.append(
            f"their ratio moves by more than {spread_tolerance:.0%} from the pilot's at n = "
            f"{', '.join(map(str, moved))}: studies drawn like the pilot vary in their spread of g(q) (a few "
            "high-leverage topics, a skewed g(q)), which the analytic formula's fixed spread per topic ignores"
        )
    if reasons:
        return "resampled", "; ".join(reasons)
    return "analytic", (
        f"the resampled and analytic half-widths agree (within ±{tolerance:.0%} at the pilot's n, and their ratio "
        f"within ±{spread_tolerance:.0%} of it at every n)"
    )


def precision(
    x: np.ndarray, y: np.ndarray, topics: Iterable[int], level: float, target_width: float | None, draws: StudyDraws
) -> Precision:
    """The precision plan of one run from its pilot points (x = g(q), y = g_q(L), every value defined; at least
    three topics with different g(q), which the caller checks).

    Args:
        x: The pilot's g(q).
        y: The pilot's g_q(L).
        topics: The study sizes (the pilot's own is added).
        level: The confidence level.
        target_width: The half-width a study should reach, or None.
        draws: The simulated studies.

    Returns:
        The plan.
    """
    m = len(x)
    standard_error = slope_standard_error(x, y)
    assert standard_error is not None  # three topics with different g(q), checked by the caller

    def analytic(n: int) -> float:
        return analytic_half_width(standard_error, m, n, level)

    sizes = sorted(set(topics) | {m})
    resampled: dict[int, float | None] = {}
    undefined: dict[int, int] = {}
    for n in sizes:
        resampled[n], lost = resampled_half_width(x, y, n, level, draws)
        if lost:
            undefined[n] = lost
    method, method_why = judged(resampled, {n: analytic(n) for n in sizes}, m, level, draws.studies, x)
    needed: int | None = None
    why: str | None = "no target width was given"
    if target_width is not None:
        needed, why = topics_for_width(x, y, target_width, level, method, draws)
    return Precision(m, resampled, {n: analytic(n) for n in sizes}, undefined, method, method_why, needed, why)


def topics_for_width(
    x: np.ndarray, y: np.ndarray, width: float, level: float, method: str, draws: StudyDraws
) -> tuple[int | None, str | None]:
    """The fewest topics whose expected half-width reaches `width`, by the answer `method` (Precision.method) gives:
    analytic, the smallest n with t_{n−2} · SE · √(m/n) ≤ width; resampled, from there the fixed point of _refined.

    Args:
        x: The pilot's g(q).
        y: The pilot's g_q(L).
        width: The target half-width, > 0.
        level: The confidence level.
        method: 'analytic' or 'resampled' (precision's judgement of this pilot).
        draws: The simulated studies.

    Returns:
        (the topics, None; or None and why: more than MAX_TOPICS would be needed).
    """
    m = len(x)
    standard_error = slope_standard_error(x, y)
    assert standard_error is not None  # three topics with different g(q), checked by the caller

    def analytic(n: int) -> float:
        return analytic_half_width(standard_error, m, n, level)

    needed = smallest_topics(lambda n: analytic(n) <= width)
    if needed is not None and method == "resampled":
        needed = _refined(x, y, needed, width, analytic, level, draws)
    return needed, out_of_reach(f"a half-width of {width:g}") if needed is None else None


def _scaled(analytic, ratio: float, width: float):
    """Whether n topics reach `width` on the analytic curve scaled by `ratio`."""
    return lambda n: analytic(n) * ratio <= width


def _refined(x, y, start: int, width: float, analytic, level: float, draws: StudyDraws) -> int | None:
    """The n whose resampled half-width is `width`, by a fixed point from the analytic answer `start`: at each step
    the analytic curve is scaled by the resampled / analytic ratio at the current n and solved again. The ratio
    changes slowly with n, so the steps settle within a percent in two or three."""
    n: int | None = start
    for _ in range(MAX_REFINEMENTS):
        assert n is not None
        measured, _ = resampled_half_width(x, y, n, level, draws)
        if measured is None:
            return n
        following = smallest_topics(_scaled(analytic, measured / analytic(n) if analytic(n) > 0 else 1.0, width))
        if following is None or abs(following - n) <= max(1, n // 100):
            return following
        n = following
    return n
