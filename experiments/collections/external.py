"""Collections other tools hold: an ir_datasets dataset, or an Anserini/Pyserini Lucene index with stored text."""

from __future__ import annotations

from pathlib import Path

from experiments.collections.base import Collection, canonical_documents, read_judgments, read_topics, source_key
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.documents.irds import IrdsDocuments
from gsr.infra.digests import content_key
from gsr.io.records import IRDS_PREFIX


def load_ir_datasets(spec: dict) -> Collection:
    name = spec["dataset"]
    source = IrdsDocuments(name)
    dataset = source.dataset
    field_name = {"title": "title", "desc": "description", "narr": "narrative"}.get(spec.get("topic_field", "title"))
    documents, key = canonical_documents(f"irds-{content_key(name)}", lambda: iter(source))
    queries = {}
    for query in dataset.queries_iter():
        text = getattr(query, field_name, None) if field_name else None
        queries[query.query_id] = text if text is not None else query.default_text()
    return Collection(spec.get("name", name), documents, queries, read_judgments(f"{IRDS_PREFIX}{name}"), key)


def load_lucene_index(spec: dict) -> Collection:
    from retrievers.lucene import stored_documents

    index = Path(spec["index"])
    # "sgml-text-2": texts of the reader that reads raw SGML as gsr.documents.sgml reads the files
    documents, key = canonical_documents(
        f"lucene-{source_key([index], 'sgml-text-2')}", lambda: stored_documents(index)
    )
    queries = read_topics(spec["topics"], spec.get("topic_field", "title"))
    qrels = read_judgments(spec["qrels"])
    return Collection(spec.get("name", index.name), documents, queries, qrels, key)


COLLECTION_KINDS.register(
    CollectionKind(
        "ir_datasets",
        "an ir_datasets dataset (e.g. disks45/nocr/trec-robust-2004, with its files where ir_datasets expects them)",
        load_ir_datasets,
        required=("dataset",),
        optional=("topic_field", "folds"),
        path_keys=("folds",),
        extra="irds",
    )
)
COLLECTION_KINDS.register(
    CollectionKind(
        "lucene-index",
        "an Anserini/Pyserini index built with stored raw text or contents",
        load_lucene_index,
        required=("index", "topics", "qrels"),
        optional=("topic_field", "folds"),
        path_keys=("index", "topics", "qrels", "folds"),
        extra="lucene",
    )
)
