"""The GSR equations of Fabris et al.: genderedness of queries, documents and ranked lists, and the slope."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np


class GSRError(ValueError):
    """GSR is undefined for the given input (too few queries, no query genderedness variance, ...)."""


def mean_genderedness(values: Iterable[float | None]) -> float:
    """§3.3: average genderedness of a bag of words, ignoring out-of-vocabulary words; NaN if none is known."""
    known = [v for v in values if v is not None and not math.isnan(v)]
    return math.fsum(known) / len(known) if known else math.nan


def query_genderedness(terms: Sequence[str], lexicon) -> float:
    """g(q), §3.3: mean g(w) over the query's (stop-word-free) terms."""
    return mean_genderedness(lexicon.get(t) for t in terms)


def document_genderedness(terms: Sequence[str], lexicon, excluded: Iterable[str] = (), inflection_class=None) -> float:
    """g_q(d), §3.3: mean g(w) over the document's terms that are not query terms (nor their inflections)."""
    classify = inflection_class or (lambda w: w)
    banned = {classify(t) for t in excluded}
    return mean_genderedness(lexicon.get(t) for t in terms if classify(t) not in banned)


def rank_discounts(length: int) -> np.ndarray:
    """Eq. 2's weights w_k = 1 / log2(r_k + 1) for ranks r_k = 1..length."""
    return 1.0 / np.log2(np.arange(2, length + 2, dtype=np.float64))


def tied_rank_weights(tie_keys: Sequence) -> np.ndarray:
    """Eq. 2's weights when consecutive documents with equal keys (score, grade) are tied in rank.

    Tied documents share the mean of the discounts of the positions they span: the expected weight
    under a uniformly random order of the tie, so the total weight W is unchanged.
    """
    weights = rank_discounts(len(tie_keys))
    if len(tie_keys) < 2:
        return weights
    keys = list(tie_keys)
    starts = [0] + [i for i in range(1, len(keys)) if keys[i] != keys[i - 1]]
    sums = np.add.reduceat(weights, starts)
    sizes = np.diff(starts + [len(keys)])
    return np.repeat(sums / sizes, sizes)


def list_genderedness(document_values: Sequence[float], weights: Sequence[float] | None = None) -> float:
    """g_q(L), Eq. 2: discount-weighted mean of the documents' g_q(d); NaN documents are left out of W."""
    values = np.asarray(document_values, dtype=np.float64)
    weights = rank_discounts(len(values)) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(weights) != len(values):
        raise GSRError(f"{len(values)} documents but {len(weights)} weights")
    known = ~np.isnan(values)
    total = weights[known].sum()
    if not known.any() or total == 0:
        return math.nan
    return float(weights[known] @ values[known] / total)


def _centred_points(query_values: Sequence[float], list_values: Sequence[float]):
    """(g(q) − μ_q, g_q(L) − μ_L, σ²_g(q), kept mask) over the queries where both values are defined."""
    x = np.asarray(query_values, dtype=np.float64)
    y = np.asarray(list_values, dtype=np.float64)
    if x.shape != y.shape:
        raise GSRError(f"{len(x)} query values but {len(y)} list values")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 2:
        raise GSRError(f"GSR needs at least two queries with defined genderedness, got {len(x)}")
    dx = x - x.mean()
    variance = float(np.mean(dx * dx))
    if np.ptp(x) == 0 or variance <= 1e-24 * float(np.mean(x * x)):
        raise GSRError("GSR is undefined: every query has the same genderedness (zero variance)")
    return dx, y - y.mean(), variance, keep


def gsr_slope(query_values: Sequence[float], list_values: Sequence[float]) -> float:
    """m_s(Q, D), Eq. 3: least-squares slope of g_q(L) on g(q) over queries where both are defined."""
    dx, dy, variance, _ = _centred_points(query_values, list_values)
    return float(np.mean(dx * dy) / variance)


def gsr_slope_terms(query_values: Sequence[float], list_values: Sequence[float]) -> np.ndarray:
    """Eq. 3 split per query: (g(q_i) − μ_q)(g_qi(L_i) − μ_L)/σ², NaN where a value is undefined.

    The mean over the defined queries is m_s(Q, D), so tools that average per-query values (ir_measures,
    PyTerrier) report exactly the slope; undefined inputs raise GSRError as gsr_slope does.
    """
    dx, dy, variance, keep = _centred_points(query_values, list_values)
    terms = np.full(len(keep), np.nan)
    terms[keep] = dx * dy / variance
    return terms


# A slope is zero up to rounding when, over the whole g(q) range, it moves g_q(L) by less than this fraction of the
# largest |g_q(L)|: each g_q(L) is a float64 weighted mean of sums over up to thousands of tokens, whose relative
# rounding error stays far below 1e-12, while any slope a ranking can cause is many orders of magnitude above it.
SLOPE_NOISE = 1e-12


def slope_noise_floor(query_values: Sequence[float], list_values: Sequence[float]) -> float:
    """The largest |m| indistinguishable from 0 for these points: SLOPE_NOISE · max|g_q(L)| / (max g(q) − min g(q)).

    Computed over the queries where both values are defined; 0 when there are fewer than two or g(q) is constant.
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
    (GSRError saying why) when m_P is NaN or zero up to rounding, |m_P| ≤ `noise_floor` (see slope_noise_floor):
    a percentage of rounding noise would be an arbitrary number such as -3e17 %.
    """
    if math.isnan(perfect_gsr):
        raise GSRError("relative GSR is undefined: the perfect engine's GSR is undefined")
    if abs(perfect_gsr) <= noise_floor:
        raise GSRError(f"relative GSR is undefined: the perfect engine's GSR is zero up to rounding "
                       f"(|{perfect_gsr:.3g}| ≤ {noise_floor:.3g})")
    return 100.0 * (system_gsr - perfect_gsr) / abs(perfect_gsr)
