"""An Anserini/Pyserini Lucene index with stored raw text or contents as a gsr DocumentSource.

Registered with gsr.documents when this package is imported, and declared under the `gsr.document_sources`
entry point, so `gsr score --docs INDEX` and `GSR.evaluate(run, topics, INDEX, qrels)` read an index. Scoring a
run starts two workers: one counts the documents (the random engine's draw needs the count), one reads the
documents the run, the perfect engine and the random engine need; an index is never exported whole for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

from gsr.documents.base import DocumentSource, Positions
from gsr.documents.opening import LUCENE_MARKER, register_document_source
from gsr.infra.digests import folder_content_key
from retrievers.lucene.api import fetch_documents, index_stats, stored_documents
from retrievers.lucene.errors import LuceneError


class LuceneIndexDocuments(DocumentSource):
    """The stored documents of a Lucene index; positions are Lucene's document numbers."""

    def __init__(self, index_dir: Path):
        self.index = Path(index_dir)
        self.name = str(self.index)
        self._count: int | None = None

    def version(self) -> str:
        return folder_content_key(self.index, "lucene-index")

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return stored_documents(self.index)

    def count(self) -> int:
        if self._count is None:
            stats = index_stats(self.index)
            if stats.get("max_doc", stats["documents"]) != stats["documents"]:
                raise LuceneError(
                    f"{self.index}: {stats['max_doc'] - stats['documents']} documents are deleted, "
                    "so Lucene's document numbers are not positions 0…n-1; merge the index first"
                )
            self._count = int(stats["documents"])
        return self._count

    def fetch(self, wanted: Collection[str], positions: Positions) -> tuple[list[str], Iterator[tuple[str, str]]]:
        return fetch_documents(self.index, wanted, positions)

    def ids_at(self, positions: Positions) -> list[str]:
        ids, texts = fetch_documents(self.index, (), positions)
        texts.close()
        return ids

    def texts(self, wanted: Iterable[str]) -> Iterator[tuple[str, str]]:
        return self.fetch(set(wanted), ())[1]


def open_lucene_index(path: Path) -> LuceneIndexDocuments | None:
    """The index at `path`, or None when `path` is not a folder holding a committed Lucene index."""
    path = Path(path)
    return LuceneIndexDocuments(path) if path.is_dir() and any(path.glob(LUCENE_MARKER)) else None


register_document_source(open_lucene_index)
