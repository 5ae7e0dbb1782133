"""Study planning (gsr.plan, gsr.planning): each number against an independent computation, and the plan's promises
checked by simulation (gsr.validation.planning) on a few hundred studies with fixed seeds; the tolerances are four
binomial or Monte Carlo standard errors, so a correct plan cannot fail them. benchmarks/bench_plan.py runs the
long version."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import gsr
from gsr.errors import InputError
from gsr.planning import planner
from gsr.planning.options import MAX_TOPICS
from gsr.planning.power import (
    MeanDifference,
    SlopeDifference,
    detection,
    paired_t_power,
    sign_flip_can_reject,
    sign_flip_power,
)
from gsr.planning.precision import analytic_half_width, design_half_width, precision, resampled_half_width
from gsr.planning.selection import select_topics, spread_of, widest
from gsr.planning.studies import StudyDraws, smallest_topics, study_counts
from gsr.uncertainty import bootstrap_fit, percentile_interval, resample_counts, sign_flip_test
from gsr.validation.planning import SimulatedTopics, interval_coverage, rejection_rate


def paired_sign_flip_p(contributions: np.ndarray) -> float:
    return sign_flip_test(contributions, resamples=10_000).p_value


def points(run: dict) -> tuple[np.ndarray, np.ndarray]:
    return np.array([g for g, _ in run.values()]), np.array([y for _, y in run.values()])


# ------------------------------------------------------------------------------------------------ simulated studies
def test_studies_of_the_pilots_size_are_gsr_scores_bootstrap_resamples():
    assert np.array_equal(study_counts(40, 40, 300, 7), resample_counts(40, 300, 7))


@pytest.mark.parametrize(("m", "n"), [(40, 37), (4, 5), (4, 400)])  # fewer than the pilot's, more, a multinomial
def test_studies_draw_every_pilot_topic_alike(m, n):
    counts = study_counts(m, n, 20_000, 3)
    assert (counts.sum(axis=1) == n).all()
    # each topic's count is binomial(n, 1/m): its mean over the studies within four standard errors of n/m
    standard_error = math.sqrt(n * (1 / m) * (1 - 1 / m) / len(counts))
    assert np.abs(counts.mean(axis=0) - n / m).max() < 4 * standard_error


def test_study_draws_are_drawn_once_per_size():
    draws = StudyDraws(200, 1)
    assert draws.counts(30, 50) is draws.counts(30, 50)
    assert np.array_equal(draws.counts(30, 50), study_counts(30, 50, 200, 1))


@pytest.mark.parametrize("threshold", [3, 4, 17, 1000, 12_345])
@pytest.mark.parametrize("start", [3, 10, 5000])
def test_smallest_topics_finds_the_threshold_from_any_start(threshold, start):
    assert smallest_topics(lambda n: n >= threshold, start) == threshold


def test_smallest_topics_beyond_the_limit_is_none():
    assert smallest_topics(lambda n: n > MAX_TOPICS) is None


# ------------------------------------------------------------------------------------------------ precision
@pytest.fixture(scope="module")
def pilot() -> dict:
    return SimulatedTopics().pilot(117, 0)


def test_the_resampled_half_width_at_the_pilots_n_is_that_of_gsr_scores_interval(pilot):
    x, y = points(pilot["s0"])
    interval = percentile_interval(bootstrap_fit(list(pilot["s0"]), x, y, resamples=1000, seed=4).slopes, 0.9)
    width, lost = resampled_half_width(x, y, 117, 0.9, StudyDraws(1000, 4))
    assert lost == 0 and width == pytest.approx((interval.high - interval.low) / 2, rel=1e-12)


def test_the_analytic_half_width_is_t_times_the_standard_error_scaled_to_n(pilot):
    x, y = points(pilot["s0"])
    fit = stats.linregress(x, y)  # scipy's own slope and standard error
    for n in (25, 117, 2000):
        expected = stats.t.ppf(0.975, n - 2) * fit.stderr * math.sqrt(117 / n)
        assert analytic_half_width(fit.stderr, 117, n, 0.95) == pytest.approx(expected, rel=1e-10)
    sxx = float(((x - x.mean()) ** 2).sum())
    residual_sd = fit.stderr * math.sqrt(sxx)
    assert design_half_width(residual_sd, sxx, 117, 0.95) == pytest.approx(stats.t.ppf(0.975, 115) * fit.stderr)
    assert design_half_width(residual_sd, 0.0, 117, 0.95) is None  # no spread: no slope


def test_the_topics_for_a_target_width_are_the_fewest_that_reach_it(pilot):
    result = gsr.plan({"s0": pilot["s0"]}, target_width=0.01, resamples=200)
    run = result.runs["s0"]
    x, y = points(pilot["s0"])
    se = stats.linregress(x, y).stderr
    n = run.n_for_target_width
    assert run.method == "analytic"
    assert analytic_half_width(se, 117, n, 0.95) <= 0.01 < analytic_half_width(se, 117, n - 1, 0.95)


def test_a_planned_study_reaches_its_half_width_and_covers_the_slope():
    """A pilot of 1,500 topics (so its own error is small), a study of the planned n drawn afresh from the population
    400 times, each with gsr score's percentile bootstrap: the mean half-width is the target within 6% (the bootstrap's
    z-based spread is a little narrower than the t-based plan), and the coverage 95% within four binomial SEs."""
    topics = SimulatedTopics()
    result = gsr.plan({"s0": topics.pilot(1500, 11)["s0"]}, target_width=0.02, resamples=500)
    n = result.runs["s0"].n_for_target_width
    coverage, width = interval_coverage(topics, n, studies=400, resamples=500, level=0.95, seed=12)
    assert width == pytest.approx(0.02, rel=0.06)
    assert abs(coverage - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / 400)


def test_the_analytic_answer_where_the_model_holds_and_the_resampled_one_where_it_fails():
    model = gsr.plan(SimulatedTopics().pilot(117, 0), resamples=2000).runs["s0"]
    assert model.method == "analytic"
    for n, width in model.half_width.items():
        assert width == pytest.approx(model.half_width_analytic[n], rel=0.2)
    heteroscedastic = gsr.plan(SimulatedTopics(heteroscedastic=True).pilot(117, 0), resamples=2000).runs["s0"]
    assert heteroscedastic.method == "resampled" and "equal variance" in heteroscedastic.method_why
    assert heteroscedastic.half_width[117] > 1.2 * heteroscedastic.half_width_analytic[117]
    leverage = SimulatedTopics(outlier_share=0.03, outlier_at=10)
    levered = gsr.plan(leverage.pilot(117, 0), resamples=2000).runs["s0"]
    assert levered.method == "resampled" and "spread of g(q)" in levered.method_why


def test_the_resampled_target_n_reaches_the_resampled_half_width():
    x, y = points(SimulatedTopics(heteroscedastic=True).pilot(117, 0)["s0"])
    draws = StudyDraws(2000, 0)
    run = precision(x, y, [25], 0.95, 0.02, draws)
    assert run.method == "resampled"
    reached, _ = resampled_half_width(x, y, run.n_for_target_width, 0.95, draws)
    assert reached == pytest.approx(0.02, rel=0.05)  # a fixed point of noisy half-widths: within their MC error
    assert run.n_for_target_width > smallest_topics(lambda n: analytic_half_width(1.0, 1, n, 0.95) <= 1.0)


# ------------------------------------------------------------------------------------------------ power
def test_the_sign_flip_power_of_no_difference_is_alpha():
    u = np.random.default_rng(0).normal(size=200)
    u -= u.mean()
    moments = tuple(float(np.mean(u**k)) for k in (1, 2, 3, 4))
    assert sign_flip_power(moments, 50, 0.05) == pytest.approx(0.05, abs=1e-12)  # type: ignore[arg-type]


def test_a_sign_flip_test_of_too_few_topics_never_rejects():
    """Its smallest two-sided p-value is 2/2^n (gsr.uncertainty.sign_flip_test enumerates them): 1/16 for 5 topics."""
    c = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert paired_sign_flip_p(c) == pytest.approx(2 / 2**5)
    assert not sign_flip_can_reject(5, 0.05) and sign_flip_can_reject(6, 0.05)
    assert sign_flip_power((1.0, 1.0, 1.0, 1.0), 5, 0.05) == 0.0
    assert sign_flip_power((1.0, 1.0, 1.0, 1.0), 6, 0.05) == 1.0  # every contribution equal: S = √6 > 1.96


def test_the_paired_t_power_against_simulated_t_tests():
    rng = np.random.default_rng(5)
    differences = rng.normal(0.3, 1.0, size=(4000, 20))
    rejected = stats.ttest_1samp(differences, 0.0, axis=1).pvalue < 0.05
    expected = paired_t_power(0.3, 1.0, 20, 0.05)
    assert abs(rejected.mean() - expected) <= 4 * math.sqrt(expected * (1 - expected) / 4000)


def test_the_minimal_detectable_difference_has_the_power_asked():
    a, b = (np.random.default_rng(s).normal(0.5, 0.2, 80) for s in (1, 2))
    found = detection(MeanDifference(a, b), ("a", "b", "AP"), [25], None, 0.05, 0.8, StudyDraws(2000, 0))
    assert found.method == "analytic"
    sd = float(np.std(a - b, ddof=1))
    assert paired_t_power(found.minimal_detectable_difference, sd, 80, 0.05) == pytest.approx(0.8, abs=1e-9)
    assert found.power is None and found.why["power"] == "no difference was given"


def test_the_topics_for_a_difference_are_the_fewest_with_the_power_asked():
    topics = SimulatedTopics()
    result = gsr.plan(topics.pilot(300, 3), difference=0.05, resamples=1000)
    pair = result.pairs[0]
    x, y_a = points(result_points := topics.pilot(300, 3)["s0"])
    _, y_b = points(topics.pilot(300, 3)["s1"])
    design = SlopeDifference(x, y_a, y_b)
    n = pair.n_for_difference
    assert pair.method == "analytic" and len(result_points) == 300
    assert design.analytic_power(n, 0.05, 0.05) >= 0.8 > design.analytic_power(n - 1, 0.05, 0.05)
    assert pair.observed == pytest.approx(stats.linregress(x, y_a).slope - stats.linregress(x, y_b).slope)


def test_a_planned_study_detects_its_difference_with_the_power_asked():
    """A 1,500-topic pilot of two systems whose GSR differ by 0.05; 400 fresh studies of the planned n, each tested
    by gsr score's paired randomisation test: the rejection rate is 0.8 within four binomial SEs; with no difference
    in the population, it is α within four SEs."""
    topics = SimulatedTopics()
    pair = gsr.plan(topics.pilot(1500, 21), difference=0.05, resamples=500).pairs[0]
    rate = rejection_rate(topics, pair.n_for_difference, studies=400, resamples=500, alpha=0.05, seed=22)
    assert abs(rate - 0.8) <= 4 * math.sqrt(0.8 * 0.2 / 400)
    null = SimulatedTopics(slopes=(0.2, 0.2))
    size = rejection_rate(null, pair.n_for_difference, studies=400, resamples=500, alpha=0.05, seed=23)
    assert abs(size - 0.05) <= 4 * math.sqrt(0.05 * 0.95 / 400)


def test_identical_runs_have_no_detectable_difference_and_say_why():
    run = SimulatedTopics().pilot(50, 0)["s0"]
    pair = gsr.plan({"a": run, "b": dict(run)}, difference=0.05, resamples=200).pairs[0]
    assert pair.minimal_detectable_difference is None and pair.n_for_difference is None and pair.power is None
    assert "no noise to plan from" in pair.why["minimal_detectable_difference"]


# ------------------------------------------------------------------------------------------------ selection
def test_the_widest_design_is_the_best_of_every_subset():
    rng = np.random.default_rng(2)
    values = np.sort(rng.normal(size=11))
    fixed = np.array([0.05, -0.02])
    for count in (2, 4, 7):
        chosen = widest(values, count, fixed)
        best = max(
            spread_of(np.concatenate([values[list(subset)], fixed]))
            for subset in itertools.combinations(range(11), count)
        )
        assert spread_of(np.concatenate([values[chosen], fixed])) == pytest.approx(best)


def test_neutral_share_and_strata():
    rng = np.random.default_rng(4)
    pool = {f"q{i}": float(v) for i, v in enumerate(rng.normal(0, 0.2, 300))}
    pool["unmeasurable"] = math.nan
    chosen, neutral, bound = select_topics(pool, 20, neutral_share=0.1)
    assert neutral == 2 and len(chosen) == 20 == len(set(chosen)) and "unmeasurable" not in chosen
    by_size = sorted((abs(g), q) for q, g in pool.items() if not math.isnan(g))
    assert {q for _, q in by_size[:2]} <= set(chosen) and bound == pytest.approx(by_size[1][0])
    values = [pool[q] for q in chosen]
    assert values == sorted(values, reverse=True)  # most female first
    chosen, _, _ = select_topics(pool, 12, strata=3)
    ranked = sorted((g, q) for q, g in pool.items() if not math.isnan(g))
    stratum = {q: i * 3 // len(ranked) for i, (_, q) in enumerate(ranked)}
    assert sorted(stratum[q] for q in chosen) == [0] * 4 + [1] * 4 + [2] * 4


def test_a_chosen_design_is_narrower_than_a_random_one():
    topics = SimulatedTopics()
    pool = {f"p{i}": float(v) for i, v in enumerate(np.random.default_rng(9).normal(0, 0.15, 5000))}
    result = gsr.plan(topics.pilot(117, 0), pool=pool, select=100, resamples=200)
    selection = result.selection
    values = np.array(list(pool.values()))
    assert selection.random_spread == pytest.approx(99 * values.var(ddof=1))
    for widths in selection.half_width.values():
        assert widths["chosen"] < widths["random"]
    # each width: t × σ̂ / √spread with σ̂ from scipy's fit of the pilot
    x, y = points(topics.pilot(117, 0)["s0"])
    fit = stats.linregress(x, y)
    sigma = fit.stderr * math.sqrt(float(((x - x.mean()) ** 2).sum()))
    expected = stats.t.ppf(0.975, 98) * sigma / math.sqrt(selection.spread)
    assert selection.half_width["s0"]["chosen"] == pytest.approx(expected)


# ------------------------------------------------------------------------------------------------ the plan
def test_the_plan_as_json(pilot):
    result = gsr.plan(pilot, topics=[25, 50], resamples=200)
    assert gsr.plan is planner.plan
    document = result.to_dict()
    run = document["runs"]["s0"]
    assert set(run["half_width"]) == set(run["half_width_analytic"]) == {"25", "50", "117"}
    assert run["n_for_target_width"] is None and run["why"]["n_for_target_width"] == "no target width was given"
    (pair,) = document["pairs"]
    assert (pair["a"], pair["b"], pair["measure"], pair["power"]) == ("s0", "s1", "GSR", None)
    assert pair["why"]["power"] == "no difference was given" and pair["minimal_detectable_difference"] > 0
    assert document["selection"] is None


def test_a_measure_pair_with_too_few_common_topics_is_refused(pilot):
    with pytest.raises(InputError, match="measure AP: runs s0 and s1 share only 1 topic"):
        gsr.plan(pilot, measures={"AP": {"s0": {"q1": 1.0, "q2": 0.5}, "s1": {"q1": 0.0}}})
