"""A run held as flat arrays (query offsets, document ids as UTF-8 bytes, float64 scores) instead of one Python tuple
per retrieved document, and a TREC run reader that fills them with numpy.

`read_run_arrays` reads what gsr.io.runs.read_trec_run reads, into the same order (queries in file order, each list
in trec_eval's order: score descending, ties by document id descending) and with the same scores. It parses the
common shape of a run file (ASCII, 'qid Q0 docid rank score tag' lines, decimal scores) block by block without a
Python loop over lines; a file it cannot take so (anything else, e.g. a malformed line, a repeated document, non-ASCII
text, 'nan') is read by read_trec_run itself, which accepts it or raises the error naming file:line.

`RunArrays.as_run()` gives the arrays as a gsr.io.types.CheckedRun whose lists are read-only views (RankedList):
what gsr.evaluate and the reports take, without 10^7 tuples in memory.
"""

from __future__ import annotations

import operator
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gsr.io.files import line_blocks
from gsr.io.runs import read_trec_run
from gsr.io.types import CheckedRun, Run

BLOCK = 1 << 23  # bytes of the file parsed at a time
_MAX_WIDTH = 256  # the longest token (query id, document id, rank, score) the array reader takes
_WHITESPACE = b" \t\r\n"
_TOKEN_BYTES = bytes(range(0x21, 0x7F))
_ALLOWED = _WHITESPACE + _TOKEN_BYTES  # anything else (control, non-ASCII, NUL) goes to read_trec_run

# character classes and automata of a rank ([+-]?[0-9]+) and a decimal score
# ([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?); class 0 is the padding after a token: no move
_PAD, _DIGIT, _DOT, _SIGN, _EXP, _OTHER = range(6)
_CLASS = np.full(256, _OTHER, dtype=np.int64)
_CLASS[0] = _PAD
_CLASS[list(b"0123456789")] = _DIGIT
_CLASS[list(b".")] = _DOT
_CLASS[list(b"+-")] = _SIGN
_CLASS[list(b"eE")] = _EXP
_DEAD = 9
_SCORE_MOVES = np.full((10, 6), _DEAD, dtype=np.int64)
_SCORE_MOVES[:, _PAD] = np.arange(10)
for _state, _class, _next in (
    (0, _DIGIT, 2), (0, _DOT, 4), (0, _SIGN, 1), (1, _DIGIT, 2), (1, _DOT, 4), (2, _DIGIT, 2), (2, _DOT, 3),
    (2, _EXP, 6), (3, _DIGIT, 5), (3, _EXP, 6), (4, _DIGIT, 5), (5, _DIGIT, 5), (5, _EXP, 6), (6, _DIGIT, 8),
    (6, _SIGN, 7), (7, _DIGIT, 8), (8, _DIGIT, 8),
):  # fmt: skip
    _SCORE_MOVES[_state, _class] = _next
_SCORE_ACCEPT = np.zeros(10, dtype=bool)
_SCORE_ACCEPT[[2, 3, 5, 8]] = True
_POWERS = np.array([float(10**k) for k in range(23)])  # exact doubles


class _Irregular(Exception):
    """The file is not of the shape the array reader takes: read_trec_run reads it."""


class RankedList(Sequence):
    """One query's ranked (docid, score) pairs, read from a RunArrays when asked for: a slice is a list of tuples."""

    __slots__ = ("_arrays", "_begin", "_end")

    def __init__(self, arrays: RunArrays, begin: int, end: int):
        self._arrays, self._begin, self._end = arrays, begin, end

    def __len__(self) -> int:
        return self._end - self._begin

    def _pairs(self, begin: int, end: int) -> list[tuple[str, float]]:
        ids = self._arrays.docids[begin:end].tolist()
        return list(zip((d.decode("utf-8") for d in ids), self._arrays.scores[begin:end].tolist()))

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self._pairs(self._begin, self._end)[index]
            return self._pairs(self._begin + start, self._begin + max(start, stop))
        position = operator.index(index)
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError("ranked list index out of range")
        at = self._begin + position
        return self._arrays.docids[at].decode("utf-8"), float(self._arrays.scores[at])

    def __iter__(self) -> Iterator[tuple[str, float]]:
        return iter(self._pairs(self._begin, self._end))

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"RankedList({len(self)} documents)"


