"""Checking and staging a collection's JSONL documents for Anserini's JsonCollection.

Every line is checked (JSON object, string "id" and "contents", an id usable in a TREC run, no repeated id)
before Java starts, so a malformed collection fails fast with file:line; the checked lines are then dealt into
one shard per indexing thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from gsr.documents.lines import checked_document_id
from gsr.errors import InputError
from gsr.io.files import json_record, record_text, text_lines
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


def checked_document_lines(files: list[Path]) -> Iterator[tuple[str, bool]]:
    """Each document line of `files` (as JSON text) with whether its contents are non-blank; errors name file:line."""
    first_seen: dict[str, str] = {}
    try:
        for path in files:
            for lineno, line in text_lines(path):  # UTF-8, plain or .gz, a byte-order mark skipped
                if not line.strip():
                    continue
                docid, contents = checked_document(line, path, lineno)
                if docid in first_seen:
                    raise LuceneInputError(
                        f"{path}:{lineno}: document id {docid!r} appears twice (first at {first_seen[docid]})"
                    )
                first_seen[docid] = f"{path}:{lineno}"
                yield line + "\n", bool(contents.strip())
    except LuceneInputError:
        raise
    except InputError as err:
        raise LuceneInputError(str(err)) from None


def checked_document(line: str, path: Path, lineno: int) -> tuple[str, str]:
    """The (id, contents) of one JSONL line in Anserini's JsonCollection format: string "id" and "contents", an id
    usable in a TREC run (gsr.io's checks, so every system accepts the same documents)."""
    record = json_record(line, path, lineno)
    where = f"{path}:{lineno}"
    docid = checked_document_id(record_text(record, ("id",), where, "document id"), where)
    return docid, record_text(record, ("contents",), where, "document text")


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
