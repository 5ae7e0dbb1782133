"""GSR next to the label-based bias measures, on the same runs: for every system and re-ranked variant its
effectiveness, GSR with its interval, and Feng & Shah's KL bias, Dash's NDKL, Lipani et al.'s β (MB, SB, MAB),
Rekabsaz & Schedl's RaB / ARaB and Rekabsaz, Kopeinik & Schedl's NFaiRR (bias_fairr); each re-ranker's change
against the run it re-ranks, tested and corrected; seeds of a randomised re-ranker summarised as mean and standard
deviation; and the trade-off plot (effectiveness against each bias measure, one point per system)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments.analyses.common import AnalysisError, correlation, mean_paired_difference, panel_grid
from experiments.document_labels import (
    BIAS_PARAMS,
    FAIRR_PARAMS,
    bias_settings,
    cached_bias_of_runs,
    check_background_system,
)
from experiments.registry import ANALYSES, AnalysisType
from experiments.report.plotly_charts import tradeoff_chart
from experiments.report.png_figures import FEMALE_COLOUR, MALE_COLOUR, NEUTRAL_COLOUR, draw_figure, label_points
from experiments.report.tables import write_table
from gsr.effectiveness.evaluate import correct_p_columns, display_name, marks_note, paired_test
from gsr.errors import InputError, UndefinedMeasureError
from gsr.evaluate import gsr_difference_test
from gsr.fairness.evaluate import per_query_value
from gsr.infra.numeric import finite
from gsr.infra.params import Param

TABLE_MEASURES = ("KL", "FSKL", "NDKL", "MB_female", "SB_female", "MAB_female", "RaB", "ARaB", "NFaiRR")
TESTED_MEASURES = ("KL", "FSKL", "NDKL", "MAB_female", "ARaB", "NFaiRR")  # per-query means: a re-ranker's tests
PLOTTED_MEASURES = ("KL", "FSKL", "NDKL", "MAB_female", "ARaB", "NFaiRR")
CORRELATED_MEASURES = ("KL", "FSKL", "NDKL", "MAB_female", "ARaB")  # Spearman's ρ with GSR (label_bias_agreement;
# the measure_agreement analysis compares every measure, each oriented to "more biased")
SEED = "seed"


def effectiveness_measure(config, chosen: str | None) -> str:
    """The trade-off plot's effectiveness measure: the option, else the first nDCG of [evaluation], else the first."""
    measures = [str(m) for m in config.measures]
    if chosen is not None:
        if chosen not in measures:
            raise AnalysisError(
                f"label_bias: bias_effectiveness {chosen!r} is not a measure of [evaluation] measures "
                f"({', '.join(measures)})"
            )
        return chosen
    return next((m for m in measures if m.startswith("nDCG")), measures[0])


def sweep_group(system) -> tuple[str, str] | None:
    """(group label, seed) of a system from a config sweep over `seed`, None otherwise: the label is the system's
    name without the seed ('EG (epsilon=0.1, seed=2)' → 'EG (epsilon=0.1)')."""
    if SEED not in system.sweep:
        return None
    suffix = f" ({', '.join(f'{k}={v}' for k, v in system.sweep.items())})"
    base = system.name[: -len(suffix)] if system.name.endswith(suffix) else system.name
    others = ", ".join(f"{k}={v}" for k, v in system.sweep.items() if k != SEED)
    return (f"{base} ({others})" if others else base), str(system.sweep[SEED])


@dataclass
class LabelBias:
    """The analysis's tables (rows as write_table takes them), the plot's points and the measures' settings."""

    settings: dict
    effectiveness: str
    rows: list[dict]
    rerank_rows: list[dict]
    seed_rows: list[dict]
    points: dict[str, list[tuple[str, float, float, str | None]]]  # panel -> (system, x, y, re-ranked system)
    reports: dict[str, dict] = field(default_factory=dict)
    correction: str = "holm"
    test: str = "t"
    agreement_rows: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "settings": self.settings,
            "effectiveness": self.effectiveness,
            "table": self.rows,
            "rerankers": self.rerank_rows,
            "seeds": self.seed_rows,
            "agreement": self.agreement_rows,
            "reports": self.reports,
        }


