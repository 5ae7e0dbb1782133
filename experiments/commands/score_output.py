"""What `gsr score` prints and writes: the effectiveness and GSR tables on stdout, the same results as a LaTeX table
(--latex, `gsr run`'s layout) and as report.html (--html)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from experiments.commands.common import CommandError
from experiments.commands.validate import format_signed
from gsr.infra import logs
from gsr.infra.numeric import format_p

log = logs.get("cli")


def baseline_name(names: list[str], paths: list[str], chosen: str | None) -> str:
    """The run the others are tested against: --baseline (a run's name as printed, or its path), else the first."""
    if chosen is None:
        return names[0]
    for name, path in zip(names, paths):
        if chosen in (name, path):
            return name
    raise CommandError(f"--baseline {chosen!r} is not one of the runs ({', '.join(names)})")


def name_width(names: list[str]) -> int:
    """The name column's width: the longest run name, at least 24, so long names keep the columns aligned."""
    return max(24, *(len(name) for name in names))


def _bounds(interval, digits: int = 4) -> str:
    if interval is None or interval.low is None:
        return "—"
    return f"[{interval.low:+.{digits}f}, {interval.high:+.{digits}f}]"


def _p(value) -> str:
    return format_p(value)  # as the report and every table: 0.444, 1.000, < 0.001


def correction_note(args) -> str:
    """Which p-values were adjusted together, and how: the line every output of `gsr score` carries beside its
    adjusted p-values and marks."""
    family = getattr(args, "correction_family", "measure")
    if args.correction == "none":
        return "p-values unadjusted (correction none)"
    method = {"holm": "Holm", "bonferroni": "Bonferroni"}[args.correction]
    if family == "all":
        return f"p-values {method}-adjusted together: every test of this output one family"
    return f"p-values {method}-adjusted per measure: each measure's tests one family, GSR's tests another"


def print_effectiveness(measures: dict, judged: list[str], args, names: list[str]) -> None:
    from experiments.effectiveness import CORRECTED, TEST_NAMES, display_name
    from gsr.infra.numeric import format_number

    listed = list(next(iter(measures.values())))
    width = name_width(names)
    print(f"Effectiveness (ir_measures) over the {len(judged)} judged topics (a topic a run does not answer scores 0)")
    print(f"  {'run':<{width}}" + "".join(f" {display_name(m):>10}" for m in listed))
    for name, entries in measures.items():
        print(f"  {name:<{width}}" + "".join(f" {format_number(e['mean']) + e['mark']:>10}" for e in entries.values()))
    if len(names) > 1 and args.resamples:
        print(
            f"  † / ‡: {TEST_NAMES[args.test]} against {baseline_name(names, args.run, args.baseline)}, "
            f"{CORRECTED[args.correction]} p < 0.05 / p < 0.01 ({correction_note(args)})"
        )
    print()


def print_table(names, reports, against_perfect, pairs, args) -> None:
    first = reports[0]
    width = name_width(names)
    cutoff = args.cutoff if args.cutoff else "none"
    if args.cutoff == "relevant" and args.qrels is None:
        cutoff = "none (no --qrels: the relevant-documents cut-off needs judgments)"
    print(
        f"GSR (Eq. 3) under {args.embedding}, cut-off {cutoff}, query terms excluded by {args.exclusion}; "
        f"{args.level:.0%} percentile bootstrap intervals over queries ({args.resamples} resamples, seed {args.seed})"
    )
    print(
        f"  {'run':<{width}} {'GSR':>9} {'interval':>20} {'SE':>7} {'relative':>9} {'interval':>16} {'queries':>7} "
        f"{'adj. p vs perfect':>17}"
    )
    rows = [(n, r.system, r.relative_ci_of(r.system), t) for n, r, t in zip(names, reports, against_perfect)]
    if first.perfect is not None:
        rows += [
            ("perfect", first.perfect, None, None),
            ("random", first.random, first.relative_ci_of(first.random), None),
        ]
    for name, result, relative_ci, test in rows:
        relative = first.relative_of(result)
        rel = "—" if relative is None else f"{relative:+.1f}%"
        se = "—" if result.se is None else f"{result.se:.4f}"
        p = "—" if test is None else f"{_p(test['p_adjusted'])}"
        print(
            f"  {name:<{width}} {format_signed(result.gsr, 4):>9} {_bounds(result.ci):>20} {se:>7} {rel:>9} "
            f"{_bounds(relative_ci, 1):>16} {result.n_queries:>7} {p:>17}"
        )
    if pairs:
        print(f"\n  paired randomisation tests of GSR differences ({correction_note(args)})")
        print(f"  {'a':<{width}} {'b':<{width}} {'GSR a − b':>10} {'p':>8} {'p adjusted':>10}")
        for pair in pairs:
            print(
                f"  {pair['a']:<{width}} {pair['b']:<{width}} {format_signed(pair['difference'], 4):>10} "
                f"{_p(pair['p_value']):>8} {_p(pair['p_adjusted']):>10}"
            )
    elif first.perfect is not None:
        print(
            f"  adj. p vs perfect: paired randomisation test of the run's GSR against the perfect engine's "
            f"({correction_note(args)})"
        )
    for name, _, relative_ci, _ in rows:
        if relative_ci is not None and relative_ci.reason:
            print(f"  {name}: no interval of relative GSR: {relative_ci.reason}")
    for name, report in zip(names, reports):
        system = report.system
        for reason, qids in sorted(system.skipped.items()):
            print(f"  {name}: skipped ({reason}): {len(qids)} — {', '.join(qids[:10])}{' …' if len(qids) > 10 else ''}")
        if system.unknown_docids:
            print(
                f"  {name}: {system.unknown_docids} retrieved document ids are not in {args.docs} "
                "(use --strict to fail)"
            )
        if system.unmeasurable_docs:
            print(
                f"  {name}: {system.unmeasurable_docs} retrieved documents have no in-vocabulary word besides the "
                "query's"
            )
        if system.error:
            print(f"  {name}: GSR undefined: {system.error}")


def results_cells(
    names: list[str], reports: list, against_perfect: list, measures: dict | None, args
) -> tuple[list[dict], list[str]]:
    """The results in `gsr run`'s layout (experiments.report.results_table), each run then the perfect and random
    engines: ([{"cells": table cells, "sort": sort keys}], the measures)."""
    from experiments.report.results_table import row_cells

    first = reports[0]
    listed = list(next(iter(measures.values()))) if measures else []
    engines = [("perfect", first.perfect, None), ("random", first.random, None)] if first.perfect is not None else []
    rows = []
    for name, result, test in [*zip(names, (r.system for r in reports), against_perfect), *engines]:
        relative_ci = first.relative_ci_of(result) if first.perfect is not None and name != "perfect" else None
        entries = (measures or {}).get(name, {m: {"mean": None, "mark": ""} for m in listed})
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


def latex_table(names: list[str], reports: list, against_perfect: list, measures: dict | None, args) -> str:
    """The results as a booktabs table in `gsr run`'s layout: each run, then the perfect and random engines; means
    with marks, GSR and rel. GSR with their intervals."""
    from experiments.report.results_table import table_header
    from experiments.report.tables import latex_grid

    rows, listed = results_cells(names, reports, against_perfect, measures, args)
    note = (
        f"GSR under {args.embedding}, cut-off {args.cutoff}; {args.level:.0%} percentile bootstrap intervals "
        f"({args.resamples} resamples, seed {args.seed}); marks on rel. GSR: paired randomisation test against "
        f"the perfect engine; {correction_note(args)}; p < 0.05 / p < 0.01."
    )
    return latex_grid(
        table_header(listed, [args.embedding], "run"), [row["cells"] for row in rows], "GSR of the scored runs", note
    )


def write_page(args, names, runs, reports, against_perfect, pairs, measures, queries, qrels, measure) -> None:
    """--html: the scored runs as report.html (experiments.report.html), its table the one --latex prints."""
    from experiments.report.html import scored_report, write_html
    from experiments.report.provenance import scored_provenance
    from experiments.report.results_table import table_header
    from experiments.report.summary import scored_correction
    from gsr.documents.opening import open_documents

    rows, listed = results_cells(names, reports, against_perfect, measures, args)
    table = {
        "columns": table_header(listed, [Path(args.embedding).name], "run"),
        "rows": rows,
        "notes": [
            f"GSR under {args.embedding}, cut-off {args.cutoff}; {args.level:.0%} percentile bootstrap "
            f"intervals ({args.resamples} resamples, seed {args.seed}); {correction_note(args)}."
        ],
    }
    # g_q(d) reads a document's own words only: the retrieved documents alone give every value the page shows
    wanted = {d for run in runs for ranked in run.values() for d, _ in ranked}
    texts = dict(open_documents(args.docs).texts(wanted))
    gendered = measure.documents(texts, n_jobs=1)
    page = scored_report(
        names,
        reports,
        runs,
        queries,
        qrels,
        gendered,
        Path(args.embedding).name,
        args.cutoff,
        table,
        lambda ids: {d: texts[d] for d in ids if d in texts},
        tests={
            "against_perfect": against_perfect,
            "pairs": pairs,
            "correction": scored_correction(args.correction, args.correction_family, against_perfect, pairs, measures),
        },
        provenance=scored_provenance(args),
    )
    place_file(lambda path: write_html(page, path), args.html, args.overwrite)
    log.info("wrote %s", args.html)


def place_file(write, path: Path, overwrite: bool) -> None:
    """`write(staging)` beside `path`, then the file moved to `path`: replacing what is there with `overwrite`,
    otherwise created only if `path` still does not exist (a file that appeared there meanwhile is never replaced)."""
    staging = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        write(staging)
        if overwrite:
            os.replace(staging, path)
            return
        try:
            try:
                os.link(staging, path)  # fails where a file exists: never overwritten
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: an exclusive create, then the bytes
                with open(path, "xb") as out, open(staging, "rb") as written:
                    shutil.copyfileobj(written, out)
        except FileExistsError:
            raise CommandError(
                f"--html {path} appeared while scoring; it was left as it is (--overwrite replaces it)"
            ) from None
    finally:
        staging.unlink(missing_ok=True)
