"""What `gsr run` writes and draws: `writer` (runs, the results table in every format, per-query values, Tables 2-3,
each analysis's outputs), `results` and `debiasing` (the tables' rows), `provenance` (what produced them),
`tables` (Markdown, LaTeX, CSV, JSON writers) and `plots` (the paper's figures as PNGs)."""

from __future__ import annotations

from gsr.infra.lazy import lazy_names, names_of

# loaded on first use: the analyses import report.tables and report.png_figures, which must not pull in the writer
_LAZY = names_of(
    "experiments.report.writer",
    "write_report",
    "results_rows",
    "markdown_table",
    "latex_table",
    "csv_table",
    "per_query_csv",
    "trec_eval_q",
    "debias_gsr_rows",
    "debias_effectiveness_rows",
)
__all__ = list(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