def _gsr_cells(result, name: str) -> dict:
    cells = {}
    for label, per_system in result.system_gsr.items():
        measured = per_system[name]
        ci = measured.ci.to_list() if measured.ci else [None, None]
        cells.update(
            {f"GSR ({label})": finite(measured.gsr), f"GSR ({label}) ci low": ci[0], f"GSR ({label}) ci high": ci[1]}
        )
    return cells


def _rerank_rows(result, reports, measure: str, k: int) -> list[dict]:
    """Each re-ranked system against the run it re-ranks: Δ effectiveness, Δ of the per-query bias measures and Δ GSR,
    each with a paired test over queries, all corrected as one family."""
    config = result.config
    rows = []
    for system in config.systems:
        if system.model != "rerank":
            continue
        upstream = system.rerank
        row = {"system": system.name, "re-ranks": upstream}
        tests = []
        a, b = result.effectiveness[system.name].per_query[measure], result.effectiveness[upstream].per_query[measure]
        tests.append(
            (
                f"Δ {display_name(measure)}",
                mean_paired_difference(a, b),
                paired_test(a, b, config.test, config.resamples, config.seed),
            )
        )
        for kind in TESTED_MEASURES:
            name = f"{kind}@{k}"
            if name not in reports[system.name].measures:
                continue
            value_of = per_query_value(name)
            a, b = (
                {q.qid: value for q in reports[s].per_query if (value := value_of(q)) is not None}
                for s in (system.name, upstream)
            )
            tests.append(
                (
                    f"Δ {name}",
                    mean_paired_difference(a, b),
                    paired_test(a, b, config.test, config.resamples, config.seed),
                )
            )
        for label, per_system in result.system_gsr.items():
            mine, theirs = per_system[system.name], per_system[upstream]
            difference = p = None
            if mine.gsr is not None and theirs.gsr is not None:
                difference = mine.gsr - theirs.gsr
                try:
                    p = gsr_difference_test(mine, theirs, config.resamples, config.seed).p_value
                except UndefinedMeasureError:
                    p = None
            tests.append((f"Δ GSR ({label})", difference, p))
        for column, value, p in tests:
            row.update({column: value, f"{column} p": p})
        rows.append(row)
    correct_p_columns(rows, config.correction)
    return rows


def _agreement_rows(rows: list[dict], systems: set[str], gsr_columns: list[str], k: int) -> list[dict]:
    """Across the config's systems: Spearman's ρ between each label-based measure and each GSR column (do the
    systems a measure finds more biased have a higher GSR?)."""
    out = []
    for gsr in gsr_columns:
        for kind in CORRELATED_MEASURES:
            name = f"{kind}@{k}"
            pairs = [
                (row[name], row[gsr])
                for row in rows
                if row["system"] in systems and row.get(name) is not None and row.get(gsr) is not None
            ]
            rho, p = correlation("spearman", *zip(*pairs)) if len(pairs) >= 3 else (None, None)
            out.append({"measure": name, "GSR": gsr, "systems": len(pairs), "Spearman ρ": rho, "p": p})
    return out


def _seed_rows(config, rows: list[dict], columns: list[str]) -> list[dict]:
    """Systems that differ only by a swept seed, as one row: the mean and standard deviation over the seeds."""
    groups: dict[str, list[dict]] = {}
    by_name = {row["system"]: row for row in rows}
    for system in config.systems:
        group = sweep_group(system)
        if group is not None:
            groups.setdefault(group[0], []).append(by_name[system.name])
    out = []
    for label, members in groups.items():
        if len(members) < 2:
            continue
        row = {"systems": label, "seeds": len(members)}
        for column in columns:
            values = [m[column] for m in members if m.get(column) is not None]
            row[column] = statistics.fmean(values) if values else None
            row[f"sd {column}"] = statistics.stdev(values) if len(values) > 1 else None
        out.append(row)
    return out


