"""experiments.analyses (Figs. 10-12 of the paper) against hand and brute-force computations on small inputs, and the
PNG files."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest
from matplotlib.colors import to_hex
from scipy import stats

from experiments.analyses import (
    AnalysisError,
    delta_gap,
    favoured_share_by_bin,
    gap_difference,
    gap_shares_figure,
    gender_gap,
    kendall_tau_distance,
    plot_gap_shares,
    plot_rank_change,
    plot_reliability,
    query_genderedness_agreement,
    rank_change_by_genderedness,
    rank_change_figure,
    reliability_figure,
    system_ranking_agreement,
)
from gsr.text.intrinsic_gender import MentionWords, load_gendered_entities
from tests.support.figures import (
    GREY_NEUTRAL,
    ORANGE_MALE,
    PURPLE_FEMALE,
    assert_png,
    colours,
    fit_lines,
    legend_labels,
    overlapping_texts,
    panels,
    points,
    slope,
    texts,
    titles,
)
from tests.support.shared_data import PAPER

# ---------------------------------------------------------------- Kendall tau distance


def brute_force_k_p(a: list[str], b: list[str], p: float) -> tuple[float, float]:
    """(K^(p), its largest value for the same pairs), enumerating every pair of the union case by case."""
    rank_a = {d: i for i, d in enumerate(a)}
    rank_b = {d: i for i, d in enumerate(b)}
    penalty = worst = 0.0
    for i, j in itertools.combinations(sorted(set(a) | set(b)), 2):
        in_a = (i in rank_a, j in rank_a)
        in_b = (i in rank_b, j in rank_b)
        if all(in_a) and all(in_b):
            worst += 1
            penalty += (rank_a[i] - rank_a[j]) * (rank_b[i] - rank_b[j]) < 0
        elif all(in_a) and any(in_b) or all(in_b) and any(in_a):
            full, partial = (rank_a, rank_b) if all(in_a) else (rank_b, rank_a)
            present = i if i in partial else j
            absent = j if present == i else i
            worst += 1
            penalty += full[absent] < full[present]
        elif all(in_a) or all(in_b):  # both documents missing from one list
            worst += p
            penalty += p
        else:  # each list holds a different one of the two
            worst += 1
            penalty += 1
    return penalty, worst


def test_tau_distance_extremes():
    docs = [f"d{i}" for i in range(10)]
    assert kendall_tau_distance(docs, docs) == 0.0
    assert kendall_tau_distance(docs, docs[::-1]) == pytest.approx(1.0)
    assert kendall_tau_distance(docs, [f"x{i}" for i in range(10)]) == pytest.approx(1.0)
    assert kendall_tau_distance(["a"], ["a"]) == 0.0
    assert kendall_tau_distance(["a"], ["b"]) == pytest.approx(1.0)


def test_tau_distance_hand_example():
    # Pairs of {a, b, c, d}: (b, d) flips (after ranks d, missing from before, above b) and (c, d) are split
    # between the lists: 2 penalised pairs out of 6.
    assert kendall_tau_distance(["a", "b", "c"], ["a", "d", "b"]) == pytest.approx(2 / 6)
    # One swap of neighbours among 4 shared documents: 1 of 6 pairs.
    assert kendall_tau_distance(list("abcd"), list("abdc")) == pytest.approx(1 / 6)


def test_tau_distance_matches_brute_force_on_random_lists():
    rng = random.Random(7)
    pool = [f"d{i}" for i in range(9)]
    for _ in range(400):
        a = rng.sample(pool, rng.randint(1, 6))
        b = rng.sample(pool, rng.randint(1, 6))
        p = rng.choice([0.0, 0.5, 1.0])
        penalty, worst = brute_force_k_p(a, b, p)
        expected = penalty / worst if worst else 0.0
        assert kendall_tau_distance(a, b, p=p) == pytest.approx(expected), (a, b, p)
        assert kendall_tau_distance(a, b, p=p) == pytest.approx(kendall_tau_distance(b, a, p=p))
        assert 0.0 <= kendall_tau_distance(a, b, p=p) <= 1.0


def test_tau_distance_on_permutations_is_scipys_normalised_distance():
    rng = np.random.default_rng(3)
    docs = [f"d{i}" for i in range(12)]
    for _ in range(20):
        shuffled = list(rng.permutation(docs))
        tau = stats.kendalltau([docs.index(d) for d in docs], [shuffled.index(d) for d in docs]).statistic
        assert kendall_tau_distance(docs, shuffled) == pytest.approx((1 - tau) / 2)


def test_tau_distance_cuts_at_depth_and_takes_scored_pairs():
    before = [("a", 3.0), ("b", 2.0), ("c", 1.0), ("z", 0.5)]
    after = [("a", 9.0), ("b", 8.0), ("c", 7.0), ("y", 0.1)]
    assert kendall_tau_distance(before, after, depth=3) == 0.0
    assert kendall_tau_distance(before, after, depth=4) > 0.0


@pytest.mark.parametrize(
    "before, after, message",
    [([], ["a"], "before ranking is empty"), (["a", "b", "a"], ["a"], "document a appears twice")],
)
def test_tau_distance_bad_input(before, after, message):
    with pytest.raises(AnalysisError, match=message):
        kendall_tau_distance(before, after)


def test_tau_distance_bad_parameters():
    with pytest.raises(AnalysisError, match="depth"):
        kendall_tau_distance(["a"], ["a"], depth=0)
    with pytest.raises(AnalysisError, match="p must"):
        kendall_tau_distance(["a"], ["a"], p=1.5)


# ---------------------------------------------------------------- Fig. 10


def _run(ranked: dict[str, str]) -> dict:
    return {qid: [(d, float(len(docs) - i)) for i, d in enumerate(docs)] for qid, docs in ranked.items()}


def test_rank_change_points_correlation_and_skips():
    before = _run({"q1": "abcd", "q2": "abcd", "q3": "abcd", "q4": "abcd", "q5": "abcd", "q6": "ab"})
    after = _run({"q1": "abcd", "q2": "abdc", "q3": "badc", "q4": "dcba", "q5": "abcd", "q6": ""})
    g = {"q1": 0.01, "q2": -0.05, "q3": 0.2, "q4": -0.3, "q5": None, "q6": 0.1, "q7": 0.4}
    change = rank_change_by_genderedness(before, after, g)
    by_qid = {q.qid: q for q in change.points}
    assert sorted(by_qid) == ["q1", "q2", "q3", "q4"]
    assert [by_qid[q].distance for q in ("q1", "q2", "q3", "q4")] == pytest.approx([0, 1 / 6, 2 / 6, 1])
    assert by_qid["q2"].abs_g == 0.05 and by_qid["q2"].g_query == -0.05
    assert change.skipped == {"no_genderedness": ["q5"], "empty_after": ["q6"], "empty_before": ["q7"]}
    x, y = [0.01, 0.05, 0.2, 0.3], [0, 1 / 6, 2 / 6, 1]
    assert change.r == pytest.approx(np.corrcoef(x, y)[0, 1])
    r = change.r
    t = r * math.sqrt((len(x) - 2) / (1 - r * r))
    assert change.p_value == pytest.approx(2 * stats.t.sf(abs(t), len(x) - 2))
    assert json.loads(json.dumps(change.to_dict()))["n"] == 4


def test_rank_change_undefined_correlation_and_errors():
    before, after = _run({"q1": "ab", "q2": "ab"}), _run({"q1": "ba", "q2": "ab"})
    few = rank_change_by_genderedness(before, after, {"q1": 0.1, "q2": 0.2})
    assert few.n == 2 and few.r is None and few.p_value is None
    with pytest.raises(AnalysisError, match="no query has a genderedness"):
        rank_change_by_genderedness(before, after, {"other": 0.1})
    with pytest.raises(AnalysisError, match="no query"):
        rank_change_by_genderedness({}, {}, {})


# ---------------------------------------------------------------- Fig. 11


def test_query_genderedness_agreement_is_pearson_over_shared_queries():
    a = {"q1": 0.1, "q2": -0.2, "q3": 0.05, "q4": 0.3, "q5": None, "q6": 0.2}
    b = {"q1": 0.12, "q2": -0.1, "q3": 0.0, "q4": 0.25, "q5": 0.1, "q7": 0.3}
    agreement = query_genderedness_agreement(a, b, names=("w2v", "ftt"))
    assert agreement.n == 4 and agreement.method == "pearson"
    assert [k for k, _, _ in agreement.points] == ["q1", "q2", "q3", "q4"]
    assert agreement.skipped == ["q5", "q6", "q7"]
    x, y = [0.1, -0.2, 0.05, 0.3], [0.12, -0.1, 0.0, 0.25]
    assert agreement.coefficient == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert agreement.to_dict()["points"][0] == {"key": "q1", "w2v": 0.1, "ftt": 0.12}


def test_system_ranking_agreement_is_spearman():
    a = {"w2v_add": 0.20, "ftt_add": 0.15, "bm25": 0.094, "qlm": 0.089, "drmm": 0.11, "mp": 0.10}
    b = {"w2v_add": 0.18, "ftt_add": 0.17, "bm25": 0.10, "qlm": 0.099, "drmm": 0.11, "mp": 0.12}
    agreement = system_ranking_agreement(a, b)
    keys = sorted(a)
    rank_a = np.argsort(np.argsort([a[k] for k in keys]))
    rank_b = np.argsort(np.argsort([b[k] for k in keys]))
    assert agreement.method == "spearman"
    assert agreement.coefficient == pytest.approx(np.corrcoef(rank_a, rank_b)[0, 1])
    same = system_ranking_agreement(a, {k: 10 * v for k, v in a.items()})
    assert same.coefficient == pytest.approx(1.0)


def test_agreement_degenerate_input():
    constant = query_genderedness_agreement({"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 0.5, "b": 0.5, "c": 0.5})
    assert constant.coefficient is None and constant.n == 3
    with pytest.raises(AnalysisError, match="no key has a value under both"):
        system_ranking_agreement({"x": 0.1}, {"y": 0.2})
    with pytest.raises(AnalysisError, match="no key"):
        query_genderedness_agreement({"x": float("nan")}, {"x": 0.2})


# ---------------------------------------------------------------- word lists


def _appendix_b(which: str) -> list[str]:
    text = PAPER.read_text(encoding="utf-8")
    heading = f"### Words associated with {which} entities:"
    assert heading in text
    line = text.split(heading, 1)[1].strip().split("\n", 1)[0]
    return [w.strip() for w in line.rstrip(".").split(",") if w.strip()]


@pytest.mark.skipif(not PAPER.is_file(), reason=f"the paper is not at {PAPER} (shared reference data)")
def test_gendered_entities_cover_appendix_b():
    female, male = load_gendered_entities()
    paper_female, paper_male = _appendix_b("female"), _appendix_b("male")
    assert len(paper_male) > 80 and len(paper_female) > 70
    assert [w for w in paper_female if w not in female] == []
    assert [w for w in paper_male if w not in male] == []
    assert female == set(paper_female) and male == set(paper_male)


# ---------------------------------------------------------------- Fig. 12


def test_gender_gap_ratio_add_one_and_edge_cases():
    labels = ["male", "male", "female", "neutral", "male"]
    assert gender_gap(labels) == pytest.approx(3.0)  # the paper's m/f
    assert gender_gap(labels, rule="add-one") == pytest.approx((3 + 1) / (1 + 1))
    assert gender_gap(["male", "neutral"]) == math.inf  # f = 0 < m: only male documents among the gendered ones
    assert gender_gap(["male", "neutral"], rule="add-one") == pytest.approx(2.0)
    assert gender_gap(["neutral"]) is None and gender_gap(["neutral"], rule="add-one") == pytest.approx(1.0)
    assert gender_gap([]) is None
    with pytest.raises(AnalysisError, match="unknown label 'man'"):
        gender_gap(["man"])
    with pytest.raises(AnalysisError, match="rule must be one of ratio, add-one"):
        gender_gap(["male"], rule="smooth")


@pytest.mark.parametrize(
    "system, perfect, ratio, add_one",
    [
        ((2, 1), (1, 1), 2 - 1, 3 / 2 - 1),  # both defined: m/f − m/f
        ((0, 2), (1, 3), 0 - 1 / 3, 1 / 3 - 2 / 4),
        ((2, 0), (1, 1), math.inf, 3 / 1 - 1),  # only the system has f = 0: more male
        ((1, 1), (3, 0), -math.inf, 1 - 4 / 1),  # only the perfect engine has f = 0: fewer male
        ((3, 0), (1, 0), math.inf, 4 - 2),  # both f = 0: the sign of m_sys − m_P
        ((1, 0), (3, 0), -math.inf, 2 - 4),
        ((2, 0), (2, 0), 0.0, 0.0),
        ((0, 0), (0, 0), 0.0, 0.0),  # neither list has a gendered document
        ((0, 0), (1, 2), None, 1 - 2 / 3),  # only one has: undefined under the ratio
    ],
)
def test_gap_difference_by_hand(system, perfect, ratio, add_one):
    assert gap_difference(system, perfect) == (ratio if ratio is None or math.isinf(ratio) else pytest.approx(ratio))
    assert gap_difference(system, perfect, "add-one") == pytest.approx(add_one)


TEXTS = {
    "m1": "He said his brother would come.",
    "m2": "Mr Smith and his son.",
    "f1": "She met her aunt.",
    "f2": "The queen and her daughters.",
    "n1": "Budget figures fell sharply.",
    "n2": "He and she argued.",
}
WORDS = MentionWords(
    female_entities=frozenset({"she", "her", "aunt", "queen", "daughters"}),
    male_entities=frozenset({"he", "his", "brother", "mr", "son"}),
)


def _rules_agree(delta, expected: dict):
    assert set(delta.values) == set(expected)
    for qid, value in expected.items():
        assert delta.values[qid] == (value if math.isinf(value) else pytest.approx(value)), qid


def test_delta_gap_by_hand():
    perfect = _run(
        {"q1": ["m1", "f1", "n1"], "q2": ["f1", "f2"], "q3": ["m1"], "q4": ["n1"], "q5": ["f1", "n1"], "q6": ["m1"]}
    )
    system = _run(
        {
            "q1": ["m1", "m2", "f1", "f2"],
            "q2": ["f2", "n2", "m2"],
            "q3": [],
            "q5": ["m1", "m2"],
            "q6": ["n1"],
            "q9": ["m1"],
        }
    )
    cutoff = {"q1": 3, "q2": 2, "q3": 1, "q5": 2, "q6": 1}
    delta = delta_gap(system, perfect, TEXTS, cutoff, WORDS)
    # q1: system top 3 = m, m, f -> 2/1; perfect m, f, n -> 1/1.  q2: system f, n -> 0/1; perfect f, f -> 0/2.
    # q5: system m, m -> f = 0 < m: +inf; perfect f, n -> 0.  q6: system n, perfect m: no gendered document in one.
    _rules_agree(delta, {"q1": 1.0, "q2": 0.0, "q5": math.inf})
    assert delta.counts["q1"] == {"system": (2, 1), "perfect": (1, 1)}
    assert delta.zero_female == ["q5"]
    assert delta.skipped == {
        "no_cutoff": ["q4"],
        "nothing_retrieved": ["q3"],
        "no_gendered_document": ["q6"],
        "not_in_perfect": ["q9"],
    }
    assert delta.to_dict()["values"]["q5"] == "+inf" and delta.to_dict()["rule"] == "ratio"
    smoothed = delta_gap(system, perfect, TEXTS.__getitem__, cutoff, WORDS, rule="add-one")
    _rules_agree(smoothed, {"q1": 3 / 2 - 2 / 2, "q2": 1 / 2 - 1 / 3, "q5": 3 / 1 - 1 / 2, "q6": 1 - 2})
    assert smoothed.zero_female == [] and "no_gendered_document" not in smoothed.skipped


def test_delta_gap_default_words_label_with_gsr_labels():
    perfect, system = _run({"q1": ["n1", "f1"]}), _run({"q1": ["m1", "f1"]})
    delta = delta_gap(system, perfect, TEXTS, 2)
    assert delta.values["q1"] == pytest.approx(1.0 - 0.0)
    # lowercase 'rose' is never a name; 'Rose', capitalised, is a female one
    rose = delta_gap(system, perfect, {**TEXTS, "n1": "Prices rose."}, 2)
    assert rose.values["q1"] == pytest.approx(1.0)
    named = delta_gap(system, perfect, {**TEXTS, "n1": "Rose spoke."}, 2)
    assert named.counts["q1"]["perfect"] == (0, 2)


def test_fig12_note_names_the_lists_the_rule_and_how_often_it_was_needed():
    from experiments.analyses import DeltaGap, IntrinsicGender

    result = IntrinsicGender({"w2v_add": DeltaGap(zero_female=["q1", "q7"]), "BM25": DeltaGap()}, {}, "ratio", "nltk")
    note = result.note()
    assert "NLTK's names corpus" in note and "Queries that needed this rule: w2v_add 2, BM25 0." in note
    assert result.to_dict()["names"] == "nltk" and result.to_dict()["rule"] == "ratio"
    census = IntrinsicGender({}, {}, "add-one", "census").note()
    assert "census" in census and "(m + 1)/(f + 1)" in census


def test_delta_gap_bad_input():
    perfect, system = _run({"q1": ["m1"]}), _run({"q1": ["zz"]})
    with pytest.raises(AnalysisError, match="no text for document zz"):
        delta_gap(system, perfect, TEXTS, 1, WORDS)
    with pytest.raises(AnalysisError, match="shares no query"):
        delta_gap(_run({"x": ["m1"]}), perfect, TEXTS, 1, WORDS)
    with pytest.raises(AnalysisError, match="system run is empty"):
        delta_gap({}, perfect, TEXTS, 1)
    with pytest.raises(AnalysisError, match="perfect run is empty"):
        delta_gap(system, {}, TEXTS, 1)
    with pytest.raises(AnalysisError, match="rule must be"):
        delta_gap(system, perfect, TEXTS, 1, WORDS, rule="plus-one")


def test_document_labels_label_each_document_once_as_intrinsic_gender_does():
    """compute shares one DocumentLabels between every system's delta_gap: the same labels and Δgap as texts given
    to each call, each text read and labelled once."""
    from experiments.analyses.intrinsic_gender_shares import DocumentLabels
    from gsr.text.intrinsic_gender import intrinsic_gender

    read: list[str] = []

    def text_of(docid: str) -> str:
        read.append(docid)
        return TEXTS[docid]

    labels = DocumentLabels(text_of, WORDS)
    assert {d: labels(d, "q") for d in TEXTS} == {d: intrinsic_gender(t, WORDS).label for d, t in TEXTS.items()}
    perfect = _run({"q1": ["m1", "f1", "n1"], "q2": ["f1", "f2"], "q5": ["f1", "n2"]})
    systems = [_run({"q1": ["m1", "m2", "f1"], "q2": ["f2", "n2"], "q5": ["m1", "m2"]}), _run({"q2": ["n1", "m2"]})]
    for rule in ("ratio", "add-one"):
        for system in systems:
            shared = delta_gap(system, perfect, labels, {"q1": 3, "q2": 2, "q5": 2}, rule=rule)
            assert shared == delta_gap(system, perfect, TEXTS, {"q1": 3, "q2": 2, "q5": 2}, WORDS, rule)
    assert sorted(read) == sorted(TEXTS)  # each once, however many calls asked
    assert (
        delta_gap(systems[0], perfect, labels, 2, WORDS).values
        == delta_gap(systems[0], perfect, TEXTS, 2, WORDS).values
    )
    with pytest.raises(AnalysisError, match="words"):
        delta_gap(systems[0], perfect, labels, 2, MentionWords(frozenset({"her"}), frozenset({"his"})))
    with pytest.raises(AnalysisError, match="no text for document zz"):
        DocumentLabels(TEXTS, WORDS)("zz", "q1")
    with pytest.raises(AnalysisError, match="mapping docid -> text or a callable"):
        DocumentLabels(["m1"], WORDS)  # type: ignore[arg-type]


def test_favoured_share_by_paper_bins():
    delta = {"a": 0.5, "b": -0.2, "c": 0.0, "d": 1.0, "e": -1.0, "f": 0.3, "g": 0.1}
    g = {"a": -0.07, "b": -0.06, "c": -0.01, "d": 0.12, "e": 0.2, "f": 0.1, "g": None}
    rows = favoured_share_by_bin(delta, g)
    assert len(rows) == 6  # Fig. 12's bins: edges -0.1, -0.05, 0, 0.05, 0.1, open at both ends
    assert [r["n"] for r in rows] == [0, 2, 1, 0, 0, 3]
    assert rows[0]["male"] is None and rows[0]["label"] == "g < -0.1"
    assert (rows[1]["n_male"], rows[1]["n_female"], rows[1]["n_neither"]) == (1, 1, 0)
    assert rows[2]["neither"] == 1.0
    assert rows[-1]["low"] == 0.1 and rows[-1]["high"] == math.inf  # g = 0.1 falls in [0.1, inf)
    assert rows[-1]["male"] == pytest.approx(2 / 3) and rows[-1]["female"] == pytest.approx(1 / 3)
    for row in rows:
        if row["n"]:
            assert row["male"] + row["female"] + row["neither"] == pytest.approx(1.0)
    loose = favoured_share_by_bin(delta, g, eps=0.25)
    assert loose[1]["n_neither"] == 1
    infinite = favoured_share_by_bin({"a": math.inf, "b": -math.inf, "c": math.nan}, {"a": 0.0, "b": 0.0, "c": 0.0})
    assert (infinite[3]["n"], infinite[3]["n_male"], infinite[3]["n_female"]) == (2, 1, 1)  # NaN is left out


def test_favoured_share_by_bin_count():
    delta = {"a": 1.0, "b": -1.0, "c": 0.0, "d": 2.0}
    g = {"a": 0.0, "b": 0.1, "c": 0.25, "d": 0.4}
    rows = favoured_share_by_bin(delta, g, bins=2)
    assert [(r["low"], r["high"]) for r in rows] == [(0.0, pytest.approx(0.2)), (pytest.approx(0.2), 0.4)]
    assert [r["n"] for r in rows] == [2, 2]  # the last bin includes the maximum
    assert rows[1]["n_neither"] == 1 and rows[1]["n_male"] == 1


def test_favoured_share_bad_input():
    with pytest.raises(AnalysisError, match="none of the 1 queries"):
        favoured_share_by_bin({"a": 1.0}, {"b": 0.1})
    with pytest.raises(AnalysisError, match="strictly increasing"):
        favoured_share_by_bin({"a": 1.0}, {"a": 0.1}, bins=[0.1, 0.0])
    with pytest.raises(AnalysisError, match="bins must be >= 1"):
        favoured_share_by_bin({"a": 1.0}, {"a": 0.1}, bins=0)


# ---------------------------------------------------------------- plots


def _plot_inputs():
    """A rank change over 30 queries, the two agreements of Fig. 11 and Fig. 12's shares, from one seeded draw."""
    rng = np.random.default_rng(0)
    qids = [f"q{i}" for i in range(30)]
    g = dict(zip(qids, rng.normal(0, 0.08, 30)))
    docs = [f"d{i}" for i in range(20)]
    before = {q: [(d, 1.0) for d in docs] for q in qids}
    after = {q: [(d, 1.0) for d in (docs[:10] + list(rng.permutation(docs[10:])))] for q in qids}
    change = rank_change_by_genderedness(before, after, g)
    other = {q: v + rng.normal(0, 0.02) for q, v in g.items()}
    queries = query_genderedness_agreement(g, other, names=("glove", "trained"))
    systems = system_ranking_agreement(
        {"bm25": 0.1, "add": 0.2, "si": 0.15}, {"bm25": 0.12, "add": 0.25, "si": 0.1}, names=("glove", "trained")
    )
    delta = {q: float(rng.choice([-1.0, 0.0, 1.0])) for q in qids}
    return change, queries, systems, favoured_share_by_bin(delta, g)