class ArrayRun(CheckedRun):
    """A CheckedRun whose lists are RankedList views of `arrays` (RunArrays.as_run)."""

    arrays: RunArrays


@dataclass(frozen=True, eq=False)
class RunArrays:
    """Query qids[i]'s documents are docids[offsets[i]:offsets[i+1]] (UTF-8 bytes) with their scores; `ranked`:
    each list is in trec_eval's order (score descending, ties by document id descending), as read_trec_run's."""

    qids: tuple[str, ...]
    offsets: np.ndarray
    docids: np.ndarray
    scores: np.ndarray
    ranked: bool = True

    def __len__(self) -> int:
        return len(self.scores)

    def query_codes(self) -> np.ndarray:
        """The position in `qids` of each row's query."""
        return np.repeat(np.arange(len(self.qids), dtype=np.int64), np.diff(self.offsets))

    def as_run(self) -> ArrayRun:
        """The run as a CheckedRun of RankedList views (the arrays must be `ranked`)."""
        if not self.ranked:
            raise ValueError("only ranked arrays can be viewed as a run")
        run = ArrayRun(
            (q, RankedList(self, int(b), int(e))) for q, b, e in zip(self.qids, self.offsets[:-1], self.offsets[1:])
        )
        run.arrays = self
        return run

    @classmethod
    def from_run(cls, run: Run) -> RunArrays:
        """The arrays of a {qid: [(docid, score), ...]} run, lists as they are (`ranked` when it is a CheckedRun);
        a query without documents is left out."""
        arrays = getattr(run, "arrays", None)
        if isinstance(arrays, RunArrays):
            return arrays
        qids = tuple(q for q, ranked in run.items() if len(ranked))
        lengths = [len(run[q]) for q in qids]
        offsets = np.zeros(len(qids) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        docids = np.array([d.encode("utf-8") for q in qids for d, _ in run[q]], dtype=bytes)
        scores = np.array([float(s) for q in qids for _, s in run[q]], dtype=np.float64)
        return cls(qids, offsets, docids.reshape(-1), scores, isinstance(run, CheckedRun))


def read_run_arrays(path, allow_empty: bool = False) -> RunArrays:
    """A TREC run file as RunArrays, exactly as read_trec_run reads it (the same errors, order and scores)."""
    path = Path(path)
    try:
        arrays = _parse(path)
    except (_Irregular, OSError, EOFError, zlib.error):  # read_trec_run reads it, or names what is wrong
        arrays = None
    if arrays is None or not len(arrays):
        return RunArrays.from_run(read_trec_run(path, allow_empty))
    return arrays


# ---------------------------------------------------------------------------------------------- the array reader


def _blocks(path: Path) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last one given a line end)."""
    for block in line_blocks(path, BLOCK):
        yield block if block.endswith(b"\n") else block + b"\n"


def _gathered(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The tokens [starts, ends) of `data` (followed by _MAX_WIDTH zero bytes) as the rows of a zero-padded (n, width)
    uint8 matrix: each row copied from a sliding-window view."""
    lengths = ends - starts
    width = max(1, int(lengths.max(initial=1)))
    if width > _MAX_WIDTH:
        raise _Irregular
    out = np.lib.stride_tricks.sliding_window_view(data, width)[starts]
    out[np.arange(width) >= lengths[:, None]] = 0
    return out


def _ranks_ok(tokens: np.ndarray) -> bool:
    """Whether every token is an integer as integer_text reads it: [+-]?[0-9]+."""
    columns = np.ascontiguousarray(tokens.T)
    digit = [column - np.uint8(48) < 10 for column in columns]
    signed = (columns[0] == ord("-")) | (columns[0] == ord("+"))
    ok = digit[0] | (signed & digit[1]) if len(columns) > 1 else digit[0]
    for column, is_digit in zip(columns[1:], digit[1:]):
        ok &= is_digit | (column == 0)
    return bool(ok.all())


