"""The main results table of `gsr run` (every system, then the perfect and random engines: effectiveness with
significance marks, GSR absolute and relative per measuring embedding), as rows, Markdown, CSV and per query."""

from __future__ import annotations

import csv
import io

from experiments.effectiveness import display_name, paired_t_test, significance_mark
from experiments.runner import PERFECT, RANDOM, ExperimentResult
from gsr.evaluate import relative_to_perfect
from gsr.numeric import finite, format_number

REFERENCE_ROWS = (PERFECT, RANDOM)


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
            row["measures"][display_name(measure)] = {"mean": finite(eff.mean(measure)), "p_value": p,
                                                      "mark": significance_mark(p)}
        for measuring, per_system in result.system_gsr.items():
            gsr_result = per_system[name]
            relative, why = relative_to_perfect(gsr_result, per_system[PERFECT])
            row["gsr"][measuring] = {"gsr": finite(gsr_result.gsr), "relative": relative, "relative_error": why,
                                     "n_queries": gsr_result.n_queries, "skipped": gsr_result.skipped,
                                     "unknown_docids": gsr_result.unknown_docids, "error": gsr_result.error}
        rows.append(row)
    return rows


def _header(result: ExperimentResult) -> list[str]:
    columns = ["system"] + [display_name(m) for m in result.config.measures]
    for measuring in result.system_gsr:
        columns += [f"GSR ({measuring})", f"rel. GSR ({measuring}) %"]
    return columns


def _cells(row: dict, marks: bool) -> list[str]:
    cells = [row["system"]]
    for value in row["measures"].values():
        cells.append(format_number(value["mean"]) + (value["mark"] if marks else ""))
    for value in row["gsr"].values():
        cells += [format_number(value["gsr"], sign=True), format_number(value["relative"], digits=1, sign=True)]
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
    undefined = {m: v["relative_error"] for row in rows for m, v in row["gsr"].items()
                 if v["relative"] is None and v["gsr"] is not None and v["relative_error"]}
    notes += [f"rel. GSR ({m}) is undefined (—): {why}." for m, why in undefined.items()]
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
