"""`gsr score`: the measure's command (gsr.cli.score), with the two outputs in `gsr run`'s layout that the harness's
report writes (experiments.report.scored): the LaTeX table (--latex) and report.html (--html)."""

from __future__ import annotations

from gsr.cli import score


def configure(parser) -> None:
    """gsr.cli.score's options and command, with --latex and --html."""
    from experiments.report.scored import SCORE_OUTPUTS

    score.configure(parser, SCORE_OUTPUTS)
