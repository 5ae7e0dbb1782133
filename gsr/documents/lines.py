"""Documents one per line: JSON lines (`{"id", "contents"}`, BEIR's `_id`/`title`/`text`, …) and 'docid<TAB>text'
files, plain or gzip'd; and the checks every document id goes through."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from gsr.documents.base import ListedSource
from gsr.errors import InputError
from gsr.io.files import decoded_line, encodable, json_object, open_binary, record_id, record_text, unreadable

DOC_ID_KEYS = ("id", "docid", "doc_id", "docno", "_id")
DOC_TEXT_KEYS = ("contents", "text", "body")
LINE_FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".tsv": "tsv"}


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
    """JSONL and TSV files (plain or gzip'd), one document per line; positions follow file and line order."""

    def __init__(self, files: list[Path], formats: list[str], name: str):
        super().__init__(files, name)
        self.formats = formats

    def _parse(self, index: int, raw: bytes, where: str) -> tuple[str, str]:
        line = decoded_line(raw, where)
        return (jsonl_document if self.formats[index] == "jsonl" else tsv_document)(line, where)

    def records(self, index: int, path: Path) -> Iterator[tuple[int, str, str]]:
        offset = 0
        try:
            with open_binary(path) as handle:
                for lineno, raw in enumerate(handle, start=1):
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

    def where(self, index: int, path: Path, offset: int) -> str:
        lines, left = 0, offset
        with open_binary(path) as handle:
            while left > 0 and (block := handle.read(min(left, 1 << 24))):
                lines, left = lines + block.count(b"\n"), left - len(block)
        return f"{path}:{lines + 1}"
