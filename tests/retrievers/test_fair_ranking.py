"""The re-rankers of retrievers.fair_ranking on the spec's six-document worked example (scripted draws), determinism
under a seed, independence of other queries, and Feng & Shah's Table 1 reproduced by Monte Carlo."""

from __future__ import annotations

import math
import statistics

import pytest

from gsr.fairness import DocumentLabels, feng_shah_bias, ndkl
from gsr.infra.params import ParamError
from retrievers.fair_ranking import (
    Reranker,
    RerankError,
    dash_greedy,
    epsilon_greedy,
    fairness_greedy,
    minmax_costs,
    query_rng,
    relevance_aware_swapping,
    swap_weights,
)

F, M, N = "female", "male", "neutral"
DOCS = ["d1", "d2", "d3", "d4", "d5", "d6"]
GENDER = {"d1": M, "d2": M, "d3": M, "d4": F, "d5": N, "d6": F}
LABELS = DocumentLabels(GENDER, "test")
RANKED = [(d, float(10 - i)) for i, d in enumerate(DOCS)]  # scores 10..5
DRAWS = [0.25, 0.55, 0.80, 0.10, 0.90, 0.55, 0.29, 0.40]


def scripted(draws=DRAWS):
    stream = iter(draws)
    return lambda: next(stream)


def order(ranked) -> list[str]:
    return [d for d, _ in ranked]


def test_epsilon_greedy_worked_example():
    # i=1: .25 ≤ .3, u = .55 → j = 2 + ⌊.55·5⌋ = 4; i=2: .80; i=3: .10, u = .90 → j = 6; i=4: .55; i=5: .29, u = .40
    assert epsilon_greedy(DOCS, 0.3, scripted()) == ["d4", "d2", "d6", "d1", "d3", "d5"]


def test_relevance_aware_swapping_worked_example():
    weights = swap_weights(6)
    assert weights == pytest.approx([0.833333, 0.420620, 0.25, 0.143559, 0.064475, 0.0], abs=1e-6)
    # swap probabilities ρ(1 − W) = .083, .290, .375, .428, .468: only i = 4 swaps (p = .10; u = .90 → j = 6)
    assert relevance_aware_swapping(DOCS, 0.5, scripted()) == ["d1", "d2", "d3", "d6", "d5", "d4"]


@pytest.mark.parametrize(
    "params, expected",
    [
        ({"target": "uniform"}, "d1 d4 d2 d6 d5 d3"),  # tie → earliest: d2
        ({"target": {"female": 0.3, "male": 0.4, "neutral": 0.3}, "neutral": "group"}, "d1 d4 d5 d2 d6 d3"),
        ({"target": "uniform", "depth": 3}, "d1 d2 d3 d4 d5 d6"),  # only males in the top 3
    ],
)
def test_fairness_greedy_worked_example(params, expected):
    assert order(Reranker("fairness_greedy", params).rerank_query("q", RANKED, LABELS)) == expected.split()


@pytest.mark.parametrize(
    "params, expected",
    [
        ({"w_r": 0.5}, "d1 d4 d2 d3 d5 d6"),
        ({"w_r": 0.9}, "d1 d2 d3 d4 d5 d6"),
        ({"w_r": 0.1}, "d1 d4 d2 d3 d5 d6"),
        ({"w_r": 0.5, "neutral": "group"}, "d1 d4 d2 d3 d5 d6"),
    ],
)
def test_dash_worked_example(params, expected):
    assert order(Reranker("dash", params).rerank_query("q", RANKED, LABELS)) == expected.split()


def test_dash_costs_step_by_step():
    """Step 1 of the worked example: costs d1 .255413 (0 + .5 ln(1/.6)) … d6 .958145; d1 wins; then d4, d2, d3, d6."""
    labels = [M, M, M, F, F]
    costs = minmax_costs([10, 9, 8, 7, 5])
    assert costs == pytest.approx([0, 0.2, 0.4, 0.6, 1.0])
    assert dash_greedy(labels, costs, {F: 0.4, M: 0.6}, (F, M), 0.5) == [0, 3, 1, 2, 4]
    assert minmax_costs([3.0, 3.0]) == [0.0, 0.0] and minmax_costs([]) == []


def test_dash_ties_go_to_the_earliest_position():
    """Equal costs and a 50/50 target: at steps 1 and 3 the female and male candidates cost exactly the same, and the
    earlier one is placed (ties to the later position would give 1 0 3 2); a cost 1e-15 larger is still a tie."""
    assert dash_greedy([F, M, M, F], [0.0] * 4, {F: 0.5, M: 0.5}, (F, M), 0.5) == [0, 1, 2, 3]
    assert dash_greedy([M, F, F, M], [0.0] * 4, {F: 0.5, M: 0.5}, (F, M), 0.5) == [0, 1, 2, 3]
    assert dash_greedy([M, F], [1e-15, 0.0], {F: 0.5, M: 0.5}, (F, M), 0.5) == [0, 1]
    assert dash_greedy([M, M, F], [0.3, 0.3, 0.9], {F: 0.0, M: 1.0}, (F, M), 0.5) == [0, 1, 2]  # one group's tie


def test_fairness_greedy_never_loops_nor_loses_items():
    """The pseudo-code loops forever when the under-represented group has run out (spec §5.3 b); the prose does not."""
    assert fairness_greedy([M, M, M], {F: 0.5, M: 0.5}, (F, M)) == [0, 1, 2]
    assert sorted(fairness_greedy([F, M, F, F, M, M, M], {F: 0.9, M: 0.1}, (F, M))) == list(range(7))
    assert fairness_greedy([], {F: 0.5, M: 0.5}, (F, M)) == []


