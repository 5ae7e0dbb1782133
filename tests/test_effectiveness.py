"""Effectiveness: ir_measures values against hand computations, unanswered queries, t-test marks."""

from __future__ import annotations

import pytest
from scipy import stats

from experiments.effectiveness import (
    check_run_ids,
    display_name,
    evaluate_run,
    paired_t_test,
    parse_measures,
    significance_mark,
)
from gsr.io import InputError

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}


def test_average_precision_and_precision_by_hand():
    run = {"q1": [("b", 3.0), ("a", 2.0), ("d", 1.5), ("c", 1.0)], "q2": [("x", 1.0)]}
    result = evaluate_run(run, QRELS, parse_measures(["AP", "P@2"]), ["q1", "q2"])
    assert result.per_query["AP"]["q1"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert result.per_query["P@2"]["q1"] == pytest.approx(0.5)
    assert result.mean("AP") == pytest.approx(((1 / 2 + 2 / 4) / 2 + 1) / 2)


def test_a_query_the_run_does_not_answer_scores_zero():
    result = evaluate_run({"q1": [("a", 1.0)]}, QRELS, parse_measures(["AP"]), ["q1", "q2"])
    assert result.per_query["AP"]["q2"] == 0.0
    assert result.mean("AP") == pytest.approx((1 / 2) / 2)


def test_paired_t_test_matches_scipy_and_marks():
    a = {"1": 0.5, "2": 0.6, "3": 0.9, "4": 0.4}
    b = {"1": 0.4, "2": 0.5, "3": 0.5, "4": 0.35}
    p = paired_t_test(a, b)
    assert p == pytest.approx(stats.ttest_rel([0.5, 0.6, 0.9, 0.4], [0.4, 0.5, 0.5, 0.35]).pvalue)
    assert significance_mark(0.004) == "‡" and significance_mark(0.03) == "†" and significance_mark(0.2) == ""
    assert paired_t_test(a, a) is None and significance_mark(None) == ""


def test_bad_measure_names_itself():
    with pytest.raises(InputError, match="measure 'MAPP' is not an ir_measures measure"):
        parse_measures(["MAPP"])
    assert display_name(parse_measures(["AP"])[0]) == "MAP"


def test_run_from_another_collection_is_an_error():
    with pytest.raises(InputError, match="run BM25: none of its documents is in the collection"):
        check_run_ids({"q": [("FBIS-1", 1.0)]}, {"d1"}, "BM25")
