"""The paper's figures as PNG files: Fig. 1 (stereotype tests), Figs. 4 and 6 (toy engines), Fig. 5 (parity
agreement), Fig. 7 (query genderedness) and Figs. 8-9 (every system's Eq. 3 scatter with its fit and bootstrap band).

Matplotlib is imported inside each function and drawn on its Agg canvas directly (no pyplot, no global
backend switch), so importing this module costs nothing and works without a display. Each figure has a function
that builds and returns the matplotlib Figure (`*_figure`: what callers and tests inspect) and a `plot_*` wrapper
that writes it as one PNG with save_figure (parent folders created, written atomically) and returns its Path.
Colours follow the paper: orange for male (g < 0), purple for female (g > 0).
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np

from experiments.report.png_kit import (
    DIVERGING_CMAP,
    DPI,
    ENGINE_ORDER,
    FEMALE_COLOUR,
    G_LABEL,
    MALE_COLOUR,
    NEUTRAL_COLOUR,
    UNKNOWN_COLOUR,
    draw_figure,
    draw_fit_line,
    figures_aside,
    format_p,
    label_points,
    new_figure,
    prune_end_ticks,
    save_figure,
)
from gsr.infra.numeric import format_number

__all__ = [  # the figures' kit and Figs. 8-9 are named here too: analyses and users import them from this module
    "DIVERGING_CMAP",
    "DPI",
    "ENGINE_ORDER",
    "FEMALE_COLOUR",
    "G_LABEL",
    "MALE_COLOUR",
    "NEUTRAL_COLOUR",
    "UNKNOWN_COLOUR",
    "draw_figure",
    "draw_fit_band",
    "draw_fit_line",
    "figures_aside",
    "format_p",
    "label_points",
    "new_figure",
    "parity_agreement_figure",
    "plot_parity_agreement",
    "plot_query_genderedness",
    "plot_stereotype_tests",
    "plot_system_scatter",
    "plot_toy_engines",
    "prune_end_ticks",
    "query_genderedness_figure",
    "save_figure",
    "stereotype_tests_figure",
    "system_scatter_figure",
    "toy_engines_figure",
]

_STEREOTYPE_LABELS = {
    "agency_communion": "agency vs communion",
    "science_arts": "science vs arts",
    "career_family": "career vs family",
    "jobs": "jobs_m vs jobs_f",
}


def stereotype_tests_figure(tests, reference: dict[str, float]):
    """Fig. 1 (lower part): per contrast, each word's g(w) (male set orange, female set purple), the set
    means as large markers and the one-tailed permutation p-value; a last row with the reference words."""
    tests = list(tests)
    reference = {w: float(g) for w, g in (reference or {}).items() if g is not None and not math.isnan(g)}
    n_rows = len(tests) + (1 if reference else 0)
    fig = new_figure(8.0, 1.0 + 0.8 * max(n_rows, 1))
    ax = fig.add_subplot(1, 1, 1)
    offset = 0.14  # male dots above the row's centre line, female dots below
    labels: list[str] = []
    ys: list[float] = []
    values: list = []
    missing: list[str] = []
    for i, test in enumerate(tests):
        y = n_rows - i
        male = np.array(list(test.male_words.values()), dtype=float)
        female = np.array(list(test.female_words.values()), dtype=float)
        values.extend(male)
        values.extend(female)
        ax.axhline(y, color="#eeeeee", lw=0.8, zorder=0)
        ax.scatter(male, np.full(len(male), y + offset), s=14, color=MALE_COLOUR, alpha=0.7, lw=0, zorder=2)
        ax.scatter(female, np.full(len(female), y - offset), s=14, color=FEMALE_COLOUR, alpha=0.7, lw=0, zorder=2)
        ax.plot([test.male_mean, test.female_mean], [y + offset, y - offset], color="#666666", lw=0.8, zorder=1)
        ax.scatter(
            [test.male_mean], [y + offset], s=110, marker="D", color=MALE_COLOUR, edgecolor="black", lw=0.8, zorder=3
        )
        ax.scatter(
            [test.female_mean],
            [y - offset],
            s=110,
            marker="D",
            color=FEMALE_COLOUR,
            edgecolor="black",
            lw=0.8,
            zorder=3,
        )
        p_text = format_p(test.p_value)
        if not getattr(test, "exact", True):
            p_text += " (MC)"
        ax.annotate(
            p_text,
            xy=(1.02, y),
            xycoords=("axes fraction", "data"),
            va="center",
            ha="left",
            fontsize=9,
            annotation_clip=False,
        )
        labels.append(_STEREOTYPE_LABELS.get(test.name, test.name.replace("_", " vs ", 1)))
        ys.append(y)
        missing.extend(getattr(test, "missing", []) or [])
    if reference:
        y = 1
        ax.axhline(y, color="#eeeeee", lw=0.8, zorder=0)
        words = sorted(reference, key=lambda word: reference[word])
        for k, word in enumerate(words):
            g = reference[word]
            colour = FEMALE_COLOUR if g > 0 else MALE_COLOUR if g < 0 else NEUTRAL_COLOUR
            ax.scatter([g], [y], s=60, marker="o", color=colour, edgecolor="black", lw=0.6, zorder=3)
            above = k % 2 == 0
            ax.annotate(
                word,
                xy=(g, y),
                xytext=(0, 8 if above else -8),
                textcoords="offset points",
                ha="center",
                va="bottom" if above else "top",
                fontsize=8.5,
            )
            values.append(g)
        labels.append("reference words")
        ys.append(y)
    extent = max([abs(v) for v in values if not math.isnan(v)] + [0.05]) * 1.12
    ax.set_xlim(-extent, extent)
    ax.set_ylim(0.4, n_rows + 0.6)
    ax.set_yticks(ys, labels)
    ax.tick_params(axis="y", length=0)
    ax.axvline(0, color="#999999", lw=0.8, ls="--", zorder=0)
    ax.set_xlabel(G_LABEL)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], ls="", marker="o", ms=5, color=MALE_COLOUR, label="male-stereotyped words"),
        Line2D([], [], ls="", marker="o", ms=5, color=FEMALE_COLOUR, label="female-stereotyped words"),
        Line2D([], [], ls="", marker="D", ms=8, color="white", markeredgecolor="black", label="set mean"),
    ]
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=8.5)
    if missing:
        fig.text(
            0.01, 0.0, "not in the embedding: " + ", ".join(missing), fontsize=7, color="#666666", ha="left", va="top"
        )
    return fig


def plot_stereotype_tests(tests, reference: dict[str, float], path) -> Path:
    """Fig. 1 as a PNG at `path` (stereotype_tests_figure)."""
    return draw_figure(stereotype_tests_figure, (tests, reference), path)


def toy_engines_figure(results: dict, title: str = ""):
    """Figs. 4 and 6: one panel per engine (S, N, CS first), g(q) against g_q(L) with the least-squares
    line; the panel title gives the engine's GSR, e.g. "S: m = 0.63"."""
    names = [n for n in ENGINE_ORDER if n in results] + [n for n in results if n not in ENGINE_ORDER]
    fig = new_figure(3.6 * max(len(names), 1) + 0.4, 3.8)
    axes = fig.subplots(1, max(len(names), 1), sharex=True, sharey=True, squeeze=False)[0]
    every_x: list[float] = []
    every_y: list[float] = []
    for ax, name in zip(axes, names):
        result = results[name]
        x, y = (np.asarray(a, dtype=float) for a in result.points())
        every_x.extend(x)
        every_y.extend(y)
        colours = [FEMALE_COLOUR if v > 0 else MALE_COLOUR if v < 0 else NEUTRAL_COLOUR for v in x]
        ax.axhline(0, color="#bbbbbb", lw=0.7, zorder=0)
        ax.axvline(0, color="#bbbbbb", lw=0.7, zorder=0)
        ax.scatter(x, y, s=22, c=colours, alpha=0.8, edgecolor="white", lw=0.4, zorder=2)
        if len(x) >= 2 and np.ptp(x) > 0:
            draw_fit_line(ax, x, y, lw=1.3, zorder=3)
        elif len(x) == 0:
            ax.text(0.5, 0.5, "no measurable query", transform=ax.transAxes, ha="center", va="center", color="#666666")
        ax.set_title(f"{name}: m = {format_number(result.gsr, 2, missing='undefined')}")
        ax.set_xlabel("$g(q)$")
        ax.grid(alpha=0.25)
    axes[0].set_ylabel(r"$g_q(\mathcal{L})$")
    if every_x:
        for values, setter in ((every_x, axes[0].set_xlim), (every_y, axes[0].set_ylim)):
            low, high = min(values), max(values)
            pad = 0.08 * (high - low) if high > low else 0.05
            setter(low - pad, high + pad)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_toy_engines(results: dict, path, title: str = "") -> Path:
    """Figs. 4 and 6 as a PNG at `path` (toy_engines_figure)."""
    return draw_figure(toy_engines_figure, (results, title), path)


