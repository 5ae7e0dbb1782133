"""Where documents can be: every form the documents argument of `gsr score --docs`, `GSR.evaluate`,
`GSR.documents` and the `files` collection kind takes, opened as a gsr.sources.DocumentSource.

* JSONL (`{"id", "contents"}`, BEIR's `_id`/`title`/`text`, ...) and TSV (`docid<TAB>text`) files, plain or
  gzip'd, or a folder of them (an Anserini JsonCollection folder);
* TREC SGML / TREC-web files or folders (plain, .gz, .z), read by gsr.sgml;
* `irds:NAME`, an ir_datasets dataset, read by gsr.irds;
* any folder or file a registered resolver claims: retrievers.lucene registers one for Anserini/Pyserini Lucene
  indexes (on import, and through the `gsr.document_sources` entry point), since gsr imports no other package;
* a DocumentSource of the caller's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from gsr.io import IRDS_PREFIX, InputError, decoded_line, jsonl_document, open_binary, tsv_document, unreadable
from gsr.irds import IrdsDocuments
from gsr.sgml import TrecSgmlDocuments
from gsr.sources import DocumentSource, ListedSource, collection_files

ENTRY_POINT_GROUP = "gsr.document_sources"
LINE_FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".tsv": "tsv"}
LUCENE_MARKER = "segments_*"  # a committed Lucene index has one

Resolver = Callable[[Path], "DocumentSource | None"]
_RESOLVERS: list[Resolver] = []
_entry_points_loaded = False


def register_document_source(resolver: Resolver) -> Resolver:
    """Let `open_documents` read a new kind of path: `resolver(path)` returns a DocumentSource, or None when the
    path is not of its kind. Resolvers are asked in registration order, before the built-in file formats."""
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)
    return resolver


def _load_entry_points() -> None:
    """Resolvers installed packages declare under the `gsr.document_sources` entry point (loaded once)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            register_document_source(entry.load())
        except ImportError:  # a declared plugin whose package is absent reads nothing
            continue


def _first_line(path: Path) -> str:
    try:
        with open_binary(path) as handle:
            for raw in handle:
                if raw.strip():
                    return raw[:4096].decode("utf-8", errors="replace").lstrip()
    except (OSError, EOFError) as err:
        raise InputError(f"{path}: cannot be read ({err})") from None
    return ""


def _format_by_name(path: Path) -> str | None:
    name = path.name.lower().removesuffix(".gz")
    return LINE_FORMATS.get(name[name.rfind("."):]) if "." in name else None


def file_format(path: Path) -> str:
    """'jsonl', 'tsv' or 'sgml': by the name (.jsonl, .json, .ndjson, .tsv, each maybe .gz), else by the first
    non-blank line ('{' starts JSON, '<' SGML, a tab TSV)."""
    by_name = _format_by_name(path)
    if by_name:
        return by_name
    head = _first_line(path)
    if head.startswith("{"):
        return "jsonl"
    if head.startswith("<"):
        return "sgml"
    if "\t" in head.split("\n", 1)[0]:
        return "tsv"
    raise InputError(f"{path}: not a documents file (expected JSON lines, 'docid<TAB>text' lines or TREC SGML "
                     "<DOC> blocks)" if head else f"{path}: no documents (the file is empty)")


class LineDocuments(ListedSource):
    """JSONL and TSV files (plain or gzip'd), one document per line; positions follow file and line order."""

    def __init__(self, files: list[Path], formats: list[str], name: str, progress: bool = False):
        super().__init__(files, name, progress)
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


def _open_path(path: Path, progress: bool) -> DocumentSource:
    if path.is_dir():
        if any(path.glob(LUCENE_MARKER)):
            raise InputError(f"{path}: a Lucene index, but no reader for Lucene indexes is registered "
                             "(import retrievers.lucene, or install gsr-bench, whose entry point registers it)")
        files = collection_files([path])
        formats = [_format_by_name(f) for f in files]
        if files and all(formats):
            return LineDocuments(files, formats, str(path), progress)
        return TrecSgmlDocuments(files, progress, name=str(path))  # the files just listed: no second walk
    kind = file_format(path)
    if kind == "sgml":
        return TrecSgmlDocuments([path], progress)
    return LineDocuments([path], [kind], str(path), progress)


def open_documents(source, progress: bool = False) -> DocumentSource:
    """A DocumentSource for a path (file or folder), `irds:NAME`, or a DocumentSource (returned as it is)."""
    if isinstance(source, DocumentSource):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"cannot read documents from {type(source).__name__}")
    text = os.fspath(source)
    if text.startswith(IRDS_PREFIX):
        return IrdsDocuments(text[len(IRDS_PREFIX):])
    path = Path(text).expanduser()
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    _load_entry_points()
    for resolver in _RESOLVERS:
        opened = resolver(path)
        if opened is not None:
            return opened
    return _open_path(path, progress)
