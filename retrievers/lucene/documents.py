"""Checking and staging a collection's JSONL documents for Anserini's JsonCollection.

Every line is checked (JSON object, string "id" and "contents", an id usable in a TREC run, no repeated id)
before Java starts, so a malformed collection fails fast with file:line; the checked lines are then dealt into
one shard per indexing thread.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

from retrievers.lucene.errors import LuceneInputError

DOCUMENT_SUFFIXES = (".jsonl", ".json", ".gz")  # what Anserini's JsonCollection reads from a folder


def document_files(documents: Path) -> list[Path]:
    """The JSONL files of a collection: the file itself, or every .jsonl/.json/.gz file under the folder."""
    if documents.is_file():
        return [documents]
    if documents.is_dir():
        files = sorted(p for p in documents.rglob("*") if p.is_file() and p.name.endswith(DOCUMENT_SUFFIXES))
        if not files:
            raise LuceneInputError(f"{documents}: no {', '.join(DOCUMENT_SUFFIXES)} files in this folder")
        return files
    raise LuceneInputError(f"{documents}: no such file or folder")


def _open_text(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.name.endswith(".gz") else open(path, encoding="utf-8")


def checked_document_lines(files: list[Path]) -> Iterator[tuple[str, bool]]:
    """Each document line of `files` (as JSON text) with whether its contents are non-blank; errors name file:line."""
    first_seen: dict[str, str] = {}
    for path in files:
        try:
            with _open_text(path) as handle:
                for lineno, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    docid, contents = checked_document(line, f"{path}:{lineno}")
                    if docid in first_seen:
                        raise LuceneInputError(f"{path}:{lineno}: document id {docid!r} appears twice "
                                               f"(first at {first_seen[docid]})")
                    first_seen[docid] = f"{path}:{lineno}"
                    yield line.rstrip("\n") + "\n", bool(contents.strip())
        except UnicodeDecodeError as err:
            raise LuceneInputError(f"{path}: not UTF-8 text ({err.reason})") from None
        except (OSError, EOFError) as err:  # unreadable file, broken gzip stream
            raise LuceneInputError(f"{path}: cannot be read ({err})") from None


def checked_document(line: str, where: str) -> tuple[str, str]:
    """The (id, contents) of one JSONL line in Anserini's JsonCollection format."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise LuceneInputError(f"{where}: invalid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(record, dict):
        raise LuceneInputError(f"{where}: expected a JSON object with \"id\" and \"contents\"")
    for key in ("id", "contents"):
        if not isinstance(record.get(key), str):
            found = "missing" if key not in record else f"a {type(record[key]).__name__}, not a string"
            raise LuceneInputError(f"{where}: field \"{key}\" is {found} (expected {{\"id\": ..., \"contents\": ...}})")
    docid = record["id"]
    if not docid or any(ch.isspace() for ch in docid):
        # TREC runs separate columns by whitespace, so such an id could not be written to a run
        raise LuceneInputError(f"{where}: document id {docid!r} is empty or contains whitespace")
    return docid, record["contents"]


def stage_documents(files: list[Path], staging: Path, shards: int) -> tuple[int, int]:
    """Validates every document and deals them into `shards` files (Anserini indexes one file per thread).

    Returns (documents, documents with non-blank contents)."""
    staging.mkdir(parents=True)
    outputs = [open(staging / f"part-{i:03d}.jsonl", "w", encoding="utf-8") for i in range(shards)]
    total = non_blank = 0
    try:
        for line, has_text in checked_document_lines(files):
            outputs[total % shards].write(line)
            total += 1
            non_blank += has_text
    finally:
        for handle in outputs:
            handle.close()
    if total == 0:
        raise LuceneInputError(f"{', '.join(map(str, files))}: no documents")
    return total, non_blank
