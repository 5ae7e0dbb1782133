"""Label-based gender-bias measures of one ranked list, one function per paper equation.

Feng & Shah's KL bias of the top k (Eq. 1), Dash's NDKL (Eq. 3, after Geyik et al.), Lipani et al.'s representation
bias β@n (Eqs. 3-5) with its MB / SB / MAB aggregates, and Rekabsaz & Schedl's RaB / ARaB. Every function takes the
documents' gender labels in rank order (rank 1 first; 'female', 'male' or 'neutral') and returns None where the
value is undefined (an empty list, or no gendered document where a distribution is needed).

Choices the papers leave open (README, "Label-based bias measures and re-rankers"): natural logarithms; zeros of
the smoothed distribution replaced by epsilon = 1e-4 (Feng & Shah smooth the top-k distribution P, Dash the target
T: the directions differ and are kept); with neutral = 'exclude' the groups are (female, male), neutral documents
keep their positions but count in no distribution, and a prefix without a gendered document is skipped; with
'group' neutral is a third group. Lists shorter than the cut-off are measured over the documents they have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypeAlias

from gsr.errors import InputError
from gsr.text.intrinsic_gender import FEMALE, LABELS, MALE, NEUTRAL

DEFAULT_EPSILON = 1e-4
TARGETS = ("collection", "relevant", "uniform", "retrieved")  # target distributions named rather than given as shares
LABEL_MAGNITUDES = "labels"  # RaB on the labels: magnitude 1 for the document's own gender, 0 otherwise
NEUTRAL_POLICIES = ("exclude", "group")
SHORT_LISTS = ("present", "paper")  # β's denominator for lists shorter than n: the documents present, or n
RAB_VARIANTS = ("tf", "tc", "bool")  # Rekabsaz & Schedl's gender magnitudes: ln(1 + count), count, count > 0
# a target distribution T: each group's share, as {group: share} or shares in group order (check_target)
Target: TypeAlias = Mapping[str, float | Fraction] | Sequence[float | Fraction]


class BiasError(InputError):
    """Input a label-based measure cannot use (an unknown label, a target that is no distribution).

    Example:
        >>> try:
        ...     ndkl(["female", "other"], {"female": 0.5, "male": 0.5}, 2)
        ... except BiasError as err:
        ...     print(err)
        unknown label 'other' (expected female, male, neutral)
    """


def groups_of(neutral: str) -> tuple[str, ...]:
    """The groups X of the distributions: (female, male) under 'exclude', (female, male, neutral) under 'group'."""
    if neutral not in NEUTRAL_POLICIES:
        raise BiasError(f"neutral must be one of {', '.join(NEUTRAL_POLICIES)}, not {neutral!r}")
    return (FEMALE, MALE) if neutral == "exclude" else (FEMALE, MALE, NEUTRAL)


def exact_share(value) -> Fraction:
    """A share as an exact fraction: a Fraction or int as it is, a float by its shortest decimal text (0.47 is 47/100,
    so Eq. 4's δ = 0.5 is detected exactly)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise BiasError(f"a target share must be a number, not {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise BiasError(f"a target share must be finite, not {value!r}")
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def check_target(target: Mapping[str, object] | Sequence, groups: Sequence[str]) -> dict[str, Fraction]:
    """A target distribution T over `groups`: a mapping with exactly those groups (or a sequence in their order), every
    share ≥ 0, the shares summing to 1 (± 1e-9)."""
    if not isinstance(target, Mapping):
        if len(target) != len(groups):
            raise BiasError(f"a target in group order needs {len(groups)} shares ({', '.join(groups)}), not {target!r}")
        target = dict(zip(groups, target))
    if set(target) != set(groups):
        raise BiasError(f"the target must give a share to exactly {', '.join(groups)}, not {', '.join(target)}")
    shares = {g: exact_share(target[g]) for g in groups}
    if any(s < 0 for s in shares.values()) or abs(float(sum(shares.values())) - 1.0) > 1e-9:
        raise BiasError(f"the target shares must be ≥ 0 and sum to 1, not {target!r}")
    return shares


def _checked_labels(labels: Sequence[str]) -> list[str]:
    for label in labels:
        if label not in LABELS:
            raise BiasError(f"unknown label {label!r} (expected {', '.join(LABELS)})")
    return list(labels)


def label_counts(labels: Sequence[str], groups: Sequence[str]) -> list[int]:
    """How many of `labels` fall in each group, in group order."""
    return [sum(1 for label in labels if label == g) for g in groups]


def group_shares(labels: Sequence[str], groups: Sequence[str]) -> list[float] | None:
    """p(g, R): the share of each group among the labels in the groups (None when none is)."""
    counts = label_counts(_checked_labels(labels), groups)
    total = sum(counts)
    return [c / total for c in counts] if total else None


def prefix_shares(labels: Sequence[str], groups: Sequence[str], k: int) -> list[list[float] | None]:
    """P^j for the prefixes j = 1..min(k, n) (None where a prefix holds no label in the groups)."""
    labels = _checked_labels(labels)
    counts = [0] * len(groups)
    shares = []
    for label in labels[:k]:
        if label in groups:
            counts[groups.index(label)] += 1
        total = sum(counts)
        shares.append([c / total for c in counts] if total else None)
    return shares


def kl_divergence(p: Sequence[float], q: Sequence[float], epsilon: float = DEFAULT_EPSILON) -> float:
    """D_KL(p ‖ q) = Σ_{x: p_x > 0} p_x ln(p_x / q̃_x), natural log, q̃_x = q_x where q_x > 0 and epsilon where q_x = 0
    (no renormalisation, so D_KL(p ‖ p) = 0 exactly).

    Args:
        p: The first distribution.
        q: The second, over the same groups.
        epsilon: What a zero of q counts as.

    Returns:
        D_KL(p ‖ q).

    Example:
        >>> round(kl_divergence([0.5, 0.5], [1.0, 0.0]), 3)
        3.912
    """
    return math.fsum(px * math.log(px / (qx if qx > 0 else epsilon)) for px, qx in zip(p, q) if px > 0)


def _target_vector(target, groups) -> list[float]:
    return [float(s) for s in check_target(target, groups).values()]


def top_k_kl(
    labels: Sequence[str], target: Target, k: int, neutral: str = "exclude", epsilon: float = DEFAULT_EPSILON
) -> float | None:
    """KL@k: D_KL(T ‖ P^k), the divergence Feng & Shah's Eq. 1 averages, for the top-min(k, n) prefix alone.

    Args:
        labels: The documents' labels in rank order ('female', 'male' or 'neutral').
        target: T, each group's share (a mapping, or shares in group order).
        k: The cut-off.
        neutral: 'exclude' (groups female, male) or 'group' (neutral a third group).
        epsilon: What a zero of P^k counts as.

    Returns:
        KL@k, or None when the top k hold no document in the groups.

    Raises:
        BiasError: If a label is unknown or the target is no distribution over the groups.

    Example:
        >>> round(top_k_kl(["female", "male", "female", "female"], {"female": 0.5, "male": 0.5}, 4), 3)
        0.144
    """
    groups = groups_of(neutral)
    shares = group_shares(labels[:k], groups)
    return None if shares is None else kl_divergence(_target_vector(target, groups), shares, epsilon)


def feng_shah_bias(
    labels: Sequence[str], target: Target, k: int, neutral: str = "exclude", epsilon: float = DEFAULT_EPSILON
) -> float | None:
    """Feng & Shah Eq. 1: d = Σ_{j=1}^{N} D_KL(T ‖ P^j) / N with N = k, over the defined prefixes j ≤ min(k, n).

    Args:
        labels: The documents' labels in rank order.
        target: T, each group's share.
        k: The cut-off N.
        neutral: 'exclude' or 'group'.
        epsilon: What a zero of P^j counts as.

    Returns:
        d, or None when no prefix holds a document in the groups.

    Raises:
        BiasError: If a label is unknown or the target is no distribution over the groups.

    Example:
        >>> round(feng_shah_bias(["female", "male"], {"female": 0.5, "male": 0.5}, 2), 3)
        1.956
    """
    groups = groups_of(neutral)
    t = _target_vector(target, groups)
    terms = [kl_divergence(t, p, epsilon) for p in prefix_shares(labels, groups, k) if p is not None]
    return math.fsum(terms) / len(terms) if terms else None


def ndkl(
    labels: Sequence[str], target: Target, k: int, neutral: str = "exclude", epsilon: float = DEFAULT_EPSILON
) -> float | None:
    """Dash Eq. 3: (1/Z) Σ_i KL(p(g, R_i) ‖ T) / log2(i + 1), Z = Σ_i 1/log2(i + 1), over the defined prefixes i ≤
    min(k, n) (a prefix without a label in the groups counts neither in the sum nor in Z).

    Args:
        labels: The documents' labels in rank order.
        target: T, each group's share.
        k: The cut-off.
        neutral: 'exclude' or 'group'.
        epsilon: What a zero of T counts as.

    Returns:
        NDKL, or None when no prefix holds a document in the groups.

    Raises:
        BiasError: If a label is unknown or the target is no distribution over the groups.

    Example:
        >>> round(ndkl(["female", "male"], {"female": 0.5, "male": 0.5}, 2), 3)
        0.425
    """
    groups = groups_of(neutral)
    t = _target_vector(target, groups)
    total = weight = 0.0
    for i, p in enumerate(prefix_shares(labels, groups, k), start=1):
        if p is not None:
            discount = 1.0 / math.log2(i + 1)
            total += discount * kl_divergence(p, t, epsilon)
            weight += discount
    return total / weight if weight else None


def lipani_target_count(share: Fraction, n: int, model_count: int) -> int:
    """Lipani et al. Eq. 4 in counts: round(μ_c · n) with δ_n = μ_c·n − ⌊μ_c·n⌋; at δ_n = 1/2 the count of ⌊·⌋, ⌈·⌉
    nearer the system's own count ("the solution given by the search engine is accepted as correct")."""
    scaled = Fraction(share) * n
    low = math.floor(scaled)
    delta = scaled - low
    if delta < Fraction(1, 2):
        return low
    if delta > Fraction(1, 2):
        return low + 1
    return low if abs(low - model_count) <= abs(low + 1 - model_count) else low + 1


def representation_bias(
    labels: Sequence[str], group: str, target: Target, n: int, neutral: str = "exclude", short_lists: str = "present"
) -> float | None:
    """Lipani et al. Eq. 5: β_c@n = μ̂_c^r@n − μ_c^r@n, the model c-ratio of the top n (Eq. 3) minus the unbiased
    target at the cut-off (Eq. 4); > 0 is biased towards c. Under 'exclude' only the gendered documents of the top n
    count; short_lists 'present' divides by the documents counted (n'), 'paper' by the cut-off n as Eq. 3 writes.

    Args:
        labels: The documents' labels in rank order.
        group: c, the group measured.
        target: μ_c's distribution, each group's share.
        n: The cut-off.
        neutral: 'exclude' or 'group'.
        short_lists: 'present' or 'paper'.

    Returns:
        β_c@n, or None for an empty list (or no gendered document under 'present').

    Raises:
        BiasError: If `group`, `short_lists` or a label is unknown, or the target is no distribution.

    Example:
        >>> representation_bias(["female", "female", "female", "male"], "female", {"female": 0.5, "male": 0.5}, 4)
        0.25
    """
    groups = groups_of(neutral)
    if group not in groups:
        raise BiasError(f"β is measured for one of {', '.join(groups)}, not {group!r}")
    if short_lists not in SHORT_LISTS:
        raise BiasError(f"short_lists must be one of {', '.join(SHORT_LISTS)}, not {short_lists!r}")
    top = [label for label in _checked_labels(labels)[:n] if label in groups]
    denominator = n if short_lists == "paper" else len(top)
    if denominator == 0 or not labels:
        return None
    model_count = sum(1 for label in top if label == group)
    target_count = lipani_target_count(check_target(target, groups)[group], denominator, model_count)
    return float(Fraction(model_count - target_count, denominator))


def bias_aggregates(values: Sequence[float | None]) -> dict[str, float | None]:
    """Lipani et al.'s aggregates of β over queries (undefined ones left out): MB (mean), SB (standard deviation,
    population: ddof 0), MAB (mean of |β|), and Table 1's min and max.

    Args:
        values: β of each query, None where undefined.

    Returns:
        {MB, SB, MAB, min, max}, each None when no β is defined.

    Example:
        >>> bias_aggregates([0.25, -0.25, None])
        {'MB': 0.0, 'SB': 0.25, 'MAB': 0.25, 'min': -0.25, 'max': 0.25}
    """
    known = [v for v in values if v is not None]
    if not known:
        return {"MB": None, "SB": None, "MAB": None, "min": None, "max": None}
    mean = math.fsum(known) / len(known)
    return {
        "MB": mean,
        "SB": math.sqrt(math.fsum((v - mean) ** 2 for v in known) / len(known)),
        "MAB": math.fsum(abs(v) for v in known) / len(known),
        "min": min(known),
        "max": max(known),
    }


def gender_magnitude(count: int, variant: str = "tf") -> float:
    """Rekabsaz & Schedl's gender magnitude of a document from its count of one gender's words: 'tf' ln(1 + count)
    (their code's; natural log), 'tc' the count, 'bool' 1 when the count is positive."""
    if variant == "tf":
        return math.log1p(count)
    if variant == "tc":
        return float(count)
    if variant == "bool":
        return 1.0 if count > 0 else 0.0
    raise BiasError(f"the magnitude variant must be one of {', '.join(RAB_VARIANTS)}, not {variant!r}")


def rank_bias(female: Sequence[float], male: Sequence[float], t: int) -> tuple[float, float, float] | None:
    """Rekabsaz & Schedl's RaB_t(q) = qRaB^m_t − qRaB^f_t with qRaB^r_t = (1/t) Σ_{i ≤ t} mag^r(d_i), t = min(t, n)
    (their code's mean over the documents present); > 0 leans male. Returns (RaB, qRaB^f, qRaB^m).

    Args:
        female: Each ranked document's female magnitude, rank 1 first.
        male: Each ranked document's male magnitude.
        t: The cut-off.

    Returns:
        (RaB, qRaB^f, qRaB^m), or None for an empty list.

    Example:
        >>> rank_bias([1.0, 0.0], [0.0, 2.0], 2)
        (0.5, 0.5, 1.0)
    """
    depth = min(t, len(female))
    if depth == 0:
        return None
    f, m = math.fsum(female[:depth]) / depth, math.fsum(male[:depth]) / depth
    return m - f, f, m


def average_rank_bias(female: Sequence[float], male: Sequence[float], t: int) -> tuple[float, float, float] | None:
    """Rekabsaz & Schedl's ARaB_t(q) = (1/t) Σ_{x=1}^{t} RaB_x(q), t = min(t, n); returns (ARaB, its female
    component, its male component), each the mean of the cut-offs' values.

    Args:
        female: Each ranked document's female magnitude, rank 1 first.
        male: Each ranked document's male magnitude.
        t: The cut-off.

    Returns:
        (ARaB, its female component, its male component), or None for an empty list.

    Example:
        >>> average_rank_bias([1.0, 0.0], [0.0, 2.0], 2)
        (-0.25, 0.75, 0.5)
    """
    depth = min(t, len(female))
    if depth == 0:
        return None
    values = [rank_bias(female, male, x) for x in range(1, depth + 1)]  # each defined: x ≤ depth ≤ len(female)
    rab, female_part, male_part = (math.fsum(v[i] for v in values if v is not None) / depth for i in range(3))
    return rab, female_part, male_part
