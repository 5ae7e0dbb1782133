"""Collections from files: documents in any form gsr.documents reads with topics and TREC qrels, and BEIR folders."""

from __future__ import annotations

from pathlib import Path

import retrievers.lucene.source  # noqa: F401  (registers Lucene indexes as a documents form)
from experiments.collections.base import Collection, canonical_documents, read_judgments, read_topics, source_key
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.documents.opening import iter_documents, open_documents
from gsr.errors import InputError
from gsr.io.files import text_lines
from gsr.io.qrels import add_judgment, relevance_grade
from gsr.io.topics import read_queries
from gsr.io.types import Qrels


def load_files(spec: dict) -> Collection:
    source = open_documents(spec["documents"])  # any form gsr reads: files, folders, indexes, irds:NAME
    documents, key = canonical_documents(f"files-{source.version()}", lambda: iter(source))
    queries = read_topics(spec["topics"], spec.get("topic_field", "title"))
    return Collection(
        spec.get("name", Path(spec["documents"]).stem), documents, queries, read_judgments(spec["qrels"]), key
    )


def read_beir_qrels(path: Path) -> Qrels:
    """BEIR qrels: 'query-id<TAB>corpus-id<TAB>score' with a header line."""
    qrels: Qrels = {}
    for lineno, line in text_lines(path):
        parts = line.split("\t")
        if lineno == 1 and parts[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        if not line.strip():
            continue
        if len(parts) != 3:
            raise InputError(
                f"{path}:{lineno}: expected 'query-id<TAB>corpus-id<TAB>score', found {len(parts)} columns"
            )
        where = f"{path}:{lineno}"
        add_judgment(qrels, parts[0].strip(), parts[1].strip(), relevance_grade(parts[2].strip(), where), where)
    if not qrels:
        raise InputError(f"{path}: the qrels are empty")
    return qrels


def load_beir(spec: dict) -> Collection:
    folder = Path(spec["path"])
    split = spec.get("split", "test")
    corpus, queries_file, qrels_file = (
        folder / "corpus.jsonl",
        folder / "queries.jsonl",
        folder / "qrels" / f"{split}.tsv",
    )
    for path in (corpus, queries_file, qrels_file):
        if not path.exists():
            raise InputError(f"{path}: no such file (BEIR layout: corpus.jsonl, queries.jsonl, qrels/{split}.tsv)")
    documents, key = canonical_documents(f"beir-{source_key([corpus])}", lambda: iter_documents(corpus))
    qrels = read_beir_qrels(qrels_file)
    queries = {q: t for q, t in read_queries(queries_file).items() if q in qrels}  # BEIR ships all splits' queries
    return Collection(spec.get("name", folder.name), documents, queries, qrels, key)


COLLECTION_KINDS.register(
    CollectionKind(
        "files",
        "documents in any form gsr reads (JSONL or TSV, maybe .gz; TREC SGML; a Lucene index; irds:NAME), "
        "TREC/TSV/JSONL topics and TREC qrels",
        load_files,
        required=("documents", "topics", "qrels"),
        optional=("topic_field", "folds"),
        path_keys=("documents", "topics", "qrels", "folds"),
    )
)
COLLECTION_KINDS.register(
    CollectionKind(
        "beir",
        "a BEIR folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv",
        load_beir,
        required=("path",),
        optional=("split",),
        path_keys=("path",),
    )
)
