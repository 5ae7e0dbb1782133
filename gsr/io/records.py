"""Records other IR tools hand over, as gsr.io's runs, qrels and queries: ir_measures ScoredDoc/Qrel, ir_datasets
query and qrels iterables, plain tuples, DataFrames, and ir_datasets datasets named 'irds:ID' (gsr.io.convert's
as_run/as_qrels/as_queries dispatch here)."""

from __future__ import annotations

import logging
import math
import numbers
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TypeGuard

from gsr.errors import InputError
from gsr.io.topics import QUERY_ID_KEYS, QUERY_TEXT_KEYS, topic_fields

IRDS_PREFIX = "irds:"  # an ir_datasets dataset id where a topics, qrels, run or documents path is accepted
_IRDS_QUERY_FIELDS = {"title": "title", "desc": "description", "narr": "narrative"}


def irds_dataset(source: str):
    """The ir_datasets dataset named by 'irds:ID' (InputError when ir_datasets or the dataset is missing)."""
    from gsr.infra.extras import require

    name = source[len(IRDS_PREFIX) :]
    require("irds", f"{source} (an ir_datasets dataset)")
    import ir_datasets

    try:
        return ir_datasets.load(name)
    except KeyError:
        raise InputError(f"{source}: ir_datasets has no dataset {name!r}") from None


class _DownloadRefused(Exception):
    """Raised in place of a download ir_datasets would start."""


@contextmanager
def offline(source: str, what: str) -> Iterator[None]:
    """ir_datasets as gsr-bench uses it: from the files it holds, never downloading. A read that would download is
    an InputError naming the dataset, what was asked for, and the folder where ir_datasets looks for its files."""
    from ir_datasets.log import Logger
    from ir_datasets.util import home_path
    from ir_datasets.util.download import RequestsDownload

    def refuse(download):
        raise _DownloadRefused(getattr(download, "url", "?"))

    quieted: dict[logging.Logger, int] = {}
    make_logger = Logger.logger

    def quiet(self):  # its INFO lines on positional access, its warning of the download it did not make
        logger = make_logger(self)
        quieted.setdefault(logger, logger.level)
        logger.setLevel(logging.ERROR)
        return logger

    original = RequestsDownload.__iter__
    RequestsDownload.__iter__, Logger.logger = refuse, quiet
    try:
        yield
    except _DownloadRefused as refused:
        raise InputError(
            f"{source}: ir_datasets does not have the {what} of {source[len(IRDS_PREFIX) :]} here (it "
            f"looks under {home_path()}, set by $IR_DATASETS_HOME) and gsr-bench never downloads "
            f"({refused.args[0]}); place the files there as ir_datasets' documentation of the dataset "
            "says"
        ) from None
    finally:
        RequestsDownload.__iter__, Logger.logger = original, make_logger
        for logger, level in quieted.items():
            logger.setLevel(level)


def is_irds(source: object) -> TypeGuard[str]:
    return isinstance(source, str) and source.startswith(IRDS_PREFIX)


def irds_part(source: str, part: str):
    """The queries/qrels/scoreddocs iterator of an 'irds:ID' dataset, or InputError when it has none."""
    dataset = irds_dataset(source)
    if not getattr(dataset, f"has_{part}")():
        raise InputError(f"{source}: the ir_datasets dataset has no {part}")
    return _offline_items(dataset, part, source)


def _offline_items(dataset, part: str, source: str) -> Iterator:
    with offline(source, part):
        yield from getattr(dataset, f"{part}_iter")()


def is_dataframe(obj) -> bool:
    """True for a pandas (or pandas-like) DataFrame, told by its columns and itertuples, without importing pandas."""
    return hasattr(obj, "columns") and hasattr(obj, "itertuples")


def frame_column(frame, keys: tuple[str, ...], what: str) -> str:
    """The first of `keys` that is a column of `frame`; an InputError naming `what` otherwise."""
    for key in keys:
        if key in frame.columns:
            return key
    raise InputError(f"DataFrame has no {what} column (one of {', '.join(keys)})")


