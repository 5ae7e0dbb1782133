"""Figures 10-12 of the paper as PNG files, drawn from experiments.analyses results with gsr.plots' helpers.

Fig. 10: |g(q)| against the Kendall tau distance of rankings before/after debiasing, one panel per system.
Fig. 11: g(q) under two measuring embeddings (and, beside it, systems' GSR under both).
Fig. 12: per g(q) bin, the share of queries whose retrieved documents over-represent male / female entities.
Each function returns the Path written; an empty input raises AnalysisError.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from experiments.analyses import AnalysisError
from gsr.plots import (
    FEMALE_COLOUR,
    MALE_COLOUR,
    NEUTRAL_COLOUR,
    draw_fit_line,
    format_p,
    new_figure,
    save_figure,
)


def _colours(g_values) -> list[str]:
    return [FEMALE_COLOUR if v > 0 else MALE_COLOUR if v < 0 else NEUTRAL_COLOUR for v in g_values]


def _coefficient(symbol: str, value: float | None) -> str:
    return f"{symbol} = n/a" if value is None else f"{symbol} = {value:.2f}"


def _fit(ax, x: np.ndarray, y: np.ndarray) -> None:
    if len(x) >= 2 and np.ptp(x) > 0:
        draw_fit_line(ax, x, y, lw=1.2, zorder=3)


def _panel_grid(count: int, columns: int, width: float, height: float):
    columns = max(1, min(columns, count))
    rows = math.ceil(count / columns)
    fig = new_figure(width * columns + 0.4, height * rows + 0.4)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes


def plot_rank_change(changes: dict, path, columns: int = 3) -> Path:
    """Fig. 10: per system, |g(q)| (x) against the Kendall tau distance of its top lists before and after debiasing
    (y), dots coloured by the sign of g(q), least-squares line; Pearson's r and p in each panel's title."""
    if not changes:
        raise AnalysisError("plot_rank_change: no system to plot")
    fig, axes = _panel_grid(len(changes), columns, 3.6, 3.3)
    for ax, (name, change) in zip(axes, changes.items()):
        x, y = change.arrays()
        ax.scatter(x, y, s=12, c=_colours([q.g_query for q in change.points]), alpha=0.7, edgecolor="none", zorder=2)
        _fit(ax, x, y)
        ax.set_title(f"{name}: {_coefficient('r', change.r)}, {format_p(change.p_value)} (n = {change.n})",
                     fontsize=9)
        ax.set_xlabel("$|g(q)|$")
        ax.set_ylabel(f"Kendall $\\tau$ distance, top {change.depth}")
        ax.set_xlim(left=0)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.25)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_reliability(query_agreement, ranking_agreement, path) -> Path:
    """Fig. 11: g(q) under embedding a (x) and b (y) with Pearson's r; beside it, when given, each system's GSR under
    a and b, labelled, with Spearman's rho."""
    if query_agreement is None and ranking_agreement is None:
        raise AnalysisError("plot_reliability: nothing to plot")
    panels = [a for a in (query_agreement, ranking_agreement) if a is not None]
    fig = new_figure(4.4 * len(panels) + 0.4, 4.2)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, agreement in zip(axes, panels):
        x, y = agreement.arrays()
        a_name, b_name = agreement.names
        if agreement is query_agreement:
            ax.scatter(x, y, s=12, c=_colours(x), alpha=0.7, edgecolor="none", zorder=2)
            ax.axhline(0, color="#bbbbbb", lw=0.7, zorder=0)
            ax.axvline(0, color="#bbbbbb", lw=0.7, zorder=0)
            ax.set_xlabel(f"$g(q)$, {a_name}")
            ax.set_ylabel(f"$g(q)$, {b_name}")
            title = f"queries: Pearson's {_coefficient('r', agreement.coefficient)}"
        else:
            ax.scatter(x, y, s=28, color=FEMALE_COLOUR, edgecolor="black", lw=0.5, zorder=2)
            for key, xa, yb in agreement.points:
                ax.annotate(str(key), (xa, yb), xytext=(3, 3), textcoords="offset points", fontsize=7)
            ax.set_xlabel(f"GSR, {a_name}")
            ax.set_ylabel(f"GSR, {b_name}")
            rho = _coefficient(r"$\rho$", agreement.coefficient)
            title = f"systems: Spearman's {rho}"
        _fit(ax, x, y)
        ax.set_title(f"{title}, {format_p(agreement.p_value)} (n = {agreement.n})", fontsize=9)
        ax.grid(alpha=0.25)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_gap_shares(shares: dict, path, columns: int = 2) -> Path:
    """Fig. 12: per system, stacked bars over g(q) bins: % of queries over-representing intrinsically male documents
    (orange, bottom), neither (grey) and female (purple, top); n above each bar, empty bins marked."""
    if not shares:
        raise AnalysisError("plot_gap_shares: no system to plot")
    fig, axes = _panel_grid(len(shares), columns, 4.6, 3.6)
    for ax, (name, rows) in zip(axes, shares.items()):
        positions = np.arange(len(rows))
        bottom = np.zeros(len(rows))
        for side, colour, label in (("male", MALE_COLOUR, "male favoured"), ("neither", NEUTRAL_COLOUR, "neither"),
                                    ("female", FEMALE_COLOUR, "female favoured")):
            heights = np.array([100.0 * (row[side] or 0.0) for row in rows])
            ax.bar(positions, heights, bottom=bottom, color=colour, width=0.75, label=label, edgecolor="white",
                   lw=0.5)
            bottom += heights
        for x, row in zip(positions, rows):
            ax.text(x, 101, f"n={row['n']}" if row["n"] else "empty", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(positions, [row["label"] for row in rows], rotation=30, ha="right", fontsize=7.5)
        ax.set_ylim(0, 110)
        ax.set_ylabel("queries (%)")
        ax.set_xlabel("$g(q)$ (female > 0)")
        ax.set_title(name, fontsize=10)
    fig.tight_layout()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False, fontsize=8)
    return save_figure(fig, path)
