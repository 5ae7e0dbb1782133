"""What the analyses share: their error type, correlation with a p-value, and the figures' colours and grids."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from experiments.report.png_figures import (
    FEMALE_COLOUR,
    MALE_COLOUR,
    NEUTRAL_COLOUR,
    draw_fit_line,
    new_figure,
    prune_end_ticks,
)
from gsr.errors import GSRError
from gsr.infra.numeric import finite, format_number


class AnalysisError(GSRError):
    """Input an analysis cannot use; the message names the query, document, word or file at fault."""


def correlation(method: str, x: ArrayLike, y: ArrayLike) -> tuple[float | None, float | None]:
    """(coefficient, two-sided p) of Pearson or Spearman; None for fewer than 3 points or a constant variable."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    from scipy import stats

    result = stats.pearsonr(x, y) if method == "pearson" else stats.spearmanr(x, y)
    return finite(result[0]), finite(result[1])


def mean_paired_difference(a: dict, b: dict) -> float | None:
    """The mean of a[q] − b[q] over the queries both hold (None when they share none)."""
    common = sorted(set(a) & set(b))
    return math.fsum(a[q] - b[q] for q in common) / len(common) if common else None


def gender_colours(g_values) -> list[str]:
    """Purple for female (g > 0), orange for male (g < 0), grey for 0: the paper's colours."""
    return [FEMALE_COLOUR if v > 0 else MALE_COLOUR if v < 0 else NEUTRAL_COLOUR for v in g_values]


def coefficient_text(symbol: str, value: float | None) -> str:
    """`r = 0.8123`: a coefficient in a figure's title as the tables show it (format_number: 4 decimals)."""
    return f"{symbol} = {format_number(value, missing='n/a')}"


def fit_line(ax, x: np.ndarray, y: np.ndarray) -> None:
    """The least-squares line, when x varies."""
    if len(x) >= 2 and np.ptp(x) > 0:
        draw_fit_line(ax, x, y, lw=1.2, zorder=3)


def panel_grid(count: int, columns: int, width: float, height: float):
    """A figure with `count` panels in rows of `columns`, unused panels hidden: (figure, axes)."""
    columns = max(1, min(columns, count))
    rows = math.ceil(count / columns)
    fig = new_figure(width * columns + 0.4, height * rows + 0.4)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes:
        prune_end_ticks(ax)
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes
