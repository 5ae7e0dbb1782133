"""A system's run file in the cache, written in the order every later step reads the run (trec_eval's), so that the
report's runs/NAME.run can be a copy of its bytes rather than the same run formatted again."""

from __future__ import annotations

import os

from gsr.errors import InputError
from gsr.io.runs import as_written, write_trec_run
from gsr.io.types import Run


def write_ranked_run(run: Run, path: str | os.PathLike, tag: str, named: str | os.PathLike | None = None) -> Run:
    """The run as read back from its TREC file (as_written: trec_eval's order, scores as written), written to `path`
    in that order; `named` is the file errors name (default `path`). A run write_trec_run refuses gets its error,
    as if it had been written as given."""
    try:
        checked = as_written(run, named or path)
    except InputError:
        write_trec_run(run, path, tag=tag)  # where the writer refuses a row, its error comes first, as before
        raise
    write_trec_run(checked, path, tag=tag)
    return checked


def written_tag(path: str | os.PathLike) -> str | None:
    """The tag (last column) of a run file's first line, as write_trec_run wrote it; None for a file without lines."""
    with open(path, encoding="utf-8") as handle:
        first = handle.readline().split()
    return first[-1] if first else None
