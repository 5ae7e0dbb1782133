"""Raw TREC collections: SGML document files (plain, .gz or Unix-compressed .z) as on Robust04's disks 4 & 5,
read by gsr.documents.sgml."""

from __future__ import annotations

from pathlib import Path

from experiments.collections.base import Collection, canonical_documents, read_judgments, read_topics, source_key
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.documents.sgml import TrecSgmlDocuments


def load_trec_sgml(spec: dict) -> Collection:
    paths = [Path(p) for p in ([spec["documents"]] if isinstance(spec["documents"], str) else spec["documents"])]
    # "sgml-text-2": texts of the reader that drops TREC-web headers, scripts, styles and comments
    documents, key = canonical_documents(
        f"sgml-{source_key(paths, 'sgml-text-2')}", lambda: iter(TrecSgmlDocuments(paths))
    )
    queries = read_topics(spec["topics"], spec.get("topic_field", "title"))
    qrels = read_judgments(spec["qrels"])
    return Collection(spec.get("name", "trec-sgml"), documents, queries, qrels, key)


COLLECTION_KINDS.register(
    CollectionKind(
        "trec-sgml",
        "raw TREC SGML document files or folders (plain, .gz, .z), e.g. Robust04's disks 4 & 5",
        load_trec_sgml,
        required=("documents", "topics", "qrels"),
        optional=("topic_field", "folds"),
        path_keys=("documents", "topics", "qrels", "folds"),
        list_keys=("documents",),
    )
)
