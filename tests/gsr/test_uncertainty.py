"""gsr.uncertainty against hand-computable cases: every bootstrap resample enumerated, exact sign-flip p-values,
the slope's standard error against scipy, Holm and Bonferroni by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from gsr.equations import gsr_slope
from gsr.uncertainty import (
    BootstrapFit,
    adjust_p_values,
    bootstrap_fit,
    bootstrap_mean,
    paired_gsr_test,
    percentile_interval,
    randomization_test,
    relative_replicates,
    resample_counts,
    sign_flip_test,
    slope_standard_error,
    weighted_fits,
)

X = np.array([0.0, 1.0, 2.0, 4.0])
Y = np.array([0.5, 0.0, 2.0, 3.0])


def _counts(indices, n):
    return np.array([np.bincount(list(row), minlength=n) for row in indices])


def test_unit_weights_give_eq3_and_numpys_fit():
    slope, intercept = weighted_fits(X, Y, np.ones((1, 4)))
    expected_slope, expected_intercept = np.polyfit(X, Y, 1)
    assert slope[0] == pytest.approx(gsr_slope(X, Y)) == pytest.approx(expected_slope)
    assert intercept[0] == pytest.approx(expected_intercept)


def test_every_bootstrap_resample_of_four_queries_enumerated():
    """All 4^4 ordered resamples: a resample with one distinct query has no slope; the others are polyfit's."""
    indices = list(itertools.product(range(4), repeat=4))
    slopes, _ = weighted_fits(X, Y, _counts(indices, 4))
    for row, slope in zip(indices, slopes):
        if len(set(row)) == 1:
            assert np.isnan(slope)
        else:
            assert slope == pytest.approx(np.polyfit(X[list(row)], Y[list(row)], 1)[0])


def test_two_queries_by_hand():
    """x = (0, 1), y = (0, 2): the four resamples are (0,0), (0,1), (1,0), (1,1); the mixed ones have slope 2."""
    slopes, intercepts = weighted_fits([0.0, 1.0], [0.0, 2.0], _counts([(0, 0), (0, 1), (1, 0), (1, 1)], 2))
    assert np.isnan(slopes[[0, 3]]).all() and slopes[1] == slopes[2] == pytest.approx(2.0)
    assert intercepts[1] == pytest.approx(0.0)
    interval = percentile_interval(slopes)
    assert (interval.low, interval.high, interval.resamples, interval.undefined) == (
        pytest.approx(2.0),
        pytest.approx(2.0),
        2,
        2,
    )


def test_undefined_queries_get_no_weight():
    x, y = np.array([0.0, 1.0, np.nan, 3.0]), np.array([1.0, np.nan, 5.0, 4.0])
    slope, _ = weighted_fits(x, y, np.ones((1, 4)))
    assert slope[0] == pytest.approx(1.0)  # only (0, 1) and (3, 4) are measurable


def test_resample_counts_are_numpys_draws():
    counts = resample_counts(5, 3, seed=7)
    draws = np.random.default_rng(7).integers(0, 5, size=(3, 5))
    assert counts.tolist() == [np.bincount(row, minlength=5).tolist() for row in draws]
    assert (counts.sum(axis=1) == 5).all()


def test_seeded_bootstrap_matches_a_loop_over_resamples():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=30), rng.normal(size=30)
    fit = bootstrap_fit([f"q{i}" for i in range(30)], x, y, resamples=200, seed=11)
    draws = np.random.default_rng(11).integers(0, 30, size=(200, 30))
    assert fit.slopes == pytest.approx([np.polyfit(x[d], y[d], 1)[0] for d in draws])
    again = bootstrap_fit([f"q{i}" for i in range(30)], x, y, resamples=200, seed=11)
    assert np.array_equal(fit.slopes, again.slopes)


