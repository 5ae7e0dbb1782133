"""Which differences between two runs, paired over topics, a study of n topics detects: the power of the paired
test at α for a difference D, the minimal detectable difference at a power for the pilot's n, and the n a difference
needs; for GSR (the product's paired randomisation test, gsr.uncertainty.paired_gsr_test) and for per-topic means
(an effectiveness measure or RaB/ARaB, the paired t-test experiments' paired_test uses by default).

Each is computed two ways. Analytic: a formula from the pilot's moments (sign_flip_power, paired_t_power). Resampled:
`studies` studies of n topics drawn like the pilot's (gsr.planning.studies), the test applied to each, the share
that rejects. A hypothesised difference D is planted in the pilot by moving each topic's paired difference by
(D − the pilot's difference) along the statistic's direction: for GSR d_i + (D − D̂)(x_i − x̄), for a mean d_i + (D − d̄),
so the pilot's noise (its spread, its dependence on g(q), its outliers) is kept. Where the two agree (within
POWER_AGREEMENT, or three binomial standard errors of the resampled share where larger) at the pilot's minimal
detectable difference and at every n asked, the analytic one answers; otherwise the resampled one does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from scipy.special import nctdtr, ndtr, ndtri, stdtrit

from gsr.equations import SLOPE_NOISE
from gsr.planning.studies import StudyDraws, out_of_reach, smallest_topics
from gsr.uncertainty import slope_difference_terms

# How far the analytic power may be from the resampled one: the normal approximation's own error at 25 topics reaches
# 0.03 on Grep-BiasIR's nDCG@10 differences (docs/generated/grepbiasir_plan.txt), whose distribution is far from normal
POWER_AGREEMENT = 0.05
MAX_DOUBLINGS = 60  # a difference 2^60 times the pilot's standard error that is still not detected: none is
BISECTIONS = 50  # halvings of the detectable difference's bracket: far below any difference a ranking makes


def sign_flip_power(moments: tuple[float, float, float, float], n: int, alpha: float) -> float:
    """Power of the two-sided paired randomisation (sign-flip) test of T = Σ u_i over n topics whose contributions u
    have raw moments E[u], E[u²], E[u³], E[u⁴], in the normal approximation.

    Under the sign flips, T has variance Σ u_i², and T / √Σu_i² is about N(0, 1) (the randomisation test's
    large-sample equivalence to the z-test: Lehmann & Romano, Testing Statistical Hypotheses, 2005, §15.2), so the
    test rejects when |S| > z_{1−α/2} for S = √n · ū / √(mean u²). Over studies, S is about normal with mean
    √n · E[u] / √E[u²] and, by the delta method for the ratio (ū and mean u² vary together: when the u_i are mostly of
    one sign, a large Σu comes with a large Σu²), variance σ²/v − a·c₃/v² + a²·κ/(4v³), with a = E[u], v = E[u²],
    σ² = v − a², c₃ = E[u³] − a·v, κ = E[u⁴] − v². At a = 0 the variance is 1 and the power α.

    With too few topics to ever reject (sign_flip_can_reject), the power is 0 whatever the difference.

    Args:
        moments: (E[u], E[u²], E[u³], E[u⁴]) of the contributions.
        n: The topics.
        alpha: The significance level.

    Returns:
        The power.
    """
    a, v, third, fourth = moments
    if v <= 0 or not sign_flip_can_reject(n, alpha):  # every contribution 0, or too few topics to ever reject
        return 0.0
    z = float(ndtri(1 - alpha / 2))
    centre = math.sqrt(n) * a / math.sqrt(v)
    variance = (v - a * a) / v - a * (third - a * v) / v**2 + a * a * (fourth - v * v) / (4 * v**3)
    if variance <= 0:  # every contribution equal: S = ±√n exactly
        return 1.0 if abs(centre) > z else 0.0
    spread = math.sqrt(variance)
    return float(ndtr((centre - z) / spread) + ndtr((-centre - z) / spread))


def sign_flip_can_reject(n: int, alpha: float) -> bool:
    """Whether a two-sided sign-flip test of n topics can reject at α at all: its smallest p-value is 2^(1−n) (every
    sign as observed, or every one flipped, of the 2^n), and it rejects when p < α."""
    return n >= 63 or 2.0 ** (1 - n) < alpha


def paired_t_power(difference: float, sd: float, n: int, alpha: float) -> float:
    """Power of the two-sided paired t-test of a mean difference over n topics whose differences have standard
    deviation sd: P(|T| > t_{n−1, 1−α/2}) for T noncentral t with n − 1 degrees of freedom and noncentrality
    √n · difference / sd (Cohen, Statistical Power Analysis for the Behavioral Sciences, 1988, ch. 2).

    Args:
        difference: The mean difference.
        sd: The per-topic differences' standard deviation.
        n: The topics.
        alpha: The significance level.

    Returns:
        The power.
    """
    if sd <= 0:
        return 1.0 if difference != 0 else 0.0
    critical = float(stdtrit(n - 1, 1 - alpha / 2))
    shift = math.sqrt(n) * difference / sd
    return float(1 - nctdtr(n - 1, shift, critical) + nctdtr(n - 1, shift, -critical))


class SlopeDifference:
    """GSR_a − GSR_b on the same topics, tested by sign flips of the terms (x_i − x̄)(y_a,i − y_b,i) / Σ(x − x̄)²
    (gsr.uncertainty.slope_difference_terms); the terms without their common divisor are the contributions u_i.

    Args:
        x: g(q) of the common topics.
        y_a: g_q(L) of run a.
        y_b: g_q(L) of run b.
    """

    test = "paired randomisation test"

    def __init__(self, x: np.ndarray, y_a: np.ndarray, y_b: np.ndarray):
        terms, _ = slope_difference_terms(x, y_a, y_b)
        self.observed = float(terms.sum())
        self.x = np.asarray(x, dtype=np.float64) - float(np.mean(x))
        self.n_pilot = len(self.x)
        d = np.asarray(y_a, dtype=np.float64) - np.asarray(y_b, dtype=np.float64)
        self.base = d - self.observed * self.x
        noise = self.contributions(0.0)
        # the pilot's standard error of the difference; where it is rounding noise there is nothing to plan from
        self.scale = float(np.sqrt(np.mean(noise * noise) / self.n_pilot) / np.mean(self.x * self.x))
        if float(np.abs(noise).max()) <= SLOPE_NOISE * float(np.abs(self.x * d).max()):
            self.scale = 0.0

    degenerate = (
        "the two runs' g_q(L) differ by exactly their GSR difference times (g(q) − its mean) on every pilot topic "
        "(identical runs, for a difference of 0): the pilot shows no noise to plan from"
    )

    def contributions(self, difference: float) -> np.ndarray:
        """Each pilot topic's u_i with `difference` planted."""
        return self.x * (self.base + difference * self.x)

    def analytic_power(self, n: int, difference: float, alpha: float) -> float:
        u = self.contributions(difference)
        squares = u * u
        moments = (
            float(u.mean()),
            float(squares.mean()),
            float((squares * u).mean()),
            float((squares * squares).mean()),
        )
        return sign_flip_power(moments, n, alpha)

    def moments(self, counts: np.ndarray) -> np.ndarray:
        """Every study's sums Σ w·x^i·c^j that T and its null variance need, whatever difference is planted."""
        x, c = self.x, self.base
        columns = [x, x**2, x**3, x**4, c, x * c, x**2 * c, x**3 * c, c * c, x * c * c, x**2 * c * c]
        return counts @ np.column_stack(columns)

    def simulated_power(self, moments: np.ndarray, n: int, difference: float, alpha: float) -> float:
        """The share of studies whose |T| exceeds z_{1−α/2} times its sign-flip standard deviation √Σ(x − x̄_s)²d²
        (x̄_s the study's own mean): each study's randomisation test in its normal approximation."""
        sx, sx2, sx3, sx4, sc, sxc, sx2c, sx3c, sc2, sxc2, sx2c2 = moments.T
        t = difference
        sd = sc + t * sx
        sxd = sxc + t * sx2
        sd2 = sc2 + 2 * t * sxc + t * t * sx2
        sxd2 = sxc2 + 2 * t * sx2c + t * t * sx3
        sx2d2 = sx2c2 + 2 * t * sx3c + t * t * sx4
        if not sign_flip_can_reject(n, alpha):
            return 0.0
        mean_x = sx / n
        statistic = sxd - mean_x * sd
        variance = sx2d2 - 2 * mean_x * sxd2 + mean_x * mean_x * sd2
        z = float(ndtri(1 - alpha / 2))
        rejects = (variance > 0) & (statistic * statistic > z * z * np.maximum(variance, 0.0))
        return float(rejects.mean())


