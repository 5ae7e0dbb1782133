"""The main results table of `gsr run` (every system, then the perfect and random engines: effectiveness with
corrected significance marks, GSR with its bootstrap interval and relative GSR tested against the perfect engine, per
measuring embedding), as rows, Markdown, LaTeX, CSV, and per query (wide CSV and trec_eval -q long form)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from experiments.experiment_result import PERFECT, RANDOM, ExperimentResult
from experiments.per_system import cached_gsr_test
from experiments.report.tables import csv_rows, latex_grid, markdown_grid, markdown_text
from gsr.effectiveness.evaluate import CORRECTED, TEST_NAMES, correct_family, display_name, measure_entries
from gsr.errors import UndefinedMeasureError
from gsr.evaluate import relative_interval, relative_to_perfect
from gsr.infra.numeric import finite, format_number

REFERENCE_ROWS = (PERFECT, RANDOM)


def _interval(interval) -> list | None:
    return interval.to_list() if interval is not None else None


def _gsr_entry(result: ExperimentResult, label: str, name: str, tested: bool) -> dict:
    """GSR of one system under one measuring column: value, interval, SE, relative GSR and the test against the
    perfect engine (randomisation over queries; only for the config's systems)."""
    config = result.config
    measured, perfect = result.system_gsr[label][name], result.system_gsr[label][PERFECT]
    relative, why = relative_to_perfect(measured, perfect)
    relative_ci = relative_interval(measured, perfect) if name != PERFECT else None
    entry = {
        "gsr": finite(measured.gsr),
        "ci": _interval(measured.ci),
        "se": measured.se,
        "relative": relative,
        "relative_error": why,
        "relative_ci": _interval(relative_ci),
        "relative_ci_error": relative_ci.reason if relative_ci is not None else None,
        "difference_vs_perfect": None,
        "p_value": None,
        "n_queries": measured.n_queries,
        "skipped": measured.skipped,
        "unknown_docids": measured.unknown_docids,
        "error": measured.error,
        "warning": measured.coverage_warning,
    }
    if tested and measured.gsr is not None and perfect.gsr is not None:
        try:
            test = cached_gsr_test(measured, perfect, config.resamples, config.seed)
            entry["difference_vs_perfect"], entry["p_value"] = test.statistic, test.p_value
        except UndefinedMeasureError:
            pass
    return entry


def results_rows(result: ExperimentResult) -> list[dict]:
    """One row per system, then the perfect and random engines: means with tests against the baseline, GSR with
    interval and SE, relative GSR with interval and the test against the perfect engine. Every p-value of the table
    is one family, corrected with the config's correction ("p_adjusted", "mark")."""
    config = result.config
    rows: list[dict] = []
    family: list[dict] = []
    models = {s.name: s for s in config.systems}
    means = measure_entries(
        result.effectiveness, config.measures, config.baseline, set(models), config.test, config.resamples, config.seed
    )
    for name in [s.name for s in config.systems] + list(REFERENCE_ROWS):
        row: dict[str, Any] = {
            "system": name,
            "model": models[name].model if name in models else name,
            "embedding": models[name].embedding if name in models else None,
            "measures": means[name],
            "gsr": {},
        }
        family += means[name].values()
        for label in result.system_gsr:
            row["gsr"][label] = _gsr_entry(result, label, name, tested=name in models)
            family.append(row["gsr"][label])
        rows.append(row)
    correct_family(family, config.correction)
    return rows


def table_header(measures, labels, first: str = "system") -> list[str]:
    """The results table's columns: the first, each measure in the paper's spelling, GSR and rel. GSR per label."""
    columns = [first] + [display_name(m) for m in measures]
    for label in labels:
        columns += [f"GSR ({label})", f"rel. GSR ({label}) %"]
    return columns


def _header(result: ExperimentResult) -> list[str]:
    return table_header(result.config.measures, result.system_gsr)


def _bounds(interval, digits: int) -> str:
    if not interval or interval[0] is None:
        return ""
    return f" [{format_number(interval[0], digits, sign=True)}, {format_number(interval[1], digits, sign=True)}]"


def row_cells(row: dict) -> list[str]:
    """A row of results_rows' shape as table cells: means with marks, GSR and rel. GSR with their intervals."""
    cells = [row["system"]]
    for value in row["measures"].values():
        cells.append(format_number(value["mean"]) + value["mark"])
    for value in row["gsr"].values():
        cells.append(format_number(value["gsr"], sign=True) + _bounds(value["ci"], 4))
        cells.append(
            format_number(value["relative"], digits=1, sign=True) + value["mark"] + _bounds(value["relative_ci"], 1)
        )
    return cells


def table_notes(result: ExperimentResult, rows: list[dict], text: Callable[[str], str] = str) -> list[str]:
    """What the table shows: topics averaged, the tests behind the marks and their correction, the intervals. Names
    and reasons go in as `text(...)` gives them (markdown_text: as text, never markup)."""
    config = result.config
    collection = result.collection
    tests = sum(
        1 for row in rows for group in ("measures", "gsr") for v in row[group].values() if v["p_value"] is not None
    )
    notes = [
        f"Collection **{text(collection.name)}**: {len(result.evaluated_queries)} judged topics of "
        f"{len(collection.queries)}; measures averaged over the judged topics (a topic a run does not answer "
        "scores 0)."
    ]
    marks = []
    if config.baseline:
        marks.append(f"on a measure, {TEST_NAMES[config.test]} against **{text(config.baseline)}**")
    marks.append(
        f"on rel. GSR, paired randomisation test of the system's GSR against the perfect engine's "
        f"({config.resamples} sign flips over queries, exact when 2^n ≤ {config.resamples})"
    )
    notes.append(
        f"† / ‡: {'; '.join(marks)}; {CORRECTED[config.correction]} over the {tests} tests of this table, "
        f"p < 0.05 / p < 0.01. A randomisation p-value is at least 1/({config.resamples} + 1); raise "
        "[evaluation] resamples when the correction needs smaller ones."
    )
    cutoff = "the number of relevant documents" if config.cutoff == "relevant" else config.cutoff
    notes.append(
        f"GSR: least-squares slope of g_q(L) on g(q) (Eq. 3) over the top-K documents, K = {cutoff}; "
        "rel. GSR = (GSR − GSR_perfect) / |GSR_perfect| × 100. perfect: the relevant documents by grade; "
        "random: K documents drawn uniformly from the collection."
    )
    unreliable: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        for m, v in row["gsr"].items():
            if v["gsr"] is None and v.get("error"):
                unreliable.setdefault((m, "is undefined (—) for", v["error"]), []).append(row["system"])
            elif v.get("warning"):
                unreliable.setdefault((m, "warning for", v["warning"]), []).append(row["system"])
    notes += [f"GSR ({m}) {what} {', '.join(names)}: {why}." for (m, what, why), names in unreliable.items()]
    undefined = {
        m: v["relative_error"]
        for row in rows
        for m, v in row["gsr"].items()
        if v["relative"] is None and v["gsr"] is not None and v["relative_error"]
    }
    notes += [f"rel. GSR ({text(m)}) is undefined (—): {text(why)}." for m, why in undefined.items()]
    no_interval = {
        m: v["relative_ci_error"]
        for row in rows
        for m, v in row["gsr"].items()
        if v["relative"] is not None and v.get("relative_ci_error")
    }
    notes += [f"rel. GSR ({text(m)}) has no interval: {text(why)}." for m, why in no_interval.items()]
    notes.append(
        f"[low, high]: {config.level:.0%} percentile bootstrap interval over queries ({config.resamples} "
        f"resamples, seed {config.seed}); rel. GSR's interval resamples the queries once and measures the "
        "system and the perfect engine on the same resample."
    )
    notes += [f"Note: {text(n)}" for n in collection.notes]
    return notes


def markdown_table(result: ExperimentResult, rows: list[dict]) -> str:
    """The Table 2-style summary in Markdown, with corrected †/‡ marks and bootstrap intervals."""
    grid = markdown_grid(_header(result), [row_cells(row) for row in rows])
    return grid + "\n" + "\n\n".join(table_notes(result, rows, markdown_text)) + "\n"


def latex_table(result: ExperimentResult, rows: list[dict]) -> str:
    """The same table in LaTeX (booktabs)."""
    return latex_grid(
        _header(result),
        [row_cells(row) for row in rows],
        f"Results: {result.collection.name}",
        " ".join(table_notes(result, rows)),
    )


def flat_rows(result: ExperimentResult, rows: list[dict]) -> list[dict]:
    """The table's rows as flat records with ir_measures' measure names: means, p-values (raw and adjusted), GSR
    with interval bounds and SE, relative GSR with interval, the test against the perfect engine."""
    flat = []
    for row in rows:
        line = {"system": row["system"], "model": row["model"], "embedding": row["embedding"]}
        for measure, value in row["measures"].items():
            line.update(
                {measure: value["mean"], f"{measure} p": value["p_value"], f"{measure} p adjusted": value["p_adjusted"]}
            )
        for label, value in row["gsr"].items():
            ci, relative_ci = value["ci"] or [None, None], value["relative_ci"] or [None, None]
            line.update(
                {
                    f"GSR ({label})": value["gsr"],
                    f"GSR ({label}) ci low": ci[0],
                    f"GSR ({label}) ci high": ci[1],
                    f"GSR ({label}) se": value["se"],
                    f"rel. GSR ({label}) %": value["relative"],
                    f"rel. GSR ({label}) ci low": relative_ci[0],
                    f"rel. GSR ({label}) ci high": relative_ci[1],
                    f"GSR ({label}) p vs perfect": value["p_value"],
                    f"GSR ({label}) p adjusted": value["p_adjusted"],
                    f"GSR queries ({label})": value["n_queries"],
                }
            )
        flat.append(line)
    return flat


def csv_table(result: ExperimentResult, rows: list[dict]) -> str:
    """The same table as CSV: plain numbers, ir_measures' measure names, every p-value and interval bound."""
    return csv_rows(flat_rows(result, rows))


def _plain(value) -> str:
    return "" if value is None else repr(float(value))


def per_query_csv(result: ExperimentResult) -> str:
    """One line per (system, judged topic): every measure (ir_measures' names), and g(q), g_q(L) per GSR column."""
    lines = []
    points = {
        label: {name: {q.qid: q for q in r.per_query} for name, r in per.items()}
        for label, per in result.system_gsr.items()
    }
    for name, eff in result.effectiveness.items():
        for qid in result.evaluated_queries:
            line: dict[str, Any] = {"system": name, "qid": qid}
            line.update({str(m): eff.per_query[str(m)].get(qid) for m in result.config.measures})
            for label in result.system_gsr:
                point = points[label][name].get(qid)
                line[f"g(q) ({label})"] = point.g_query if point else None
                line[f"g_q(L) ({label})"] = point.g_list if point else None
            lines.append(line)
    return csv_rows(lines)


def trec_eval_q(result: ExperimentResult, name: str) -> str:
    """One system's per-query values in trec_eval -q's long form, 'measure<TAB>qid<TAB>value', each measure's
    queries then its 'all' line (the mean; for GSR the slope): measures as ir_measures names them, g(q) and g_q(L)
    as `gq:LABEL` and `gL:LABEL`, GSR as `GSR:LABEL` (LABEL: the measuring embedding, and @K for further cut-offs)."""
    lines = []
    eff = result.effectiveness[name]
    for measure in result.config.measures:
        values = eff.per_query[str(measure)]
        lines += [f"{measure}\t{qid}\t{values[qid]:.6f}" for qid in result.evaluated_queries if qid in values]
        lines.append(f"{measure}\tall\t{eff.mean(str(measure)):.6f}")
    for label, per_system in result.system_gsr.items():
        measured = per_system[name]
        for field, short in (("g_query", "gq"), ("g_list", "gL")):
            lines += [
                f"{short}:{label}\t{q.qid}\t{getattr(q, field):.6f}"
                for q in measured.per_query
                if getattr(q, field) is not None
            ]
        if measured.gsr is not None:
            lines.append(f"GSR:{label}\tall\t{measured.gsr:.6f}")
    return "\n".join(lines) + "\n"