def compute(experiment, result, options: dict) -> LabelBias:
    """Every system's (and the perfect and random engines') label-based measures, beside its effectiveness and GSR."""
    from experiments.experiment_result import PERFECT, RANDOM

    config = result.config
    measure = effectiveness_measure(config, options["bias_effectiveness"])
    settings = bias_settings(options)
    k = settings.k
    names = [s.name for s in config.systems] + [PERFECT, RANDOM]
    try:
        keys = {n: result.run_keys[n] for n in names}
        reports = cached_bias_of_runs(experiment, result.runs, keys, result.evaluated_queries, options)
    except InputError as err:
        raise AnalysisError(str(err)) from None
    systems = {s.name: s for s in config.systems}
    rows = []
    for name in names:
        spec = systems.get(name)
        row = {
            "system": name,
            "method": spec.params.get("method") if spec and spec.model == "rerank" else None,
            "re-ranks": spec.rerank if spec and spec.model == "rerank" else None,
        }
        row.update({str(m): result.effectiveness[name].mean(str(m)) for m in config.measures})
        row.update(_gsr_cells(result, name))
        measures = reports[name].measures
        row.update({f"{kind}@{k}": measures.get(f"{kind}@{k}") for kind in TABLE_MEASURES if f"{kind}@{k}" in measures})
        rows.append(row)
    gsr_label = next(iter(result.system_gsr))
    plotted = [f"{kind}@{k}" for kind in PLOTTED_MEASURES if f"{kind}@{k}" in rows[0]] + [f"GSR ({gsr_label})"]
    points = {
        panel: [
            (row["system"], row[panel], row[measure], row["re-ranks"])
            for row in rows
            if row["system"] in systems and row[panel] is not None and row[measure] is not None
        ]
        for panel in plotted
    }
    seed_columns = [measure, *plotted[:-1], *(f"GSR ({label})" for label in result.system_gsr)]
    shown = {key: value for key, value in reports[names[0]].settings.items() if key not in ("skipped", "unlabelled")}
    if "fairr" in shown:
        shown["fairr"] = {k: v for k, v in shown["fairr"].items() if k not in ("skipped", "missing_documents")}
    gsr_columns = [f"GSR ({label})" for label in result.system_gsr]
    return LabelBias(
        shown,
        measure,
        rows,
        _rerank_rows(result, reports, measure, k),
        _seed_rows(config, rows, seed_columns),
        points,
        {n: r.to_dict() for n, r in reports.items()},
        config.correction,
        config.test,
        _agreement_rows(rows, set(systems), gsr_columns, k),
    )


def axis_meaning(panel: str) -> str:
    """How to read a bias measure's axis."""
    if panel.startswith(("RaB", "ARaB")):
        return "0: balanced, > 0: male-leaning"
    if panel.startswith(("FaiRR", "NFaiRR")):
        return "higher: fairer"
    if panel.startswith("MB_"):
        return "0: the target share, > 0: over-represented"
    if panel.startswith("GSR"):
        return "> 0: stereotypical"
    return "lower: less bias"


def tradeoff_figure(bias: LabelBias, columns: int = 3):
    """One panel per bias measure (and GSR): effectiveness (y) against the measure (x), one point per system;
    re-ranked systems are triangles joined to the system they re-rank."""
    panels = list(bias.points)
    if not panels:
        raise AnalysisError("plot_tradeoff: nothing to plot")
    fig, axes = panel_grid(len(panels), columns, 3.8, 3.2)
    for ax, panel in zip(axes, panels):
        points = bias.points[panel]
        where = {name: (x, y) for name, x, y, _ in points}
        for _, x, y, upstream in points:
            if upstream is not None and upstream in where:
                ux, uy = where[upstream]
                ax.plot([ux, x], [uy, y], color=NEUTRAL_COLOUR, lw=0.7, zorder=1)
        plain = [(x, y) for _, x, y, upstream in points if upstream is None]
        reranked = [(x, y) for _, x, y, upstream in points if upstream is not None]
        for group, marker, colour, label in (
            (plain, "o", MALE_COLOUR, "system"),
            (reranked, "^", FEMALE_COLOUR, "re-ranked"),
        ):
            if group:
                ax.scatter(*np.array(group).T, marker=marker, s=22, color=colour, zorder=2, label=label)
        ax.set_title(panel, fontsize=9)
        ax.set_xlabel(f"{panel} ({axis_meaning(panel)})", fontsize=8)
        ax.set_ylabel(display_name(bias.effectiveness), fontsize=8)
        ax.grid(alpha=0.25)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        axes[0].legend(handles, labels, fontsize=7, loc="best")
    fig.tight_layout()
    for ax, panel in zip(axes, panels):  # named once the layout is final, where a name covers no other
        label_points(ax, [(name, x, y) for name, x, y, _ in bias.points[panel]], fontsize=5)
    return fig