def _scores(tokens: np.ndarray) -> np.ndarray:
    """Decimal score tokens as float(text) reads them: a mantissa of at most 2^53 with a power of ten within ±22 is
    one correctly rounded multiplication or division of exact doubles; any other token is given to float()."""
    if (tokens == ord("e")).any() or (tokens == ord("E")).any():
        return _scientific_scores(tokens)
    columns = np.ascontiguousarray(tokens.T)
    first = columns[0]
    negative = first == ord("-")
    body = negative | (first == ord("+"))
    n = len(first)
    mantissa, digits, fraction, dots = (np.zeros(n, dtype=np.int64) for _ in range(4))
    for j, column in enumerate(columns):
        digit = column - np.uint8(48)
        is_digit = digit < 10
        is_dot = column == ord(".")
        if j:
            body &= is_digit | is_dot | (column == 0)
        else:
            body |= is_digit | is_dot
        dots += is_dot
        digits += is_digit
        fraction += is_digit & (dots > 0)
        mantissa = np.where(is_digit, mantissa * 10 + digit, mantissa)
    if not body.all() or (dots > 1).any() or (digits == 0).any():
        raise _Irregular  # [+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+) only: anything else is read_trec_run's to judge
    exact = (digits <= 18) & (mantissa <= 2**53) & (fraction <= 22)
    values = mantissa / _POWERS[np.minimum(fraction, 22)]
    values = np.where(negative, -values, values)
    return _float_rest(values, exact, tokens)


