"""TREC run files: reading them as trec_eval does (every malformed line an InputError naming file:line), checking
runs given in any other form, and writing them.

Runs are read, checked and written a block or a query at a time, with C-level passes over whole columns (split,
map, set, join) instead of Python code per line: a file read so must hold nothing those passes do not check in bulk;
anything else (a malformed line, a repeated document, a NaN score) is read again line by line by the readers' own
checks, which name the line at fault. A query written or checked so must likewise be of the common shape, else its
rows are handled one by one, as before: the same bytes, values and errors either way.
"""

from __future__ import annotations

import codecs
import functools
import numbers
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, count, islice
from math import isnan
from operator import eq, itemgetter, le, ne
from pathlib import Path

import numpy as np

from gsr.errors import InputError
from gsr.infra.store import atomic_write
from gsr.io.files import decoded_block, line_blocks, text_lines
from gsr.io.numbers import INTEGER_TEXT, decimal_text, integer_text
from gsr.io.types import CheckedRun, Run, rank_order

BLOCK = 1 << 20  # bytes of a run file split at a time
_WORD_BYTE = np.array([not chr(b).isspace() for b in range(256)])  # byte b of UTF-8 text is (part of) no whitespace
_WORD_BYTE[0x80:] = True  # bytes of characters beyond ASCII (where none of them is whitespace)
_WIDE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")  # isspace() beyond ASCII
_NOT_WIDE_SPACE_LEAD = bytes(b for b in range(256) if b not in b"\xc2\xe1\xe2\xe3")  # their UTF-8 starts so
_ID, _SCORE = itemgetter(0), itemgetter(1)


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
    run: Run | None = _well_formed_run(path)
    if run is None:  # a line may be malformed: read line by line, naming the first that is
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


def _well_formed_run(path: Path) -> CheckedRun | None:
    """The run of a file whose every line _trec_run_rows takes (the same run), read a block at a time; None where
    any line might be refused (or the file cannot be read): _trec_run_rows then names the first such line."""
    qids: list[list[str]] = []  # each column a list per block
    docids: list[list[str]] = []
    scores: list[list[str]] = []
    ranks: set[str] = set()
    first_line = 1
    try:
        for block in line_blocks(path, BLOCK):
            tokens = _block_tokens(block, path, first_line)
            if tokens is None:
                return None
            first_line += block.count(b"\n")
            qids.append(tokens[0::6])
            docids.append(tokens[2::6])
            ranks.update(tokens[3::6])
            scores.append(tokens[4::6])
            del tokens
        if not all(map(INTEGER_TEXT.fullmatch, ranks)):
            return None
        list(map(int, ranks))  # as integer_text converts them: int() refuses more than sys.get_int_max_str_digits()
        values = _decimals(_joined(scores))
    except Exception:  # _trec_run_rows reads the file again and raises what is wrong
        return None
    if values is None or _has_nan(values):
        return None
    return _ranked_queries(_joined(qids), _joined(docids), values)


def _joined(blocks: list[list[str]]) -> list[str]:
    return blocks[0] if len(blocks) == 1 else list(chain.from_iterable(blocks))  # one block: no copy


def _decimals(scores: list[str]) -> list[float] | None:
    """The scores as decimal_text reads them, or None where it refuses one. Its pattern is float()'s grammar (the
    Python reference, 'Built-in Functions: float') for ASCII text without '_' or whitespace (Unicode digits and
    '_' between digits being all float() takes beyond it): such text float() reads exactly when decimal_text does."""
    joined = " ".join(scores)
    if not joined.isascii() or "_" in joined:  # a score decimal_text refuses
        return None
    try:
        return list(map(float, scores))
    except ValueError:
        return None


def _block_tokens(block: bytes, path: Path, first_line: int) -> list[str] | None:
    """The whitespace-separated tokens of a block of whole lines, decoded as text_lines decodes them; None unless each
    line holds 6 or none. The tokens of each line are counted with numpy where all whitespace is ASCII."""
    if not block.endswith(b"\n"):
        block += b"\n"
    text = decoded_block(block, path, first_line)  # byte-order marks at line starts skipped; NUL, not UTF-8 refused
    if codecs.BOM_UTF8 in block:
        block = text.encode("utf-8")  # the bytes of the text, without the marks skipped
    if not text.isascii() and block.translate(None, _NOT_WIDE_SPACE_LEAD) and _WIDE_SPACE.search(text):
        rows = list(filter(None, map(str.split, text.split("\n"))))  # line by line (text_lines splits at b"\n" only)
        return list(chain.from_iterable(rows)) if set(map(len, rows)) <= {6} else None
    data = np.frombuffer(block, dtype=np.uint8)
    word = np.take(_WORD_BYTE, data)  # not whitespace (an ASCII byte that isspace() is not, or part of a wider one)
    starts = np.flatnonzero(word[1:] > word[:-1])  # i where a token starts at i + 1
    per_line = np.diff(np.searchsorted(starts, np.flatnonzero(data == 10)), prepend=-int(word[0]))  # and at 0
    if ((per_line != 0) & (per_line != 6)).any():
        return None
    return text.split()


