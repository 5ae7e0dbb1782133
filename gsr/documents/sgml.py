"""TREC SGML and TREC-web document files (plain, .gz or Unix-compressed .z), as on Robust04's disks 4 & 5 or in
WT10g/GOV2 bundles: each <DOC> with its <DOCNO>, text without tags, metadata fields and web headers.

A document's bytes are UTF-8 where they are valid UTF-8 (as ir_datasets and Anserini read them: a user's own files),
else latin-1 (the TREC disks' 8-bit text, where those two put U+FFFD). Files are scanned as latin-1, every byte one
character, so a listing's offsets are byte offsets whatever the documents hold.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from gsr.documents.base import ListedSource, collection_files
from gsr.errors import InputError
from gsr.infra.digests import content_key

# Anserini's TrecCollection keeps these; metadata fields (ids, file names, dates, page numbers) are dropped, and
# so are TREC-web's HTTP headers (DOCHDR) and the scripts and styles of its HTML pages.
_SGML_SKIPPED = (
    "DOCNO",
    "DOCID",
    "FILEID",
    "FIRST",
    "SECOND",
    "PARENT",
    "DATE",
    "PROFILE",
    "PUB",
    "PAGE",
    "F",
    "FR94",
    "USDEPT",
    "USBUREAU",
    "CFR",
    "RINDOCK",
    "BYLINE",
    "DOCHDR",
    "SCRIPT",
    "STYLE",
)
_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_SKIP = re.compile(r"<(" + "|".join(_SGML_SKIPPED) + r")\b[^>]*>.*?</\1>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>]+>")
_ENTITY = re.compile(r"&[a-zA-Z]+;")
_SPACE = re.compile(r"\s+")
TEXT_DECODING = "utf-8 where valid, else latin-1"  # in the source's version: listings of another decoding differ


def sgml_text(document: str) -> str:
    """The text of one TREC document (with or without its <DOC> tags): tags, entities and skipped fields removed."""
    content = _ENTITY.sub(" ", _TAG.sub(" ", _COMMENT.sub(" ", _SKIP.sub(" ", document))))
    return _SPACE.sub(" ", content).strip()


def document_text(scanned: str) -> str:
    """A piece of a file scanned as latin-1 (read_compressed) as its author wrote it: decoded as UTF-8 where its bytes
    are UTF-8, else kept (latin-1)."""
    if scanned.isascii():
        return scanned
    try:
        return scanned.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return scanned


def read_compressed(path: Path) -> str:
    """A file's text (latin-1, so every byte is one character), decompressed when it ends in .gz or .z."""
    name = path.name.lower()
    try:
        raw = path.read_bytes()
        if name.endswith(".gz"):
            raw = gzip.decompress(raw)
    except (OSError, EOFError) as err:
        raise InputError(f"{path}: cannot be read ({err})") from None
    if name.endswith(".z"):  # Unix compress, as on the original TREC disks
        try:
            import unlzw3
        except ImportError:
            raise InputError(
                f"{path}: .z files need the 'unlzw3' package (pip install unlzw3) or decompress them first"
            ) from None
        raw = unlzw3.unlzw(raw)
    return raw.decode("latin-1")


class TrecSgmlDocuments(ListedSource):
    """TREC SGML / TREC-web files and folders as a DocumentSource; positions follow file name order."""

    def __init__(self, paths: Iterable[Path], name: str | None = None):
        paths = [Path(p) for p in paths]
        super().__init__(collection_files(paths), name or ", ".join(map(str, paths)))

    def records(self, index: int, path: Path) -> Iterator[tuple[int, str, str]]:
        text = read_compressed(path)
        found = False
        for match in _DOC.finditer(text):
            found = True
            docno = _DOCNO.search(match.group(1))
            if not docno:
                raise InputError(f"{self.where(index, path, match.start(), text)}: <DOC> without <DOCNO>")
            yield match.start(), document_text(docno.group(1)), match.group(1)
        if not found and "<doc>" in text[:10_000].lower():
            raise InputError(f"{path}: <DOC> opened but never closed")

    def text_of(self, payload: str) -> str:
        return sgml_text(document_text(payload))

    def version(self) -> str:
        return content_key(super().version(), TEXT_DECODING)

    def read_at(self, index: int, path: Path, offsets: np.ndarray) -> Iterator[tuple[str, str]]:
        text = read_compressed(path)
        for offset in offsets:
            match = _DOC.match(text, int(offset))
            if match is None:
                raise InputError(
                    f"{self.where(index, path, int(offset), text)}: no <DOC> where the listing of "
                    f"{path} has one; was the file changed while it was read?"
                )
            docno = _DOCNO.search(match.group(1))
            if docno is None:
                raise InputError(
                    f"{self.where(index, path, int(offset), text)}: a <DOC> without its <DOCNO>; was the "
                    f"file changed while it was read?"
                )
            yield document_text(docno.group(1)), sgml_text(document_text(match.group(1)))

    def where(self, index: int, path: Path, offset: int, text: str | None = None) -> str:
        text = read_compressed(path) if text is None else text
        return f"{path}:{text.count(chr(10), 0, offset) + 1}"
