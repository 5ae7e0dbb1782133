"""Raw TREC collections: SGML document files (plain, .gz or Unix-compressed .z) as on Robust04's disks 4 & 5."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from experiments.collections.base import Collection, canonical_documents, read_judgments, read_topics, source_key
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.io import InputError

# Anserini's TrecCollection keeps these; metadata fields (ids, file names, dates, page numbers) are dropped.
_SGML_SKIPPED = ("DOCNO", "DOCID", "FILEID", "FIRST", "SECOND", "PARENT", "DATE", "PROFILE", "PUB", "PAGE",
                 "F", "FR94", "USDEPT", "USBUREAU", "CFR", "RINDOCK", "BYLINE")
_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_SKIP = re.compile(r"<(%s)\b[^>]*>.*?</\1>" % "|".join(_SGML_SKIPPED), re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_ENTITY = re.compile(r"&[a-zA-Z]+;")
_SPACE = re.compile(r"\s+")


def _read_compressed(path: Path) -> str:
    name = path.name.lower()
    raw = path.read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif name.endswith(".z"):  # Unix compress, as on the original TREC disks
        try:
            import unlzw3
        except ImportError:
            raise InputError(f"{path}: .z files need the 'unlzw3' package (pip install unlzw3) "
                             "or decompress them first") from None
        raw = unlzw3.unlzw(raw)
    return raw.decode("latin-1")


def sgml_documents(paths: Iterable[Path]) -> Iterator[tuple[str, str]]:
    """(DOCNO, text) of every <DOC> in TREC SGML files (plain, .gz or .z), folders read recursively in name order."""
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if file.name.lower().startswith(("readme", "read_me")) or file.suffix.lower() in (".txt", ".dtd"):
                continue
            text = _read_compressed(file)
            found = False
            for match in _DOC.finditer(text):
                found = True
                body = match.group(1)
                docno = _DOCNO.search(body)
                if not docno:
                    line = text.count("\n", 0, match.start()) + 1
                    raise InputError(f"{file}:{line}: <DOC> without <DOCNO>")
                content = _ENTITY.sub(" ", _TAG.sub(" ", _SKIP.sub(" ", body)))
                yield docno.group(1), _SPACE.sub(" ", content).strip()
            if not found and "<doc>" in text[:10_000].lower():
                raise InputError(f"{file}: <DOC> opened but never closed")


def load_trec_sgml(spec: dict, progress: bool) -> Collection:
    paths = [Path(p) for p in ([spec["documents"]] if isinstance(spec["documents"], str) else spec["documents"])]
    documents, key = canonical_documents(f"sgml-{source_key(paths)}", lambda: sgml_documents(paths), progress)
    queries = read_topics(spec["topics"], spec.get("topic_field", "title"))
    qrels = read_judgments(spec["qrels"])
    return Collection(spec.get("name", "trec-sgml"), documents, queries, qrels, key)


COLLECTION_KINDS.register(CollectionKind(
    "trec-sgml", "raw TREC SGML document files or folders (plain, .gz, .z), e.g. Robust04's disks 4 & 5",
    load_trec_sgml, required=("documents", "topics", "qrels"), optional=("topic_field", "folds"),
    path_keys=("documents", "topics", "qrels", "folds"), list_keys=("documents",)))