def _float_rest(values: np.ndarray, exact: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """`values`, where not `exact` replaced by float() of the token."""
    if not exact.all():
        rest = np.flatnonzero(~exact)
        values[rest] = [
            float(t) for t in np.ascontiguousarray(tokens[rest]).view(f"S{tokens.shape[1]}").ravel().tolist()
        ]
    return values


def _scientific_scores(tokens: np.ndarray) -> np.ndarray:
    """_scores of tokens some of which have an exponent: an automaton reads them column by column."""
    n = len(tokens)
    state = np.zeros(n, dtype=np.int64)
    mantissa = np.zeros(n, dtype=np.int64)
    exponent = np.zeros(n, dtype=np.int64)
    fraction = np.zeros(n, dtype=np.int64)
    negative = np.zeros(n, dtype=bool)
    exponent_negative = np.zeros(n, dtype=bool)
    too_long = np.zeros(n, dtype=bool)
    for column in tokens.T:
        state = _SCORE_MOVES[state, _CLASS[column]]
        digit = column.astype(np.int64) - 48
        in_mantissa = (column >= 48) & (column <= 57) & ((state == 2) | (state == 5))
        too_long |= in_mantissa & (mantissa >= 10**17)
        np.copyto(mantissa, mantissa * 10 + digit, where=in_mantissa & ~too_long)
        fraction += in_mantissa & (state == 5)
        in_exponent = (state == 8) & (column >= 48) & (column <= 57)
        too_long |= in_exponent & (exponent >= 10**6)
        np.copyto(exponent, exponent * 10 + digit, where=in_exponent & ~too_long)
        negative |= (state == 1) & (column == 45)
        exponent_negative |= (state == 7) & (column == 45)
    if not _SCORE_ACCEPT[state].all():
        raise _Irregular
    power = np.where(exponent_negative, -exponent, exponent) - fraction
    exact = ~too_long & (mantissa <= 2**53) & (np.abs(power) <= 22)
    values = mantissa.astype(np.float64)
    scale = _POWERS[np.minimum(np.abs(power), 22)]
    values = np.where(power >= 0, values * scale, values / scale)
    values = np.where(negative, -values, values)
    return _float_rest(values, exact, tokens)


def _parse_block(block: bytes, segments: list, docids: list, scores: list) -> None:
    if block.translate(None, _ALLOWED):
        raise _Irregular
    data = np.frombuffer(block + bytes(_MAX_WIDTH), dtype=np.uint8)
    edges = np.flatnonzero(np.diff((data[: len(block)] <= 32).view(np.int8), prepend=np.int8(1)))
    starts, ends = edges[0::2], edges[1::2]  # a token starts after a space and ends at the next one
    newlines = np.flatnonzero(data[: len(block)] == 10)
    per_line = np.diff(np.searchsorted(starts, newlines), prepend=0)
    if ((per_line != 0) & (per_line != 6)).any():
        raise _Irregular
    if not len(starts):
        return
    starts, ends = starts.reshape(-1, 6), ends.reshape(-1, 6)
    if not _ranks_ok(_gathered(data, starts[:, 3], ends[:, 3])):
        raise _Irregular
    scores.append(_scores(_gathered(data, starts[:, 4], ends[:, 4])))
    ids = _gathered(data, starts[:, 2], ends[:, 2])
    docids.append(ids.view(f"S{ids.shape[1]}").ravel())
    qids = _gathered(data, starts[:, 0], ends[:, 0])
    qids = qids.view(f"S{qids.shape[1]}").ravel()
    cuts = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    bounds = np.concatenate(([0], cuts, [len(qids)])).tolist()
    for begin, end in zip(bounds[:-1], bounds[1:]):
        qid = qids[begin].decode("ascii")
        if segments and segments[-1][0] == qid:
            segments[-1][1] += end - begin
        else:
            segments.append([qid, end - begin])


def pair_hashes(docids: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (query, document id) pair (FNV-1a over 8-byte words, with wrap-around)."""
    width = -(-docids.dtype.itemsize // 8) * 8
    words = docids.astype(f"S{width}").view(np.uint64).reshape(len(docids), width // 8)
    hashed = codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        for column in words.T:
            hashed = (hashed ^ column) * np.uint64(0x100000001B3)
            hashed ^= hashed >> np.uint64(29)
    return hashed


def has_repeats(docids: np.ndarray, codes: np.ndarray) -> bool:
    """Whether a document appears twice for one query (equal hashes are compared exactly)."""
    hashed = pair_hashes(docids, codes)
    ordered = np.sort(hashed)
    same = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(same):
        return False
    rows = np.flatnonzero(np.isin(hashed, same))
    pairs = list(zip(codes[rows].tolist(), docids[rows].tolist()))
    return len(set(pairs)) < len(pairs)


def ranked_order(codes: np.ndarray, docids: np.ndarray, keys: np.ndarray, ids_descending: bool = True):
    """The permutation putting rows (grouped by query, `codes` non-decreasing) in order of key descending, ties by
    document id descending (trec_eval's order) or ascending; None when they are in it already. The queries not sorted
    by key are sorted whole; in the others only the rows of ties move."""
    order = None
    same = codes[1:] == codes[:-1]
    unsorted = same & (keys[1:] > keys[:-1])
    if unsorted.any():
        bad = np.zeros(int(codes[-1]) + 1, dtype=bool)
        bad[codes[1:][unsorted]] = True
        rows = np.flatnonzero(bad[codes])
        order = _sorted_rows(rows, docids, ids_descending, -keys[rows], codes[rows])
        docids, keys = docids[order], keys[order]
    tied = same & (keys[1:] == keys[:-1])
    pairs = np.flatnonzero(tied)
    later, earlier = docids[pairs + 1], docids[pairs]
    if not (later > earlier if ids_descending else later < earlier).any():
        return order
    group = np.cumsum(np.concatenate(([True], ~tied)))
    rows = np.flatnonzero(np.bincount(group)[group] > 1)
    within = _sorted_rows(rows, docids, ids_descending, group[rows])
    return within if order is None else order[within]


def _sorted_rows(rows: np.ndarray, docids: np.ndarray, ids_descending: bool, *keys: np.ndarray) -> np.ndarray:
    """The identity permutation but for `rows`, which are sorted by `keys` (the last the primary one), then by
    document id."""
    _, id_rank = np.unique(docids[rows], return_inverse=True)
    order = np.arange(len(docids))
    order[rows] = rows[np.lexsort((-id_rank if ids_descending else id_rank, *keys))]
    return order


def _parse(path: Path) -> RunArrays | None:
    segments: list = []
    docid_blocks: list[np.ndarray] = []
    score_blocks: list[np.ndarray] = []
    for block in _blocks(path):
        _parse_block(block, segments, docid_blocks, score_blocks)
    if not segments:
        return None
    docids = np.concatenate(docid_blocks)
    scores = np.concatenate(score_blocks)
    del docid_blocks, score_blocks
    code_of: dict[str, int] = {}
    segment_codes = [code_of.setdefault(qid, len(code_of)) for qid, _ in segments]
    codes = np.repeat(np.array(segment_codes, dtype=np.int64), [n for _, n in segments])
    if len(code_of) < len(segments):  # a query in several places: its rows brought together, in file order
        together = np.argsort(codes, kind="stable")
        codes, docids, scores = codes[together], docids[together], scores[together]
    if has_repeats(docids, codes):
        raise _Irregular
    order = ranked_order(codes, docids, scores)
    if order is not None:
        docids, scores = docids[order], scores[order]
    offsets = np.zeros(len(code_of) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(code_of)), out=offsets[1:])
    return RunArrays(tuple(code_of), offsets, docids, scores)