def _ranked_queries(qids: list[str], docids: list[str], values: list[float]) -> CheckedRun | None:
    """Rows as checked_run ranks them (queries in order of first appearance; distinct documents, scores not NaN);
    None where a document appears twice for a query."""
    if not qids:
        return CheckedRun()
    cuts = [0, *compress(count(1), map(ne, qids, islice(qids, 1, None))), len(qids)]
    spans: dict[str, list[tuple[int, int]]] = {}
    for begin, end in zip(cuts, islice(cuts, 1, None)):
        spans.setdefault(qids[begin], []).append((begin, end))
    run = CheckedRun()
    for qid, parts in spans.items():
        ids, scores = _spanned(docids, parts), _spanned(values, parts)
        if len(set(ids)) < len(ids):
            return None
        run[qid] = _trec_eval_order(ids, scores)
    return run


def _spanned(column: list, parts: list[tuple[int, int]]) -> list:
    if len(parts) == 1:
        return column[parts[0][0] : parts[0][1]]
    return list(chain.from_iterable(column[begin:end] for begin, end in parts))


def _trec_eval_order(ids: list[str], scores: list[float], pairs: list | tuple | None = None) -> list[tuple[str, float]]:
    """rank_order(zip(ids, scores)) of distinct string ids and scores without NaN, an order without ties (any sort
    gives it): sorted by score where not so already (a run file's lines mostly are), then the rows of ties only, by
    document id (a system's run breaks ties its own way). `pairs`: the (id, score) tuples, where made already."""
    pairs = list(zip(ids, scores) if pairs is None else pairs)
    descending = sorted(scores, reverse=True)  # as they are where they are so (a C loop faster than map(ge, ...))
    if descending != scores:
        pairs.sort(key=_SCORE, reverse=True)  # stable, as every sort here
        ids, scores = list(map(_ID, pairs)), descending
    tied = list(compress(count(), map(eq, scores, islice(scores, 1, None))))  # pairs[i] ties with pairs[i + 1]
    if tied and any(map(le, map(ids.__getitem__, tied), map(ids.__getitem__, map((1).__add__, tied)))):
        members = sorted({*tied, *map((1).__add__, tied)})  # the rows of ties, whose places they keep among them
        rows = list(map(pairs.__getitem__, members))
        rows.sort(key=_ID, reverse=True)
        rows.sort(key=_SCORE, reverse=True)  # each run of ties by document id descending, no key tuple made
        for at, row in zip(members, rows):
            pairs[at] = row
    return pairs


def checked_run(rows: Iterable[tuple[str, str, str, object]]) -> Run:
    """Rows of (where, qid, docid, score), ranked; a score that is not a number (NaN, true, text) and repeated
    documents are errors at `where`."""
    grouped = _checked_rows(rows, {})
    return CheckedRun((q, rank_order(docs.items())) for q, docs in grouped.items())


def _checked_rows(rows: Iterable[tuple[str, str, str, object]], grouped: dict) -> dict[str, dict[str, float]]:
    for where, q, d, s in rows:
        s = run_score(s, where)
        docs = grouped.setdefault(q, {})
        if d in docs:
            raise InputError(f"{where}: document {d} appears twice for query {q}")
        docs[d] = s
    return grouped


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


def _listed(ranked) -> list | tuple | None:
    """A query's (docid, score) pairs as a list or tuple, where they are a sequence that can be listed."""
    if type(ranked) is list or type(ranked) is tuple:
        return ranked
    if isinstance(ranked, Sequence):
        try:
            return list(ranked)
        except Exception:
            return None
    return None


def _columns(rows: list | tuple) -> tuple[list, list[float], bool] | None:
    """(document ids, scores as floats, whether the rows are (id, float) tuples already) of (docid, score) tuples or
    lists; None where a row is of another kind, or a score cannot be a float."""
    kinds = set(map(type, rows))
    if not rows or not kinds <= {tuple, list} or set(map(len, rows)) != {2}:
        return None
    ids, scores = list(map(_ID, rows)), list(map(_SCORE, rows))
    if set(map(type, scores)) == {float}:  # float(score) is score
        return ids, scores, kinds == {tuple}
    try:
        return ids, list(map(float, scores)), False
    except Exception:
        return None


