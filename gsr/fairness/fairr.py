"""Rekabsaz, Kopeinik & Schedl's FaiRR and NFaiRR (SIGIR 2021, *Societal Biases in Retrieved Contents: Measurement
Framework and Adversarial Mitigation for BERT Rankers*, §3 "measurement framework"), one function per equation.

The paper's text is not in `shared/papers`; every definition follows the authors' reference code
(`CPJKU/FairnessRetrievalResults`, `measurement/document_neutrality.py` and `metrics_fairness.py`, commit 81693da),
and docs/label-measures.md lists each place where gsr-bench departs from that code and why. In short:

- mag_g(d) = Σ_{w ∈ V_g} #⟨w, d⟩: how often a group's representative words occur in d (gsr.fairness.neutrality
  counts them);
- ω(d) = 1 when Σ_g mag_g(d) ≤ τ, else 1 − Σ_g |mag_g(d) / Σ_g' mag_g'(d) − J_g| (document neutrality, with the
  threshold τ, default 1, and the groups' shares J_g, default ½ and ½);
- FaiRR@k(L) = Σ_{i=1}^{min(k, |L|)} ω(L_i) · p_i with p_i = 1 / log2(i + 1);
- NFaiRR@k(L) = FaiRR@k(L) / IFaiRR@k(S), IFaiRR the FaiRR of the query's background set S (by default the run's
  own top 200) in the order of decreasing neutrality;
- ranker-agnostic FaiRR@k(S) = mean_{d ∈ S} ω(d) · Σ_{i=1}^{min(k, |S|)} p_i: the FaiRR a random ordering of S has
  in expectation, normalised by the same IFaiRR.

The per-run versions (`*_per_query`) are the same equations over every query of a run at once, on flat arrays:
`codes` (each row's query, rows grouped by query), `ranks` (0-based rank in its list) and each row's neutrality.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from gsr.errors import InputError
from gsr.fairness.fairr_options import DEFAULT_BACKGROUND_DEPTH, DEFAULT_CUTOFFS, DEFAULT_SHARES, DEFAULT_THRESHOLD  # noqa: F401 (named here too: FaiRR's equations and their defaults)

# |error| of one ω: a division, a subtraction and |·| per group and one more subtraction, each within half an ulp of
# a value ≤ 2; IFaiRR sums k of them times p_i ≤ 1. NFaiRR is undefined where IFaiRR is within that of 0.
NEUTRALITY_ULPS = 8


class FaiRRError(InputError):
    """A FaiRR parameter that cannot be used (a threshold < 0, shares that are no distribution, a cut-off ≤ 0).

    Example:
        >>> try:
        ...     document_neutrality([1, 0], threshold=-1)
        ... except FaiRRError as err:
        ...     print(err)
        the neutrality threshold must be a number ≥ 0, not -1
    """


def check_threshold(threshold) -> float:
    """τ as a float: a number ≥ 0 (the reference reads an int; any number ≥ 0 is taken)."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold >= 0:
        raise FaiRRError(f"the neutrality threshold must be a number ≥ 0, not {threshold!r}")
    return float(threshold)


def check_shares(shares: Mapping[str, float]) -> dict[str, float]:
    """J_g of every group: at least two groups, each share a finite number ≥ 0, summing to 1 (± 1e-9)."""
    if not isinstance(shares, Mapping) or len(shares) < 2:
        raise FaiRRError(f"the group shares need at least two groups, e.g. {{'f': 0.5, 'm': 0.5}}, not {shares!r}")
    checked = {}
    for group, share in shares.items():
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not math.isfinite(share) or share < 0:
            raise FaiRRError(f"group {group!r}: a share must be a finite number ≥ 0, not {share!r}")
        checked[str(group)] = float(share)
    if abs(math.fsum(checked.values()) - 1.0) > 1e-9:
        raise FaiRRError(f"the group shares must sum to 1, not {math.fsum(checked.values())!r} ({shares!r})")
    return checked


def check_cutoffs(cutoffs: Sequence[int]) -> tuple[int, ...]:
    """The cut-offs k, each a positive integer, ascending and without repeats."""
    if isinstance(cutoffs, (str, bytes)) or not isinstance(cutoffs, Sequence) or not cutoffs:
        raise FaiRRError(f"the cut-offs must be a non-empty list of positive integers, not {cutoffs!r}")
    for k in cutoffs:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise FaiRRError(f"a FaiRR cut-off must be a positive integer, not {k!r}")
    return tuple(sorted({int(k) for k in cutoffs}))


