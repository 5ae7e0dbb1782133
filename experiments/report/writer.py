"""Everything `gsr run` writes: runs, the results table (Markdown, LaTeX, CSV, JSON), per-query values (wide CSV and
trec_eval -q long form), the Figs. 8-9 scatter plots, Tables 2-3 and each enabled analysis's tables and figures
(written by the analysis itself); results.json also records the version, the config and every input's hash."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path

from experiments.config.systems import output_name
from experiments.experiment_result import PERFECT, ExperimentResult
from experiments.registry import ANALYSES
from experiments.report.debiasing import debias_effectiveness_rows, debias_gsr_rows, table2_note, table3_note
from experiments.report.png_kit import drawing_ahead, figures_aside, figures_cached
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
from experiments.run_files import written_tag
from gsr.effectiveness.evaluate import display_column
from gsr.errors import PluginError
from gsr.infra import logs
from gsr.infra.progress import progress
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
    # the PNG figures are drawn by worker processes while the tables, runs and report.html are written
    # (png_kit.figures_aside), so the analyses' files and the scatter plots come first
    aside = figures_aside(config.threads) if config.plots and config.threads > 1 else contextlib.nullcontext()
    # the pieces counted: the scatter plots, each analysis, the results table, each run and per-query file, the
    # tables, Tables 2-3, results.json and report.html
    pieces = 1 + len(result.analyses) + 1 + len(result.runs) + 4 + len(result.effectiveness) + 1 + 1 + 1
    with progress(total=pieces, desc="writing the report", unit="part") as bar:
        with figures_cached(), aside:
            plotted = _scatter_plots(result, out) if config.plots else {}  # the longest to draw: started first
            bar.update(1)
            analysed: dict[str, Path] = {}
            for name, value in list(result.analyses.items()):
                try:
                    analysed.update(ANALYSES.get(name).write(value, out, config.plots))
                except PluginError as err:  # another distribution's analysis: one warning, the rest is written
                    log.warning("analysis %s not written: %s", name, err)
                    result.analysis_errors[name] = str(err)
                    del result.analyses[name]
                bar.update(1)
            rows = results_rows(result)
            bar.update(1)
            written = {}
            for name in result.runs:
                written[f"run {name}"] = _run_file(result, name, out / "runs" / f"{output_name(name)}.run")
                bar.update(1)
            written["markdown"] = write_text(out / "results.md", markdown_table(result, rows))
            written["latex"] = write_text(out / "results.tex", latex_table(result, rows))
            written["csv"] = write_text(out / "results.csv", csv_table(result, rows))
            written["per-query"] = write_text(out / "per_query.csv", per_query_csv(result))
            bar.update(4)
            for name in result.effectiveness:
                written[f"per-query {name}"] = write_text(
                    out / "per_query" / f"{output_name(name)}.txt", trec_eval_q(result, name)
                )
                bar.update(1)
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
            bar.update(1)
            summary["analyses"] = {name: value.to_dict() for name, value in result.analyses.items()}
            if result.analysis_errors:
                summary["analysis_errors"] = dict(result.analysis_errors)
            written.update(analysed)
            written["json"] = write_text(out / "results.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
            bar.update(1)
            written.update(plotted)
            # while the workers draw: report.html waits only for a figure it embeds (png_kit.drawn)
            if experiment is not None:
                from experiments.report.html import experiment_report, write_html

                page = experiment_report(result, experiment, rows, provenance, written, out)
                written["html"] = write_html(page, out / "report.html")
            bar.update(1)
    return written


def draw_ahead(result: ExperimentResult, analysis: str | None = None) -> None:
    """The figures of the scatter plots (`analysis` None) or of one analysis handed, inside png_kit.figures_ahead(),
    to a worker that draws them into the cache while the experiment goes on: write_report, later, copies them. Their
    tables go to a scratch folder and are thrown away (they cost little; the figures are two thirds of the report)."""
    if not result.config.plots:
        return
    with drawing_ahead() as ahead, tempfile.TemporaryDirectory(prefix="gsr-figures-ahead-") as scratch:
        if not ahead:
            return
        if analysis is None:
            _scatter_plots(result, Path(scratch))
        else:
            ANALYSES.get(analysis).write(result.analyses[analysis], Path(scratch), True)


def _run_file(result: ExperimentResult, name: str, path: Path) -> Path:
    """runs/NAME.run: a copy of the run's cache file where that file holds it under this name (the bytes writing it
    again would give, experiments.run_files), else the run written (the engines, a system renamed since it ran)."""
    cached = result.run_files.get(name)
    if cached is not None and written_tag(cached) in (output_name(name), None):
        copied = copy_verified(cached, path)
        if copied is not None:
            return copied
    return write_trec_run(result.runs[name], path, tag=output_name(name))


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
