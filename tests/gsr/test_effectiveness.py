"""Effectiveness: ir_measures values against hand computations, unanswered queries, t-test marks."""

from __future__ import annotations

import itertools

import pytest
from scipy import stats

from gsr.effectiveness.evaluate import (
    check_run_ids,
    correct_family,
    display_column,
    display_name,
    evaluate_run,
    marks_note,
    paired_test,
    parse_measures,
    significance_mark,
)
from gsr.errors import InputError

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
    p = paired_test(a, b, "t")
    assert p == pytest.approx(stats.ttest_rel([0.5, 0.6, 0.9, 0.4], [0.4, 0.5, 0.5, 0.35]).pvalue)
    assert significance_mark(0.004) == "‡" and significance_mark(0.03) == "†" and significance_mark(0.2) == ""
    assert paired_test(a, a, "t") is None and significance_mark(None) == ""


def test_bad_measure_names_itself():
    with pytest.raises(InputError, match="measure 'MAPP' is not an ir_measures measure"):
        parse_measures(["MAPP"])
    assert display_name(parse_measures(["AP"])[0]) == "MAP"


def test_run_from_another_collection_is_an_error():
    with pytest.raises(InputError, match="run BM25: none of its documents is in the collection"):
        check_run_ids({"q": [("FBIS-1", 1.0)]}, {"d1"}, "BM25")


def test_wilcoxon_and_randomization_tests():
    a = {"1": 0.5, "2": 0.6, "3": 0.9, "4": 0.4, "5": 0.7}
    b = {"1": 0.4, "2": 0.5, "3": 0.5, "4": 0.35, "5": 0.8}
    assert paired_test(a, b, "wilcoxon") == pytest.approx(stats.wilcoxon(list(a.values()), list(b.values())).pvalue)
    # differences 0.1, 0.1, 0.4, 0.05, -0.1 (sum 0.55): 2^5 = 32 sign vectors enumerated (exact, 32 <= 1000)
    signed = [
        abs(sum(s * d for s, d in zip(signs, (0.1, 0.1, 0.4, 0.05, -0.1))))
        for signs in itertools.product((1, -1), repeat=5)
    ]
    assert paired_test(a, b, "randomization") == pytest.approx(sum(v >= 0.55 - 1e-12 for v in signed) / 32)
    assert paired_test(a, a, "wilcoxon") is None and paired_test(a, a, "randomization") is None
    with pytest.raises(ValueError, match="test must be one of"):
        paired_test(a, b, "z")


def test_correction_decides_the_marks():
    family = [{"p_value": 0.004}, {"p_value": 0.03}, {"p_value": None}, {"p_value": 0.2}]
    correct_family(family, "holm")  # m = 3: 0.004 × 3, 0.03 × 2, 0.2 × 1
    assert [f["p_adjusted"] for f in family] == [pytest.approx(0.012), pytest.approx(0.06), None, pytest.approx(0.2)]
    assert [f["mark"] for f in family] == ["†", "", "", ""]
    correct_family(family, "none")
    assert [f["mark"] for f in family] == ["‡", "†", "", ""]
    note = marks_note("wilcoxon", "bonferroni", "against BM25")
    assert "Wilcoxon signed-rank" in note and "Bonferroni-corrected" in note
    assert display_column("AP debiased change %") == "MAP debiased change %" and display_column("P@10 x") == "P@10 x"


def test_gsr_names_are_not_ir_measures():
    with pytest.raises(InputError, match="'GSR@10' is a GSR measure"):
        parse_measures(["GSR@10"])
