"""Grep-BiasIR (Krieg et al., CHIIR 2023; CC0): 117 gender-neutral, bias-sensitive queries in seven categories, each
with one relevant and one non-relevant document written in female, male and neutral wording (702 documents),
read from the dataset's own CSV files (https://github.com/KlaraKrieg/GrepBiasIR), keeping the per-document gender
labels and the query categories. The files ship with gsr (gsr/data/grepbiasir/, CC0, see its README.md): a config
without `path` reads that copy, one with `path` the user's clone."""

from __future__ import annotations

import csv
from pathlib import Path

import gsr
from experiments.collections.base import Collection, canonical_documents, source_key
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.errors import InputError
from gsr.io.types import Qrels

# the copy shipped as gsr's package data: the released files unchanged, with their LICENSE (CC0) and README
BUILTIN = Path(gsr.__file__).resolve().parent / "data" / "grepbiasir"

QUERIES_FILE = "queries.csv"
DOCUMENTS_GLOB = "queries-documents_*.csv"
QUERY_COLUMNS = ("q_id", "category", "query")
DOCUMENT_COLUMNS = ("q_id", "d_id", "relevant", "query", "doc_title", "document", "content_gender")
# content_gender as the files spell it; "botrh" is a typo of "both" in the released data (one document)
GENDER_LABELS = {"f": "female", "m": "male", "n": "neutral", "both": "both", "botrh": "both"}


def _rows(path: Path, columns: tuple[str, ...]):
    """(line, row) of a CSV file with a header naming at least `columns`; line is where the row starts."""
    try:
        handle = open(path, encoding="utf-8-sig", newline="")
    except FileNotFoundError:
        raise InputError(
            f"{path}: no such file (Grep-BiasIR's {QUERIES_FILE} and {DOCUMENTS_GLOB} files are expected in the folder)"
        ) from None
    with handle:
        reader = csv.DictReader(handle)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{path}:1: missing column(s) {', '.join(missing)} (found {reader.fieldnames})")
        start = 2
        for row in reader:
            yield start, row
            start = reader.line_num + 1


def read_grepbiasir(folder: Path):
    """(queries, categories, documents {docid: text}, genders {docid: label}, qrels, notes) of a Grep-BiasIR folder.

    A document's text is its title and its body. Every file's rows are checked: ids, relevance 0/1, gender labels
    F/M/N/both, a query id of queries.csv, each document id once."""
    queries: dict[str, str] = {}
    categories: dict[str, str] = {}
    for line, row in _rows(folder / QUERIES_FILE, QUERY_COLUMNS):
        qid = row["q_id"].strip()
        if not qid or qid in queries:
            raise InputError(f"{folder / QUERIES_FILE}:{line}: query id {qid!r} is empty or appears twice")
        queries[qid], categories[qid] = row["query"].strip(), row["category"].strip()
    files = sorted(folder.glob(DOCUMENTS_GLOB))
    if not files:
        raise InputError(f"{folder}: no {DOCUMENTS_GLOB} files (is this a Grep-BiasIR folder?)")
    documents: dict[str, str] = {}
    genders: dict[str, str] = {}
    qrels: Qrels = {}
    typos = 0
    for path in files:
        for line, row in _rows(path, DOCUMENT_COLUMNS):
            qid, docid = row["q_id"].strip(), row["d_id"].strip()
            where = f"{path}:{line}"
            if qid not in queries:
                raise InputError(f"{where}: query id {qid!r} is not in {QUERIES_FILE}")
            if not docid or docid in documents:
                raise InputError(f"{where}: document id {docid!r} is empty or appears twice")
            label = row["content_gender"].strip().lower()
            if label not in GENDER_LABELS:
                raise InputError(f"{where}: content_gender {row['content_gender']!r} is not F, M, N or both")
            typos += label == "botrh"
            if row["relevant"].strip() not in ("0", "1"):
                raise InputError(f"{where}: relevant must be 0 or 1, not {row['relevant']!r}")
            documents[docid] = " ".join(part.strip() for part in (row["doc_title"], row["document"]) if part.strip())
            genders[docid] = GENDER_LABELS[label]
            qrels.setdefault(qid, {})[docid] = int(row["relevant"])
    notes = [f"{typos} document(s) labelled 'botrh' in the source read as 'both'"] if typos else []
    return queries, categories, documents, genders, qrels, notes


def grepbiasir_folder(spec: dict) -> Path:
    """The folder a spec reads: its `path`, else the copy shipped with gsr."""
    return Path(spec["path"]) if spec.get("path") else BUILTIN


def load_grepbiasir(spec: dict) -> Collection:
    folder = grepbiasir_folder(spec)
    if not folder.is_dir():
        raise InputError(
            f"{folder}: no such folder (give the folder of your clone of https://github.com/KlaraKrieg/"
            "GrepBiasIR as collection.path, or leave path out to read the copy shipped with gsr)"
        )
    queries, categories, texts, genders, qrels, notes = read_grepbiasir(folder)
    key_source = sorted(folder.glob("*.csv"))
    documents, key = canonical_documents(f"grepbiasir-{source_key(key_source)}", lambda: iter(texts.items()))
    return Collection(
        spec.get("name", "Grep-BiasIR"),
        documents,
        queries,
        qrels,
        key,
        notes=notes,
        query_categories=categories,
        document_genders=genders,
    )


COLLECTION_KINDS.register(
    CollectionKind(
        "grepbiasir",
        "Grep-BiasIR's CSV files (Krieg et al. 2023): 117 bias-sensitive queries in 7 categories, each "
        "with a relevant and a non-relevant document in female, male and neutral wording (shipped with gsr; `path`: "
        "your own clone)",
        load_grepbiasir,
        optional=("path", "folds"),
        path_keys=("path", "folds"),
        input_paths=lambda spec: [] if spec.get("path") else sorted(BUILTIN.glob("*.csv")),
        provides=("document_gender",),
    )
)
