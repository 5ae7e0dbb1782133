"""`gsr queries`: every query's genderedness g(q) and its terms' projections, most female first (Fig. 7)."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.commands.validate import format_signed
from gsr.cli.options import (
    add_embedding_options,
    add_overwrite_option,
    analyzer_of,
    check_outputs,
    lexicon_of,
    plot_targets,
)
from gsr.infra import logs

log = logs.get("cli")
FIGURE = "fig7_queries.png"  # --plots' file


def cmd_queries(args) -> int:
    from gsr.evaluate import describe_queries
    from gsr.infra.extras import require
    from gsr.io.convert import as_queries

    check_outputs(args, plot_targets(args.plots, [FIGURE]), args.overwrite)
    if args.plots:  # found before any work, as gsr validate --plots does
        require("plots", "--plots (PNG figures drawn with matplotlib)")
    queries = as_queries(args.topics, args.field)
    lexicon = lexicon_of(args)
    rows = describe_queries(queries, lexicon, analyzer_of(args))
    if args.plots:
        from experiments.report import png_figures as plots

        written = plots.plot_query_genderedness(rows, Path(args.plots) / FIGURE)
        log.info("wrote %s", written)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    unmeasured = sum(1 for r in rows if r["genderedness"] is None)
    print(
        f"{len(rows)} queries from {args.topics} ({args.field}), most female first; "
        f"{unmeasured} with no term in the embedding"
    )
    width = max([8, *(len(r["qid"]) for r in rows)])  # the longest id: long ids keep the columns aligned
    print(f"  {'qid':<{width}} {'g(q)':>8}  terms (g)")
    for r in rows:
        terms = " ".join(f"{t['term']}({format_signed(t['g'], 2)})" for t in r["terms"])
        print(f"  {r['qid']:<{width}} {format_signed(r['genderedness']):>8}  {terms}")
    return 0


def configure(parser) -> None:
    """The options of `gsr queries`, and the function that runs it."""
    parser.add_argument("--topics", required=True, help="TREC topics, TSV (qid<TAB>text) or JSONL queries, or irds:ID")
    parser.add_argument("--field", default="title", help="topic field: title, desc, narr or e.g. title+desc")
    add_embedding_options(parser)
    parser.add_argument("--plots", metavar="DIR", help=f"also draw Fig. 7 as a PNG file in DIR ({FIGURE})")
    add_overwrite_option(parser, "--plots' figure")
    parser.set_defaults(func=cmd_queries)
