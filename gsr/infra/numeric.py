"""Small numeric helpers every package shares: the finite-check, row normalisation, guarded means and number
formatting, and letting go of the resident pages of a memory-mapped array."""

from __future__ import annotations

import math

import numpy as np

MISSING = "—"


def finite(value) -> float | None:
    """`value` as a float, or None when it is None, NaN or infinite (an undefined quantity)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def unit_rows(array: np.ndarray, *, in_place: bool = False) -> np.ndarray:
    """Every row (vector along the last axis) scaled to unit Euclidean length; all-zero rows stay zero."""
    array = np.asarray(array)
    out = array if in_place else array.copy()
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def mean_or_nan(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    """total / count elementwise where count > 0, NaN elsewhere (a mean over nothing is undefined)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


def format_number(value, digits: int = 4, sign: bool = False, missing: str = MISSING) -> str:
    """`value` with `digits` decimals (and a sign when asked); `missing` when undefined; float noise around an
    exact zero prints as 0, never -0.0000."""
    value = finite(value)
    if value is None:
        return missing
    if abs(value) < 0.5 * 10**-digits:
        value = 0.0
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


P_FLOOR = 0.001  # p-values under it print as "< 0.001": three decimals say all a reader decides with
P_DIGITS = 3


def format_p(p, missing: str = MISSING) -> str:
    """A p-value as every table, chart and sentence of the project shows it: 3 decimals (0.003, 1.000), or "< 0.001"
    under that (never 4.6e-05: a resampling p-value's digits below 0.001 are the resampling's, and a reader decides
    nothing with them); `missing` when there is none."""
    p = finite(p)
    if p is None:
        return missing
    return f"< {P_FLOOR:.{P_DIGITS}f}" if p < P_FLOOR else f"{p:.{P_DIGITS}f}"


def p_clause(p, name: str = "p") -> str:
    """`p = 0.003`, `p < 0.001` or `p n/a`: a p-value in a legend, a title or a sentence (format_p's rounding)."""
    text = format_p(p, missing="n/a")
    return f"{name} {text}" if text.startswith("<") or text == "n/a" else f"{name} = {text}"


def format_interval(interval, digits: int = 4, sign: bool = True) -> str:
    """`[low, high]` with format_number's rounding (signed by default, as the tables show intervals); "" when there is
    no interval or a bound is undefined."""
    if not interval or finite(interval[0]) is None or finite(interval[1]) is None:
        return ""
    return f"[{format_number(interval[0], digits, sign)}, {format_number(interval[1], digits, sign)}]"


def release_rows(vectors: np.ndarray, start: int, stop: int) -> None:
    """Let go of this process's resident pages of rows start:stop of a memory-mapped (read-only) array.

    The pages stay in the page cache and come back on the next access; a scan over a whole embedding (Eq. 1 for
    every word, debiasing) so no longer leaves gigabytes of it in the process's RSS. Nothing for other arrays.
    """
    import mmap

    mapping: object = vectors
    while mapping is not None and not isinstance(mapping, mmap.mmap):
        mapping = getattr(mapping, "base", None)
    if mapping is None or not hasattr(mmap, "MADV_DONTNEED") or not vectors.flags.c_contiguous:
        return
    origin = np.frombuffer(mapping, dtype=np.uint8).__array_interface__["data"][0]
    row_bytes = vectors.strides[0] if vectors.ndim else vectors.itemsize
    first = vectors.__array_interface__["data"][0] - origin + max(0, start) * row_bytes
    last = min(len(mapping), first + max(0, min(stop, len(vectors)) - max(0, start)) * row_bytes)
    first -= first % mmap.PAGESIZE
    if last > first:
        mapping.madvise(mmap.MADV_DONTNEED, first, last - first)
