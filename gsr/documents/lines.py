"""Documents one per line: JSON lines (`{"id", "contents"}`, BEIR's `_id`/`title`/`text`, …) and 'docid<TAB>text'
files, plain or gzip'd; and the checks every document id goes through."""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from gsr.documents.base import LISTING_FORMAT, DocumentListing, ListedSource
from gsr.errors import InputError
from gsr.infra.digests import content_key
from gsr.infra.progress import progress
from gsr.io.files import (
    cr_line_ends,
    decoded_line,
    encodable,
    json_object,
    line_blocks,
    open_binary,
    record_id,
    record_text,
    unreadable,
)

DOC_ID_KEYS = ("id", "docid", "doc_id", "docno", "_id")
DOC_TEXT_KEYS = ("contents", "text", "body")
LINE_FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".tsv": "tsv"}
BLOCK = 1 << 24  # bytes of a file listed at a time
# a carriage return followed by 'docid<TAB>' in a TSV file's first line: its lines end with CR alone (a CR inside a
# text followed by a word and a tab would be taken for one; CRLF line ends are not)
_CR_RECORD = re.compile(rb"\r[^\s]{1,200}\t")
HASH_WINDOW = 1 << 26  # bytes of a file mapped at a time while its content is hashed
MAP_WINDOW = 1 << 26  # bytes of a file mapped at a time while texts are read as bytes
SPARSE_BYTES = 1 << 14  # documents further apart on average are read one by one, not through a memory map
_MAX_ID = 256  # the longest document id the block lister takes (a longer one: the line-by-line lister)


def checked_document_id(docid: str, where: str) -> str:
    """A document id usable in a TREC run: non-empty, no whitespace (run columns are whitespace-separated), no NUL,
    and text that can be written as UTF-8 (gsr.io.files.encodable)."""
    if not docid or any(ch.isspace() or ch == "\0" for ch in docid):
        raise InputError(
            f"{where}: document id {docid!r} is empty or contains whitespace, so it cannot be written to a TREC run"
        )
    return encodable(docid, where, "document id")


def json_document_text(record: dict, where: str | None = None) -> str | None:
    """A JSON document's text: its contents/text/body, after its title when it has one; None when it has none.

    With `where` the fields must be strings (an InputError at `where` otherwise); without, they are taken as text
    (stored raw documents of other tools)."""
    if not any(key in record for key in DOC_TEXT_KEYS):
        return None
    if where is None:
        body = next(str(record[key]) for key in DOC_TEXT_KEYS if key in record)
        title = record.get("title")
    else:
        body = record_text(record, DOC_TEXT_KEYS, where, "document text")
        title = record_text(record, ("title",), where, "title") if "title" in record else None
    return f"{title} {body}" if title else body


def jsonl_document(line: str, where: str) -> tuple[str, str]:
    """(docid, text) of one JSON line with an id (id, docid, doc_id, docno, _id) and contents/text/body (+ title);
    ids must be strings or integers without whitespace, texts strings."""
    record = json_object(line, where)
    docid = checked_document_id(record_id(record, DOC_ID_KEYS, where, "document id"), where)
    text = json_document_text(record, where)
    if text is None:
        raise InputError(f"{where}: no document text field (one of {', '.join(DOC_TEXT_KEYS)})")
    if "\0" in text:  # an escaped \u0000: it would split a word unseen
        raise InputError(f"{where}: the document text holds a NUL character (\\u0000)")
    return docid, text


def tsv_document(line: str, where: str) -> tuple[str, str]:
    """(docid, text) of one 'docid<TAB>text' line."""
    docid, tab, text = line.rstrip("\n\r").partition("\t")
    if not tab:
        raise InputError(f"{where}: expected 'docid<TAB>text'")
    return checked_document_id(docid.strip(), where), text


def _first_line(path: Path) -> str:
    try:
        with open_binary(path) as handle:
            for raw in handle:
                if raw.strip():
                    return raw[:4096].decode("utf-8", errors="replace").lstrip()
    except (OSError, EOFError) as err:
        raise InputError(f"{path}: cannot be read ({err})") from None
    return ""