def _least_squares_slope(x, y) -> float:
    return float(np.cov(x, y, bias=True)[0, 1] / np.var(x))


def test_rank_change_figure_panels_points_and_fit():
    change = _plot_inputs()[0]
    fig = rank_change_figure({"w2v_add": change, "ftt_add": change})
    x, y = change.arrays()
    r, p = stats.pearsonr(x, y)  # Fig. 10 reports Pearson's r of |g(q)| and the distance
    assert p > 0.001  # the tables' rounding: r to 4 decimals, p to 3 (docs/report.md)
    assert titles(fig) == [f"{name}: r = {r:.4f}, p = {p:.3f} (n = 30)" for name in ("w2v_add", "ftt_add")]
    for ax in panels(fig):
        np.testing.assert_allclose(points(ax), np.column_stack([x, y]))
        assert np.all(points(ax)[:, 0] >= 0)  # |g(q)|
        signs = [PURPLE_FEMALE if q.g_query > 0 else ORANGE_MALE for q in change.points]
        assert colours(ax.collections[0]) == signs
        (fit,) = fit_lines(ax)
        assert slope(fit) == pytest.approx(_least_squares_slope(x, y), rel=1e-9)
        assert ax.get_ylabel() == "Kendall $\\tau$ distance, top 100" and ax.get_ylim() == (-0.02, 1.02)