def document_neutrality(magnitudes, shares: Mapping[str, float] | None = None, threshold: float = DEFAULT_THRESHOLD):
    """Document neutrality ω(d) (the paper's neutrality of a document; document_neutrality.py's get_neutrality): 1
    when the document holds at most τ representative words (Σ_g mag_g(d) ≤ τ), else 1 − Σ_g |mag_g(d) / Σ_g'
    mag_g'(d) − J_g|. With two groups and J = (½, ½) it lies in [0, 1]: 1 balanced, 0 one group only; with unequal
    shares it can be negative (as in the reference).

    Args:
        magnitudes (array-like): mag_g(d), one row per document and one column per group (in the order of `shares`),
            or one document's row.
        shares: J_g of each group, in column order (default: {'f': ½, 'm': ½}).
        threshold: τ ≥ 0.

    Returns:
        ω (np.ndarray | float): One value per row (a float for one document).

    Raises:
        FaiRRError: If τ < 0, the shares are no distribution, or the columns are not one per group.

    Example:
        >>> document_neutrality([3, 1]), document_neutrality([1, 0]), document_neutrality([[2, 0], [1, 1]])
        (0.5, 1.0, array([0., 1.]))
    """
    shares = check_shares(shares if shares is not None else DEFAULT_SHARES)
    tau = check_threshold(threshold)
    counts = np.asarray(magnitudes, dtype=np.float64)
    single = counts.ndim == 1
    counts = np.atleast_2d(counts)
    if counts.shape[1] != len(shares):
        raise FaiRRError(f"{counts.shape[1]} magnitude columns for {len(shares)} groups ({', '.join(shares)})")
    total = counts.sum(axis=1)
    gendered = total > tau
    with np.errstate(invalid="ignore", divide="ignore"):
        distribution = counts / total[:, None]
    deviation = np.abs(distribution - np.array(list(shares.values()))[None, :]).sum(axis=1)
    values = np.where(gendered, 1.0 - deviation, 1.0)
    return float(values[0]) if single else values


def position_weights(depth: int) -> np.ndarray:
    """The paper's position bias p_i = 1 / log2(i + 1) of ranks i = 1 … depth (metrics_fairness.py's
    position_biases).

    Args:
        depth: How many ranks.

    Returns:
        p_1 … p_depth.

    Example:
        >>> position_weights(3).round(4).tolist()
        [1.0, 0.6309, 0.5]
    """
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def fairr(neutralities: Sequence[float], k: int) -> float:
    """FaiRR@k of one ranked list: Σ_{i=1}^{min(k, n)} ω(L_i) · p_i, the neutralities weighted by the position bias;
    a list shorter than k is summed over the documents it has (no padding), as the reference does.

    Args:
        neutralities: ω of the list's documents, rank 1 first.
        k: The cut-off.

    Returns:
        FaiRR@k (0 for an empty list).

    Example:
        >>> round(fairr([1.0, 0.0, 0.5], 3), 4)
        1.25
    """
    top = np.asarray(neutralities, dtype=np.float64)[: check_cutoffs([k])[0]]
    return float(np.dot(top, position_weights(len(top))))


def ideal_fairr(background: Sequence[float], k: int) -> float:
    """IFaiRR@k of a query's background set S: the FaiRR@k of S's documents ordered by decreasing neutrality, the
    largest FaiRR@k any ranking of S can reach.

    Args:
        background: ω of the background set's documents, in any order.
        k: The cut-off.

    Returns:
        IFaiRR@k (0 for an empty set).

    Example:
        >>> round(ideal_fairr([0.0, 0.5, 1.0], 2), 4)
        1.3155
    """
    return fairr(sorted(background, reverse=True), k)


def ideal_tolerance(k: int) -> float:
    """The rounding error an IFaiRR@k can carry (NEUTRALITY_ULPS ulps of 1 per document, times Σ p_i): below it an
    IFaiRR cannot be told from 0."""
    return NEUTRALITY_ULPS * np.finfo(np.float64).eps * float(position_weights(k).sum())


def nfairr(value: float, ideal: float, k: int) -> float | None:
    """NFaiRR@k = FaiRR@k(L) / IFaiRR@k(S): 1 is the fairest ranking S allows; undefined (None) where IFaiRR@k is
    not above its rounding error (every background document one-sided, ω = 0), never a number divided by 0.

    Args:
        value: FaiRR@k of the ranked list.
        ideal: IFaiRR@k of the query's background set.
        k: The cut-off (it bounds the rounding error).

    Returns:
        NFaiRR@k, or None.

    Example:
        >>> nfairr(1.0, 2.0, 2), nfairr(1.0, 0.0, 2)
        (0.5, None)
    """
    return value / ideal if ideal > ideal_tolerance(k) else None


