"""The label-based measures against hand computations: Feng & Shah's KL bias (Eq. 1), Dash's NDKL (Eq. 3), Lipani et
al.'s β@n (Eqs. 3-5) with MB/SB/MAB, Rekabsaz & Schedl's RaB/ARaB. Every expected value below was computed by hand
(natural log, zeros of the smoothed distribution replaced by 1e-4) and is independent of the code under test."""

from __future__ import annotations

import math

import pytest

from gsr.fairness import (
    BiasError,
    average_rank_bias,
    bias_aggregates,
    check_target,
    feng_shah_bias,
    kl_divergence,
    lipani_target_count,
    ndkl,
    rank_bias,
    representation_bias,
    top_k_kl,
)
from gsr.fairness.equations import gender_magnitude

F, M, N = "female", "male", "neutral"
HALF = (0.5, 0.5)
ONE_GENDER = 0.5 * math.log(0.5 / 1e-4) + 0.5 * math.log(0.5)  # D_KL((.5, .5) ‖ (1, ε)) = 3.912023
THIRD = 0.5 * math.log(1.5) + 0.5 * math.log(0.75)  # D_KL((.5, .5) ‖ (1/3, 2/3)) = 0.058892


def labels(text: str) -> list[str]:
    return [{"F": F, "M": M, "N": N}[c] for c in text.split()]


def test_kl_divergence_gives_the_spec_values():
    """The spec's two reference divergences, from the library function (the constants above restate them)."""
    assert kl_divergence(HALF, (1.0, 0.0)) == pytest.approx(3.912023, abs=1e-6)  # ε = 1e-4 where q is 0
    assert kl_divergence(HALF, (1 / 3, 2 / 3)) == pytest.approx(0.058892, abs=1e-6)
    assert kl_divergence(HALF, HALF) == 0.0


@pytest.mark.parametrize(
    "ranked, target, k, neutral, fskl, kl",
    [
        ("F M M F", HALF, 4, "exclude", (ONE_GENDER + 0 + THIRD + 0) / 4, 0.0),  # F1
        ("M M M", HALF, 3, "exclude", 3.912023, 3.912023),  # F2
        ("N F N M M", HALF, 5, "exclude", (2 * ONE_GENDER + 0 + THIRD) / 4, THIRD),  # F3: 4 defined
        ("F M", HALF, 10, "exclude", ONE_GENDER / 2, 0.0),  # F4: shorter than k
        ("M F M M", (0.25, 0.75), 4, "exclude", 0.471870, 0.0),  # F5
        ("N F N M M", (0.2, 0.3, 0.5), 5, "group", 1.597082, 0.025267),  # F6
        ("F F F F", (0.0, 1.0), 4, "exclude", 9.210340, 9.210340),  # F7: ln(1e4)
    ],
)
def test_feng_shah_kl_bias(ranked, target, k, neutral, fskl, kl):
    assert feng_shah_bias(labels(ranked), target, k, neutral) == pytest.approx(fskl, abs=1e-6)
    assert top_k_kl(labels(ranked), target, k, neutral) == pytest.approx(kl, abs=1e-6)


def test_feng_shah_kl_bias_reproduces_table_1():
    """Feng & Shah Table 1: 100 female then 100 male images score 2.046, the alternating list 0.020 (T = (.5, .5))."""
    assert feng_shah_bias([F] * 100 + [M] * 100, HALF, 200) == pytest.approx(2.046260, abs=1e-6)
    assert feng_shah_bias([F, M] * 100, HALF, 200) == pytest.approx(0.020158, abs=1e-6)


@pytest.mark.parametrize("measure", [feng_shah_bias, top_k_kl, ndkl])
@pytest.mark.parametrize("ranked", [[N, N, N], []])
def test_no_gendered_document_is_undefined(measure, ranked):
    assert measure(ranked, HALF, 3) is None