def parity_agreement_figure(agreement):
    """Fig. 5: GSR against the share of stereotypical documents among those retrieved, for the sampled
    solutions; the title gives Pearson's r over every solution."""
    share = 100.0 * np.asarray(agreement.sample_share, dtype=float)
    gsr = np.asarray(agreement.sample_gsr, dtype=float)
    fig = new_figure(5.6, 4.4)
    ax = fig.add_subplot(1, 1, 1)
    ax.scatter(share, gsr, s=8, color=FEMALE_COLOUR, alpha=0.35, lw=0)
    keep = ~(np.isnan(share) | np.isnan(gsr))
    if keep.sum() >= 2 and np.ptp(share[keep]) > 0:
        draw_fit_line(ax, share[keep], gsr[keep], lw=1.2)
    ax.axvline(50, color="#bbbbbb", lw=0.7, zorder=0)
    ax.axhline(0, color="#bbbbbb", lw=0.7, zorder=0)
    definition = "census majority" if getattr(agreement, "stereotype", "polarity") == "census" else "polarity of g(q)"
    ax.set_xlabel(f"stereotypical documents ({definition}) among retrieved ones (%)")
    ax.set_ylabel("GSR")
    ax.set_title(
        f"r = {agreement.pearson_r:.2f} over {agreement.n_solutions:,} solutions; {len(gsr):,} shown", fontsize=10
    )
    ax.grid(alpha=0.25)
    fig.tight_layout()
    return fig