def test_reliability_figure_panels_for_queries_and_systems():
    _, queries, systems, _ = _plot_inputs()
    fig = reliability_figure(queries, systems)
    query_panel, system_panel = panels(fig)
    x, y = queries.arrays()
    r, _ = stats.pearsonr(x, y)
    assert query_panel.get_title().startswith(f"queries: Pearson's r = {r:.4f}, p < 0.001")
    assert query_panel.get_title().endswith("(n = 30)")
    np.testing.assert_allclose(points(query_panel), np.column_stack([x, y]))
    assert (query_panel.get_xlabel(), query_panel.get_ylabel()) == ("$g(q)$, glove", "$g(q)$, trained")
    rho, _ = stats.spearmanr([0.1, 0.2, 0.15], [0.12, 0.25, 0.1])
    assert system_panel.get_title().startswith(f"systems: Spearman's $\\rho$ = {rho:.4f}, ")
    labelled = {"bm25": (0.1, 0.12), "add": (0.2, 0.25), "si": (0.15, 0.1)}  # each system at (GSR a, GSR b)
    assert sorted(map(tuple, points(system_panel).tolist())) == sorted(labelled.values())
    assert {t.get_text(): tuple(t.xy) for t in system_panel.texts} == labelled
    assert (system_panel.get_xlabel(), system_panel.get_ylabel()) == ("GSR, glove", "GSR, trained")
    (fit,) = fit_lines(system_panel)
    assert slope(fit) == pytest.approx(_least_squares_slope([0.1, 0.2, 0.15], [0.12, 0.25, 0.1]))
    assert titles(reliability_figure(queries, None)) == [query_panel.get_title()]  # one panel without systems