@pytest.mark.parametrize(
    "ranked, target, k, neutral, expected",
    [
        ("F M M F", HALF, 4, "exclude", (math.log(2) + 0.5 * 0.056633) / 2.561606),  # N1
        ("M M M", HALF, 3, "exclude", math.log(2)),  # N2
        ("N F N M M", HALF, 5, "exclude", 0.413562),  # N3: Z = 1.948459
        ("F M", HALF, 10, "exclude", math.log(2) / 1.630930),  # N4
        ("M F M M", (0.25, 0.75), 4, "exclude", 0.151125),  # N5
        ("N F N M M", (0.2, 0.3, 0.5), 5, "group", 0.399401),  # N6
        ("F", (0.0, 1.0), 1, "exclude", math.log(1e4)),  # N7
        ("M M M M", (0.0, 1.0), 4, "exclude", 0.0),  # N8
    ],
)
def test_ndkl(ranked, target, k, neutral, expected):
    assert ndkl(labels(ranked), target, k, neutral) == pytest.approx(expected, abs=1e-6)


def test_kl_directions_differ_and_smoothing_replaces_zeros_only():
    assert kl_divergence([0.5, 0.5], [0.5, 0.5]) == 0.0  # exactly: no ε added where the share is positive
    assert kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(math.log(2))
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == pytest.approx(ONE_GENDER)
    assert kl_divergence([0.5, 0.5], [1.0, 0.0], epsilon=1e-2) == pytest.approx(
        0.5 * math.log(50) + 0.5 * math.log(0.5)
    )


@pytest.mark.parametrize(
    "count, n, model, expected",
    [
        ("1/2", 10, 0, 5),
        ("47/100", 10, 4, 5),
        ("33/100", 10, 2, 3),  # δ 0, 0.7 (⌈⌉), 0.3 (⌊⌋)
        ("1/2", 11, 3, 5),
        ("1/2", 11, 5, 5),
        ("1/2", 11, 6, 6),  # δ = 1/2: the count nearer the system's
        ("3/10", 5, 2, 2),
        ("3/10", 5, 0, 1),
    ],
)
def test_lipani_target_count(count, n, model, expected):
    from fractions import Fraction

    assert lipani_target_count(Fraction(count), n, model) == expected


@pytest.mark.parametrize(
    "ranked, group, target, n, neutral, short_lists, expected",
    [
        ("M M M M M M M M M M", F, HALF, 10, "exclude", "present", -0.5),  # B1 "announcer"
        ("M M M M M M M M M M", M, HALF, 10, "exclude", "present", 0.5),  # B2
        ("F F F F M M M M M M", F, (0.47, 0.53), 10, "exclude", "present", -0.1),  # B3: ⌈4.7⌉
        ("F F M M M M M M M M", F, (0.33, 0.67), 10, "exclude", "present", -0.1),  # B4: ⌊3.3⌋
        ("F F F M M M M M M M M", F, HALF, 11, "exclude", "present", 3 / 11 - 5 / 11),  # B5: tie → 5
        ("F F F F F M M M M M M", F, HALF, 11, "exclude", "present", 0.0),  # B6
        ("F F F F F F M M M M M", F, HALF, 11, "exclude", "present", 0.0),  # B7
        ("F N M M N N F M N N", F, (0.3, 0.7), 10, "exclude", "present", 0.0),  # B8: n' = 5
        ("F N M M N N F M N N", M, (0.3, 0.7), 10, "exclude", "present", 0.0),
        ("F N M M N N F M N N", F, (0.1, 0.2, 0.7), 10, "group", "present", 0.1),  # B9
        ("F F M", F, HALF, 10, "exclude", "present", 0.0),  # B10
        ("F F M", F, HALF, 10, "exclude", "paper", -0.3),
    ],
)
def test_representation_bias(ranked, group, target, n, neutral, short_lists, expected):
    assert representation_bias(labels(ranked), group, target, n, neutral, short_lists) == pytest.approx(
        expected, abs=1e-12
    )


def test_representation_bias_of_two_groups_is_complementary_and_undefined_without_gendered_documents():
    for ranked in ("F F M N", "M M M", "F M F M F N N F", "F"):
        for share in (0.1, 0.3, 0.5, 0.62):
            female = representation_bias(labels(ranked), F, (share, 1 - share), 10)
            assert representation_bias(labels(ranked), M, (share, 1 - share), 10) == pytest.approx(-female)
    assert representation_bias(labels("N N N"), F, HALF, 10) is None  # B11


