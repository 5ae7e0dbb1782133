"""The GSR equations of Fabris et al.: genderedness of queries, documents and ranked lists (§3.3, Eq. 2), the slope
(Eq. 3) and relative GSR. Word genderedness (Eq. 1) is in gsr.lexicon.

GSRError is re-exported here for code written against earlier releases; an undefined measure raises its subclass
UndefinedMeasureError.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike

from gsr.errors import GSRError, InputError, UndefinedMeasureError
from gsr.infra.numeric import mean_or_nan


class WordGenderedness(Protocol):
    """What the equations read of a lexicon: g(w) of a word, or None outside its vocabulary (GenderLexicon.get)."""

    def get(self, word: str, /) -> float | None: ...


__all__ = [
    "GSRError",
    "UndefinedMeasureError",
    "check_query_spread",
    "cut_with_ties",
    "document_genderedness",
    "gsr_slope",
    "gsr_slope_terms",
    "list_genderedness",
    "list_genderedness_many",
    "mean_genderedness",
    "query_genderedness",
    "rank_discounts",
    "relative_gsr",
    "slope_noise_floor",
    "tied_rank_weights",
    "tied_rank_weights_many",
]


def mean_genderedness(values: Iterable[float | None]) -> float:
    """§3.3: average genderedness of a bag of words, ignoring out-of-vocabulary words; NaN if none is known.

    Args:
        values: g(w) of each word; None or NaN for a word out of the vocabulary.

    Returns:
        The mean of the known values (math.fsum), NaN when none is known.

    Example:
        >>> mean_genderedness([0.5, None, float("nan"), -0.25])
        0.125
    """
    known = [v for v in values if v is not None and not math.isnan(v)]
    return math.fsum(known) / len(known) if known else math.nan


def query_genderedness(terms: Sequence[str], lexicon: WordGenderedness) -> float:
    """g(q), §3.3: mean g(w) over the query's (stop-word-free) terms.

    Args:
        terms: The query's terms after the text handling (Analyzer.tokens).
        lexicon: g(w) of each word (Eq. 1): a GenderLexicon, or anything with `get(word) -> float | None`.

    Returns:
        g(q); NaN when no term is in the lexicon.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"nurse": 0.5, "doctor": -0.25})
        >>> query_genderedness(["nurse", "doctor", "unknown"], lexicon)
        0.125
    """
    return mean_genderedness(lexicon.get(t) for t in terms)


def document_genderedness(
    terms: Sequence[str],
    lexicon: WordGenderedness,
    excluded: Iterable[str] = (),
    inflection_class: Callable[[str], str] | None = None,
) -> float:
    """g_q(d), §3.3: mean g(w) over the document's terms that are not query terms (nor their inflections).

    Args:
        terms: The document's terms after the text handling, repeated as often as they occur.
        lexicon: g(w) of each word (Eq. 1).
        excluded: The query's terms, left out of the mean.
        inflection_class: Maps a word to its class (Analyzer.inflection_class), so
            that inflections of a query term are left out too; None: only the exact query terms.

    Returns:
        g_q(d); NaN when no remaining term is in the lexicon.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"she": 0.5, "nurse": 0.25, "he": -0.5})
        >>> document_genderedness(["she", "nurse", "nurse"], lexicon, excluded=["nurse"])
        0.5
    """
    classify = inflection_class or (lambda w: w)
    banned = {classify(t) for t in excluded}
    return mean_genderedness(lexicon.get(t) for t in terms if classify(t) not in banned)


def rank_discounts(length: int) -> np.ndarray:
    """Eq. 2's weights w_k = 1 / log2(r_k + 1) for ranks r_k = 1..length.

    Args:
        length: The number of ranks.

    Returns:
        The weights, rank 1 first.

    Example:
        >>> rank_discounts(3).round(3).tolist()
        [1.0, 0.631, 0.5]
    """
    return tied_rank_weights_many(None, np.array([0, length]))


def tied_rank_weights(tie_keys: Sequence) -> np.ndarray:
    """Eq. 2's weights when consecutive documents with equal keys (score, grade) are tied in rank.

    Tied documents share the mean of the discounts 1/log2(r+1) of the positions they span: the expected weight
    under a uniformly random order of the tie, so the total weight W is unchanged.

    Args:
        tie_keys: One key per ranked document, best first; equal consecutive keys are a tie.

    Returns:
        The weights, one per document.

    Example:
        >>> tied_rank_weights([3.0, 3.0, 1.0]).round(3).tolist()
        [0.815, 0.815, 0.5]
    """
    keys = np.asarray(tie_keys) if len(tie_keys) else np.zeros(0)
    return tied_rank_weights_many(keys, np.array([0, len(keys)]))


def tied_rank_weights_many(
    tie_keys: np.ndarray | None, offsets: np.ndarray, cutoffs: np.ndarray | None = None
) -> np.ndarray:
    """Eq. 2's weights of many ranked lists at once, list i being positions offsets[i]:offsets[i+1].

    Each list's positions get 1/log2(r+1), r = 1, 2, … from the list's start; with `tie_keys`, consecutive
    positions of one list with equal keys share the mean of their discounts (see tied_rank_weights). With
    `cutoffs` (K of each list), positions past K weigh nothing before the sharing: a tie at positions p..q with
    p ≤ K < q gives each of its documents (Σ_{j=p..K} w_j) / (q − p + 1), its expected weight under a uniformly
    random order of the tie, so W stays that of the top K and no document id decides which tied document counts.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    total = int(offsets[-1]) if len(offsets) else 0
    rank = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    weights = 1.0 / np.log2(rank + 2.0)
    if cutoffs is not None:
        weights[rank >= np.repeat(np.asarray(cutoffs, dtype=np.int64), lengths)] = 0.0
    if tie_keys is None or total < 2:
        return weights
    starts = _tie_starts(np.asarray(tie_keys), rank)
    sizes = np.diff(np.append(starts, total))
    return np.repeat(np.add.reduceat(weights, starts) / sizes, sizes)


