"""Small numeric helpers every package shares: the finite-check, row normalisation, guarded means and number
formatting."""

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
