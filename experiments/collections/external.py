"""Collections other tools hold: an ir_datasets dataset, or an Anserini/Pyserini Lucene index with stored text."""

from __future__ import annotations

from pathlib import Path

from experiments.collections.base import Collection, canonical_documents, read_judgments, read_topics, source_key
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.io import InputError, Qrels
from gsr.store import content_key


def load_ir_datasets(spec: dict, progress: bool) -> Collection:
    try:
        import ir_datasets
    except ImportError:
        raise InputError("the 'ir_datasets' package is not installed") from None
    name = spec["dataset"]
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise InputError(f"ir_datasets has no dataset {name!r}") from None
    field_name = {"title": "title", "desc": "description", "narr": "narrative"}.get(spec.get("topic_field", "title"))

    def docs():
        try:
            for doc in dataset.docs_iter():
                yield doc.doc_id, doc.default_text()
        except (FileNotFoundError, OSError) as err:
            raise InputError(f"ir_datasets {name}: documents not available ({err}); place the licensed files "
                             "where ir_datasets expects them (see its documentation for this dataset)") from None

    documents, key = canonical_documents(f"irds-{content_key(name)}", docs, progress)
    queries = {}
    for query in dataset.queries_iter():
        text = getattr(query, field_name, None) if field_name else None
        queries[query.query_id] = text if text is not None else query.default_text()
    qrels: Qrels = {}
    for row in dataset.qrels_iter():
        qrels.setdefault(row.query_id, {})[row.doc_id] = int(row.relevance)
    return Collection(spec.get("name", name), documents, queries, qrels, key)


def load_lucene_index(spec: dict, progress: bool) -> Collection:
    from retrievers.lucene import stored_documents

    index = Path(spec["index"])
    documents, key = canonical_documents(f"lucene-{source_key([index])}", lambda: stored_documents(index), progress)
    queries = read_topics(spec["topics"], spec.get("topic_field", "title"))
    qrels = read_judgments(spec["qrels"])
    return Collection(spec.get("name", index.name), documents, queries, qrels, key)


COLLECTION_KINDS.register(CollectionKind(
    "ir_datasets", "an ir_datasets dataset (e.g. disks45/nocr/trec-robust-2004, with its files where ir_datasets "
    "expects them)", load_ir_datasets, required=("dataset",), optional=("topic_field", "folds"), path_keys=("folds",)))
COLLECTION_KINDS.register(CollectionKind(
    "lucene-index", "an Anserini/Pyserini index built with stored raw text or contents", load_lucene_index,
    required=("index", "topics", "qrels"), optional=("topic_field", "folds"),
    path_keys=("index", "topics", "qrels", "folds")))
