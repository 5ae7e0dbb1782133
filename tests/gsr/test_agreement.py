"""Measure agreement (gsr.fairness.agreement): Kendall τ-b by hand and against scipy, near ties, orientation, the
bootstrap over queries (GSR recomputed as a slope from the resampled pairs), per-query correlations, the queries
behind a disagreement, and every undefined case said as such."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from gsr.equations import gsr_slope, gsr_slope_terms
from gsr.errors import InputError
from gsr.fairness.agreement import (
    AgreementMeasure,
    bias_direction,
    kendall_tau,
    measure_agreement,
    near_tie_ranks,
    replicate_taus,
)


def test_kendall_tau_by_hand():
    # pairs (1,2) and (1,3) concordant, (2,3) discordant: (2 − 1) / 3
    assert kendall_tau([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])[0] == pytest.approx(1 / 3)
    # one tie in the first: C = 2, D = 0, τ-b = 2 / √((3 − 1)(3 − 0))
    assert kendall_tau([1.0, 1.0, 2.0], [1.0, 2.0, 3.0])[0] == pytest.approx(2 / math.sqrt(6))
    assert kendall_tau([1.0, 2.0], [2.0, 1.0])[0] == -1.0


def test_kendall_tau_against_scipy_on_random_values():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 12))
        a, b = rng.integers(0, 4, n).astype(float), rng.normal(size=n)
        tau, why = kendall_tau(a, b)
        expected = kendalltau(a, b).statistic
        if math.isnan(expected):
            assert tau is None and why
        else:
            assert tau == pytest.approx(expected, rel=1e-12)


def test_near_ties_and_undefined_taus():
    assert near_tie_ranks([0.3, 0.1 + 0.2, 0.5], 1).tolist() == [0, 0, 1]  # 0.30000000000000004 is 0.3
    assert near_tie_ranks([0.3, 0.3001, 0.5], 10**6).tolist() == [0, 1, 2]  # far above rounding
    assert kendall_tau([0.3, 0.1 + 0.2], [1.0, 2.0]) == (None, "the first measure gives all 2 systems the same value")
    assert kendall_tau([1.0], [1.0]) == (None, "fewer than two systems (1)")


def test_orientation_is_declared_once():
    assert [bias_direction(n) for n in ("GSR", "NDKL@10", "MAB_female@10", "MB_male@10", "RaB@5", "ARaB@5")] == [
        "higher",
        "higher",
        "higher",
        "absolute",
        "absolute",
        "absolute",
    ]
    assert {bias_direction(n) for n in ("FaiRR@10", "NFaiRR@10", "NFaiRR_agnostic@5")} == {"lower"}
    with pytest.raises(InputError, match="no declared direction for measure 'RaB_female@10'"):
        bias_direction("RaB_female@10")
    # NFaiRR larger is fairer, RaB farther from 0 is more biased: oriented values
    assert AgreementMeasure("NFaiRR@10").oriented(0.9) == -0.9 and AgreementMeasure("RaB@10").oriented(-0.3) == 0.3


def _case():
    """Three systems, four queries: NDKL and NFaiRR are means; GSR is the slope of (g(q), g_q(L)) pairs."""
    g = [-0.5, -0.1, 0.2, 0.6]
    lists = {"a": [-0.30, -0.02, 0.05, 0.40], "b": [-0.10, 0.03, 0.01, 0.12], "c": [-0.20, 0.00, 0.10, 0.05]}
    ndkl = {"a": [0.4, 0.1, 0.3, 0.2], "b": [0.2, 0.1, 0.1, 0.0], "c": [0.5, 0.4, 0.1, 0.2]}
    nfairr = {"a": [0.7, 0.9, 0.8, 0.6], "b": [0.9, 0.95, 0.9, 0.85], "c": [0.8, 0.7, 0.9, 0.9]}
    qids = ["q1", "q2", "q3", "q4"]
    per_query = {
        "GSR": {s: {q: (x, y) for q, x, y in zip(qids, g, ys)} for s, ys in lists.items()},
        "NDKL@10": {s: dict(zip(qids, v)) for s, v in ndkl.items()},
        "NFaiRR@10": {s: dict(zip(qids, v)) for s, v in nfairr.items()},
    }
    table = {
        "GSR": {s: gsr_slope(g, ys) for s, ys in lists.items()},
        "NDKL@10": {s: float(np.mean(v)) for s, v in ndkl.items()},
        "NFaiRR@10": {s: float(np.mean(v)) for s, v in nfairr.items()},
    }
    return table, per_query, g, lists, ndkl, nfairr


def test_taus_and_their_bootstrap_intervals_recomputed_independently():
    table, per_query, g, lists, ndkl, nfairr = _case()
    report = measure_agreement(table, per_query, resamples=200, seed=7)
    systems = ["a", "b", "c"]
    oriented = {
        "GSR": [table["GSR"][s] for s in systems],
        "NDKL@10": [table["NDKL@10"][s] for s in systems],
        "NFaiRR@10": [-table["NFaiRR@10"][s] for s in systems],
    }
    draws = np.random.default_rng(7).integers(0, 4, size=(200, 4))

    def replicate(name, rows):
        if name == "GSR":
            try:
                return gsr_slope(np.asarray(g)[rows], np.asarray(lists_of[name])[rows])
            except Exception:
                return math.nan
        return float(np.mean(np.asarray(lists_of[name])[rows]))

    for tau in report.taus:
        first, second = tau.measures
        expected = kendalltau(oriented[first], oriented[second]).statistic
        assert tau.tau == pytest.approx(expected) and tau.systems == 3
        taus = []
        for rows in draws:
            values = []
            for name in (first, second):
                sign = -1.0 if name == "NFaiRR@10" else 1.0
                per_system = []
                for s in systems:
                    lists_of = {"GSR": lists[s], "NDKL@10": ndkl[s], "NFaiRR@10": nfairr[s]}
                    per_system.append(sign * replicate(name, rows))
                values.append(per_system)
            x, y = _merged(np.array(values[0])), _merged(np.array(values[1]))
            keep = np.isfinite(x) & np.isfinite(y)
            value = kendalltau(x[keep], y[keep]).statistic if keep.sum() >= 2 else math.nan
            if keep.sum() >= 2 and (np.ptp(x[keep]) == 0 or np.ptp(y[keep]) == 0):
                value = math.nan
            taus.append(value)
        finite = np.array([t for t in taus if np.isfinite(t)])
        low, high = np.quantile(finite, [0.025, 0.975])
        assert tau.interval.low == pytest.approx(low) and tau.interval.high == pytest.approx(high)
        assert tau.interval.resamples == len(finite)


def _merged(values: np.ndarray) -> np.ndarray:
    """Values within a 4-query mean's rounding (4 ε max|v|) made equal, as the product's τ counts them as ties
    (replicates such as 0.275 and 0.27500000000000002 occur here)."""
    out = values.copy()
    finite = out[np.isfinite(out)]
    tolerance = 4 * np.finfo(np.float64).eps * (np.max(np.abs(finite)) if len(finite) else 0.0)
    for i in range(len(out)):
        for j in range(i):
            if abs(out[i] - out[j]) <= tolerance:
                out[i] = out[j]
    return out


def test_gsr_is_resampled_as_a_slope_not_as_a_mean_of_terms():
    """The mean of the full sample's slope terms over a resample is not the resample's slope: the bootstrap must
    give the latter."""
    _, _, g, lists, _, _ = _case()
    rows = np.array([0, 0, 2, 3])
    terms = gsr_slope_terms(g, lists["a"])
    assert gsr_slope(np.asarray(g)[rows], np.asarray(lists["a"])[rows]) != pytest.approx(float(np.mean(terms[rows])))


def test_per_query_correlations_against_scipy():
    table, per_query, g, lists, ndkl, nfairr = _case()
    report = measure_agreement(table, per_query, resamples=10)
    for found in report.correlations:
        first, second = found.measures
        terms = {
            "GSR": gsr_slope_terms(g, lists[found.system]),
            "NDKL@10": np.array(ndkl[found.system]),
            "NFaiRR@10": -np.array(nfairr[found.system]),
        }
        assert found.spearman == pytest.approx(spearmanr(terms[first], terms[second]).statistic)
        assert found.kendall == pytest.approx(kendalltau(terms[first], terms[second]).statistic)
        assert found.queries == 4


def test_disagreements_name_the_queries_that_drive_them():
    table, per_query, *_ = _case()
    report = measure_agreement(table, per_query, resamples=10)
    oriented = {m: {s: (-v if m == "NFaiRR@10" else v) for s, v in values.items()} for m, values in table.items()}
    expected = set()
    for m1, m2 in (("GSR", "NDKL@10"), ("GSR", "NFaiRR@10"), ("NDKL@10", "NFaiRR@10")):
        for s, t in (("a", "b"), ("a", "c"), ("b", "c")):
            d1, d2 = oriented[m1][s] - oriented[m1][t], oriented[m2][s] - oriented[m2][t]
            if d1 * d2 < 0:
                expected.add((frozenset((m1, m2)), (s, t)))
    assert {(frozenset(d.measures), d.systems) for d in report.disagreements} == expected and expected
    for found in report.disagreements:
        s, t = found.systems
        first, second = found.measures
        assert found.differences[first] > 0 > found.differences[second]  # first finds s more biased, second t
        for measure, sign in ((first, 1), (second, -1)):
            drivers = found.drivers[measure]
            assert drivers and all(sign * d.contribution > 0 for d in drivers)
            assert [abs(d.contribution) for d in drivers] == sorted(
                (abs(d.contribution) for d in drivers), reverse=True
            )
        # the contributions of every query add up to the difference: checked on the mean measure NDKL by hand
        if "NDKL@10" in found.measures:
            values = per_query["NDKL@10"]
            shares = {q: (values[s][q] - values[t][q]) / 4 for q in values[s]}
            for d in found.drivers["NDKL@10"]:
                assert d.contribution == pytest.approx(shares[d.qid]) and d.first == [values[s][d.qid]]
            assert sum(shares.values()) == pytest.approx(found.differences["NDKL@10"])


def test_absolute_measures_and_undefined_results():
    per_query = {
        "RaB@10": {"a": {"q1": -0.4, "q2": -0.2}, "b": {"q1": 0.1, "q2": 0.1}},
        "KL@10": {"a": {"q1": 0.2, "q2": 0.2}, "b": {"q1": 0.2, "q2": 0.2}},
    }
    table = {"RaB@10": {"a": -0.3, "b": 0.1}, "KL@10": {"a": 0.2, "b": 0.2}}
    report = measure_agreement(table, per_query, resamples=20)
    (tau,) = report.taus
    assert tau.tau is None
    assert tau.to_dict()["tau"] == "undefined: the second measure gives all 2 systems the same value"
    assert report.disagreements == []  # a tie is no opposite verdict
    correlation = report.correlations[0].to_dict()
    assert correlation["spearman"] == "undefined: KL@10 is the same on every query"
    one = measure_agreement({"RaB@10": {"a": -0.3}, "KL@10": {"a": 0.2}}, per_query, resamples=5)
    assert one.taus[0].to_dict()["tau"] == "undefined: fewer than two systems (1)"
    with pytest.raises(InputError, match="no declared direction for measure 'RaB_female@10'"):
        measure_agreement(table, per_query, ["RaB_female@10"])
    with pytest.raises(InputError, match="ARaB@10: not in the table"):
        measure_agreement(table, per_query, ["ARaB@10"])
    with pytest.raises(InputError, match="KL@10: no per-query inputs"):
        measure_agreement(table, {"RaB@10": per_query["RaB@10"]})


def test_the_replicates_tau_is_kendall_tau_to_the_bit():
    """replicate_taus (every bootstrap replicate at once) against kendall_tau on each row: near ties, measures
    undefined on some systems (NaN), constant rows and two systems; the same doubles, NaN where kendall_tau says
    undefined."""
    rng = np.random.default_rng(5)
    for trial in range(200):
        systems = int(rng.integers(2, 10))
        first = rng.integers(0, 4, (30, systems)) / 7.0
        second = rng.normal(size=(30, systems)) if trial % 2 else rng.integers(0, 3, (30, systems)).astype(float)
        first[rng.random(first.shape) < 0.15] = np.nan
        second[rng.random(second.shape) < 0.15] = np.nan
        if trial % 3 == 0:  # rounding-sized differences, which kendall_tau merges as ties
            first = first + rng.normal(size=first.shape) * 1e-17
        found = replicate_taus(first, second, 7)
        for row, value in zip(range(30), found):
            keep = np.isfinite(first[row]) & np.isfinite(second[row])
            tau, _ = kendall_tau(first[row][keep], second[row][keep], 7) if keep.sum() >= 2 else (None, "")
            assert (tau is None and math.isnan(value)) or tau == value, (trial, row)


def test_two_systems_and_no_resamples_have_no_interval_and_say_why():
    per_query = {"GSR": {"a": {"q1": (-1.0, -0.2), "q2": (1.0, 0.2)}, "b": {"q1": (-1.0, -0.1), "q2": (1.0, 0.1)}}}
    per_query["NFaiRR@10"] = {"a": {"q1": 1.0, "q2": 0.8}, "b": {"q1": 0.9, "q2": 0.7}}
    table = {"GSR": {"a": 0.2, "b": 0.1}, "NFaiRR@10": {"a": 0.9, "b": 0.8}}
    (tau,) = measure_agreement(table, per_query, resamples=50).taus
    assert tau.tau == -1.0 and tau.interval.low is None and tau.interval.reason.startswith("two systems: τ is +1")
    assert tau.to_dict()["interval"].startswith("undefined: two systems")
    table, per_query, *_ = _case()
    report = measure_agreement(table, per_query, resamples=0)
    assert {t.to_dict()["interval"] for t in report.taus} == {"undefined: no bootstrap resamples"}
    assert report.values["NFaiRR@10"] == table["NFaiRR@10"] and report.more_biased["NFaiRR@10"] == "lower"


def test_rab_with_its_magnitudes_named_and_the_median_correlation():
    assert {bias_direction(n) for n in ("RaB_bool@10", "ARaB_tc@5", "RaB_tf@10")} == {"absolute"}
    table, per_query, *_ = _case()
    report = measure_agreement(table, per_query, resamples=10)
    pair = ("GSR", "NDKL@10")
    rhos = [c.spearman for c in report.correlations if c.measures == pair]
    assert report.median_correlation(pair) == (pytest.approx(float(np.median(rhos))), 3, None)
