"""Readers for TREC runs, qrels and topics, TSV/JSONL queries and documents, and pandas/dict equivalents.

Every reader stops at the first malformed line with an error naming the file and the line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from gsr.store import atomic_write

Run = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first
Qrels = dict[str, dict[str, int]]  # qid -> {docid: grade}

TOPIC_FIELDS = ("title", "desc", "narr")
QUERY_ID_KEYS = ("qid", "query_id", "_id", "id")
QUERY_TEXT_KEYS = ("text", "query", "title")
DOC_ID_KEYS = ("id", "docid", "doc_id", "docno", "_id")
DOC_TEXT_KEYS = ("contents", "text", "body")


class InputError(ValueError):
    """A malformed or inconsistent input file; the message starts with 'file:line:'."""


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, start=1):
                yield lineno, line.rstrip("\n\r")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: not UTF-8 text ({err.reason})") from None


def rank_order(scored: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, ties broken by document id descending."""
    return sorted(scored, key=lambda pair: (pair[1], pair[0]), reverse=True)


def read_trec_run(path: str | os.PathLike) -> Run:
    """A TREC run file: 'qid Q0 docid rank score tag' per line; ranked by score as trec_eval does."""
    path = Path(path)
    return _checked_run(_trec_run_rows(path))


def _trec_run_rows(path: Path) -> Iterator[tuple[str, str, str, float]]:
    for lineno, line in _lines(path):
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
    """A TREC qrels file: 'qid iteration docid grade' per line."""
    path = Path(path)
    qrels: Qrels = {}
    for lineno, line in _lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InputError(f"{path}:{lineno}: expected 4 columns 'qid iteration docid grade', found {len(parts)}")
        qid, _, docid, grade = parts
        try:
            value = int(grade)
        except ValueError:
            raise InputError(f"{path}:{lineno}: relevance grade must be an integer, found {grade!r}") from None
        judged = qrels.setdefault(qid, {})
        if docid in judged and judged[docid] != value:
            raise InputError(f"{path}:{lineno}: document {docid} judged twice for query {qid} with different grades")
        judged[docid] = value
    return qrels


_TAG = re.compile(r"<(/?)(top|num|title|desc|narr)>", re.IGNORECASE)
_FIELD_LABEL = re.compile(r"^\s*(Number|Description|Narrative|Topic)\s*:", re.IGNORECASE)


def read_trec_topics(path: str | os.PathLike, field: str = "title") -> dict[str, str]:
    """TREC topics in SGML form (<top>, <num>, <title>, <desc>, <narr>); `field` may join several with '+'."""
    fields = _topic_fields(field)
    path = Path(path)
    topics: dict[str, str] = {}
    current: dict[str, list[str]] | None = None
    active = None
    started = 0
    for lineno, line in _lines(path):
        position = 0
        for match in _TAG.finditer(line):
            if active is not None and current is not None:
                current[active].append(line[position : match.start()])
            closing, tag = match.group(1), match.group(2).lower()
            position = match.end()
            if tag == "top" and not closing:
                if current is not None:
                    raise InputError(f"{path}:{lineno}: <top> opened before the topic of line {started} was closed")
                current, active, started = {k: [] for k in ("num",) + TOPIC_FIELDS}, None, lineno
            elif tag == "top":
                if current is None:
                    raise InputError(f"{path}:{lineno}: </top> without <top>")
                _finish_topic(path, started, current, fields, topics)
                current, active = None, None
            elif current is None:
                raise InputError(f"{path}:{lineno}: <{tag}> outside a <top> block")
            else:
                active = None if closing else tag
        if active is not None and current is not None:
            current[active].append(line[position:])
    if current is not None:
        raise InputError(f"{path}:{started}: topic not closed with </top>")
    if not topics:
        raise InputError(f"{path}: no <top> blocks found (not a TREC topics file?)")
    return topics


def _topic_fields(field: str) -> tuple[str, ...]:
    aliases = {"description": "desc", "narrative": "narr"}
    fields = tuple(aliases.get(f.strip().lower(), f.strip().lower()) for f in field.split("+"))
    unknown = [f for f in fields if f not in TOPIC_FIELDS]
    if unknown:
        raise InputError(f"unknown topic field {unknown[0]!r}; choose among title, desc, narr (joined with '+')")
    return fields


