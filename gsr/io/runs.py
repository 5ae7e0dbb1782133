"""TREC run files: reading them as trec_eval does (every malformed line an InputError naming file:line), checking
runs given in any other form, and writing them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from gsr.errors import InputError
from gsr.infra.store import atomic_write
from gsr.io.files import text_lines
from gsr.io.types import Run, rank_order


def read_trec_run(path: str | os.PathLike, allow_empty: bool = False) -> Run:
    """A TREC run file: 'qid Q0 docid rank score tag' per line; ranked by score as trec_eval does.

    A file without any run line is an error (unless `allow_empty`: a system that retrieved nothing at all).
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
        try:
            int(rank)
            value = float(score)
        except ValueError:
            raise InputError(f"{path}:{lineno}: rank must be an integer and score a number: {line!r}") from None
        yield f"{path}:{lineno}", qid, docid, value


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
    return {q: rank_order(docs.items()) for q, docs in grouped.items()}


def run_score(value, where: str) -> float:
    """A retrieval score as a float; NaN, true/false and text are InputErrors at `where`."""
    if not isinstance(value, bool):
        try:
            score = float(value)
        except (TypeError, ValueError):
            pass
        else:
            if score != score:
                raise InputError(f"{where}: score is NaN")
            return score
    raise InputError(f"{where}: score must be a number, not {value!r}")


def write_trec_run(run: Run, path: str | os.PathLike, tag: str = "gsr") -> Path:
    """A run as a TREC run file ('qid Q0 docid rank score tag'), written atomically."""
    with atomic_write(path) as out:
        for qid in sorted(run):
            for rank, (docid, score) in enumerate(run[qid], start=1):
                out.write(f"{qid} Q0 {docid} {rank} {float(score)!r} {tag}\n")  # repr round-trips exactly
    return Path(path)