def _tie_starts(keys: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """The first position of every run of equal keys (a list never shares a tie with the one before it)."""
    tie_start = np.ones(len(keys), dtype=bool)
    tie_start[1:] = keys[1:] != keys[:-1]
    tie_start[rank == 0] = True
    return np.flatnonzero(tie_start)


def cut_with_ties(tie_keys: np.ndarray | None, offsets: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """Which positions of many lists (list i at offsets[i]:offsets[i+1]) a cut at K = cutoffs[i] keeps: the top K,
    and, with `tie_keys`, every document of a tie that crosses position K (tied_rank_weights_many gives them their
    share of the positions up to K). Each list keeps a prefix of itself."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    rank = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    cutoffs = np.asarray(cutoffs, dtype=np.int64)
    keep = rank < np.repeat(cutoffs, lengths)
    crossing = (cutoffs > 0) & (cutoffs < lengths)
    if tie_keys is None or not crossing.any():
        return keep
    group = np.zeros(len(rank), dtype=np.int64)
    group[_tie_starts(np.asarray(tie_keys), rank)] = 1
    group = np.cumsum(group)
    last_kept = offsets[:-1][crossing] + cutoffs[crossing] - 1
    return keep | np.isin(group, group[last_kept])


def list_genderedness(document_values: Sequence[float], weights: Sequence[float] | None = None) -> float:
    """g_q(L), Eq. 2: discount-weighted mean of the documents' g_q(d); NaN documents are left out of W.

    Args:
        document_values: g_q(d) of the ranked documents, best first (NaN where a document has no measurable word).
        weights: Each document's weight; default rank_discounts (tied_rank_weights for ties).

    Returns:
        g_q(L); NaN when no document is measurable.

    Raises:
        InputError: If `weights` and `document_values` differ in length.

    Example:
        >>> round(list_genderedness([0.5, -0.5]), 3)
        0.113
    """
    values = np.asarray(document_values, dtype=np.float64)
    discounts = rank_discounts(len(values)) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(discounts) != len(values):
        raise InputError(f"{len(values)} documents but {len(discounts)} weights")
    return float(list_genderedness_many(values, discounts, np.array([0, len(values)]))[0])


def list_genderedness_many(document_values: np.ndarray, weights: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Eq. 2 for many lists at once (list i at positions offsets[i]:offsets[i+1]); NaN where nothing is measurable."""
    offsets = np.asarray(offsets, dtype=np.int64)
    values = np.asarray(document_values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    lists = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    known = ~np.isnan(values)
    total = np.bincount(lists[known], weights=weights[known], minlength=len(offsets) - 1)
    weighted = np.bincount(lists[known], weights=weights[known] * values[known], minlength=len(offsets) - 1)
    return mean_or_nan(weighted, total)


def _centred_points(query_values: ArrayLike, list_values: ArrayLike, query_rounding: float = 0.0):
    """(g(q) − μ_q, g_q(L) − μ_L, σ²_g(q), kept mask) over the queries where both values are defined; undefined when
    g(q) has no spread, or none beyond `query_rounding` (see check_query_spread)."""
    x = np.asarray(query_values, dtype=np.float64)
    y = np.asarray(list_values, dtype=np.float64)
    if x.shape != y.shape:
        raise InputError(f"{len(x)} query values but {len(y)} list values")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 2:
        raise UndefinedMeasureError(f"GSR needs at least two queries with defined genderedness, got {len(x)}")
    dx = x - x.mean()
    variance = float(np.mean(dx * dx))
    if np.ptp(x) == 0 or variance <= 1e-24 * float(np.mean(x * x)):
        raise UndefinedMeasureError("GSR is undefined: every query has the same genderedness (zero variance)")
    check_query_spread(x, query_rounding)
    return dx, y - y.mean(), variance, keep


def check_query_spread(query_values: np.ndarray, query_rounding: float) -> None:
    """Eq. 3 divides by the variance of g(q): g(q) that differ by no more than rounding could move them apart make the
    slope a ratio of noise (a debiased embedding measured with its own equalize pairs gave g(q) of SD 8e-9 and a
    "GSR" of +34680). Each g(q) is a mean of g(w), so it is off by at most the lexicon's rounding of one g(w)
    (gsr.lexicon.genderedness_rounding); two g(q) whose exact values are equal then differ by at most twice that.

    Args:
        query_values: The defined g(q).
        query_rounding: The largest rounding error of one g(q).

    Raises:
        UndefinedMeasureError: If max g(q) − min g(q) ≤ 2 · query_rounding, saying so with the range and the SD.
    """
    spread = float(np.ptp(query_values))
    if spread <= 2 * query_rounding:
        raise UndefinedMeasureError(
            f"GSR is undefined: g(q) has no spread beyond float noise (range {spread:.2g}, SD "
            f"{float(np.std(query_values)):.2g}, over {len(query_values)} queries; rounding alone may move each g(q) "
            f"by {query_rounding:.2g}): the lexicon gives these queries' words no measurable genderedness"
        )


def gsr_slope(query_values: ArrayLike, list_values: ArrayLike, query_rounding: float = 0.0) -> float:
    """m_s(Q, D), Eq. 3: least-squares slope of g_q(L) on g(q) over queries where both are defined.

    Args:
        query_values: g(q) of each query (NaN where undefined).
        list_values: g_q(L) of each query's ranked list, in the same order (NaN where undefined).
        query_rounding: The largest rounding error of one g(q) (the lexicon's `rounding`); g(q) spread no wider than
            twice this is noise, and the slope undefined (check_query_spread).

    Returns:
        The slope, GSR.

    Raises:
        InputError: If the two sequences differ in length.
        UndefinedMeasureError: If fewer than two queries are defined or g(q) has no spread beyond rounding.

    Example:
        >>> gsr_slope([-0.5, 0.0, 0.5], [-0.25, 0.0, 0.25])
        0.5
    """
    dx, dy, variance, _ = _centred_points(query_values, list_values, query_rounding)
    return float(np.mean(dx * dy) / variance)


def gsr_slope_terms(query_values: ArrayLike, list_values: ArrayLike, query_rounding: float = 0.0) -> np.ndarray:
    """Eq. 3 split per query: (g(q_i) − μ_q)(g_qi(L_i) − μ_L)/σ², NaN where a value is undefined.

    The mean over the defined queries is m_s(Q, D), so tools that average per-query values (ir_measures,
    PyTerrier) report exactly the slope; undefined inputs raise UndefinedMeasureError as gsr_slope does.

    Args:
        query_values: g(q) of each query (NaN where undefined).
        list_values: g_q(L) of each query, in the same order (NaN where undefined).
        query_rounding: The largest rounding error of one g(q) (see gsr_slope).

    Returns:
        Each query's term, NaN where a value is undefined.

    Raises:
        InputError: If the two sequences differ in length.
        UndefinedMeasureError: If fewer than two queries are defined or g(q) has no spread beyond rounding.

    Example:
        >>> gsr_slope_terms([-0.5, 0.0, 0.5], [-0.25, 0.0, 0.25]).round(3).tolist()
        [0.75, 0.0, 0.75]
    """
    dx, dy, variance, keep = _centred_points(query_values, list_values, query_rounding)
    terms = np.full(len(keep), np.nan)
    terms[keep] = dx * dy / variance
    return terms


# A slope is zero up to rounding when, over the whole g(q) range, it moves g_q(L) by less than this fraction of the
# largest |g_q(L)|: each g_q(L) is a float64 weighted mean of sums over up to thousands of tokens, whose relative
# rounding error stays far below 1e-12, while any slope a ranking can cause is many orders of magnitude above it.
SLOPE_NOISE = 1e-12


def slope_noise_floor(query_values: ArrayLike, list_values: ArrayLike) -> float:
    """The largest |m| indistinguishable from 0 for these points: SLOPE_NOISE · max|g_q(L)| / (max g(q) − min g(q)).

    Computed over the queries where both values are defined; 0 when there are fewer than two or g(q) is constant.

    Args:
        query_values: g(q) of each query (NaN where undefined).
        list_values: g_q(L) of each query, in the same order (NaN where undefined).

    Returns:
        The noise floor of the slope.

    Example:
        >>> slope_noise_floor([-0.5, 0.5], [-0.25, 0.25])
        2.5e-13
    """
    x = np.asarray(query_values, dtype=np.float64)
    y = np.asarray(list_values, dtype=np.float64)
    keep = ~(np.isnan(x) | np.isnan(y))
    if keep.sum() < 2 or np.ptp(x[keep]) == 0:
        return 0.0
    return SLOPE_NOISE * float(np.max(np.abs(y[keep]))) / float(np.ptp(x[keep]))


def relative_gsr(system_gsr: float, perfect_gsr: float, noise_floor: float = 0.0) -> float:
    """§4.2.2 / Table 2: a system's GSR as a percentage above (or below) the perfect engine's.

    (m_s - m_P) / |m_P|, which is the paper's m_s / m_P - 1 whenever m_P > 0 and keeps its sign otherwise. Undefined
    (UndefinedMeasureError saying why) when m_P is NaN or zero up to rounding, |m_P| ≤ `noise_floor` (see
    slope_noise_floor): a percentage of rounding noise would be an arbitrary number such as -3e17 %.

    Args:
        system_gsr: m_s, the system's GSR.
        perfect_gsr: m_P, the perfect engine's GSR.
        noise_floor: The largest |m_P| that counts as zero.

    Returns:
        Relative GSR in percent.

    Raises:
        UndefinedMeasureError: If m_P is NaN or |m_P| ≤ `noise_floor`.

    Example:
        >>> relative_gsr(0.75, 0.5), relative_gsr(0.25, 0.5)
        (50.0, -50.0)
    """
    if math.isnan(perfect_gsr):
        raise UndefinedMeasureError("relative GSR is undefined: the perfect engine's GSR is undefined")
    if abs(perfect_gsr) <= noise_floor:
        raise UndefinedMeasureError(
            f"relative GSR is undefined: the perfect engine's GSR is zero up to rounding "
            f"(|{perfect_gsr:.3g}| ≤ {noise_floor:.3g})"
        )
    return 100.0 * (system_gsr - perfect_gsr) / abs(perfect_gsr)
