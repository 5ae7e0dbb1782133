"""Readers for TREC runs and qrels, TSV/JSONL documents, and pandas/dict equivalents of runs, qrels and queries.

Every reader stops at the first malformed line with an error naming the file and the line. Files are opened through
gsr.textio, queries read by gsr.topics (both re-exported here, so `gsr.io` stays the one import for every reader):
UTF-8, plain or .gz, a byte-order mark skipped, other bytes an error naming the line.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from gsr.store import atomic_write
from gsr.textio import (  # noqa: F401  (re-exported: the one way to open text and JSON files)
    InputError,
    decoded_line,
    json_lines,
    json_object,
    json_record,
    open_binary,
    read_json,
    read_text,
    record_id,
    record_text,
    text_lines,
    unreadable,
)
from gsr.topics import (  # noqa: F401  (re-exported: the query readers)
    IGNORED_TOPIC_TAGS,
    QUERY_ID_KEYS,
    QUERY_TEXT_KEYS,
    TOPIC_FIELDS,
    read_jsonl_queries,
    read_queries,
    read_trec_topics,
    read_tsv_queries,
    topic_fields,
)

Run = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first
Qrels = dict[str, dict[str, int]]  # qid -> {docid: grade}

DOC_ID_KEYS = ("id", "docid", "doc_id", "docno", "_id")
DOC_TEXT_KEYS = ("contents", "text", "body")


# ----------------------------------------------------------------------------------------------- ids and grades

def checked_document_id(docid: str, where: str) -> str:
    """A document id usable in a TREC run: non-empty, no whitespace (run columns are whitespace-separated)."""
    if not docid or any(ch.isspace() for ch in docid):
        raise InputError(f"{where}: document id {docid!r} is empty or contains whitespace, so it cannot be written "
                         "to a TREC run")
    return docid


def relevance_grade(value, where: str) -> int:
    """An integer relevance grade: an int, an integral number, or an integer's text; 0.5, "1.0", true or NaN are
    InputErrors at `where` (never truncated)."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    elif isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) \
            and float(value).is_integer():
        return int(value)
    raise InputError(f"{where}: relevance grade must be an integer, found {value!r}")


# ----------------------------------------------------------------------------------------------- runs and qrels