def _has_nan(values: list[float]) -> bool:
    total = sum(values)  # NaN where a value is (or where inf and -inf meet: looked at one by one)
    return total != total and any(map(isnan, values))


def as_written(run: Run, path: str | os.PathLike) -> Run:
    """The run `write_trec_run` wrote to `path`, as read_trec_run would read it back, without reading the file: queries
    in file (sorted) order, those without documents absent, each ranked as trec_eval ranks it."""
    checked: dict = {}
    for qid in sorted(run):
        ranked = run[qid]
        rows = _listed(ranked)
        columns = None if rows is None else _columns(rows)
        if columns is not None and _distinct(columns[0]) and not _has_nan(columns[1]):
            ids, scores, made = columns  # made: the rows are the (id, float) tuples checked_run makes, kept
            checked[qid] = ids, scores, rows if made else None
            continue
        where = f"{path}: query {qid}"  # row by row, as checked_run: the first wrong row's error
        docs = _checked_rows(((where, qid, d, float(s)) for d, s in (ranked if rows is None else rows)), {})
        if docs:
            checked[qid] = list(docs[qid]), list(docs[qid].values()), None
    return CheckedRun((q, _ranked(*columns)) for q, columns in checked.items())


def _distinct(ids: list) -> bool:
    """Whether no id appears twice (False where one cannot be a dict key: checked_run's rows fail on it)."""
    try:
        return len(set(ids)) == len(ids)
    except Exception:
        return False


def _ranked(ids: list, scores: list[float], pairs: list | tuple | None) -> list[tuple[str, float]]:
    if set(map(type, ids)) == {str}:
        return _trec_eval_order(ids, scores, pairs)
    return rank_order(zip(ids, scores))  # other ids compare as rank_order compares them, or fail as it fails


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
            ranked = run[qid]
            rows = _listed(ranked)
            lines = None if rows is None else _query_lines(qid, rows, tag)
            if lines is not None:
                out.write(lines)
                continue
            for rank, (docid, score) in enumerate(ranked if rows is None else rows, start=1):  # row by row
                value = float(score)
                if value != value:
                    raise InputError(f"query {qid}, document {docid}: score is NaN, which a TREC run cannot hold")
                out.write(f"{qid} Q0 {run_column(docid, 'document id')} {rank} {value!r} {tag}\n")  # repr: exact
    return Path(path)


def _rank_fields(n: int) -> tuple[str, ...]:
    """(" 1 ", " 2 ", ..., f" {n} "): kept for the common depths."""
    return _kept_rank_fields(n) if n <= 100_000 else tuple(f" {rank} " for rank in range(1, n + 1))


@functools.lru_cache(maxsize=8)
def _kept_rank_fields(n: int) -> tuple[str, ...]:
    return tuple(f" {rank} " for rank in range(1, n + 1))


def _query_lines(qid: str, rows: list | tuple, tag: str) -> str | None:
    """The lines write_trec_run writes for one query's rows, where none of them is refused and the text can be
    written as UTF-8; else None (the rows are written one by one, the first wrong one refused)."""
    if not rows:
        return ""
    columns = _columns(rows)
    if columns is None or _has_nan(columns[1]) or not _column_ids(columns[0]):
        return None
    ids, values, _ = columns
    head, tail = f"{qid} Q0 ", f" {tag}\n"  # each line head + docid + f" {rank} " + repr(value) + tail
    parts = [tail + head] * (4 * len(ids))
    parts[0::4] = ids
    parts[1::4] = _rank_fields(len(ids))
    parts[2::4] = map(float.__repr__, values)  # exact floats
    parts[-1] = tail
    lines = head + "".join(parts)
    if not lines.isascii():
        try:
            lines.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the row by row writer fails where the old one failed
            return None
    return lines


_NOT_WHITESPACE = bytes(b for b in range(128) if not chr(b).isspace())


def _column_ids(ids: list) -> bool:
    """Whether run_column takes every id: an exact string, non-empty, without whitespace. Joined by spaces, such ids
    hold no other whitespace than the n - 1 spaces between them (ASCII), and split again they come back unchanged
    (str.split() splits at exactly the characters for which isspace() is true)."""
    if set(map(type, ids)) != {str} or not all(ids):
        return False
    joined = " ".join(ids)
    if joined.isascii():
        return joined.encode("ascii").translate(None, _NOT_WHITESPACE) == b" " * (len(ids) - 1)
    return joined.split() == ids