def test_the_report_charts_hold_the_figures_points():
    """report.html's charts of Figs. 10 and 11: each query's (|g(q)|, distance) and each system's GSR pair, named on
    hover; one Fig. 10 system shown at first, the others from the legend."""
    from experiments.analyses.rank_change import RankChanges
    from experiments.analyses.reliability import Reliability
    from experiments.report.plotly_charts import rank_change_chart, reliability_chart

    change, queries, systems, _ = _plot_inputs()
    fig = rank_change_chart(RankChanges({"w2v_add": change, "ftt_add": change}))
    x, y = change.arrays()
    for trace, visible in zip(fig.data, (True, "legendonly")):
        assert list(trace.x) == pytest.approx(list(x)) and list(trace.y) == pytest.approx(list(y))
        assert [c[0] for c in trace.customdata] == [q.qid for q in change.points] and trace.visible == visible
    assert fig.data[0].name.startswith("w2v_add (r = ")
    fig = reliability_chart(Reliability(queries, systems))
    assert [c[0] for c in fig.data[1].customdata] == [key for key, _, _ in systems.points]
    assert list(fig.data[0].x) == [a for _, a, _ in queries.points] and list(fig.data[0].y) == [
        b for *_, b in queries.points
    ]


def test_gap_shares_figure_stacks_male_neither_female():
    shares = _plot_inputs()[3]
    fig = gap_shares_figure({"w2v_add": shares, "bm25": shares, "mp": shares})
    assert titles(fig) == ["w2v_add", "bm25", "mp"] and len(fig.axes) == 3  # one row of up to 4 columns
    assert overlapping_texts(fig) == []
    (legend,) = fig.legends  # one legend, above the panels
    assert legend_labels(fig) == ["male favoured", "neither", "female favoured"]
    assert legend.get_window_extent().y0 >= max(ax.get_tightbbox().y1 for ax in fig.axes) - 1
    for ax in panels(fig):
        bars = ax.patches
        assert len(bars) == 3 * len(shares)  # male, neither, female per bin, stacked bottom to top
        for side, colour, group in zip(
            ("male", "neither", "female"),
            (ORANGE_MALE, GREY_NEUTRAL, PURPLE_FEMALE),
            (bars[: len(shares)], bars[len(shares) : 2 * len(shares)], bars[2 * len(shares) :]),
        ):
            assert [b.get_height() for b in group] == pytest.approx([100 * (row[side] or 0) for row in shares])
            assert {to_hex(b.get_facecolor()) for b in group} == {colour}
        tops = [
            bars[i].get_height() + bars[i + len(shares)].get_height() + bars[i + 2 * len(shares)].get_height()
            for i in range(len(shares))
        ]
        assert tops == pytest.approx([100 if row["n"] else 0 for row in shares])
        assert texts(ax) == [f"n={row['n']}" if row["n"] else "empty" for row in shares]
        assert [t.get_text() for t in ax.get_xticklabels()] == [row["label"] for row in shares]
    assert legend_labels(fig) == ["male favoured", "neither", "female favoured"]


ANALYSIS_WRITERS = {
    "fig10": lambda inputs, path: plot_rank_change({"w2v_add": inputs[0]}, path),
    "fig11": lambda inputs, path: plot_reliability(inputs[1], inputs[2], path),
    "fig12": lambda inputs, path: plot_gap_shares({"w2v_add": inputs[3]}, path),
}


@pytest.mark.parametrize("write", ANALYSIS_WRITERS.values(), ids=ANALYSIS_WRITERS.keys())
def test_plots_write_png_files(write, tmp_path):
    target = tmp_path / "figures" / "figure.png"
    assert_png(write(_plot_inputs(), target), target)


def test_plots_refuse_empty_input(tmp_path):
    with pytest.raises(AnalysisError):
        plot_rank_change({}, tmp_path / "x.png")
    with pytest.raises(AnalysisError):
        plot_gap_shares({}, tmp_path / "x.png")
    with pytest.raises(AnalysisError):
        plot_reliability(None, None, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
