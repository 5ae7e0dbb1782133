"""Fig. 10 (§4.2.3): how far debiasing moves each system's rankings, against the query's |g(q)|."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments.analyses.common import (
    AnalysisError,
    coefficient_text,
    correlation,
    fit_line,
    gender_colours,
    panel_grid,
)
from experiments.parts import cached_part
from experiments.registry import ANALYSES, AnalysisType
from experiments.report.plotly_charts import rank_change_chart
from experiments.report.png_figures import draw_figure, format_p
from experiments.report.tables import write_table
from gsr.infra.digests import content_key
from gsr.infra.numeric import finite
from gsr.infra.params import Param
from gsr.io.types import Run


def _top(ranking: Sequence[str] | Sequence[tuple[str, float]], depth: int, which: str) -> list[str]:
    docs = [d[0] if isinstance(d, (tuple, list)) else d for d in ranking][:depth]
    if not docs:
        raise AnalysisError(f"kendall_tau_distance: the {which} ranking is empty")
    seen: set[str] = set()
    for d in docs:
        if d in seen:
            raise AnalysisError(f"kendall_tau_distance: document {d} appears twice in the {which} ranking")
        seen.add(d)
    return docs


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def kendall_tau_distance(
    before: Sequence[str] | Sequence[tuple[str, float]],
    after: Sequence[str] | Sequence[tuple[str, float]],
    depth: int = 100,
    p: float = 0.5,
) -> float:
    """Fig. 10's Kendall tau distance: Fagin et al.'s (2003) K^(p) between two top-`depth` lists, normalised to [0, 1].

    Over every pair of documents in the union of the two lists, K^(p) charges 1 when both lists hold both documents
    in opposite orders; 1 when one list holds both, the other only one of them, and the first list ranks the missing
    one higher; 1 when each list holds a different one of the two; p when both are missing from one list; else 0.
    The sum is divided by what the same pairs would cost if no pair were placed alike (1 per pair, p for the pairs
    missing from one list), so identical lists are at 0 and a reversed list or one with no shared document at 1.
    A list that is a prefix of the other is at 0 (the shorter list says nothing about the documents it lacks).
    Items may be document ids or (docid, score) pairs; only the order counts.
    """
    if not isinstance(depth, int) or depth < 1:
        raise AnalysisError(f"kendall_tau_distance: depth must be a positive integer, not {depth!r}")
    if not 0.0 <= p <= 1.0:
        raise AnalysisError(f"kendall_tau_distance: p must lie in [0, 1], not {p!r}")
    a, b = _top(before, depth, "before"), _top(after, depth, "after")
    pos_a = {d: i for i, d in enumerate(a)}
    pos_b = {d: i for i, d in enumerate(b)}
    common_in_a = np.array([pos_a[d] for d in a if d in pos_b])  # ascending
    common_in_b = np.array(sorted(pos_b[d] for d in b if d in pos_a))
    only_a = [pos_a[d] for d in a if d not in pos_b]
    only_b = [pos_b[d] for d in b if d not in pos_a]
    c, na, nb = len(common_in_a), len(only_a), len(only_b)
    order_in_b = np.array([pos_b[d] for d in a if d in pos_b])  # shared documents in a's order
    discordant = int(np.triu(order_in_b[:, None] > order_in_b[None, :], 1).sum()) if c > 1 else 0
    # A document missing from b that a ranks above a shared one: b implicitly ranks it below, so the pair flips.
    flipped_a = sum(c - int(np.searchsorted(common_in_a, i)) for i in only_a)
    flipped_b = sum(c - int(np.searchsorted(common_in_b, i)) for i in only_b)
    unshared = _pairs(na) + _pairs(nb)
    penalty = discordant + flipped_a + flipped_b + na * nb + p * unshared
    worst = _pairs(c) + c * (na + nb) + na * nb + p * unshared
    return 0.0 if worst == 0 else float(penalty / worst)


@dataclass
class RankChangePoint:
    """One query of Fig. 10: its genderedness and how far debiasing moved its ranking."""

    qid: str
    g_query: float
    abs_g: float
    distance: float


@dataclass
class RankChange:
    """Fig. 10 for one system: per-query points, Pearson's r (p) between |g(q)| and the distance, skipped queries."""

    points: list[RankChangePoint]
    r: float | None
    p_value: float | None
    depth: int
    skipped: dict[str, list[str]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.points)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(|g(q)|, distance) of every measured query."""
        return (
            np.array([q.abs_g for q in self.points], dtype=float),
            np.array([q.distance for q in self.points], dtype=float),
        )

    def to_dict(self) -> dict:
        return {
            "r": self.r,
            "p_value": self.p_value,
            "n": self.n,
            "depth": self.depth,
            "skipped": self.skipped,
            "per_query": [vars(q).copy() for q in self.points],
        }


def rank_change_by_genderedness(
    before: Run, after: Run, g_query: Mapping[str, float | None], depth: int = 100, p: float = 0.5
) -> RankChange:
    """Fig. 10: per query, |g(q)| against the Kendall tau distance of its top-`depth` lists before and after debiasing.

    Queries without a genderedness (None, NaN or absent from g_query) or with an empty or missing list in either run
    are listed in `skipped` by reason; r and p are None for fewer than 3 points or a constant variable.
    """
    points: list[RankChangePoint] = []
    skipped: dict[str, list[str]] = {}
    for qid in sorted(set(before) | set(after) | set(g_query)):
        g = finite(g_query.get(qid))
        if g is None:
            skipped.setdefault("no_genderedness", []).append(qid)
        elif not before.get(qid):
            skipped.setdefault("empty_before", []).append(qid)
        elif not after.get(qid):
            skipped.setdefault("empty_after", []).append(qid)
        else:
            distance = kendall_tau_distance(before[qid], after[qid], depth=depth, p=p)
            points.append(RankChangePoint(qid, g, abs(g), distance))
    if not points:
        counts = ", ".join(f"{reason}: {len(q)}" for reason, q in skipped.items()) or "no query at all"
        raise AnalysisError(f"rank change: no query has a genderedness and a ranking in both runs ({counts})")
    r, p_value = correlation("pearson", [q.abs_g for q in points], [q.distance for q in points])
    return RankChange(points, r, p_value, depth, skipped)


@dataclass
class RankChanges:
    """Fig. 10 for every debiased system: its RankChange against the same system with regular embeddings."""

    systems: dict[str, RankChange]

    def to_dict(self) -> dict:
        return {name: change.to_dict() for name, change in self.systems.items()}


def compute(experiment, result, options: dict) -> RankChanges:
    """Each debiased variant's top lists against its regular system's, by the first measuring embedding's g(q)."""
    g_query = result.reference_genderedness()
    depth, keys = options["rank_depth"], result.run_keys
    shared = (content_key(sorted(g_query.items())), depth)  # the parts' inputs besides the two runs (experiments.parts)

    def change(spec) -> RankChange:
        before, after = result.runs[spec.base_system], result.runs[spec.name]
        return rank_change_by_genderedness(before, after, g_query, depth=depth)

    return RankChanges(
        {
            spec.name: cached_part(
                "rank change", (*shared, keys[spec.base_system], keys[spec.name]), functools.partial(change, spec)
            )
            for spec in experiment.config.systems
            if spec.base_system
        }
    )