def test_scores_decrease_and_documents_beyond_depth_follow_unchanged():
    ranked = [(f"x{i:02d}", 1.0) for i in range(12)]  # all tied: trec_eval order is by document id, descending
    out = Reranker("epsilon_greedy", {"epsilon": 1.0, "depth": 5, "seed": 3}).rerank_query("q", ranked)
    assert [s for _, s in out] == [float(12 - i) for i in range(12)]
    assert sorted(order(out)[:5]) == sorted(f"x{i:02d}" for i in range(7, 12)) and order(out)[5:] == [
        f"x{i:02d}" for i in range(6, -1, -1)
    ]


def test_seeded_draws_are_deterministic_and_per_query():
    run = {f"q{i}": [(f"d{j}", float(-j)) for j in range(30)] for i in range(5)}
    reranker = Reranker("epsilon_greedy", {"epsilon": 0.4, "seed": 7})
    first = reranker.rerank(run)
    assert first == Reranker("epsilon_greedy", {"epsilon": 0.4, "seed": 7}).rerank(run)
    alone = reranker.rerank({"q3": run["q3"]})  # a query's result does not depend on the others
    assert alone["q3"] == first["q3"]
    assert Reranker("epsilon_greedy", {"epsilon": 0.4, "seed": 8}).rerank(run) != first
    # common random numbers: the first draw of q0 decides both ε = .4 and ε = .5 alike where it is ≤ .4
    p = query_rng(7, "q0").random()
    assert (p <= 0.4) == (order(first["q0"])[0] != "d0")


def test_monte_carlo_reproduces_feng_and_shah_table_1():
    """100 female then 100 male images, T = (.5, .5), Eq. 1 over the whole list: the paper's mean (± sd) over 1000
    runs is 0.426 ± 0.189 for ϵ = .2 and 0.316 ± 0.143 for ρ = .4; 300 seeds here, within Monte-Carlo error."""
    images = [(f"i{i:03d}", float(200 - i)) for i in range(200)]
    labels = DocumentLabels({d: F if i < 100 else M for i, (d, _) in enumerate(images)}, "synthetic")

    def bias(method, params):
        values = []
        for seed in range(300):
            out = Reranker(method, {**params, "seed": seed, "depth": "all"}).rerank_query("ceo", images)
            values.append(feng_shah_bias([labels.labels[d] for d, _ in out], (0.5, 0.5), 200))
        return statistics.fmean(values), statistics.stdev(values)

    mean, sd = bias("epsilon_greedy", {"epsilon": 0.2})
    assert mean == pytest.approx(0.426, abs=3 * 0.189 / math.sqrt(300)) and sd == pytest.approx(0.189, abs=0.04)
    mean, sd = bias("relevance_swap", {"rho": 0.4})
    assert mean == pytest.approx(0.316, abs=3 * 0.143 / math.sqrt(300)) and sd == pytest.approx(0.143, abs=0.04)


def test_the_worked_example_outputs_measure_as_the_spec_says():
    def measured(ranked):
        labels = [GENDER[d] for d in ranked]
        return feng_shah_bias(labels, (0.5, 0.5), 6), ndkl(labels, (0.5, 0.5), 6)

    assert measured(DOCS) == pytest.approx((2.007360, 0.481490), abs=1e-6)
    assert measured("d1 d4 d2 d6 d5 d3".split()) == pytest.approx((0.665221, 0.220487), abs=1e-6)
    assert measured("d1 d4 d2 d3 d5 d6".split()) == pytest.approx((0.713168, 0.252848), abs=1e-6)
    assert measured("d4 d2 d6 d1 d3 d5".split()) == pytest.approx((0.668623, 0.222844), abs=1e-6)


@pytest.mark.parametrize(
    "method, params, error, message",
    [
        ("random", {}, RerankError, "method 'random' is unknown"),
        ("fairness_greedy", {"target": "relevant"}, ParamError, "would feed the test qrels"),
        ("fairness_greedy", {"target": {"female": 0.7}}, ParamError, "exactly female, male"),
        ("dash", {"w_r": 1.5}, ParamError, "w_r must be in [0, 1]"),
        ("epsilon_greedy", {"depth": 1}, ParamError, "depth must be an integer ≥ 2 or 'all'"),
        ("relevance_swap", {"epsilon": 0.2}, ParamError, "epsilon is not a parameter here"),
    ],
)
def test_bad_parameters(method, params, error, message):
    with pytest.raises(error, match=message.replace("[", r"\[").replace("(", r"\(")):
        Reranker(method, params)


def test_label_methods_need_labels_and_embedding_costs():
    with pytest.raises(RerankError, match="needs document labels"):
        Reranker("fairness_greedy").rerank_query("q", RANKED)
    with pytest.raises(RerankError, match="needs the query-document costs"):
        Reranker("dash", {"relevance": "embedding"}).rerank_query("q", RANKED, LABELS)
    costs = {"d1": 0.9, "d2": 0.1, "d3": 0.2, "d4": 0.3, "d6": 0.0}
    out = Reranker("dash", {"relevance": "embedding", "w_r": 1.0}).rerank_query(
        "q", RANKED, LABELS, lambda qid, docids: [costs[d] for d in docids]
    )
    assert order(out) == ["d6", "d2", "d3", "d4", "d5", "d1"]  # w_r = 1: by cost alone, d5 (neutral) stays
