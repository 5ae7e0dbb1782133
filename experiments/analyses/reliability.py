"""Fig. 11 (§4.2.4): reliability of GSR across two measuring embeddings (their g(q), and the systems' GSR order)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments.analyses.common import AnalysisError, coefficient_text, correlation, fit_line, gender_colours
from experiments.registry import ANALYSES, AnalysisType
from experiments.report.plotly_charts import reliability_chart
from experiments.report.png_figures import (
    FEMALE_COLOUR,
    draw_figure,
    format_p,
    label_points,
    new_figure,
    prune_end_ticks,
)
from experiments.report.tables import write_table
from gsr.infra.numeric import finite


@dataclass
class Agreement:
    """Correlation of one quantity measured two ways: (key, a, b) points, coefficient, two-sided p."""

    method: str  # "pearson" or "spearman"
    coefficient: float | None
    p_value: float | None
    points: list[tuple[str, float, float]]
    skipped: list[str] = field(default_factory=list)
    names: tuple[str, str] = ("a", "b")

    @property
    def n(self) -> int:
        return len(self.points)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.array([a for _, a, _ in self.points], dtype=float),
            np.array([b for _, _, b in self.points], dtype=float),
        )

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "coefficient": self.coefficient,
            "p_value": self.p_value,
            "n": self.n,
            "names": list(self.names),
            "skipped": self.skipped,
            "points": [{"key": k, self.names[0]: a, self.names[1]: b} for k, a, b in self.points],
        }


def _agreement(method: str, a: Mapping[str, float | None], b: Mapping[str, float | None], names, what: str):
    points, skipped = [], []
    for key in sorted(set(a) | set(b), key=str):
        va, vb = finite(a.get(key)), finite(b.get(key))
        if va is None or vb is None:
            skipped.append(key)
        else:
            points.append((key, va, vb))
    if not points:
        raise AnalysisError(
            f"{what}: no key has a value under both {names[0]} and {names[1]} ({len(a)} and {len(b)} keys given)"
        )
    coefficient, p_value = correlation(method, [v for _, v, _ in points], [v for _, _, v in points])
    return Agreement(method, coefficient, p_value, points, skipped, tuple(names))


def query_genderedness_agreement(
    g_a: Mapping[str, float | None], g_b: Mapping[str, float | None], names: tuple[str, str] = ("a", "b")
) -> Agreement:
    """Fig. 11: Pearson's r between g(q) measured with two embeddings, over queries measured by both."""
    return _agreement("pearson", g_a, g_b, names, "query genderedness agreement")


def system_ranking_agreement(
    gsr_a: Mapping[str, float | None], gsr_b: Mapping[str, float | None], names: tuple[str, str] = ("a", "b")
) -> Agreement:
    """§4.2.4 (Table 2): Spearman's rho between systems' GSR measured with two embeddings."""
    return _agreement("spearman", gsr_a, gsr_b, names, "system ranking agreement")


@dataclass
class Reliability:
    """Fig. 11: agreement of g(q) (Pearson) and of the systems' GSR ranking (Spearman) under two embeddings."""

    query_genderedness: Agreement
    system_ranking: Agreement

    def to_dict(self) -> dict:
        return {
            "query_genderedness": self.query_genderedness.to_dict(),
            "system_ranking": self.system_ranking.to_dict(),
        }


def compute(experiment, result, options: dict) -> Reliability:
    """Agreement between the first two measuring embeddings. The systems ranked are Table 2's rows: every system and
    debiased variant, and the perfect engine (Table 2's first row); the random engine is not in Table 2."""
    from experiments.experiment_result import PERFECT

    a, b = experiment.config.measuring[:2]
    systems = [s.name for s in experiment.config.systems] + [PERFECT]
    return Reliability(
        query_genderedness_agreement(result.query_genderedness[a], result.query_genderedness[b], names=(a, b)),
        system_ranking_agreement(
            {s: result.system_gsr[a][s].gsr for s in systems},
            {s: result.system_gsr[b][s].gsr for s in systems},
            names=(a, b),
        ),
    )


def reliability_figure(query_agreement, ranking_agreement):
    """Fig. 11: g(q) under embedding a (x) and b (y) with Pearson's r; beside it, when given, each system's GSR under
    a and b, labelled, with Spearman's rho."""
    if query_agreement is None and ranking_agreement is None:
        raise AnalysisError("plot_reliability: nothing to plot")
    panels = [a for a in (query_agreement, ranking_agreement) if a is not None]
    fig = new_figure(4.4 * len(panels) + 0.4, 4.2)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, agreement in zip(axes, panels):
        prune_end_ticks(ax)
        x, y = agreement.arrays()
        a_name, b_name = agreement.names
        if agreement is query_agreement:
            ax.scatter(x, y, s=12, c=gender_colours(x), alpha=0.7, edgecolor="none", zorder=2)
            ax.axhline(0, color="#bbbbbb", lw=0.7, zorder=0)
            ax.axvline(0, color="#bbbbbb", lw=0.7, zorder=0)
            ax.set_xlabel(f"$g(q)$, {a_name}")
            ax.set_ylabel(f"$g(q)$, {b_name}")
            title = f"queries: Pearson's {coefficient_text('r', agreement.coefficient)}"
        else:
            ax.scatter(x, y, s=28, color=FEMALE_COLOUR, edgecolor="black", lw=0.5, zorder=2)
            ax.set_xlabel(f"GSR, {a_name}")
            ax.set_ylabel(f"GSR, {b_name}")
            rho = coefficient_text(r"$\rho$", agreement.coefficient)
            title = f"systems: Spearman's {rho}"
        fit_line(ax, x, y)
        ax.set_title(f"{title}, {format_p(agreement.p_value)} (n = {agreement.n})", fontsize=9)
        ax.grid(alpha=0.25)
    fig.tight_layout()
    if ranking_agreement is not None:  # named once the layout is final, where a name covers no other
        label_points(axes[-1], [(str(key), xa, yb) for key, xa, yb in ranking_agreement.points], fontsize=7)
    return fig


def plot_reliability(query_agreement, ranking_agreement, path) -> Path:
    """Fig. 11 as a PNG at `path` (reliability_figure)."""
    return draw_figure(reliability_figure, (query_agreement, ranking_agreement), path)


def write(reliability: Reliability, out: Path, plots: bool) -> dict[str, Path]:
    """fig11_reliability.{md,csv,json} (the two coefficients) and, with plots, fig11_reliability.png."""
    queries, ranking = reliability.query_genderedness, reliability.system_ranking
    rows = [
        {"agreement": "g(q), Pearson r", "coefficient": queries.coefficient, "p": queries.p_value, "n": queries.n},
        {
            "agreement": "system ranking by GSR, Spearman ρ",
            "coefficient": ranking.coefficient,
            "p": ranking.p_value,
            "n": ranking.n,
        },
    ]
    written = write_table(
        out,
        "fig11_reliability",
        f"Fig. 11: reliability across measuring embeddings ({' vs '.join(queries.names)})",
        rows,
    )
    if plots:
        written["fig11"] = plot_reliability(queries, ranking, out / "fig11_reliability.png")
    return written


ANALYSES.register(
    AnalysisType(
        "reliability",
        "Fig. 11: Pearson r of g(q) and Spearman ρ of the GSR of Table 2's rows (every system and variant, "
        "and the perfect engine) under two measuring embeddings",
        compute,
        write,
        needs="two measuring embeddings ([gsr] measuring)",
        applicable=lambda config: len(config.measuring) >= 2,
        writes=("fig11_reliability",),
        charts=lambda value: {"fig11_reliability": reliability_chart(value)},
    )
)
