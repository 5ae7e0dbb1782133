"""The results of `gsr run`: run files, the results table (Markdown, CSV, JSON), per-query CSV and Fig. 8/9 plots."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import tempfile
from pathlib import Path

from experiments.effectiveness import display_name, paired_t_test, significance_mark
from experiments.runner import PERFECT, RANDOM, ExperimentResult
from gsr.io import write_trec_run
from gsr.measure import relative_gsr

REFERENCE_ROWS = (PERFECT, RANDOM)


def _finite(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def results_rows(result: ExperimentResult) -> list[dict]:
    """One row per system, then the perfect and random engines: means, t-test marks, GSR absolute and relative."""
    config = result.config
    baseline = result.effectiveness.get(config.baseline) if config.baseline else None
    rows = []
    models = {s.name: s for s in config.systems}
    for name in [s.name for s in config.systems] + list(REFERENCE_ROWS):
        eff = result.effectiveness[name]
        row = {"system": name, "model": models[name].model if name in models else name,
               "embedding": models[name].embedding if name in models else None, "measures": {}, "gsr": {}}
        for measure in config.measures:
            p = None
            if baseline is not None and name in models and name != config.baseline:
                p = paired_t_test(eff.per_query[measure], baseline.per_query[measure])
            row["measures"][display_name(measure)] = {"mean": _finite(eff.mean(measure)), "p_value": p,
                                                      "mark": significance_mark(p)}
        for measuring, per_system in result.system_gsr.items():
            gsr_result, perfect = per_system[name], per_system[PERFECT]
            relative = None
            if gsr_result.gsr is not None and perfect.gsr is not None:
                relative = _finite(relative_gsr(gsr_result.gsr, perfect.gsr))
            row["gsr"][measuring] = {"gsr": _finite(gsr_result.gsr), "relative": relative,
                                     "n_queries": gsr_result.n_queries, "skipped": gsr_result.skipped,
                                     "unknown_docids": gsr_result.unknown_docids, "error": gsr_result.error}
        rows.append(row)
    return rows


def _number(value, digits=4, sign=False) -> str:
    if value is None:
        return "—"
    if abs(value) < 0.5 * 10**-digits:
        value = 0.0
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _header(result: ExperimentResult) -> list[str]:
    columns = ["system"] + [display_name(m) for m in result.config.measures]
    for measuring in result.system_gsr:
        columns += [f"GSR ({measuring})", f"rel. GSR ({measuring}) %"]
    return columns


def _cells(row: dict, marks: bool) -> list[str]:
    cells = [row["system"]]
    for value in row["measures"].values():
        cells.append(_number(value["mean"]) + (value["mark"] if marks else ""))
    for value in row["gsr"].values():
        cells += [_number(value["gsr"], sign=True), _number(value["relative"], digits=1, sign=True)]
    return cells


def markdown_table(result: ExperimentResult, rows: list[dict]) -> str:
    """The Table 2-style summary in Markdown, with the paper's †/‡ marks against the baseline."""
    header = _header(result)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_cells(row, marks=True)) + " |")
    collection = result.collection
    notes = [f"Collection **{collection.name}**: {len(result.evaluated_queries)} judged topics of "
             f"{len(collection.queries)}; measures averaged over the judged topics (a topic a run does not answer "
             "scores 0)."]
    if result.config.baseline:
        notes.append(f"† / ‡: paired two-sided t-test against **{result.config.baseline}**, p < 0.05 / p < 0.01.")
    notes.append("GSR: least-squares slope of g_q(L) on g(q) (Eq. 3) over the top-K documents, "
                 f"K = {'the number of relevant documents' if result.config.cutoff == 'relevant' else result.config.cutoff}"
                 "; rel. GSR = (GSR − GSR_perfect) / |GSR_perfect| × 100. perfect: the relevant documents by grade; "
                 "random: K documents drawn uniformly from the collection.")
    notes += [f"Note: {n}" for n in collection.notes]
    return "\n".join(lines) + "\n\n" + "\n\n".join(notes) + "\n"


def csv_table(result: ExperimentResult, rows: list[dict]) -> str:
    """The same table as CSV, plain numbers and a p-value column per measure."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["system", "model", "embedding"]
    for measure in result.config.measures:
        header += [display_name(measure), f"{display_name(measure)} p"]
    for measuring in result.system_gsr:
        header += [f"GSR ({measuring})", f"rel. GSR ({measuring}) %", f"GSR queries ({measuring})"]
    writer.writerow(header)
    for row in rows:
        line = [row["system"], row["model"], row["embedding"] or ""]
        for value in row["measures"].values():
            line += [_plain(value["mean"]), _plain(value["p_value"])]
        for value in row["gsr"].values():
            line += [_plain(value["gsr"]), _plain(value["relative"]), value["n_queries"]]
        writer.writerow(line)
    return buffer.getvalue()


def _plain(value) -> str:
    return "" if value is None else repr(float(value))


def per_query_csv(result: ExperimentResult) -> str:
    """One line per (system, judged topic): every measure, and g(q), g_q(L) under each measuring embedding."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["system", "qid"] + [display_name(m) for m in result.config.measures]
    for measuring in result.system_gsr:
        header += [f"g(q) ({measuring})", f"g_q(L) ({measuring})"]
    writer.writerow(header)
    points = {m: {name: {q.qid: q for q in r.per_query} for name, r in per.items()}
              for m, per in result.system_gsr.items()}
    for name, eff in result.effectiveness.items():
        for qid in result.evaluated_queries:
            line = [name, qid] + [_plain(eff.per_query[m].get(qid)) for m in result.config.measures]
            for measuring in result.system_gsr:
                point = points[measuring][name].get(qid)
                line += [_plain(point.g_query) if point else "", _plain(point.g_list) if point else ""]
            writer.writerow(line)
    return buffer.getvalue()


def _write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(staging, path)
    finally:
        if os.path.exists(staging):
            os.unlink(staging)
    return path


def write_report(result: ExperimentResult, out: Path) -> dict[str, Path]:
    """Write runs/, results.{md,csv,json}, per_query.csv and gsr_<embedding>.png under `out`."""
    out = Path(out)
    rows = results_rows(result)
    written = {}
    for name, run in result.runs.items():
        written[f"run {name}"] = write_trec_run(run, out / "runs" / f"{_safe(name)}.run", tag=_safe(name))
    written["markdown"] = _write_text(out / "results.md", markdown_table(result, rows))
    written["csv"] = _write_text(out / "results.csv", csv_table(result, rows))
    written["per-query"] = _write_text(out / "per_query.csv", per_query_csv(result))
    summary = {
        "experiment": result.config.name,
        "config": str(result.config.path) if result.config.path else None,
        "collection": {"name": result.collection.name, "key": result.collection.key,
                       "topics": len(result.collection.queries), "judged_topics": len(result.evaluated_queries),
                       "unjudged_topics": result.collection.unjudged_queries(), "notes": result.collection.notes},
        "baseline": result.config.baseline, "measures": [display_name(m) for m in result.config.measures],
        "cutoff": result.config.cutoff, "rows": rows, "timings_s": result.timings, "reused": result.reused,
    }
    written["json"] = _write_text(out / "results.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    if result.config.plots:
        from gsr.plots import plot_system_scatter

        for measuring, per_system in result.system_gsr.items():
            systems = {n: r for n, r in per_system.items() if n != PERFECT}
            path = out / f"gsr_{_safe(measuring)}.png"
            written[f"plot {measuring}"] = plot_system_scatter(systems, per_system[PERFECT], path,
                                                               title=f"{result.collection.name}: GSR ({measuring})")
    return written


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
