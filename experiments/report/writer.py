"""Everything `gsr run` writes: runs, the results table (Markdown, LaTeX, CSV, JSON), per-query values (wide CSV and
trec_eval -q long form), the Figs. 8-9 scatter plots, Tables 2-3 and each enabled analysis's tables and figures
(written by the analysis itself); results.json also records the version, the config and every input's hash."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from experiments.config.systems import output_name
from experiments.experiment_result import PERFECT, ExperimentResult
from experiments.registry import ANALYSES
from experiments.report.debiasing import debias_effectiveness_rows, debias_gsr_rows, table2_note, table3_note
from experiments.report.png_kit import figures_aside
from experiments.report.provenance import Provenance
from experiments.report.results_table import (
    csv_table,
    latex_table,
    markdown_table,
    per_query_csv,
    results_rows,
    table_notes,
    trec_eval_q,
)
from experiments.report.tables import write_table, write_text
from gsr.effectiveness.evaluate import display_column
from gsr.errors import PluginError
from gsr.infra import logs
from gsr.infra.store import copy_verified
from gsr.io.runs import write_trec_run

log = logs.get("report")

__all__ = [
    "write_report",
    "results_rows",
    "markdown_table",
    "latex_table",
    "csv_table",
    "per_query_csv",
    "trec_eval_q",
    "debias_gsr_rows",
    "debias_effectiveness_rows",
]


def write_report(
    result: ExperimentResult, out: Path, provenance: Provenance | None = None, experiment=None
) -> dict[str, Path]:
    """Write runs/, results.{md,tex,csv,json}, per_query.csv, per_query/NAME.txt, gsr_<label>.png, Tables 2-3 and the
    analyses, and, given the experiment (whose documents it reads), report.html. `provenance` is what the experiment
    started from (recorded now when not given)."""
    out = Path(out)
    config = result.config
    provenance = provenance or Provenance.record(config)
    # the PNG figures are drawn by worker processes while the tables and runs are written (png_kit.figures_aside), so
    # the analyses' files and the scatter plots come first; report.html embeds some figures: it comes once all are in
    with figures_aside(config.threads) if config.plots and config.threads > 1 else contextlib.nullcontext():
        plotted = _scatter_plots(result, out) if config.plots else {}  # the longest to draw: started first
        analysed: dict[str, Path] = {}
        for name, value in list(result.analyses.items()):
            try:
                analysed.update(ANALYSES.get(name).write(value, out, config.plots))
            except PluginError as err:  # another distribution's analysis: one warning, the rest is written
                log.warning("analysis %s not written: %s", name, err)
                result.analysis_errors[name] = str(err)
                del result.analyses[name]
        rows = results_rows(result)
        written = {}
        cached = experiment.fresh_run_files if experiment is not None else {}
        for name, run in result.runs.items():
            path = out / "runs" / f"{output_name(name)}.run"
            # a run this experiment cached is copied: the bytes writing it again would give (experiments.run_files)
            copied = copy_verified(cached[name], path) if name in cached else None
            written[f"run {name}"] = copied or write_trec_run(run, path, tag=output_name(name))
        written["markdown"] = write_text(out / "results.md", markdown_table(result, rows))
        written["latex"] = write_text(out / "results.tex", latex_table(result, rows))
        written["csv"] = write_text(out / "results.csv", csv_table(result, rows))
        written["per-query"] = write_text(out / "per_query.csv", per_query_csv(result))
        for name in result.effectiveness:
            written[f"per-query {name}"] = write_text(
                out / "per_query" / f"{output_name(name)}.txt", trec_eval_q(result, name)
            )
        summary: dict = {
            "experiment": config.name,
            "version": provenance.version,
            "config": provenance.config,
            "inputs": provenance.inputs,
            "environment": provenance.environment,
            "collection": {
                "name": result.collection.name,
                "key": result.collection.key,
                "topics": len(result.collection.queries),
                "judged_topics": len(result.evaluated_queries),
                "unjudged_topics": result.collection.unjudged_queries(),
                "notes": result.collection.notes,
            },
            "baseline": config.baseline,
            "measures": [str(m) for m in config.measures],
            "cutoff": config.cutoff,
            "statistics": {
                "test": config.test,
                "correction": config.correction,
                "resamples": config.resamples,
                "level": config.level,
                "seed": config.seed,
                "interval": "percentile bootstrap over queries",
                "gsr_test": "paired randomisation (sign flips over queries)",
            },
            "notes": table_notes(result, rows),
            "rows": rows,
            "timings_s": result.timings,
            "reused": result.reused,
        }
        if config.debias_variants:
            summary["table2"], summary["table3"] = debias_gsr_rows(result), debias_effectiveness_rows(result)
            written.update(
                write_table(
                    out,
                    "table2_gsr_debiasing",
                    "Table 2: GSR with regular, debiased and strong-debiased embeddings",
                    summary["table2"],
                    table2_note(config),
                )
            )
            written.update(
                write_table(
                    out,
                    "table3_effectiveness_debiasing",
                    "Table 3: effectiveness with debiased embeddings, % change against the regular embedding",
                    summary["table3"],
                    table3_note(config),
                    display=display_column,
                )
            )
        summary["analyses"] = {name: value.to_dict() for name, value in result.analyses.items()}
        if result.analysis_errors:
            summary["analysis_errors"] = dict(result.analysis_errors)
        written.update(analysed)
        written["json"] = write_text(out / "results.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        written.update(plotted)
    if experiment is not None:
        from experiments.report.html import experiment_report, write_html

        page = experiment_report(result, experiment, rows, provenance, written, out)
        written["html"] = write_html(page, out / "report.html")
    return written


def _scatter_plots(result: ExperimentResult, out: Path) -> dict[str, Path]:
    """Figs. 8-9: each measuring embedding's scatter of every system (gsr_<label>.png)."""
    from experiments.report.png_figures import plot_system_scatter

    plotted = {}
    for measuring, per_system in result.system_gsr.items():
        systems = {n: r for n, r in per_system.items() if n != PERFECT}
        path = out / f"gsr_{output_name(measuring)}.png"
        plotted[f"plot {measuring}"] = plot_system_scatter(
            systems, per_system[PERFECT], path, title=f"{result.collection.name}: GSR ({measuring})"
        )
    return plotted