def plot_tradeoff(bias: LabelBias, path, columns: int = 3) -> Path:
    """The trade-off figure as a PNG at `path` (tradeoff_figure)."""
    return draw_figure(tradeoff_figure, (bias, columns), path)


def note(bias: LabelBias) -> str:
    s = bias.settings
    target = s["target"] if isinstance(s["target"], str) else ", ".join(f"{g} {v:g}" for g, v in s["target"].items())
    return (
        f"Labels: {s['labels']}. Cut-off k = {s['k']}; target: {target}; neutral documents: {s['neutral']}; KL in "
        f"natural log, zeros smoothed to {s['epsilon']:g}; RaB/ARaB magnitudes: {s['rab']} (> 0: male-leaning); "
        "β = model − target share of female documents (MB mean, SB population standard deviation, MAB mean "
        "of |β|). Each measure is the mean over the queries where it is defined (lower KL, FSKL, NDKL, MAB: less "
        "bias). GSR: as in results.md, with its bootstrap interval." + fairr_note(s.get("fairr"))
    )


def fairr_note(fairr: dict | None) -> str:
    """How NFaiRR was computed, for a table's note ('' without it)."""
    if fairr is None:
        return ""
    from gsr.fairness.fairr_runs import RUN_ITSELF

    depth = fairr["background_depth"]
    background = (
        f"each system's own top {depth} documents per query"
        if fairr["background"] == RUN_ITSELF
        else f"the top {depth} documents per query of {fairr['background']}"
    )
    return (
        f" NFaiRR (Rekabsaz, Kopeinik & Schedl): FaiRR of the top k over the ideal FaiRR of the background set, "
        f"here {background}; words {fairr['gender_words']}; larger is fairer (1: the fairest order of the set)."
    )


def write(bias: LabelBias, out: Path, plots: bool) -> dict[str, Path]:
    """label_bias.*, label_bias_rerankers.*, label_bias_seeds.* (when seeds were swept), label_bias_agreement.* and
    the trade-off PNG."""
    written = write_table(
        out,
        "label_bias",
        "GSR and the label-based bias measures, side by side",
        bias.rows,
        note(bias),
        display=display_name,
    )
    if bias.rerank_rows:
        written.update(
            write_table(
                out,
                "label_bias_rerankers",
                "Each re-ranker against the run it re-ranks (mean per-query difference)",
                bias.rerank_rows,
                "Δ = re-ranked − original. "
                + marks_note(
                    bias.test,
                    bias.correction,
                    "of the per-query differences (GSR: paired randomisation test of the slopes)",
                ),
            )
        )
    if bias.seed_rows:
        written.update(
            write_table(
                out,
                "label_bias_seeds",
                "Randomised re-rankers over seeds: mean and standard deviation",
                bias.seed_rows,
                note(bias),
            )
        )
    if bias.agreement_rows:
        written.update(
            write_table(
                out,
                "label_bias_agreement",
                "Do the label-based measures and GSR rank the systems "
                "alike? (Spearman's ρ across the config's systems)",
                bias.agreement_rows,
                "Over every system and re-ranker of the config (not the perfect and random "
                "engines); p: two-sided, uncorrected.",
            )
        )
    if plots:
        written["label_bias_tradeoff"] = plot_tradeoff(bias, out / "label_bias_tradeoff.png")
    return written


ANALYSES.register(
    AnalysisType(
        "label_bias",
        "GSR beside the label-based bias measures (KL bias, NDKL, β with MB/SB/MAB), RaB/ARaB and NFaiRR for "
        "every system and re-ranker; re-rankers tested against the run they re-rank; the effectiveness/bias "
        "trade-off plot",
        compute,
        write,
        params=(
            *BIAS_PARAMS,
            *FAIRR_PARAMS,
            Param(
                "bias_effectiveness",
                str,
                None,
                "the trade-off plot's effectiveness measure (default: the first nDCG of [evaluation] measures)",
            ),
        ),
        default=False,
        needs="switched on (label_bias = true): it labels every document of the collection",
        writes=(
            "label_bias",
            "label_bias_rerankers",
            "label_bias_seeds",
            "label_bias_agreement",
            "label_bias_tradeoff",
        ),
        charts=lambda value: {"label_bias_tradeoff": tradeoff_chart(value)},
        check=check_background_system,
    )
)