class MeanDifference:
    """mean(a) − mean(b) of per-topic values (an effectiveness measure, RaB, ARaB) on the same topics, tested by the
    paired two-sided t-test (experiments' default; Student's, as scipy.stats.ttest_rel).

    Args:
        a: Run a's values of the common topics.
        b: Run b's values.
    """

    test = "paired t-test"

    def __init__(self, a: np.ndarray, b: np.ndarray):
        d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
        self.n_pilot = len(d)
        self.observed = float(d.mean())
        self.base = d - self.observed
        self.noise = float(d.std(ddof=1))
        self.scale = self.noise / math.sqrt(self.n_pilot)
        if self.noise <= SLOPE_NOISE * float(np.abs(d).max()):  # equal differences up to rounding
            self.scale = 0.0

    degenerate = "the two runs differ by the same amount on every pilot topic: the pilot shows no noise to plan from"

    def analytic_power(self, n: int, difference: float, alpha: float) -> float:
        return paired_t_power(difference, self.noise, n, alpha)

    def moments(self, counts: np.ndarray) -> np.ndarray:
        return counts @ np.column_stack([self.base, self.base**2])

    def simulated_power(self, moments: np.ndarray, n: int, difference: float, alpha: float) -> float:
        """The share of studies whose paired t statistic exceeds t_{n−1, 1−α/2} in absolute value."""
        total = moments[:, 0] + n * difference
        squares = moments[:, 1] + 2 * difference * moments[:, 0] + n * difference * difference
        mean = total / n
        variance = np.maximum(squares - n * mean * mean, 0.0) / (n - 1)
        critical = float(stdtrit(n - 1, 1 - alpha / 2))
        with np.errstate(divide="ignore", invalid="ignore"):  # equal differences: t = ±inf, or NaN where all are 0
            statistic = np.abs(mean) / np.sqrt(variance / n)
        return float(np.mean(statistic > critical))


