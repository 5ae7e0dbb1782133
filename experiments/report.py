"""The results of `gsr run`: run files, the results table (Markdown, CSV, JSON), per-query CSV and Fig. 8/9 plots."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from experiments.effectiveness import display_name, paired_t_test, significance_mark
from experiments.runner import PERFECT, RANDOM, ExperimentResult
from gsr.io import write_trec_run
from gsr.store import atomic_write
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
    with atomic_write(path) as out:
        out.write(text)
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
    if result.config.debias_variants:
        summary["table2"], summary["table3"] = debias_gsr_rows(result), debias_effectiveness_rows(result)
        written.update(write_table(out, "table2_gsr_debiasing", "Table 2: GSR with regular, debiased and "
                                   "strong-debiased embeddings", summary["table2"], TABLE2_NOTE))
        written.update(write_table(out, "table3_effectiveness_debiasing", "Table 3: effectiveness with debiased "
                                   "embeddings, % change against the regular embedding", summary["table3"],
                                   TABLE3_NOTE))
    summary["analyses"] = analyses_summary(result)
    written.update(write_analyses(result, out))
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


def _variant_rows(result: ExperimentResult) -> list[tuple[str, dict]]:
    """(regular system, {variant: system spec}) for every regular system, in config order."""
    config = result.config
    return [(s.name, config.variants_of(s.name)) for s in config.systems if s.variant == "regular"]


def debias_gsr_rows(result: ExperimentResult) -> list[dict]:
    """Table 2: GSR of each system with the regular, debiased and strong-debiased embedding, per measuring embedding,
    absolute and relative to the perfect engine (systems without an embedding have one value, the regular one)."""
    variants = ["regular", *result.config.debias_variants]
    rows = []
    for name, specs in _variant_rows(result):
        row = {"system": name}
        for measuring, per_system in result.system_gsr.items():
            perfect = per_system[PERFECT].gsr
            for variant in variants:
                spec = specs.get(variant)
                value = per_system[spec.name].gsr if spec else None
                relative = _finite(relative_gsr(value, perfect)) if value is not None and perfect is not None else None
                row[f"GSR ({measuring}) {variant}"] = _finite(value)
                row[f"rel. GSR ({measuring}) {variant} %"] = relative
        rows.append(row)
    for reference in REFERENCE_ROWS:
        row = {"system": reference}
        for measuring, per_system in result.system_gsr.items():
            perfect = per_system[PERFECT].gsr
            value = per_system[reference].gsr
            for variant in variants:
                row[f"GSR ({measuring}) {variant}"] = _finite(value) if variant == "regular" else None
                row[f"rel. GSR ({measuring}) {variant} %"] = (
                    _finite(relative_gsr(value, perfect)) if variant == "regular" and None not in (value, perfect)
                    else None)
        rows.append(row)
    return rows


def debias_effectiveness_rows(result: ExperimentResult) -> list[dict]:
    """Table 3: each measure with the regular embedding, and per debiased variant its % change against regular with
    the paired t-test mark (†/‡) against the regular system."""
    rows = []
    for name, specs in _variant_rows(result):
        if len(specs) < 2:
            continue
        regular = result.effectiveness[name]
        row = {"system": name}
        for measure in result.config.measures:
            label = display_name(measure)
            base = regular.mean(measure)
            row[f"{label} regular"] = _finite(base)
            for variant in result.config.debias_variants:
                other = result.effectiveness[specs[variant].name]
                value = other.mean(measure)
                p = paired_t_test(other.per_query[measure], regular.per_query[measure])
                row[f"{label} {variant}"] = _finite(value)
                row[f"{label} {variant} change %"] = _finite((value - base) / base * 100) if base else None
                row[f"{label} {variant} p"] = p
                row[f"{label} {variant} mark"] = significance_mark(p)
        rows.append(row)
    return rows


def _markdown_rows(rows: list[dict], skip_suffixes=(" p", " mark")) -> str:
    if not rows:
        return "(no rows)\n"
    columns = [c for c in rows[0] if not c.endswith(skip_suffixes)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(["---"] + ["---:"] * (len(columns) - 1)) + "|"]
    for row in rows:
        cells = []
        for column in columns:
            value = row[column]
            if isinstance(value, str):
                cells.append(value)
                continue
            if isinstance(value, int) and not isinstance(value, bool):
                cells.append(str(value))
                continue
            if column in ("p", "p_value") and value is not None:
                cells.append(f"{value:.2g}")
                continue
            text = _number(value, digits=1 if column.endswith("%") else 4, sign=column.startswith(("GSR", "rel.")) or
                           column.endswith("%"))
            mark = row.get(column.replace(" change %", " mark"), "") if column.endswith("change %") else ""
            cells.append(text + mark)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _rows_csv(rows: list[dict]) -> str:
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()


def write_table(out: Path, stem: str, title: str, rows: list[dict], note: str = "") -> dict[str, Path]:
    """One table as {stem}.md (with title and note), {stem}.csv and {stem}.json."""
    markdown = f"### {title}\n\n{_markdown_rows(rows)}" + (f"\n{note}\n" if note else "")
    return {f"{stem}.md": _write_text(out / f"{stem}.md", markdown),
            f"{stem}.csv": _write_text(out / f"{stem}.csv", _rows_csv(rows)),
            f"{stem}.json": _write_text(out / f"{stem}.json", json.dumps(rows, indent=2, ensure_ascii=False) + "\n")}


TABLE2_NOTE = ("GSR measured with each measuring embedding (always the regular one); the column's variant is the "
               "embedding the system retrieves with. rel. GSR = (GSR − GSR_perfect) / |GSR_perfect| × 100.")
TABLE3_NOTE = ("change % = (variant − regular) / regular × 100; † / ‡: paired two-sided t-test against the same "
               "system with the regular embedding, p < 0.05 / p < 0.01.")


def _to_dict(value):
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dict):
        out = {k: _to_dict(v) for k, v in value.items()}
        if hasattr(value, "skipped"):  # DeltaGap: a dict with the skipped queries attached
            out = {"values": out, "skipped": value.skipped}
        return out
    if isinstance(value, list):
        return [_to_dict(v) for v in value]
    return value


def analyses_summary(result: ExperimentResult) -> dict:
    """The analyses as plain JSON data (per-query points included)."""
    return _to_dict(result.analyses)


def write_analyses(result: ExperimentResult, out: Path) -> dict[str, Path]:
    """Fig. 10-12 tables (CSV/Markdown/JSON) and, when plots are on, their PNG figures."""
    from experiments import analysis_plots

    written, analyses = {}, result.analyses
    changes = {k: v for k, v in analyses.get("rank_change", {}).items() if hasattr(v, "r")}
    if changes:
        rows = [{"system": name, "queries": c.n, "mean tau distance": _mean([q.distance for q in c.points]),
                 "pearson r": c.r, "p": c.p_value} for name, c in changes.items()]
        written.update(write_table(out, "fig10_rank_change", "Fig. 10: Kendall τ distance of the top-"
                                   f"{next(iter(changes.values())).depth} before and after debiasing vs |g(q)|", rows))
        if result.config.plots:
            written["fig10"] = analysis_plots.plot_rank_change(changes, out / "fig10_rank_change.png")
    reliability = analyses.get("reliability", {})
    if "query_genderedness" in reliability:
        queries, ranking = reliability["query_genderedness"], reliability["system_ranking"]
        rows = [{"agreement": "g(q), Pearson r", "coefficient": queries.coefficient, "p": queries.p_value,
                 "n": queries.n},
                {"agreement": "system ranking by GSR, Spearman ρ", "coefficient": ranking.coefficient,
                 "p": ranking.p_value, "n": ranking.n}]
        written.update(write_table(out, "fig11_reliability", "Fig. 11: reliability across measuring embeddings "
                                   f"({' vs '.join(queries.names)})", rows))
        if result.config.plots:
            written["fig11"] = analysis_plots.plot_reliability(queries, ranking, out / "fig11_reliability.png")
    gender = analyses.get("intrinsic_gender", {})
    if "shares" in gender:
        rows = []
        for system, bins in gender["shares"].items():
            for row in bins:
                rows.append({"system": system, **{k: v for k, v in row.items()}})
        written.update(write_table(out, "fig12_intrinsic_gender", "Fig. 12: share of queries whose Δgap favours "
                                   "male / female / neither, per g(q) bin", rows))
        if result.config.plots:
            written["fig12"] = analysis_plots.plot_gap_shares(gender["shares"], out / "fig12_intrinsic_gender.png")
    return written


def _mean(values):
    return sum(values) / len(values) if values else None