def ranker_agnostic_fairr(neutralities: Sequence[float], k: int) -> float:
    """The ranker-agnostic FaiRR@k of a document set S: mean_{d ∈ S} ω(d) · Σ_{i=1}^{min(k, |S|)} p_i, the expected
    FaiRR@k of S's documents in a uniformly random order (metrics_fairness.py's calc_FaiRR_rankeragnostic, which
    sums p_i to k even where S is smaller; see docs/label-measures.md).

    Args:
        neutralities: ω of the set's documents.
        k: The cut-off.

    Returns:
        The ranker-agnostic FaiRR@k (0 for an empty set).

    Example:
        >>> round(ranker_agnostic_fairr([1.0, 0.0], 5), 4)
        0.8155
    """
    values = np.asarray(neutralities, dtype=np.float64)
    if not len(values):
        return 0.0
    depth = min(check_cutoffs([k])[0], len(values))
    return float(values.mean() * position_weights(depth).sum())


# ----------------------------------------------------------------------------------------------- every query at once


def fairr_per_query(codes: np.ndarray, ranks: np.ndarray, neutralities: np.ndarray, k: int, n: int) -> np.ndarray:
    """`fairr` of every query of a run: Σ over its rows of rank < k of ω · p_{rank+1}.

    Args:
        codes: Each row's query number (0 … n-1).
        ranks: Each row's 0-based rank in its query's list.
        neutralities: Each row's ω.
        k: The cut-off.
        n: The number of queries.

    Returns:
        FaiRR@k of queries 0 … n-1 (0 for a query without rows).

    Example:
        >>> fairr_per_query(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([1.0, 1.0, 0.5]), 1, 2).tolist()
        [1.0, 0.5]
    """
    top = ranks < k
    weights = position_weights(k)[ranks[top]]
    return np.bincount(codes[top], weights=neutralities[top] * weights, minlength=n)


def ideal_rankings(codes: np.ndarray, neutralities: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every query's background rows in the order IFaiRR scores them, by decreasing ω: (query numbers, 0-based
    ranks, ω), for fairr_per_query at any cut-off.

    Args:
        codes: Each background row's query number.
        neutralities: Each background row's ω.

    Returns:
        (codes, ranks, neutralities) of the reordered rows.

    Example:
        >>> [a.tolist() for a in ideal_rankings(np.array([0, 0, 1]), np.array([0.0, 1.0, 0.5]))]
        [[0, 0, 1], [0, 1, 0], [1.0, 0.0, 0.5]]
    """
    order = np.lexsort((-neutralities, codes))
    ordered = codes[order]
    return ordered, ranks_within(ordered), neutralities[order]


def ideal_fairr_per_query(codes: np.ndarray, neutralities: np.ndarray, k: int, n: int) -> np.ndarray:
    """`ideal_fairr` of every query's background set: its rows ordered by decreasing ω, then fairr_per_query.

    Args:
        codes: Each background row's query number (0 … n-1).
        neutralities: Each background row's ω.
        k: The cut-off.
        n: The number of queries.

    Returns:
        IFaiRR@k of queries 0 … n-1 (0 for a query without background rows).

    Example:
        >>> ideal_fairr_per_query(np.array([0, 0]), np.array([0.0, 1.0]), 1, 1).tolist()
        [1.0]
    """
    return fairr_per_query(*ideal_rankings(codes, neutralities), k, n)


def ranker_agnostic_per_query(codes: np.ndarray, neutralities: np.ndarray, k: int, n: int) -> np.ndarray:
    """`ranker_agnostic_fairr` of every query's document set.

    Args:
        codes: Each row's query number (0 … n-1).
        neutralities: Each row's ω.
        k: The cut-off.
        n: The number of queries.

    Returns:
        The ranker-agnostic FaiRR@k of queries 0 … n-1 (0 for a query without rows).

    Example:
        >>> ranker_agnostic_per_query(np.array([0, 0]), np.array([1.0, 0.0]), 1, 1).tolist()
        [0.5]
    """
    sizes = np.bincount(codes, minlength=n)
    totals = np.bincount(codes, weights=neutralities, minlength=n)
    cumulative = np.concatenate(([0.0], np.cumsum(position_weights(k))))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(sizes > 0, totals / np.maximum(sizes, 1), 0.0)
    return means * cumulative[np.minimum(sizes, k)]


def ranks_within(codes: np.ndarray) -> np.ndarray:
    """The 0-based position of each row within its run of equal `codes` (rows grouped by query)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    lengths = np.diff(np.append(starts, len(codes)))
    return np.arange(len(codes)) - np.repeat(starts, lengths)