def test_percentile_interval_by_hand():
    interval = percentile_interval([5.0, 1.0, np.nan, 3.0, 2.0, 4.0], level=0.5)
    assert (interval.low, interval.high) == (2.0, 4.0)  # the 25% and 75% quantiles of 1..5
    assert interval.to_list() == [2.0, 4.0] and interval.undefined == 1
    assert percentile_interval([1.0]).low is None
    with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
        percentile_interval([1.0, 2.0], level=95)


def test_percentile_interval_interpolates_linearly_between_order_statistics():
    """Quantiles 0.1 and 0.9 of 1..5 fall at positions 0.4 and 3.6: linear interpolation gives 1.4 and 4.6, where
    the nearest, lower, higher and midpoint rules would give (1, 5), (1, 4), (2, 5) and (1.5, 4.5)."""
    interval = percentile_interval([3.0, 5.0, 1.0, 4.0, 2.0], level=0.8)
    assert (interval.low, interval.high) == (pytest.approx(1.4), pytest.approx(4.6))


def test_relative_gsr_on_the_same_resamples():
    queries = ("a", "b")
    system = BootstrapFit(np.array([0.3, np.nan, 0.1]), np.zeros(3), queries, 0)
    perfect = BootstrapFit(np.array([0.2, 0.2, -0.1]), np.zeros(3), queries, 0)
    assert relative_replicates(system, perfect)[[0, 2]] == pytest.approx([50.0, 200.0])
    with pytest.raises(ValueError, match="resampled identically"):
        relative_replicates(system, BootstrapFit(perfect.slopes, perfect.intercepts, ("a", "c"), 0))


def test_slope_standard_error_is_the_textbook_one():
    rng = np.random.default_rng(5)
    x = rng.normal(size=40)
    y = 0.5 * x + rng.normal(scale=0.3, size=40)
    assert slope_standard_error(x, y) == pytest.approx(stats.linregress(x, y).stderr)
    assert slope_standard_error([1.0, 2.0], [1.0, 3.0]) is None


def test_exact_sign_flip_p_values_by_hand():
    """T = 1 + 2 + 3 = 6; the 8 sign vectors give ±6, ±4, ±2, 0, 0: two give |T*| ≥ 6, one gives T* ≥ 6."""
    two_sided = sign_flip_test([1.0, 2.0, 3.0], resamples=8)
    assert (two_sided.statistic, two_sided.p_value, two_sided.exact, two_sided.resamples) == (6.0, 0.25, True, 8)
    assert sign_flip_test([1.0, 2.0, 3.0], resamples=8, alternative="greater").p_value == 0.125
    assert sign_flip_test([1.0, 2.0, 3.0], resamples=8, alternative="less").p_value == 1.0
    assert sign_flip_test([0.0, 0.0], resamples=8).p_value == 1.0


def test_monte_carlo_sign_flips_approach_the_exact_value():
    c = np.array([0.3, -0.1, 0.5, 0.2, 0.4, -0.2, 0.1, 0.25, 0.15, 0.35, 0.05, 0.3, -0.3, 0.1, 0.2, -0.15])
    exact = sign_flip_test(c, resamples=2**16)
    drawn = sign_flip_test(c, resamples=20_000, seed=1)
    assert exact.exact and not drawn.exact
    assert drawn.p_value == pytest.approx(exact.p_value, abs=0.01)
    assert drawn.p_value == sign_flip_test(c, resamples=20_000, seed=1).p_value  # seeded


def test_paired_gsr_test_by_hand():
    """x = (−1, 0, 1): GSR_a = 1, GSR_b = −1; the terms are (1, 0, 1), so |T*| ≥ 2 for 4 of the 8 sign vectors."""
    x, y_a, y_b = [-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], [1.0, 0.0, -1.0]
    result = paired_gsr_test(x, y_a, y_b, resamples=8)
    assert result.statistic == pytest.approx(gsr_slope(x, y_a) - gsr_slope(x, y_b)) == pytest.approx(2.0)
    assert result.p_value == 0.5 and result.exact and result.n == 3
    with pytest.raises(ValueError, match="two common queries"):
        paired_gsr_test([1.0, np.nan], [1.0, 2.0], [0.0, 1.0])