def record_identifier(value, where: str, what: str) -> str:
    """An id from a DataFrame cell, a mapping key or a record: a non-empty string, or an integer (an integral float,
    as pandas holds an integer column with a gap, counts as that integer); None, NaN, true/false and other types
    are an InputError at `where`."""
    if isinstance(value, str):
        if value.strip():
            return value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    elif (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        return str(math.trunc(value))
    raise InputError(f"{where}: {what} is {value!r}, not a non-empty string or an integer")


def record_string(value, where: str, what: str) -> str:
    """A text from a DataFrame cell, a mapping or a record: a string, or a number written as one; None, NaN and
    true/false are an InputError at `where` (str() would turn None into the word 'none', NaN into 'nan')."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    raise InputError(f"{where}: {what} is {value!r}, not a string")


def frame_rows(frame, columns: list[str], name: str) -> Iterator[tuple[str, list]]:
    """(where, values) of every row of `frame`'s `columns`, where = 'NAME DataFrame, row LABEL'."""
    for label, *values in zip(frame.index, *(frame[c] for c in columns)):
        yield f"{name} DataFrame, row {label}", values


def is_records(source) -> bool:
    return (
        not isinstance(source, (str, bytes, os.PathLike, Mapping))
        and not is_dataframe(source)
        and hasattr(source, "__iter__")
    )


def query_text(record, field: str) -> str:
    """A query record's text for `field` (title, desc, narr or e.g. title+desc): ir_datasets TrecQuery fields, a
    `text` field, or default_text()."""
    parts = []
    for name in topic_fields(field):
        value = getattr(record, _IRDS_QUERY_FIELDS[name], None)
        if value:
            parts.append(str(value))
    if parts:
        return " ".join(parts)
    for key in QUERY_TEXT_KEYS:
        if getattr(record, key, None) is not None:
            return str(getattr(record, key))
    if hasattr(record, "default_text"):
        return record.default_text()
    raise InputError(f"query {record.query_id}: no text field (one of {', '.join(QUERY_TEXT_KEYS)})")


def record_queries(records, field: str, where: str) -> dict[str, str]:
    queries: dict[str, str] = {}
    for n, record in enumerate(records, start=1):
        at = f"{where}, record {n}"
        if hasattr(record, "query_id"):
            qid, text = record_identifier(record.query_id, at, "the query id"), query_text(record, field)
        elif isinstance(record, Mapping):
            id_key = next((k for k in QUERY_ID_KEYS if k in record), None)
            text_key = next((k for k in QUERY_TEXT_KEYS if k in record), None)
            if id_key is None or text_key is None:
                raise InputError(f"{at}: expected a query id and a text")
            qid = record_identifier(record[id_key], at, "the query id")
            text = record_string(record[text_key], at, "the query text")
        elif isinstance(record, (tuple, list)) and len(record) == 2:
            qid, text = record_identifier(record[0], at, "the query id"), record_string(record[1], at, "the query text")
        else:
            raise InputError(
                f"{where}, record {n}: expected (qid, text) or a query with query_id and text, not {record!r}"
            )
        if qid in queries:
            raise InputError(f"{where}, record {n}: query {qid} appears twice")
        queries[qid] = text
    return queries


def record_rows(records, fields: tuple[str, str, str], where: str) -> Iterator[tuple[str, str, str, object]]:
    """(where, qid, docid, value) of records with the three named fields (ir_measures ScoredDoc/Qrel, ir_datasets
    qrels and scored documents), or of plain (qid, docid, value) triples."""
    for n, record in enumerate(records, start=1):
        if all(hasattr(record, f) for f in fields):
            qid, docid, value = (getattr(record, f) for f in fields)
        elif isinstance(record, (tuple, list)) and len(record) == 3:
            qid, docid, value = record
        else:
            raise InputError(f"{where}, record {n}: expected ({', '.join(fields)}), not {record!r}")
        yield f"{where}, record {n}", str(qid), str(docid), value
