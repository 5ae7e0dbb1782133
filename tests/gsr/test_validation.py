"""Fig. 1 permutation tests, the toy collections (Figs. 4-6) and their published properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gsr import GenderLexicon, gsr_slope
from gsr.validation.stereotypes import STEREOTYPE_CONTRASTS, count_subsets_at_least, permutation_test, stereotype_test
from gsr.validation.toys import parity_agreement, toy1, toy2, toy_slopes

# Toy 1's jobs (§3.3, the paper's list from the 2019 US census): high female, then high male representation
FEMALE_JOBS = (
    "hygienist",
    "secretary",
    "hairdresser",
    "dietician",
    "paralegal",
    "receptionist",
    "phlebotomist",
    "maid",
    "nurse",
    "typist",
)
MALE_JOBS = (
    "stonemason",
    "roofer",
    "electrician",
    "plumber",
    "carpenter",
    "firefighter",
    "millwright",
    "welder",
    "machinist",
    "driver",
)


def _brute_p(male, female) -> float:
    pooled = np.concatenate([female, male])
    k = len(female)
    observed = float(np.sum(female))
    hits = sum(
        1 for idx in itertools.combinations(range(len(pooled)), k) if pooled[list(idx)].sum() >= observed - 1e-12
    )
    return hits / math.comb(len(pooled), k)


@pytest.mark.parametrize("seed", range(6))
def test_exact_permutation_p_value_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    male = rng.normal(-0.05, 0.1, size=rng.integers(3, 8))
    female = rng.normal(0.05, 0.1, size=rng.integers(3, 8))
    p, exact, splits = permutation_test(male, female)
    assert exact and splits == math.comb(len(male) + len(female), len(female))
    assert p == pytest.approx(_brute_p(male, female), abs=1e-15)


def test_permutation_counts_ties_and_extremes():
    # Completely separated sets: only the observed split is as extreme, p = 1 / C(4, 2).
    p, _, _ = permutation_test(np.array([-1.0, -2.0]), np.array([1.0, 2.0]))
    assert p == pytest.approx(1 / 6)
    assert count_subsets_at_least(np.array([1.0, 1.0, 1.0]), 2, 2.0) == 3


def test_monte_carlo_beyond_exact_limit_is_seeded():
    rng = np.random.default_rng(0)
    male, female = rng.normal(0, 1, 30), rng.normal(0.5, 1, 30)
    first = permutation_test(male, female, n_resamples=2000, seed=1)
    assert first == permutation_test(male, female, n_resamples=2000, seed=1)
    assert first[1] is False and 0 < first[0] < 0.1


def test_stereotype_test_reports_missing_words():
    lexicon = GenderLexicon.from_mapping({"a": -0.2, "b": -0.1, "c": 0.3, "d": 0.2})
    test = stereotype_test("demo", ["a", "b", "zz"], ["c", "d"], lexicon)
    assert test.missing == ["zz"]
    assert test.male_mean == pytest.approx(-0.15) and test.female_mean == pytest.approx(0.25)
    assert test.p_value == pytest.approx(1 / 6)


def _job_lexicon() -> GenderLexicon:
    """Female-census jobs lean female, male-census jobs lean male, with uneven strengths."""
    values = {"man": -0.2, "woman": 0.3}
    for i, job in enumerate(FEMALE_JOBS):
        values[job] = 0.02 * (i + 1)
    for i, job in enumerate(MALE_JOBS):
        values[job] = -0.015 * (i + 1)
    from gsr.validation.stereotypes import AGENCY, COMMUNION

    for i, adjective in enumerate(AGENCY):
        values[adjective] = -0.01 * (i % 5) - 0.02
    for i, adjective in enumerate(COMMUNION):
        values[adjective] = 0.01 * (i % 4) + 0.01
    return GenderLexicon.from_mapping(values)


def test_toy1_engines_have_the_published_properties():
    lexicon = _job_lexicon()
    toy = toy1(lexicon)
    assert len(toy.documents) == 40 and set(toy.queries) == {*FEMALE_JOBS, *MALE_JOBS}
    assert toy.documents["woman_electrician"] == "The woman is an electrician."
    slopes = {name: r.gsr for name, r in toy_slopes(toy, lexicon).items()}
    assert slopes["S"] > 0
    assert slopes["CS"] == pytest.approx(-slopes["S"])
    assert slopes["N"] == pytest.approx(0.0, abs=1e-12)
    # S retrieves g(woman) for female jobs and g(man) for male ones: Eq. 3 by hand.
    x = [lexicon.get(j) for j in sorted(toy.queries)]
    y = [0.3 if j in FEMALE_JOBS else -0.2 for j in sorted(toy.queries)]
    assert slopes["S"] == pytest.approx(gsr_slope(x, y))


def test_toy2_engines_have_the_published_properties():
    lexicon = _job_lexicon()
    toy = toy2(lexicon)
    assert "corageous" not in toy.missing  # the hand lexicon has every word
    assert len(toy.documents) == 20 * 27
    slopes = {name: r.gsr for name, r in toy_slopes(toy, lexicon).items()}
    assert slopes["S"] > 0 and slopes["CS"] == pytest.approx(-slopes["S"])
    assert slopes["N"] == pytest.approx(0.0, abs=1e-12)


def test_toys_leave_out_words_missing_from_the_embedding():
    values = {w: 0.1 for w in ("man", "woman", "nurse", "driver", "maid")}
    toy = toy1(GenderLexicon.from_mapping(values))
    assert sorted(toy.queries) == ["driver", "maid", "nurse"]
    assert "electrician" in toy.missing


@pytest.mark.parametrize("stereotype", ["polarity", "census"])
def test_parity_agreement_dp_equals_brute_force_enumeration(stereotype):
    base = _job_lexicon()
    # welder leans female in this lexicon, against its census majority: the two definitions disagree on it
    values = {w: base.get(w) for w in ("man", "woman", *FEMALE_JOBS, *MALE_JOBS)} | {"welder": 0.01}
    lexicon = GenderLexicon.from_mapping(values)
    full = toy1(lexicon)
    keep = ["nurse", "maid", "typist", "driver", "welder", "roofer"]
    toy = type(full)(
        "small",
        {q: q for q in keep},
        {d: t for d, t in full.documents.items() if d.split("_")[1] in keep},
        {},
        {q: full.stereotypical[q] for q in keep},
        {q: full.counter[q] for q in keep},
    )
    agreement = parity_agreement(toy, lexicon, sample=10, stereotype=stereotype)
    assert agreement.n_solutions == 3 ** len(keep) and agreement.disagreeing == ("welder",)
    x = np.array([lexicon.get(q) for q in sorted(keep)])
    g_man, g_woman = -0.2, 0.3  # g_q(d) of 'The man is a <job>' and 'The woman is a <job>'
    slopes, shares = [], []
    for choice in itertools.product(range(3), repeat=len(keep)):
        y, stereo, retrieved = [], 0, 0
        for q, c in zip(sorted(keep), choice):
            docs = [[g_man], [g_woman], [g_man, g_woman]][c]
            y.append(sum(docs) / len(docs))
            if stereotype == "polarity":  # §3.5: same polarity as g(q)
                stereo += sum(1 for g in docs if g * lexicon.get(q) > 0)
            else:  # the census majority of the job
                stereo += sum(1 for g in docs if (g > 0) == (q in FEMALE_JOBS))
            retrieved += len(docs)
        slopes.append(gsr_slope(x, y))
        shares.append(stereo / retrieved)
    assert agreement.pearson_r == pytest.approx(np.corrcoef(slopes, shares)[0, 1], abs=1e-10)


def test_glove_reproduces_the_papers_validation(glove_lexicon):
    """Done-when of the issue: Fig. 1 in the published direction, toy slopes, positive Fig. 5 r."""
    assert glove_lexicon.direction.explained_variance == pytest.approx(0.494, abs=0.01)
    for name, (male, female) in STEREOTYPE_CONTRASTS.items():
        test = stereotype_test(name, male, female, glove_lexicon)
        assert test.female_mean > test.male_mean, name
        assert test.p_value < 0.05, name
    for build in (toy1, toy2):
        slopes = {k: r.gsr for k, r in toy_slopes(build(glove_lexicon), glove_lexicon).items()}
        assert slopes["S"] > 0 and slopes["CS"] == pytest.approx(-slopes["S"])
        assert slopes["N"] == pytest.approx(0, abs=1e-12)
    # Fig. 5 (§3.5): stereotypical = same polarity as g(q). GloVe places roofer, firefighter, welder on the female
    # side and secretary on the male side, against their census majority (the paper, on word2vec: r = 0.92).
    paper = parity_agreement(toy1(glove_lexicon), glove_lexicon)
    assert paper.pearson_r == pytest.approx(0.856, abs=0.001)
    assert sorted(paper.disagreeing) == ["firefighter", "roofer", "secretary", "welder"]
    census = parity_agreement(toy1(glove_lexicon), glove_lexicon, stereotype="census")
    assert census.pearson_r == pytest.approx(0.650, abs=0.001)