def rank_change_figure(changes: dict, columns: int = 3):
    """Fig. 10: per system, |g(q)| (x) against the Kendall tau distance of its top lists before and after debiasing
    (y), dots coloured by the sign of g(q), least-squares line; Pearson's r and p in each panel's title."""
    if not changes:
        raise AnalysisError("plot_rank_change: no system to plot")
    fig, axes = panel_grid(len(changes), columns, 3.6, 3.3)
    for ax, (name, change) in zip(axes, changes.items()):
        x, y = change.arrays()
        ax.scatter(
            x, y, s=12, c=gender_colours([q.g_query for q in change.points]), alpha=0.7, edgecolor="none", zorder=2
        )
        fit_line(ax, x, y)
        ax.set_title(
            f"{name}: {coefficient_text('r', change.r)}, {format_p(change.p_value)} (n = {change.n})", fontsize=9
        )
        ax.set_xlabel("$|g(q)|$")
        ax.set_ylabel(f"Kendall $\\tau$ distance, top {change.depth}")
        ax.set_xlim(left=0)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.25)
    fig.tight_layout()
    return fig


def plot_rank_change(changes: dict, path, columns: int = 3) -> Path:
    """Fig. 10 as a PNG at `path` (rank_change_figure)."""
    return draw_figure(rank_change_figure, (changes, columns), path)


def write(changes: RankChanges, out: Path, plots: bool) -> dict[str, Path]:
    """fig10_rank_change.{md,csv,json} (one row per debiased system) and, with plots, fig10_rank_change.png."""
    rows = [
        {
            "system": name,
            "queries": c.n,
            "mean tau distance": float(np.mean([q.distance for q in c.points])),
            "pearson r": c.r,
            "p": c.p_value,
        }
        for name, c in changes.systems.items()
    ]
    depth = next(iter(changes.systems.values())).depth
    written = write_table(
        out,
        "fig10_rank_change",
        f"Fig. 10: Kendall τ distance of the top-{depth} before and after debiasing vs |g(q)|",
        rows,
    )
    if plots:
        written["fig10"] = plot_rank_change(changes.systems, out / "fig10_rank_change.png")
    return written


ANALYSES.register(
    AnalysisType(
        "rank_change",
        "Fig. 10: Kendall τ distance between each system's rankings before and after debiasing, "
        "against the query's absolute genderedness",
        compute,
        write,
        params=(Param("rank_depth", int, 100, "top documents compared (Fig. 10)", minimum=1),),
        needs="[debias] variants",
        applicable=lambda config: bool(config.debias_variants),
        writes=("fig10_rank_change",),
        charts=lambda value: {"fig10_rank_change": rank_change_chart(value)},
    )
)