def test_a_drawn_p_value_counts_the_observed_statistic_once_in_both_counts():
    """Phipson & Smyth: p = (1 + c) / (1 + B). Twenty equal contributions: only the two all-equal sign vectors of 2^20
    reach |T|, so 99 draws (seeded) find none and p = 1/100, not 0 (c/B), 1/99 ((1 + c)/B) or 0 (c/(1 + B))."""
    result = sign_flip_test(np.ones(20), resamples=99, seed=0)
    assert not result.exact and result.p_value == 1 / 100


def test_the_gsr_difference_uses_only_the_queries_both_systems_measure():
    """Queries 1 (a) and 4 (b) are undefined: the statistic is the difference of the two slopes fitted on queries
    0, 2, 3, 5 alone (their own mean of g(q)), and the test counts those four."""
    x = np.array([-0.4, 0.9, -0.1, 0.2, -0.2, 0.5])  # mean 0.15; of the common four 0.05
    y_a = np.array([-0.2, np.nan, 0.1, 0.05, -0.3, 0.4])
    y_b = np.array([0.1, 0.3, -0.2, 0.0, np.nan, -0.1])
    common = [0, 2, 3, 5]
    expected = np.polyfit(x[common], y_a[common], 1)[0] - np.polyfit(x[common], y_b[common], 1)[0]
    result = paired_gsr_test(x, y_a, y_b, resamples=16)
    assert result.statistic == pytest.approx(expected, abs=1e-12) and result.n == 4 and result.exact


def test_swapping_one_querys_lists_flips_its_term():
    rng = np.random.default_rng(2)
    x, y_a, y_b = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
    swapped_a, swapped_b = y_a.copy(), y_b.copy()
    swapped_a[2], swapped_b[2] = y_b[2], y_a[2]
    observed = gsr_slope(x, y_a) - gsr_slope(x, y_b)
    swapped = gsr_slope(x, swapped_a) - gsr_slope(x, swapped_b)
    terms = (x - x.mean()) * (y_a - y_b) / ((x - x.mean()) @ (x - x.mean()))
    assert swapped == pytest.approx(observed - 2 * terms[2])


def test_randomization_test_of_a_mean_difference():
    """Differences (0.2, 0.1, 0.3), sum 0.6: the 8 signed sums are ±0.6, ±0.4, ±0.2, 0, 0; two reach |0.6|."""
    result = randomization_test([0.5, 0.4, 0.6], [0.3, 0.3, 0.3], resamples=8)
    assert result.statistic == pytest.approx(0.2)  # the mean difference
    assert result.p_value == 0.25 and result.exact


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, None]
    assert adjust_p_values(p, "holm") == [pytest.approx(0.03), pytest.approx(0.06), pytest.approx(0.06), None]
    assert adjust_p_values(p, "bonferroni") == [pytest.approx(0.03), pytest.approx(0.12), pytest.approx(0.09), None]
    assert adjust_p_values(p, "none") == p
    assert adjust_p_values([0.5, 0.6], "bonferroni") == [1.0, 1.0]
    with pytest.raises(ValueError, match="correction"):
        adjust_p_values(p, "fdr")


def test_bootstrap_mean_of_two_values_by_hand():
    """Values (0, 1): resample means 0, 0.5, 0.5, 1 with probabilities 1/4, 1/2, 1/4."""
    interval = bootstrap_mean([0.0, 1.0], resamples=20_000, level=0.5, seed=4)
    assert (interval.low, interval.high) == (0.5, 0.5)  # the middle half of the distribution is all 0.5
    wide = bootstrap_mean([0.0, 1.0], resamples=20_000, level=0.9, seed=4)
    assert (wide.low, wide.high) == (0.0, 1.0)
    assert bootstrap_mean([], resamples=10).low is None