@dataclass(frozen=True)
class Detection:
    """What a pair of runs can tell apart: the power for each study size, the minimal detectable difference at the
    pilot's n and the topics a difference needs.

    Args:
        a: Run a.
        b: Run b.
        measure: 'GSR' or the measure's name.
        test: The paired test planned for.
        n_pilot: The pilot's common topics.
        observed: The pilot's difference a − b.
        difference: The difference planned for, or None.
        power: {n: resampled power}, None without a difference.
        power_analytic: {n: analytic power}, None without a difference.
        minimal_detectable_difference: The smallest |difference| (either way) detected with the asked power at the
            pilot's n, None where none is.
        n_for_difference: The topics `difference` needs, None where undefined.
        method: 'analytic' or 'resampled': which answers the last two.
        method_why: Why that one.
        why: {field: why it is None}.
    """

    a: str
    b: str
    measure: str
    test: str
    n_pilot: int
    observed: float
    difference: float | None
    power: dict[int, float] | None
    power_analytic: dict[int, float] | None
    minimal_detectable_difference: float | None
    n_for_difference: int | None
    method: str
    method_why: str
    why: dict[str, str] = field(default_factory=dict)


def smallest_difference(power_of: Callable[[float], float], target: float, scale: float) -> float | None:
    """The smallest t > 0 with power_of(t) ≥ target: doubled from `scale` until reached, then bisected; None when
    2^MAX_DOUBLINGS · scale still falls short (a test whose power is bounded below the target, as a sign-flip test of
    few topics is: its p-value cannot go below 2^(1−n))."""
    low, high = 0.0, scale
    for _ in range(MAX_DOUBLINGS):
        if power_of(high) >= target:
            break
        low, high = high, 2 * high
    else:
        return None
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if power_of(middle) >= target:
            high = middle
        else:
            low = middle
    return high


