"""Checks of study planning (gsr.plan) by simulation: topics drawn from a known linear model, pilots drawn from it,
and whole studies of the planned size run as the product runs them (the percentile bootstrap interval of Eq. 3, the
paired randomisation test of two systems' GSR), to see whether the planned half-width, coverage and power are met.
tests/gsr/test_planning.py runs them on a few hundred studies, benchmarks/bench_plan.py on thousands."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gsr.uncertainty import bootstrap_fit, paired_gsr_test, percentile_interval


@dataclass(frozen=True)
class SimulatedTopics:
    """A population of topics: g(q) normal with standard deviation `spread` (a share `outlier_share` of topics sits
    at ±`outlier_at` spreads instead: high-leverage topics), and each system's g_q(L) = its slope · g(q) + noise.
    The noise is normal with standard deviation `noise` (times |g(q)| / spread where `heteroscedastic`: noise that
    grows with the query's genderedness), correlated `correlation` between the systems on the same topic.

    Args:
        slopes: Each system's GSR in the population.
        noise: The noise's standard deviation.
        spread: g(q)'s standard deviation.
        correlation: The systems' noise correlation on a topic.
        heteroscedastic: Noise proportional to |g(q)|.
        outlier_share: The share of high-leverage topics.
        outlier_at: Where they sit, in spreads from 0.
    """

    slopes: tuple[float, ...] = (0.2, 0.15)
    noise: float = 0.03
    spread: float = 0.15
    correlation: float = 0.5
    heteroscedastic: bool = False
    outlier_share: float = 0.0
    outlier_at: float = 6.0

    def draw(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:
        """n topics: (g(q), [each system's g_q(L)])."""
        x = rng.normal(0.0, self.spread, n)
        if self.outlier_share:
            outliers = rng.random(n) < self.outlier_share
            x[outliers] = self.outlier_at * self.spread * rng.choice([-1.0, 1.0], int(outliers.sum()))
        scale = self.noise * (np.abs(x) / self.spread if self.heteroscedastic else 1.0)
        shared = rng.normal(size=n)
        ys = []
        for slope in self.slopes:
            own = self.correlation * shared + np.sqrt(1 - self.correlation**2) * rng.normal(size=n)
            ys.append(slope * x + scale * own)
        return x, ys

    def pilot(self, n: int, seed: int) -> dict[str, dict[str, tuple[float, float]]]:
        """A pilot of n topics as gsr.plan takes it: {"s0": {qid: (g(q), g_q(L))}, "s1": …}."""
        x, ys = self.draw(n, np.random.default_rng(seed))
        return {f"s{i}": {f"q{j}": (float(x[j]), float(y[j])) for j in range(n)} for i, y in enumerate(ys)}


def interval_coverage(
    topics: SimulatedTopics, n: int, studies: int, resamples: int, level: float, seed: int
) -> tuple[float, float]:
    """Over `studies` fresh studies of n topics: the share whose percentile bootstrap interval of system 0's GSR
    (gsr.uncertainty, `resamples` resamples, as `gsr score`) holds its population slope, and its mean half-width.

    Args:
        topics: The population.
        n: The topics of each study.
        studies: The studies.
        resamples: The bootstrap resamples of each study.
        level: The interval's level.
        seed: The seed of the studies.

    Returns:
        (coverage, mean half-width).
    """
    rng = np.random.default_rng(seed)
    ids = [f"q{j}" for j in range(n)]
    covered, widths = 0, []
    for study in range(studies):
        x, ys = topics.draw(n, rng)
        interval = percentile_interval(bootstrap_fit(ids, x, ys[0], resamples, seed=study).slopes, level)
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= topics.slopes[0] <= interval.high
        widths.append((interval.high - interval.low) / 2)
    return covered / studies, float(np.mean(widths))


def rejection_rate(topics: SimulatedTopics, n: int, studies: int, resamples: int, alpha: float, seed: int) -> float:
    """Over `studies` fresh studies of n topics: the share where the paired randomisation test of system 0's GSR
    against system 1's (gsr.uncertainty.paired_gsr_test, `resamples` sign vectors) rejects at `alpha`.

    Args:
        topics: The population (two systems).
        n: The topics of each study.
        studies: The studies.
        resamples: The sign vectors of each test.
        alpha: The significance level.
        seed: The seed of the studies.

    Returns:
        The rejection rate: the power where the slopes differ, the size where they do not.
    """
    rng = np.random.default_rng(seed)
    rejected = 0
    for study in range(studies):
        x, ys = topics.draw(n, rng)
        rejected += paired_gsr_test(x, ys[0], ys[1], resamples, seed=study).p_value < alpha
    return rejected / studies