def plot_parity_agreement(agreement, path) -> Path:
    """Fig. 5 as a PNG at `path` (parity_agreement_figure)."""
    return draw_figure(parity_agreement_figure, (agreement,), path)


def _text_width_pt(fig, renderer, text: str, **kwargs) -> float:
    artist = fig.text(0, 0, text, **kwargs)
    width = artist.get_window_extent(renderer).width * 72.0 / fig.dpi
    artist.remove()
    return width


def query_genderedness_figure(queries, top: int = 10):
    """Fig. 7: the `top` most female and most male queries, each term coloured by its g on a shared,
    symmetric diverging scale (purple female, orange male, white neutral, grey unknown) with g beneath it,
    and the query id and g(q) at the left. Queries whose genderedness is None are left out."""
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize, to_rgb

    measured = [q for q in queries if q.get("genderedness") is not None and not math.isnan(q["genderedness"])]
    measured.sort(key=lambda q: -q["genderedness"])  # most female first (stable for equal values)
    panels = [("most female queries", measured[:top]), ("most male queries", measured[::-1][:top])]

    word_size, g_size, label_size = 11.0, 7.0, 9.0
    box_pad = 3.0  # points of box padding around each word
    gap = 6.0  # points between word boxes
    row_height = 36.0  # points per line of words (box, g value beneath, spacing)
    max_line = 480.0  # points of words per line before a query wraps
    shown_g = [t.get("g") for _, rows in panels for q in rows for t in q.get("terms", [])]
    shown_g = [g for g in shown_g if g is not None and not math.isnan(g)]
    vmax = max([abs(g) for g in shown_g] + [1e-3])
    norm = Normalize(-vmax, vmax)
    fig = new_figure(8, 4)
    renderer = fig.canvas.get_renderer()
    cmap = matplotlib.colormaps[DIVERGING_CMAP]

    # Lay every panel out in points first, then size the figure so that one data unit is one point.
    layouts, qid_width, score_width, words_width = [], 0.0, 0.0, 0.0
    for _, rows in panels:
        laid = []
        for q in rows:
            label = f"{q.get('qid', '')}"
            score = f"{q['genderedness']:+.3f}"
            qid_width = max(qid_width, _text_width_pt(fig, renderer, label, fontsize=label_size, weight="bold"))
            score_width = max(score_width, _text_width_pt(fig, renderer, score, fontsize=label_size))
            lines: list[list] = [[]]
            x = 0.0
            for term in q.get("terms", []):
                word = str(term.get("term", ""))
                width = _text_width_pt(fig, renderer, word, fontsize=word_size) + 2 * box_pad
                width = max(width, _text_width_pt(fig, renderer, "+0.00", fontsize=g_size) + 2)
                if lines[-1] and x + width > max_line:
                    lines.append([])
                    x = 0.0
                lines[-1].append((x, width, word, term.get("g")))
                x += width + gap
                words_width = max(words_width, x - gap)
            laid.append((label, score, lines))
        layouts.append(laid)
    words_width = max(words_width, 120.0)
    label_width = qid_width + 8 + score_width + 10  # "qid  g(q)" then the words
    panel_width = label_width + 8 + words_width
    panel_lines = [sum(len(lines) for _, _, lines in laid) for laid in layouts]
    panel_height = max(max(panel_lines), 1) * row_height

    margin, between, title_h, bar_h, bar_gap = 12.0, 36.0, 22.0, 10.0, 16.0
    width_pt = 2 * margin + 2 * panel_width + between
    height_pt = margin + title_h + panel_height + bar_gap + bar_h + 30.0
    fig.set_size_inches(width_pt / 72.0, height_pt / 72.0)
    for k, ((title, rows), laid) in enumerate(zip(panels, layouts)):
        left = margin + k * (panel_width + between)
        ax = fig.add_axes(
            [
                left / width_pt,
                (height_pt - margin - title_h - panel_height) / height_pt,
                panel_width / width_pt,
                panel_height / height_pt,
            ]
        )
        ax.set_xlim(0, panel_width)
        ax.set_ylim(panel_height, 0)
        ax.axis("off")
        ax.set_title(f"{title}", fontsize=11, loc="left", pad=6)
        if not rows:
            ax.text(
                panel_width / 2, row_height / 2, "no query with genderedness", ha="center", va="center", color="#666666"
            )
        line_no = 0
        for label, score, lines in laid:
            top_y = line_no * row_height
            ax.text(0, top_y + 10, label, fontsize=label_size, weight="bold", ha="left", va="center")
            ax.text(
                qid_width + 8 + score_width,
                top_y + 10,
                score,
                fontsize=label_size,
                ha="right",
                va="center",
                color="#444444",
            )
            for line in lines:
                y = line_no * row_height + 10
                for x, width, word, g in line:
                    known = g is not None and not math.isnan(g)
                    face = cmap(norm(g)) if known else UNKNOWN_COLOUR
                    r, gr, b = to_rgb(face)
                    ink = "white" if 0.299 * r + 0.587 * gr + 0.114 * b < 0.5 else "black"
                    centre = label_width + 8 + x + width / 2
                    ax.text(
                        centre,
                        y,
                        word,
                        fontsize=word_size,
                        ha="center",
                        va="center",
                        color=ink,
                        bbox=dict(boxstyle="round,pad=0.2", facecolor=face, edgecolor="#b0b0b0", lw=0.4),
                    )
                    ax.text(
                        centre,
                        y + 15,
                        f"{g:+.2f}" if known else "n/a",
                        fontsize=g_size,
                        ha="center",
                        va="center",
                        color="#555555",
                    )
                line_no += 1
    cax = fig.add_axes([(width_pt / 2 - 150) / width_pt, 30.0 / height_pt, 300 / width_pt, bar_h / height_pt])
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax, orientation="horizontal")
    bar.set_label("term " + G_LABEL + "; grey: not in the embedding", fontsize=8.5)
    bar.ax.tick_params(labelsize=7.5)
    return fig


def plot_query_genderedness(queries, path, top: int = 10) -> Path:
    """Fig. 7 as a PNG at `path` (query_genderedness_figure)."""
    return draw_figure(query_genderedness_figure, (queries, top), path)


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
    # one scale for every panel, set by hand rather than by sharing the axes: with 30 shared panels every limit lookup
    # visits all of them (matplotlib's sibling groups), a third of the figure's time
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
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
    shown = axes[: len(names)]
    xlims, ylims = np.array([ax.get_xlim() for ax in shown]), np.array([ax.get_ylim() for ax in shown])
    for ax in shown:
        ax.set_xlim(xlims[:, 0].min(), xlims[:, 1].max())
        ax.set_ylim(ylims[:, 0].min(), ylims[:, 1].max())
        prune_end_ticks(ax)
        ax.label_outer()  # tick labels on the bottom row and the first column only, as for shared axes
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