def rank_order(scored: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, ties broken by document id descending."""
    return sorted(scored, key=lambda pair: (pair[1], pair[0]), reverse=True)


def read_trec_run(path: str | os.PathLike, allow_empty: bool = False) -> Run:
    """A TREC run file: 'qid Q0 docid rank score tag' per line; ranked by score as trec_eval does.

    A file without any run line is an error (unless `allow_empty`: a system that retrieved nothing at all).
    """
    path = Path(path)
    run = _checked_run(_trec_run_rows(path))
    if not run and not allow_empty:
        raise InputError(f"{path}: the run is empty (no 'qid Q0 docid rank score tag' line)")
    return run


def _trec_run_rows(path: Path) -> Iterator[tuple[str, str, str, float]]:
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6:
            raise InputError(f"{path}:{lineno}: expected 6 columns 'qid Q0 docid rank score tag', found {len(parts)}")
        qid, _, docid, rank, score, _ = parts
        try:
            int(rank)
            value = float(score)
        except ValueError:
            raise InputError(f"{path}:{lineno}: rank must be an integer and score a number: {line!r}") from None
        yield f"{path}:{lineno}", qid, docid, value


def read_qrels(path: str | os.PathLike) -> Qrels:
    """A TREC qrels file: 'qid iteration docid grade' per line; a file without any judgment is an error."""
    path = Path(path)
    qrels: Qrels = {}
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InputError(f"{path}:{lineno}: expected 4 columns 'qid iteration docid grade', found {len(parts)}")
        qid, _, docid, grade = parts
        add_judgment(qrels, qid, docid, relevance_grade(grade, f"{path}:{lineno}"), f"{path}:{lineno}")
    if not qrels:
        raise InputError(f"{path}: the qrels are empty (no 'qid iteration docid grade' line)")
    return qrels


def add_judgment(qrels: Qrels, qid: str, docid: str, grade: int, where: str) -> None:
    """Record one judgment; the same document judged twice with different grades is an error at `where`."""
    judged = qrels.setdefault(qid, {})
    if docid in judged and judged[docid] != grade:
        raise InputError(f"{where}: document {docid} judged twice for query {qid} with different grades")
    judged[docid] = grade


# ----------------------------------------------------------------------------------------------- documents

def json_document_text(record: dict, where: str | None = None) -> str | None:
    """A JSON document's text: its contents/text/body, after its title when it has one; None when it has none.

    With `where` the fields must be strings (an InputError at `where` otherwise); without, they are taken as text
    (stored raw documents of other tools)."""
    if not any(key in record for key in DOC_TEXT_KEYS):
        return None
    if where is None:
        body = next(str(record[key]) for key in DOC_TEXT_KEYS if key in record)
        title = record.get("title")
    else:
        body = record_text(record, DOC_TEXT_KEYS, where, "document text")
        title = record_text(record, ("title",), where, "title") if "title" in record else None
    return f"{title} {body}" if title else body


def jsonl_document(line: str, where: str) -> tuple[str, str]:
    """(docid, text) of one JSON line with an id (id, docid, doc_id, docno, _id) and contents/text/body (+ title);
    ids must be strings or integers without whitespace, texts strings."""
    record = json_object(line, where)
    docid = checked_document_id(record_id(record, DOC_ID_KEYS, where, "document id"), where)
    text = json_document_text(record, where)
    if text is None:
        raise InputError(f"{where}: no document text field (one of {', '.join(DOC_TEXT_KEYS)})")
    return docid, text


def tsv_document(line: str, where: str) -> tuple[str, str]:
    """(docid, text) of one 'docid<TAB>text' line."""
    docid, tab, text = line.rstrip("\n\r").partition("\t")
    if not tab:
        raise InputError(f"{where}: expected 'docid<TAB>text'")
    return checked_document_id(docid.strip(), where), text


def _line_documents(path: str | os.PathLike, line_format: str) -> Iterator[tuple[str, str]]:
    """(docid, text) of every line of one JSONL or TSV file, read by gsr.documents' line reader; a file without
    documents is an error."""
    from gsr.documents import LineDocuments  # gsr.documents reads through this module

    path = Path(path)
    found = False
    for document in LineDocuments([path], [line_format], str(path)):
        found = True
        yield document
    if not found:
        raise InputError(f"{path}: no documents in this file")


def iter_jsonl_documents(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """(docid, text) from JSON lines (see jsonl_document); a file without documents is an error."""
    return _line_documents(path, "jsonl")


def iter_tsv_documents(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """(docid, text) from 'docid<TAB>text' lines; a file without documents is an error."""
    return _line_documents(path, "tsv")


def iter_documents(source) -> Iterator[tuple[str, str]]:
    """(docid, text) pairs from anything gsr.documents.open_documents reads (a file, folder, Lucene index or
    irds:NAME), a {docid: text} mapping, a DataFrame or an iterable of pairs."""
    if isinstance(source, (str, os.PathLike)):
        from gsr.documents import open_documents  # gsr.documents reads lines with this module's parsers

        return iter(open_documents(source))
    if isinstance(source, Mapping):
        return iter((str(k), v) for k, v in source.items())
    if _is_dataframe(source):
        id_col = _column(source, DOC_ID_KEYS, "document id")
        text_col = _column(source, DOC_TEXT_KEYS, "document text")
        return zip(source[id_col].astype(str), source[text_col])
    return iter(source)


def _is_dataframe(obj) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "itertuples")


def _column(frame, keys: tuple[str, ...], what: str) -> str:
    for key in keys:
        if key in frame.columns:
            return key
    raise InputError(f"DataFrame has no {what} column (one of {', '.join(keys)})")


IRDS_PREFIX = "irds:"  # an ir_datasets dataset id where a topics, qrels or run path is accepted


def as_queries(source, field: str = "title") -> dict[str, str]:
    """Queries from a path, 'irds:ID' (an ir_datasets dataset's queries), a {qid: text} mapping, a DataFrame with
    qid/query_id and query/text columns, or an iterable of (qid, text) pairs or query records (ir_datasets queries:
    `field` picks title, desc, narr or e.g. title+desc where the records have them)."""
    from gsr import records

    if records.is_irds(source):
        return records.record_queries(records.irds_part(source, "queries"), field, source)
    if isinstance(source, (str, os.PathLike)):
        return read_queries(source, field)
    if isinstance(source, Mapping):
        return {str(k): str(v) for k, v in source.items()}
    if _is_dataframe(source):
        qid = _column(source, QUERY_ID_KEYS, "query id")
        text = _column(source, QUERY_TEXT_KEYS, "query text")
        return dict(zip(source[qid].astype(str), source[text].astype(str)))
    if records.is_records(source):
        return records.record_queries(source, field, "queries")
    raise TypeError(f"cannot read queries from {type(source).__name__}")


def as_run(source) -> Run:
    """A run from a TREC file, 'irds:ID' (an ir_datasets dataset's scored documents), a {qid: {docid: score}} /
    {qid: [(docid, score)]} mapping, a DataFrame, or an iterable of ir_measures ScoredDoc / (qid, docid, score)."""
    from gsr import records

    if records.is_irds(source):
        return _checked_run(records.numeric_run_rows(records.record_rows(records.irds_part(source, "scoreddocs"),
                                                           ("query_id", "doc_id", "score"), source)))
    if isinstance(source, (str, os.PathLike)):
        return read_trec_run(source)
    if _is_dataframe(source):
        qid = _column(source, ("query_id", "qid"), "query id")
        doc = _column(source, ("doc_id", "docno", "docid"), "document id")
        score = _column(source, ("score",), "score")
        rows = zip(source[qid].astype(str), source[doc].astype(str), source[score])
        return _checked_run((f"run DataFrame, query {q}, document {d}", q, d, s) for q, d, s in rows)
    if isinstance(source, Mapping):
        return _checked_run((f"run, query {q}, document {d}", str(q), str(d), s) for q, docs in source.items()
                            for d, s in (docs.items() if isinstance(docs, Mapping) else docs))
    if records.is_records(source):
        return _checked_run(records.numeric_run_rows(records.record_rows(source, ("query_id", "doc_id", "score"), "run")))
    raise TypeError(f"cannot read a run from {type(source).__name__}")


def _checked_run(rows: Iterable[tuple[str, str, str, object]]) -> Run:
    """Rows of (where, qid, docid, score), ranked; a score that is not a number (NaN, true, text) and repeated
    documents are errors at `where`."""
    grouped: dict[str, dict[str, float]] = {}
    for where, q, d, s in rows:
        s = _score(s, where)
        docs = grouped.setdefault(q, {})
        if d in docs:
            raise InputError(f"{where}: document {d} appears twice for query {q}")
        docs[d] = s
    return {q: rank_order(docs.items()) for q, docs in grouped.items()}


def _score(value, where: str) -> float:
    if not isinstance(value, bool):
        try:
            score = float(value)
        except (TypeError, ValueError):
            pass
        else:
            if score != score:
                raise InputError(f"{where}: score is NaN")
            return score
    raise InputError(f"{where}: score must be a number, not {value!r}")


def as_qrels(source) -> Qrels:
    """Qrels from a TREC file, 'irds:ID' (an ir_datasets dataset's qrels), a {qid: {docid: grade}} mapping, a
    DataFrame (query_id/qid, doc_id/docno, relevance/label) or an iterable of ir_measures Qrel / ir_datasets qrels /
    (qid, docid, grade) records."""
    from gsr import records

    if source is None:
        return None
    if records.is_irds(source):
        rows = records.record_rows(records.irds_part(source, "qrels"), ("query_id", "doc_id", "relevance"), source)
        return records.graded(rows)
    if isinstance(source, (str, os.PathLike)):
        return read_qrels(source)
    qrels: Qrels = {}
    if _is_dataframe(source):
        qid = _column(source, ("query_id", "qid"), "query id")
        doc = _column(source, ("doc_id", "docno", "docid"), "document id")
        grade = _column(source, ("relevance", "label", "grade"), "relevance")
        return records.graded((f"qrels DataFrame, query {q}, document {d}", q, d, g) for q, d, g in
                              zip(source[qid].astype(str), source[doc].astype(str), source[grade]))
    if isinstance(source, Mapping):
        for q, docs in source.items():
            for d, g in docs.items():
                qrels.setdefault(str(q), {})[str(d)] = relevance_grade(g, f"qrels, query {q}, document {d}")
        return qrels
    if records.is_records(source):
        return records.graded(records.record_rows(source, ("query_id", "doc_id", "relevance"), "qrels"))
    raise TypeError(f"cannot read qrels from {type(source).__name__}")


def write_trec_run(run: Run, path: str | os.PathLike, tag: str = "gsr") -> Path:
    """A run as a TREC run file ('qid Q0 docid rank score tag'), written atomically."""
    with atomic_write(path) as out:
        for qid in sorted(run):
            for rank, (docid, score) in enumerate(run[qid], start=1):
                out.write(f"{qid} Q0 {docid} {rank} {float(score)!r} {tag}\n")  # repr round-trips exactly
    return Path(path)
