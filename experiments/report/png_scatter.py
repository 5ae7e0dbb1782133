"""Figs. 8 and 9: every system's Eq. 3 scatter, g_q(L) on g(q), with its fitted line, its bootstrap band and the
perfect engine's line, one panel per system."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np

from experiments.report.png_kit import (
    FEMALE_COLOUR,
    MALE_COLOUR,
    NEUTRAL_COLOUR,
    draw_figure,
    draw_fit_line,
    new_figure,
    prune_end_ticks,
)
from gsr.infra.numeric import format_number


def draw_fit_band(ax, x: np.ndarray, result) -> None:
    """The bootstrap band of the fit line: per x, the interval of a_b + m_b·x over the resamples (result.bootstrap),
    at the level of result.ci."""
    fit, interval = getattr(result, "bootstrap", None), getattr(result, "ci", None)
    if fit is None or interval is None:
        return
    grid = np.linspace(float(np.min(x)), float(np.max(x)), 60)
    lines = fit.intercepts[:, None] + fit.slopes[:, None] * grid
    lines = lines[np.isfinite(fit.slopes)]
    if len(lines) < 2:
        return
    low, high = np.quantile(lines, [(1 - interval.level) / 2, (1 + interval.level) / 2], axis=0)
    ax.fill_between(grid, low, high, color="#555555", alpha=0.18, lw=0, zorder=1, label="bootstrap band")


def system_scatter_figure(results: dict, perfect, title: str = "", columns: int = 4):
    """Figs. 8 and 9: one panel per system, g(q) against g_q(L) with its least-squares line (solid), its bootstrap
    band (grey, when the result has one) and the perfect engine's line (dashed); the panel title gives the system's
    GSR and its interval."""
    names = list(results)
    columns = max(1, min(columns, len(names)))
    rows = max(1, math.ceil(len(names) / columns))
    fig = new_figure(3.3 * columns + 0.4, 3.1 * rows + 0.4)
    axes = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).ravel()
    perfect_x, perfect_y = (np.asarray(a, dtype=float) for a in perfect.points()) if perfect else (np.zeros(0),) * 2
    for ax, name in zip(axes, names):
        result = results[name]
        x, y = (np.asarray(a, dtype=float) for a in result.points())
        colours = [FEMALE_COLOUR if v > 0 else MALE_COLOUR if v < 0 else NEUTRAL_COLOUR for v in x]
        ax.axhline(0, color="#bbbbbb", lw=0.7, zorder=0)
        ax.axvline(0, color="#bbbbbb", lw=0.7, zorder=0)
        ax.scatter(x, y, s=10, c=colours, alpha=0.6, edgecolor="none", zorder=2)
        if len(x) >= 2 and np.ptp(x) > 0:
            draw_fit_line(ax, x, y, lw=1.3, zorder=3)
            draw_fit_band(ax, x, result)
        if len(perfect_x) >= 2 and np.ptp(perfect_x) > 0:
            draw_fit_line(ax, perfect_x, perfect_y, lw=1.1, ls="--", zorder=3)
        interval = getattr(result, "ci", None)
        bounds = f" [{interval.low:.2f}, {interval.high:.2f}]" if interval and interval.low is not None else ""
        # the name on its own line (wrapped): a 30-character system name beside its GSR runs into the next panel
        heading = "\n".join(textwrap.wrap(name, 34))
        ax.set_title(f"{heading}\nGSR = {format_number(result.gsr, 2, missing='undefined')}{bounds}", fontsize=8.5)
        ax.grid(alpha=0.25)
    prune_end_ticks(axes[0])  # its axes are every panel's (shared)
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    for ax in axes[(rows - 1) * columns :]:
        ax.set_xlabel("$g(q)$")
    for ax in axes[::columns]:
        ax.set_ylabel(r"$g_q(\mathcal{L})$")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()) if title else None)
    if title:  # placed in the strip tight_layout left free: above the first row's titles
        fig.suptitle(f"{title} (dashed: perfect engine)", y=1 - 0.12 / fig.get_figheight(), va="top")
    return fig


def plot_system_scatter(results: dict, perfect, path, title: str = "", columns: int = 4) -> Path:
    """Figs. 8 and 9 as a PNG at `path` (system_scatter_figure)."""
    return draw_figure(system_scatter_figure, (results, perfect, title, columns), path)