def _signed(power_at: Callable[[float], float], sign: float) -> Callable[[float], float]:
    """power_at of a difference of size t in the direction `sign`."""
    return lambda t: power_at(sign * t)


def power_tolerance(power: float, studies: int) -> float:
    """The largest difference between the resampled and the analytic power that counts as agreement."""
    return max(POWER_AGREEMENT, 3 * math.sqrt(power * (1 - power) / studies))


def detection(
    design,
    names: tuple[str, str, str],
    topics: Iterable[int],
    difference: float | None,
    alpha: float,
    power: float,
    draws: StudyDraws,
) -> Detection:
    """The Detection of one pair under `design` (a SlopeDifference or a MeanDifference).

    Args:
        design: The pair's pilot differences and test.
        names: (run a, run b, measure).
        topics: The study sizes (the pilot's own is added).
        difference: The difference to plan for, or None.
        alpha: The significance level.
        power: The power asked for.
        draws: The simulated studies.

    Returns:
        The detection plan.
    """
    m = design.n_pilot
    sizes = sorted(set(topics) | {m})
    a, b, measure = names
    why: dict[str, str] = {}
    if design.scale <= 0:
        why = dict.fromkeys(("power", "minimal_detectable_difference", "n_for_difference"), design.degenerate)
        return Detection(
            a, b, measure, design.test, m, design.observed, difference, None, None, None, None, "", "", why
        )
    studies = draws.studies

    def simulated(n: int, planted: float) -> float:
        return design.simulated_power(design.moments(draws.counts(m, n)), n, planted, alpha)

    pilot_moments = design.moments(draws.counts(m, m))

    def minimal(power_at: Callable[[float], float]) -> tuple[float | None, float]:
        """The larger of the two directions' minimal detectable differences, and its sign."""
        larger: tuple[float | None, float] = (0.0, 1.0)
        for sign in (1.0, -1.0):
            found = smallest_difference(_signed(power_at, sign), power, design.scale)
            if found is None:
                return None, sign
            if found > (larger[0] or 0.0):
                larger = (found, sign)
        return larger

    mdd, sign = minimal(lambda t: design.analytic_power(m, t, alpha))
    disagreeing = []
    if mdd is not None:
        check = design.simulated_power(pilot_moments, m, sign * mdd, alpha)
        if abs(check - power) > power_tolerance(power, studies):
            disagreeing.append(f"{check:.2f} instead of {power:g} at the pilot's {m} topics")
    resampled = analytic = None
    if difference is not None:
        analytic = {n: design.analytic_power(n, difference, alpha) for n in sizes}
        resampled = {n: simulated(n, difference) for n in sizes}
        disagreeing += [
            f"{resampled[n]:.2f} instead of {analytic[n]:.2f} at n = {n}"
            for n in sizes
            if abs(resampled[n] - analytic[n]) > power_tolerance(analytic[n], studies)
        ]
    else:
        why["power"] = why["n_for_difference"] = "no difference was given"
    if disagreeing:
        method = "resampled"
        method_why = f"the resampled power differs from the analytic one ({'; '.join(disagreeing)})"
        mdd = minimal(lambda t: design.simulated_power(pilot_moments, m, t, alpha))[0]
    else:
        method = "analytic"
        method_why = "the resampled and analytic powers agree"
    if mdd is None:
        why["minimal_detectable_difference"] = (
            f"no difference reaches power {power:g} with the pilot's {m} topics under the {design.test}"
        )
    needed = None
    if difference is not None:
        needed = smallest_topics(lambda n: design.analytic_power(n, difference, alpha) >= power)
        if needed is not None and method == "resampled":
            needed = smallest_topics(lambda n: simulated(n, difference) >= power, start=needed)
        if needed is None:
            why["n_for_difference"] = out_of_reach(f"a difference of {difference:g} at power {power:g}")
    return Detection(
        a,
        b,
        measure,
        design.test,
        m,
        design.observed,
        difference,
        resampled,
        analytic,
        mdd,
        needed,
        method,
        method_why,
        why,
    )
