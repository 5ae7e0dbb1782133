"""TREC qrels files and relevance grades: integers only, the same document never judged twice differently, every
malformed line an InputError naming file:line."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable
from pathlib import Path

from gsr.errors import InputError
from gsr.io.files import text_lines
from gsr.io.numbers import GRADE_RANGE, INTEGER_TEXT, checked_range
from gsr.io.types import Qrels


def relevance_grade(value, where: str) -> int:
    """An integer relevance grade within GRADE_RANGE: an int, an integral number, or an integer's text in ASCII
    digits; 0.5, "1.0", "1_0", "٣", true, NaN or 10^30 are InputErrors at `where` (never truncated nor wrapped)."""
    if isinstance(value, str) and INTEGER_TEXT.fullmatch(value.strip()):
        return checked_range(int(value), where, "relevance grade", GRADE_RANGE)
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        return checked_range(int(math.trunc(value)), where, "relevance grade", GRADE_RANGE)
    raise InputError(f"{where}: relevance grade must be an integer, found {value!r}")


def read_qrels(path: str | os.PathLike) -> Qrels:
    """A TREC qrels file: 'qid iteration docid grade' per line; a file without any judgment is an error.

    Args:
        path: The file (plain or .gz).

    Returns:
        {qid: {docid: grade}}.

    Raises:
        InputError: If a line is malformed or the file holds no judgment (the message names file:line).

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "qrels.txt")
        ...     _ = path.write_text("q1 0 d1 2\\nq1 0 d2 0\\n")
        ...     read_qrels(path)
        {'q1': {'d1': 2, 'd2': 0}}
    """
    path = Path(path)
    qrels: Qrels = {}
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InputError(f"{path}:{lineno}: expected 4 columns 'qid iteration docid grade', found {len(parts)}")
        qid, _, docid, grade = parts
        add_judgment(qrels, qid, docid, relevance_grade(grade, f"{path}:{lineno}"), f"{path}:{lineno}")
    if not qrels:
        raise InputError(f"{path}: the qrels are empty (no 'qid iteration docid grade' line)")
    return qrels


def add_judgment(qrels: Qrels, qid: str, docid: str, grade: int, where: str) -> None:
    """Record one judgment; the same document judged twice with different grades is an error at `where`."""
    judged = qrels.setdefault(qid, {})
    if docid in judged and judged[docid] != grade:
        raise InputError(f"{where}: document {docid} judged twice for query {qid} with different grades")
    judged[docid] = grade


def graded(rows: Iterable[tuple[str, str, str, object]]) -> Qrels:
    """Qrels from (where, qid, docid, grade) rows; grades checked by relevance_grade."""
    qrels: Qrels = {}
    for where, qid, docid, grade in rows:
        add_judgment(qrels, qid, docid, relevance_grade(grade, where), where)
    return qrels