def _finish_topic(path, started, parts, fields, topics):
    def text(key):
        return _FIELD_LABEL.sub("", " ".join(" ".join(parts[key]).split()), count=1).strip()

    qid = text("num")
    if not qid:
        raise InputError(f"{path}:{started}: topic has no <num>")
    if qid in topics:
        raise InputError(f"{path}:{started}: topic {qid} appears twice")
    values = [text(f) for f in fields]
    if not any(values):
        raise InputError(f"{path}:{started}: topic {qid} has an empty {'+'.join(fields)} field")
    topics[qid] = " ".join(v for v in values if v)


def read_tsv_queries(path: str | os.PathLike) -> dict[str, str]:
    """Queries as 'qid<TAB>text' lines."""
    path = Path(path)
    queries: dict[str, str] = {}
    for lineno, line in _lines(path):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 2:
            raise InputError(f"{path}:{lineno}: expected 'qid<TAB>text'")
        qid = parts[0].strip()
        if qid in queries:
            raise InputError(f"{path}:{lineno}: query {qid} appears twice")
        queries[qid] = " ".join(parts[1:]).strip()
    return queries


def _json_record(line: str, where: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(f"{where}: invalid JSON ({err.msg})") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    return record


def _json_records(path: Path) -> Iterator[tuple[int, dict]]:
    for lineno, line in _lines(path):
        if line.strip():
            yield lineno, _json_record(line, f"{path}:{lineno}")


def _pick(record: dict, keys: tuple[str, ...], where: str, what: str):
    for key in keys:
        if key in record:
            return str(record[key])
    raise InputError(f"{where}: no {what} field (one of {', '.join(keys)})")


def read_jsonl_queries(path: str | os.PathLike) -> dict[str, str]:
    """Queries as JSON lines with an id (qid, query_id, _id) and a text (text, query, title)."""
    path = Path(path)
    queries: dict[str, str] = {}
    for lineno, record in _json_records(path):
        qid = _pick(record, QUERY_ID_KEYS, f"{path}:{lineno}", "query id")
        if qid in queries:
            raise InputError(f"{path}:{lineno}: query {qid} appears twice")
        queries[qid] = _pick(record, QUERY_TEXT_KEYS, f"{path}:{lineno}", "query text")
    return queries


def read_queries(path: str | os.PathLike, field: str = "title") -> dict[str, str]:
    """Queries from a TREC topics file, a TSV file or a JSONL file, told apart by extension and content."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return read_jsonl_queries(path)
    if suffix == ".tsv":
        return read_tsv_queries(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    if "<top>" in head.lower():
        return read_trec_topics(path, field)
    if head.lstrip().startswith("{"):
        return read_jsonl_queries(path)
    return read_tsv_queries(path)


def json_document_text(record: dict) -> str | None:
    """A JSON document's text: its contents/text/body, after its title when it has one; None when it has none."""
    body = next((str(record[key]) for key in DOC_TEXT_KEYS if key in record), None)
    title = record.get("title")
    return f"{title} {body}" if title and body is not None else body


def jsonl_document(line: str, where: str) -> tuple[str, str]:
    """(docid, text) of one JSON line with an id (id, docid, doc_id, docno, _id) and contents/text/body (+ title)."""
    record = _json_record(line, where)
    docid = _pick(record, DOC_ID_KEYS, where, "document id")
    text = json_document_text(record)
    if text is None:
        raise InputError(f"{where}: no document text field (one of {', '.join(DOC_TEXT_KEYS)})")
    return docid, text


def tsv_document(line: str, where: str) -> tuple[str, str]:
    """(docid, text) of one 'docid<TAB>text' line."""
    docid, tab, text = line.rstrip("\n\r").partition("\t")
    if not tab:
        raise InputError(f"{where}: expected 'docid<TAB>text'")
    return docid.strip(), text


def iter_jsonl_documents(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """(docid, text) from JSON lines (see jsonl_document)."""
    path = Path(path)
    for lineno, line in _lines(path):
        if line.strip():
            yield jsonl_document(line, f"{path}:{lineno}")


def iter_tsv_documents(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """(docid, text) from 'docid<TAB>text' lines."""
    path = Path(path)
    for lineno, line in _lines(path):
        if line.strip():
            yield tsv_document(line, f"{path}:{lineno}")


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


def as_queries(source, field: str = "title") -> dict[str, str]:
    """Queries from a path, a {qid: text} mapping or a DataFrame with qid/query_id and query/text columns."""
    if isinstance(source, (str, os.PathLike)):
        return read_queries(source, field)
    if isinstance(source, Mapping):
        return {str(k): str(v) for k, v in source.items()}
    if _is_dataframe(source):
        qid = _column(source, QUERY_ID_KEYS, "query id")
        text = _column(source, QUERY_TEXT_KEYS, "query text")
        return dict(zip(source[qid].astype(str), source[text].astype(str)))
    raise TypeError(f"cannot read queries from {type(source).__name__}")


def as_run(source) -> Run:
    """A run from a TREC file, a {qid: {docid: score}} / {qid: [(docid, score)]} mapping or a DataFrame."""
    if isinstance(source, (str, os.PathLike)):
        return read_trec_run(source)
    if _is_dataframe(source):
        qid = _column(source, ("query_id", "qid"), "query id")
        doc = _column(source, ("doc_id", "docno", "docid"), "document id")
        score = _column(source, ("score",), "score")
        rows = zip(source[qid].astype(str), source[doc].astype(str), source[score].astype(float))
        return _checked_run((f"run DataFrame, query {q}, document {d}", q, d, s) for q, d, s in rows)
    if isinstance(source, Mapping):
        return _checked_run((f"run, query {q}, document {d}", str(q), str(d), float(s)) for q, docs in source.items()
                            for d, s in (docs.items() if isinstance(docs, Mapping) else docs))
    raise TypeError(f"cannot read a run from {type(source).__name__}")


def _checked_run(rows: Iterable[tuple[str, str, str, float]]) -> Run:
    """Rows of (where, qid, docid, score), ranked; NaN scores and repeated documents are errors at `where`."""
    grouped: dict[str, dict[str, float]] = {}
    for where, q, d, s in rows:
        if s != s:
            raise InputError(f"{where}: score is NaN")
        docs = grouped.setdefault(q, {})
        if d in docs:
            raise InputError(f"{where}: document {d} appears twice for query {q}")
        docs[d] = s
    return {q: rank_order(docs.items()) for q, docs in grouped.items()}


def as_qrels(source) -> Qrels:
    """Qrels from a TREC file, a {qid: {docid: grade}} mapping or a DataFrame (query_id/qid, doc_id/docno, relevance/label)."""
    if source is None:
        return None
    if isinstance(source, (str, os.PathLike)):
        return read_qrels(source)
    if _is_dataframe(source):
        qid = _column(source, ("query_id", "qid"), "query id")
        doc = _column(source, ("doc_id", "docno", "docid"), "document id")
        grade = _column(source, ("relevance", "label", "grade"), "relevance")
        qrels: Qrels = {}
        for q, d, g in zip(source[qid].astype(str), source[doc].astype(str), source[grade]):
            if g != g or float(g) != int(g):
                raise InputError(f"qrels DataFrame: relevance of query {q}, document {d} is not an integer: {g!r}")
            qrels.setdefault(q, {})[d] = int(g)
        return qrels
    if isinstance(source, Mapping):
        return {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in source.items()}
    raise TypeError(f"cannot read qrels from {type(source).__name__}")


def write_trec_run(run: Run, path: str | os.PathLike, tag: str = "gsr") -> Path:
    """A run as a TREC run file ('qid Q0 docid rank score tag'), written atomically."""
    with atomic_write(path) as out:
        for qid in sorted(run):
            for rank, (docid, score) in enumerate(run[qid], start=1):
                out.write(f"{qid} Q0 {docid} {rank} {float(score)!r} {tag}\n")  # repr round-trips exactly
    return Path(path)
