"""TREC run files: reading them as trec_eval does (every malformed line an InputError naming file:line), checking
runs given in any other form, and writing them."""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from gsr.errors import InputError
from gsr.infra.store import atomic_write
from gsr.io.files import text_lines
from gsr.io.numbers import decimal_text, integer_text
from gsr.io.types import CheckedRun, Run, rank_order


def read_trec_run(path: str | os.PathLike, allow_empty: bool = False) -> Run:
    """A TREC run file: 'qid Q0 docid rank score tag' per line; ranked by score as trec_eval does.

    A file without any run line is an error (unless `allow_empty`: a system that retrieved nothing at all).

    Args:
        path: The run file (plain or .gz).
        allow_empty: Read a file without any run line as an empty run.

    Returns:
        {qid: [(docid, score)]}, each list in trec_eval's order (score, then document id, descending).

    Raises:
        InputError: If a line is malformed, a document appears twice for a query, or the run is empty (the message
            names file:line).

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "bm25.run")
        ...     _ = path.write_text("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 3.0 bm25\\n")
        ...     read_trec_run(path)
        {'q1': [('d2', 3.0), ('d1', 2.5)]}
    """
    path = Path(path)
    run = checked_run(_trec_run_rows(path))
    if not run and not allow_empty:
        raise InputError(f"{path}: the run is empty (no 'qid Q0 docid rank score tag' line)")
    return run


def _trec_run_rows(path: Path) -> Iterator[tuple[str, str, str, float]]:
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6:
            raise InputError(f"{path}:{lineno}: expected 6 columns 'qid Q0 docid rank score tag', found {len(parts)}")
        qid, _, docid, rank, score, _ = parts
        where = f"{path}:{lineno}"
        integer_text(rank, where, "rank")
        yield where, qid, docid, run_score(score, where)


def checked_run(rows: Iterable[tuple[str, str, str, object]]) -> Run:
    """Rows of (where, qid, docid, score), ranked; a score that is not a number (NaN, true, text) and repeated
    documents are errors at `where`."""
    grouped: dict[str, dict[str, float]] = {}
    for where, q, d, s in rows:
        s = run_score(s, where)
        docs = grouped.setdefault(q, {})
        if d in docs:
            raise InputError(f"{where}: document {d} appears twice for query {q}")
        docs[d] = s
    return CheckedRun((q, rank_order(docs.items())) for q, docs in grouped.items())


def run_score(value, where: str) -> float:
    """A retrieval score as a float: a number, or its text in ASCII digits (decimal_text); NaN, true/false and
    other text are InputErrors at `where`."""
    if isinstance(value, str):
        score = decimal_text(value.strip(), where)
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        score = float(value)
    else:
        raise InputError(f"{where}: score must be a number, not {value!r}")
    if score != score:
        raise InputError(f"{where}: score is NaN")
    return score


def run_column(text: str, what: str) -> str:
    """`text` when it can be one whitespace-separated column of a TREC run (non-empty, no whitespace, a string);
    else an InputError naming `what`: read back, such a line would have other columns than were written."""
    if not isinstance(text, str) or not text or any(ch.isspace() for ch in text):
        raise InputError(
            f"{what} {text!r} cannot be a column of a TREC run: it must be a non-empty string without whitespace"
        )
    return text


def as_written(run: Run, path: str | os.PathLike) -> Run:
    """The run `write_trec_run` wrote to `path`, as read_trec_run would read it back, without reading the file: queries
    in file (sorted) order, those without documents absent, each ranked as trec_eval ranks it."""
    return checked_run(
        (f"{path}: query {qid}", qid, docid, float(score)) for qid in sorted(run) for docid, score in run[qid]
    )


def write_trec_run(run: Run, path: str | os.PathLike, tag: str = "gsr") -> Path:
    """A run as a TREC run file ('qid Q0 docid rank score tag'), written atomically; every line reads back as it was
    written (ids and tag without whitespace, finite or infinite scores, never NaN), else nothing is written.

    Args:
        run: {qid: [(docid, score)]}, best first.
        path: The file written.
        tag: The run tag of the last column.

    Returns:
        The path written.

    Raises:
        InputError: If an id or the tag is empty or holds whitespace, or a score is NaN.
        StorageError: If the file cannot be written.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     write_trec_run({"q1": [("d1", 2.5)]}, pathlib.Path(folder, "out.run")).read_text()
        'q1 Q0 d1 1 2.5 gsr\\n'
    """
    run_column(tag, "the run tag")
    with atomic_write(path) as out:
        for qid in sorted(run):
            run_column(qid, "query id")
            for rank, (docid, score) in enumerate(run[qid], start=1):
                value = float(score)
                if value != value:
                    raise InputError(f"query {qid}, document {docid}: score is NaN, which a TREC run cannot hold")
                out.write(f"{qid} Q0 {run_column(docid, 'document id')} {rank} {value!r} {tag}\n")  # repr: exact
    return Path(path)
