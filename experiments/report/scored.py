"""`gsr score`'s results in `gsr run`'s layout: as a LaTeX table (--latex) and as report.html (--html). gsr.cli.score
measures and prints the tables; experiments.commands.score hands it these two outputs (gsr.cli.score.ReportOutputs)."""

from __future__ import annotations

from pathlib import Path

from gsr.cli.score import ReportOutputs, ScoredRuns, correction_note
from gsr.infra import logs
from gsr.results import GSRResult

log = logs.get("cli")


def results_cells(scored: ScoredRuns, args) -> tuple[list[dict], list[str]]:
    """The results in `gsr run`'s layout (experiments.report.results_table), each run then the perfect and random
    engines: ([{"cells": table cells, "sort": sort keys}], the measures)."""
    from experiments.report.results_table import row_cells

    names, reports, against_perfect = scored.names, scored.reports, scored.against_perfect
    measures = scored.tested_measures()  # effectiveness, then the bias measures (--bias-measures)
    first = reports[0]
    listed = list(next(iter(measures.values()))) if measures else []
    measured: list[tuple[str, GSRResult, dict | None]] = list(zip(names, (r.system for r in reports), against_perfect))
    if first.perfect is not None and first.random is not None:
        measured += [("perfect", first.perfect, None), ("random", first.random, None)]
    rows = []
    for name, result, test in measured:
        relative_ci = first.relative_ci_of(result) if first.perfect is not None and name != "perfect" else None
        given = (measures or {}).get(name, {})
        entries = {m: given.get(m, {"mean": None, "mark": ""}) for m in listed}  # the engines have no bias values
        relative = first.relative_of(result)
        row = {
            "system": name,
            "measures": entries,
            "gsr": {
                args.embedding: {
                    "gsr": result.gsr,
                    "ci": result.ci.to_list() if result.ci else None,
                    "relative": relative,
                    "mark": test["mark"] if test else "",
                    "relative_ci": relative_ci.to_list() if relative_ci else None,
                }
            },
        }
        rows.append(
            {"cells": row_cells(row), "sort": [name, *(e["mean"] for e in entries.values()), result.gsr, relative]}
        )
    return rows, listed


def bias_notes(scored: ScoredRuns) -> list[str]:
    """What the bias columns are (--bias-measures): the topics they average over and their settings (FaiRR's
    background named: each run's own without --background)."""
    from gsr.cli.score_bias import settings_lines

    if scored.bias is None:
        return []
    topics = len(scored.bias.queries)
    return [
        f"Bias measures ({', '.join(scored.bias.names)}): means over the {topics} topics where each is defined (a "
        "topic a run does not answer is left out); the perfect and random engines are not measured. "
        + "; ".join(settings_lines(scored.bias))
        + "."
    ]


def latex_table(scored: ScoredRuns, args) -> str:
    """The results as a booktabs table in `gsr run`'s layout: each run, then the perfect and random engines; means
    with marks, GSR and rel. GSR with their intervals."""
    from experiments.report.results_table import table_header
    from experiments.report.tables import latex_grid

    rows, listed = results_cells(scored, args)
    note = (
        f"GSR under {args.embedding}, cut-off {args.cutoff}; {args.level:.0%} percentile bootstrap intervals "
        f"({args.resamples} resamples, seed {args.seed}); marks on rel. GSR: paired randomisation test against "
        f"the perfect engine; {correction_note(args)}; p < 0.05 / p < 0.01."
    )
    note = " ".join([note, *bias_notes(scored)])
    return latex_grid(
        table_header(listed, [args.embedding], "run"), [row["cells"] for row in rows], "GSR of the scored runs", note
    )


def write_page(scored: ScoredRuns, args) -> None:
    """--html: the scored runs as report.html (experiments.report.html), its table the one --latex prints."""
    from experiments.report.html import scored_report, write_html
    from experiments.report.provenance import scored_provenance
    from experiments.report.results_table import table_header
    from experiments.report.summary import scored_correction
    from gsr.documents.opening import open_documents
    from gsr.infra.outputs import place_file

    rows, listed = results_cells(scored, args)
    table = {
        "columns": table_header(listed, [Path(args.embedding).name], "run"),
        "rows": rows,
        "notes": [
            f"GSR under {args.embedding}, cut-off {args.cutoff}; {args.level:.0%} percentile bootstrap "
            f"intervals ({args.resamples} resamples, seed {args.seed}); {correction_note(args)}.",
            *bias_notes(scored),
        ],
    }
    # g_q(d) reads a document's own words only: the retrieved documents alone give every value the page shows
    wanted = {d for run in scored.runs for ranked in run.values() for d, _ in ranked}
    texts = dict(open_documents(args.docs).texts(wanted))
    gendered = scored.measure.documents(texts, n_jobs=1)
    page = scored_report(
        scored.names,
        scored.reports,
        scored.runs,
        scored.queries,
        scored.qrels,
        gendered,
        Path(args.embedding).name,
        args.cutoff,
        table,
        lambda ids: {d: texts[d] for d in ids if d in texts},
        tests={
            "against_perfect": scored.against_perfect,
            "pairs": scored.pairs,
            "correction": scored_correction(
                args.correction, args.correction_family, scored.against_perfect, scored.pairs, scored.tested_measures()
            ),
        },
        provenance=scored_provenance(args),
        level=args.level,
        seed=args.seed,
        agreement=scored.agreement,
    )
    place_file(lambda path: write_html(page, path), args.html, args.overwrite, "--html", "scoring")
    log.info("wrote %s", args.html)


SCORE_OUTPUTS = ReportOutputs(latex=latex_table, page=write_page)
"""What `gsr score --latex` and `--html` write (experiments.commands.score)."""
