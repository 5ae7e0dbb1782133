"""Runs, qrels and queries from whatever a user holds: a path, 'irds:ID', a mapping, a DataFrame, or the records of
ir_measures and ir_datasets; every value checked, every failure an InputError naming the row."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import overload

from gsr.errors import InputError
from gsr.io import records
from gsr.io.fairness_sensitive import fairness_sensitive_queries, is_fairness_sensitive
from gsr.io.msmarco_gender import is_msmarco_gender, msmarco_gender_queries
from gsr.io.qrels import graded, read_qrels, relevance_grade
from gsr.io.records import frame_column, frame_rows, is_dataframe, record_identifier, record_string
from gsr.io.runs import checked_run, read_trec_run
from gsr.io.topics import QUERY_ID_KEYS, QUERY_TEXT_KEYS, read_queries
from gsr.io.types import CheckedRun, Qrels, QrelsInput, QueriesInput, Run, RunInput

RUN_QUERY_COLUMNS, RUN_DOCUMENT_COLUMNS = ("query_id", "qid"), ("doc_id", "docno", "docid")


def as_queries(source: QueriesInput, field: str = "title") -> dict[str, str]:
    """Queries from a path, 'irds:ID' (an ir_datasets dataset's queries), the built-in 'msmarco-gender' topic set
    ('msmarco-gender:n', ':f', ':m', ':o' or e.g. ':f,m' for those labels; gsr.io.msmarco_gender), the built-in
    fairness-sensitive sets ('fairness-sensitive:msmarco-dev', ':dl19', with filters such as ':category=Career';
    gsr.io.fairness_sensitive), a {qid: text}
    mapping, a DataFrame with qid/query_id and query/text columns, or an iterable of (qid, text) pairs or query
    records (ir_datasets queries: `field` picks title, desc, narr or e.g. title+desc where the records have them).

    Args:
        source: The queries, in any of these forms.
        field: The topic field(s) of TREC topics and ir_datasets queries.

    Returns:
        {qid: text}.

    Raises:
        InputError: If a query cannot be read (the message names the file and line, or the row).
        TypeError: If `source` is of no form read here.

    Example:
        >>> as_queries({"q1": "nurse", 2: "engineer"})
        {'q1': 'nurse', '2': 'engineer'}
    """
    if is_msmarco_gender(source):
        return msmarco_gender_queries(source)
    if is_fairness_sensitive(source):
        return fairness_sensitive_queries(source)
    if records.is_irds(source):
        return records.record_queries(records.irds_part(source, "queries"), field, source)
    if isinstance(source, (str, os.PathLike)):
        return read_queries(source, field)
    if isinstance(source, Mapping):
        return {
            record_identifier(k, "queries", "a query id"): record_string(v, f"queries, query {k}", "the text")
            for k, v in source.items()
        }
    if is_dataframe(source):
        columns = [frame_column(source, QUERY_ID_KEYS, "query id"), frame_column(source, QUERY_TEXT_KEYS, "query text")]
        queries: dict[str, str] = {}
        for where, (qid, text) in frame_rows(source, columns, "queries"):
            qid = record_identifier(qid, where, "the query id")
            if qid in queries:
                raise InputError(f"{where}: query {qid} appears twice")
            queries[qid] = record_string(text, where, "the query text")
        return queries
    if records.is_records(source):
        return records.record_queries(source, field, "queries")
    raise TypeError(f"cannot read queries from {type(source).__name__}")


def as_run(source: RunInput) -> Run:
    """A run from a TREC file, 'irds:ID' (an ir_datasets dataset's scored documents), a {qid: {docid: score}} /
    {qid: [(docid, score)]} mapping, a DataFrame, or an iterable of ir_measures ScoredDoc / (qid, docid, score).

    Args:
        source: The run, in any of these forms.

    Returns:
        {qid: [(docid, score)]}, each list in trec_eval's order (score, then document id, descending).

    Raises:
        InputError: If a score is not a number or a document appears twice for a query.
        TypeError: If `source` is of no form read here.

    Example:
        >>> as_run({"q1": {"d1": 1.0, "d2": 2.5}})
        {'q1': [('d2', 2.5), ('d1', 1.0)]}
    """
    fields = ("query_id", "doc_id", "score")
    if isinstance(source, CheckedRun):  # read by one of this package's readers: checked row by row already
        return source
    if records.is_irds(source):
        return checked_run(records.record_rows(records.irds_part(source, "scoreddocs"), fields, source))
    if isinstance(source, (str, os.PathLike)):
        return read_trec_run(source)
    if is_dataframe(source):
        columns = [
            frame_column(source, RUN_QUERY_COLUMNS, "query id"),
            frame_column(source, RUN_DOCUMENT_COLUMNS, "document id"),
            frame_column(source, ("score",), "score"),
        ]
        return checked_run(
            (where, record_identifier(q, where, "the query id"), record_identifier(d, where, "the document id"), s)
            for where, (q, d, s) in frame_rows(source, columns, "run")
        )
    if isinstance(source, Mapping):
        return checked_run(
            (f"run, query {q}, document {d}", str(q), str(d), s)
            for q, docs in source.items()
            for d, s in (docs.items() if isinstance(docs, Mapping) else docs)
        )
    if records.is_records(source):
        return checked_run(records.record_rows(source, fields, "run"))
    raise TypeError(f"cannot read a run from {type(source).__name__}")


@overload
def as_qrels(source: None) -> None: ...


@overload
def as_qrels(source: QrelsInput) -> Qrels: ...


def as_qrels(source: QrelsInput | None) -> Qrels | None:
    """Qrels from a TREC file, 'irds:ID' (an ir_datasets dataset's qrels), a {qid: {docid: grade}} mapping, a
    DataFrame (query_id/qid, doc_id/docno, relevance/label) or an iterable of ir_measures Qrel / ir_datasets qrels /
    (qid, docid, grade) records; None stays None (no judgments).

    Args:
        source: The judgments, in any of these forms, or None.

    Returns:
        {qid: {docid: grade}}, or None.

    Raises:
        InputError: If a grade is not an integer or a document is judged twice differently.
        TypeError: If `source` is of no form read here.

    Example:
        >>> as_qrels({"q1": {"d1": "1", "d2": 0}}), as_qrels(None)
        ({'q1': {'d1': 1, 'd2': 0}}, None)
    """
    fields = ("query_id", "doc_id", "relevance")
    if source is None:
        return None
    if records.is_irds(source):
        return graded(records.record_rows(records.irds_part(source, "qrels"), fields, source))
    if isinstance(source, (str, os.PathLike)):
        return read_qrels(source)
    if is_dataframe(source):
        columns = [
            frame_column(source, RUN_QUERY_COLUMNS, "query id"),
            frame_column(source, RUN_DOCUMENT_COLUMNS, "document id"),
            frame_column(source, ("relevance", "label", "grade"), "relevance"),
        ]
        return graded(
            (where, record_identifier(q, where, "the query id"), record_identifier(d, where, "the document id"), g)
            for where, (q, d, g) in frame_rows(source, columns, "qrels")
        )
    if isinstance(source, Mapping):
        qrels: Qrels = {}
        for q, docs in source.items():
            for d, g in docs.items():
                qrels.setdefault(str(q), {})[str(d)] = relevance_grade(g, f"qrels, query {q}, document {d}")
        return qrels
    if records.is_records(source):
        return graded(records.record_rows(source, fields, "qrels"))
    raise TypeError(f"cannot read qrels from {type(source).__name__}")