def test_bias_aggregates():
    aggregates = bias_aggregates([-0.5, 0.1, 0.2, 0.0, None])
    assert aggregates["MB"] == pytest.approx(-0.05) and aggregates["MAB"] == pytest.approx(0.2)
    assert aggregates["SB"] == pytest.approx(math.sqrt(0.0725))  # population sd; ddof 1 would be 0.310913
    assert (aggregates["min"], aggregates["max"]) == (-0.5, 0.2)
    assert bias_aggregates([None])["MB"] is None


FEMALE_COUNTS = [0, 3, 0, 0, 0, 0, 0, 0, 0, 0]  # Rekabsaz & Schedl's own test vector (step2 notebook, _test)
MALE_COUNTS = [0, 0, 0, 0, 0, 0, 0, 5, 0, 2]


@pytest.mark.parametrize(
    "variant, rab5, arab5, rab10, arab10",
    [
        ("tc", -0.6, -0.77, (0.4, 0.3, 0.7), (-0.390635, 0.578690, 0.188056)),
        ("tf", -0.277259, -0.355816, (0.150408, 0.138629, 0.289037), (-0.196203, 0.267412, 0.071209)),
        ("bool", -0.2, -0.256667, (0.1, 0.1, 0.2), (-0.149286, 0.192897, 0.043611)),
    ],
)
def test_rank_bias_on_the_authors_test_vector(variant, rab5, arab5, rab10, arab10):
    female = [gender_magnitude(c, variant) for c in FEMALE_COUNTS]
    male = [gender_magnitude(c, variant) for c in MALE_COUNTS]
    assert rank_bias(female, male, 5)[0] == pytest.approx(rab5, abs=1e-6)
    assert average_rank_bias(female, male, 5)[0] == pytest.approx(arab5, abs=1e-6)
    assert rank_bias(female, male, 10) == pytest.approx(rab10, abs=1e-6)
    assert average_rank_bias(female, male, 10) == pytest.approx(arab10, abs=1e-6)


@pytest.mark.parametrize(
    "ranked, t, rab, arab",
    [
        ("M F N N M F", 3, 0.0, 1 / 3),  # RaB_x = 1, 0, 0
        ("M F N N M F", 6, 0.0, 0.2),  # RaB_x = 1, 0, 0, 0, .2, 0
        ("M F N N M F", 10, 0.0, 0.2),  # shorter than t: the documents present
        ("M M M", 10, 1.0, 1.0),
    ],
)
def test_rank_bias_on_labels(ranked, t, rab, arab):
    female = [float(x == F) for x in labels(ranked)]
    male = [float(x == M) for x in labels(ranked)]
    assert rank_bias(female, male, t)[0] == pytest.approx(rab)
    assert average_rank_bias(female, male, t)[0] == pytest.approx(arab)
    assert rank_bias([], [], t) is None and average_rank_bias([], [], t) is None


@pytest.mark.parametrize(
    "target, groups, message",
    [
        ((0.6, 0.6), ("female", "male"), "sum to 1"),
        ({"female": 0.5}, ("female", "male"), "exactly female, male"),
        ((-0.5, 1.5), ("female", "male"), "≥ 0"),
        ((0.5,), ("female", "male"), "needs 2 shares"),
        (("a", "b"), ("female", "male"), "must be a number"),
    ],
)
def test_bad_targets_are_errors(target, groups, message):
    with pytest.raises(BiasError, match=message):
        check_target(target, groups)


def test_unknown_labels_and_policies_are_errors():
    with pytest.raises(BiasError, match="unknown label 'both'"):
        ndkl([F, "both"], HALF, 2)
    with pytest.raises(BiasError, match="neutral must be one of"):
        ndkl([F], HALF, 2, neutral="drop")
    with pytest.raises(BiasError, match="magnitude variant"):
        gender_magnitude(1, "log")