def format_by_name(path: Path) -> str | None:
    """'jsonl' or 'tsv' when the file's name says so (.jsonl, .json, .ndjson, .tsv, each maybe .gz), else None."""
    name = path.name.lower().removesuffix(".gz")
    return LINE_FORMATS.get(name[name.rfind(".") :]) if "." in name else None


def file_format(path: Path) -> str:
    """'jsonl', 'tsv' or 'sgml': by the name (.jsonl, .json, .ndjson, .tsv, each maybe .gz), else by the first
    non-blank line ('{' starts JSON, '<' SGML, a tab TSV)."""
    by_name = format_by_name(path)
    if by_name:
        return by_name
    head = _first_line(path)
    if head.startswith("{"):
        return "jsonl"
    if head.startswith("<"):
        return "sgml"
    if "\t" in head.split("\n", 1)[0]:
        return "tsv"
    raise InputError(
        f"{path}: not a documents file (expected JSON lines, 'docid<TAB>text' lines or TREC SGML <DOC> blocks)"
        if head
        else f"{path}: no documents (the file is empty)"
    )


class LineDocuments(ListedSource):
    """JSONL and TSV files (plain or gzip'd), one document per line; positions follow file and line order.

    A TSV file is listed block by block with numpy (its ids and line offsets found without a Python loop over lines),
    each block of another shape line by line, as JSONL files are: the listing and its errors are the same."""

    def __init__(self, files: list[Path], formats: list[str], name: str):
        super().__init__(files, name)
        self.formats = formats
        self._version: str | None = None

    def version(self) -> str:
        """ListedSource.version(), computed once, each file hashed a window at a time (windowed_content_key)."""
        if self._version is None:
            self._version = content_key(
                type(self).__name__, LISTING_FORMAT, [windowed_content_key(p) for p in self.files]
            )
        return self._version

    def _write_listing(self, staging: Path) -> None:
        ids, files, offsets = [], [], []
        with progress(total=len(self.files), desc=f"listing the documents of {self.name}", unit="file") as bar:
            for index, path in enumerate(self.files):
                for block_ids, block_offsets in self._listed(index, path):
                    ids.append(block_ids)
                    offsets.append(block_offsets)
                    files.append(np.full(len(block_ids), index, dtype=np.int32))
                bar.update()
        if not sum(map(len, ids)):
            where = "in this file" if len(self.files) == 1 else f"in its {len(self.files)} files"
            raise InputError(f"{self.name}: no documents {where}")
        listing = DocumentListing(np.concatenate(ids), np.concatenate(files), np.concatenate(offsets))
        del ids
        self._save_listing(listing, staging)

    def _listed(self, index: int, path: Path) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(ids, offsets) of the documents of one file, a block at a time."""
        if self.formats[index] != "tsv":
            yield from _chunked(self.records(index, path))
            return
        offset, lineno = 0, 1
        try:
            for block in line_blocks(path, BLOCK):
                if not offset:
                    _check_line_ends(block, path)
                ids, offsets, lines = self._tsv_block(index, path, memoryview(block), offset, lineno)
                yield ids, offsets
                offset, lineno = offset + len(block), lineno + lines
        except (OSError, EOFError) as err:  # unreadable file, broken gzip stream
            raise unreadable(path, err) from None

    def _tsv_block(self, index: int, path: Path, block: memoryview, offset: int, lineno: int):
        """(ids, offsets, line ends) of a block of whole lines starting at byte `offset`, line `lineno` of a TSV file:
        with numpy where every line is 'docid<TAB>text' with a printable ASCII id and the block is UTF-8 without NUL
        bytes or byte-order marks, else line by line (records' checks and errors)."""
        listed = _tsv_ids(block)
        if listed is not None:
            ids, starts, newlines = listed
            return ids, starts + offset, newlines
        rows = []
        start = 0
        lines = bytes(block).split(b"\n")  # lines end at \n only, as a file's do
        for number, line in enumerate(lines, start=lineno):
            raw = line + b"\n" if start + len(line) < len(block) else line
            if raw.strip():
                rows.append((offset + start, self._parse(index, raw, f"{path}:{number}")[0]))
            start += len(raw)
        return (*_arrays(rows), len(lines) - 1)

    def _parse(self, index: int, raw: bytes, where: str) -> tuple[str, str]:
        line = decoded_line(raw, where)
        return (jsonl_document if self.formats[index] == "jsonl" else tsv_document)(line, where)

    def records(self, index: int, path: Path) -> Iterator[tuple[int, str, str]]:
        offset = 0
        try:
            with open_binary(path) as handle:
                for lineno, raw in enumerate(handle, start=1):
                    if lineno == 1 and self.formats[index] == "tsv":
                        _check_line_ends(raw, path)
                    start, offset = offset, offset + len(raw)
                    if raw.strip():
                        yield (start, *self._parse(index, raw, f"{path}:{lineno}"))
        except (OSError, EOFError) as err:  # unreadable file, broken gzip stream
            raise unreadable(path, err) from None

    def text_of(self, payload: str) -> str:
        return payload

    def read_at(self, index: int, path: Path, offsets: np.ndarray) -> Iterator[tuple[str, str]]:
        with open_binary(path) as handle:  # gzip seeks forward by decompressing: one pass at most
            for offset in offsets:
                handle.seek(int(offset))
                yield self._parse(index, handle.readline(), f"{path} (byte {int(offset)})")

    def text_bytes_at(
        self, index: int, ids: np.ndarray, offsets: np.ndarray, ends: np.ndarray
    ) -> tuple[list[bytes], np.ndarray] | None:
        """A plain TSV file's records as bytes, for counting whitespace-separated tokens: each one's bytes after
        'docid<TAB>' up to `ends` (the next listed record): its text (what tsv_document returns, undecoded), its line
        end, and the blank lines before the next record if any (lines the listing skips, so of ASCII whitespace
        only). Nothing is checked: the caller reads through read_at whatever is not ASCII, and the documents whose id
        field is not exactly their listed id (a byte-order mark or spaces around it), which are not read here. None
        where the file is gzip'd or not TSV. Records close together are read through a memory map of at most
        MAP_WINDOW bytes, those far apart (SPARSE_BYTES or more a record) by one read each."""
        path = self.files[index]
        if self.formats[index] != "tsv" or path.name.lower().endswith(".gz"):
            return None
        starts = np.asarray(offsets, dtype=np.int64) + np.char.str_len(ids).astype(np.int64) + 1
        texts: list[bytes] = []
        read = np.zeros(len(starts), dtype=bool)
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                ends = np.where(np.asarray(ends) < 0, size, ends)
                if len(ends) and (ends.max() > size or (starts > ends).any()):
                    return None  # the file changed since it was listed: read_at reports it
                for first, past, base in _windows(starts, ends):
                    begin, end = starts[first:past] - base, ends[first:past] - base
                    if end[-1] >= SPARSE_BYTES * (past - first):  # a page fault each would cost more than a read
                        records = [os.pread(handle.fileno(), e - b + 1, base + b - 1) for b, e in zip(begin, end)]
                        read[first:past] = [record[:1] == b"\t" for record in records]
                        texts.extend(record[1:] for record in records if record[:1] == b"\t")
                        continue
                    with mmap.mmap(handle.fileno(), int(end[-1]), offset=base, access=mmap.ACCESS_READ) as data:
                        view = np.frombuffer(data, dtype=np.uint8)
                        after_id = read[first:past] = view[begin - 1] == 9  # the tab after the id
                        del view  # the map closes only once no array holds it
                        texts.extend([data[b:e] for b, e in zip(begin[after_id].tolist(), end[after_id].tolist())])
        except OSError as err:
            raise unreadable(path, err) from None
        return texts, read

    def where(self, index: int, path: Path, offset: int) -> str:
        lines, left = 0, offset
        with open_binary(path) as handle:
            while left > 0 and (block := handle.read(min(left, 1 << 24))):
                lines, left = lines + block.count(b"\n"), left - len(block)
        return f"{path}:{lines + 1}"


def _check_line_ends(start: bytes, path: Path) -> None:
    """An InputError where the first line of a TSV file (within `start`, its first bytes) holds a carriage return
    followed by 'docid<TAB>': the file ends its lines with CR alone, and would be read as one document holding all
    the others."""
    end = start.find(b"\n")
    if _CR_RECORD.search(start, 0, end if end >= 0 else len(start)):
        raise cr_line_ends(path, 1)


def _windows(starts: np.ndarray, ends: np.ndarray) -> Iterator[tuple[int, int, int]]:
    """(first, past, base): the documents first … past-1, whose bytes (from the tab before each text to its end) lie
    within MAP_WINDOW bytes from `base` (a multiple of mmap's granularity); a longer document alone. `ends` ascend."""
    first = 0
    while first < len(starts):
        base = (int(starts[first]) - 1) // mmap.ALLOCATIONGRANULARITY * mmap.ALLOCATIONGRANULARITY
        past = max(first + 1, first + int(np.searchsorted(ends[first:], base + MAP_WINDOW, side="right")))
        yield first, past, base
        first = past


def _arrays(rows: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    ids = np.array([docid.encode("utf-8") for _, docid in rows], dtype=bytes).reshape(-1)
    return ids, np.array([start for start, _ in rows], dtype=np.int64)


def _chunked(records: Iterator[tuple[int, str, object]], size: int = 1 << 20):
    """(ids, offsets) of `records`, `size` at a time."""
    rows: list[tuple[int, str]] = []
    for start, docid, _ in records:
        rows.append((start, docid))
        if len(rows) == size:
            yield _arrays(rows)
            rows = []
    if rows:
        yield _arrays(rows)


def _tsv_ids(block: memoryview) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(ids as bytes, line starts, line ends) of a block of 'docid<TAB>text' lines whose ids are printable ASCII (so
    that tsv_document would take them as they are), or None when the block has another line or is not plain UTF-8."""
    data = np.frombuffer(block, dtype=np.uint8)
    if not len(data) or data.min() == 0:
        return None
    if data.max() >= 0x80:
        try:
            text = str(block, "utf-8")
        except UnicodeDecodeError:
            return None
        if "\ufeff" in text:  # a byte-order mark: decoded_line skips one that starts a line
            return None
    marks = np.flatnonzero(data <= 10)  # tabs and line ends (and rare control characters) in one pass
    kinds = data[marks]
    newlines, tabs = marks[kinds == 10], marks[kinds == 9]
    ends = newlines if data[-1] == 10 else np.append(newlines, len(data))
    starts = np.concatenate(([0], ends[:-1] + 1))
    first_tab = tabs[np.minimum(np.searchsorted(tabs, starts), len(tabs) - 1)] if len(tabs) else ends + 1
    lengths = first_tab - starts
    if (first_tab > ends).any() or lengths.min() < 1 or lengths.max() > _MAX_ID:
        return None  # a line without a tab (blank, or an error), an empty or very long id
    width = int(lengths.max())
    if starts[-1] + width > len(data):  # the window of the last line's id reaches past the block
        data = np.concatenate((data, np.zeros(width, dtype=np.uint8)))
    ids = np.lib.stride_tricks.sliding_window_view(data, width)[starts]
    ids[np.arange(width) >= lengths[:, None]] = 0
    if not (((ids >= 0x21) & (ids <= 0x7E)) | (ids == 0)).all():
        return None  # whitespace or other characters in an id: tsv_document strips or refuses it
    return ids.view(f"S{width}").ravel(), starts.astype(np.int64), len(newlines)


def windowed_content_key(path: Path) -> str:
    """gsr.infra.digests.file_content_key(path): the xxh3-128 digest of the file's content and its size, the content
    hashed through a memory map of HASH_WINDOW bytes at a time, so that hashing a collection of gigabytes does not
    keep gigabytes of it mapped (resident) at once."""
    import xxhash

    digest = xxhash.xxh3_128()
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        for start in range(0, size, HASH_WINDOW):
            with mmap.mmap(handle.fileno(), min(HASH_WINDOW, size - start), offset=start, access=mmap.ACCESS_READ) as m:
                digest.update(m)
    return content_key(digest.hexdigest(), size)
