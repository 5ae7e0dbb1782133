"""Readers of queries: TREC topics in SGML form, 'qid<TAB>text' lines and JSON lines, told apart by read_queries.

Every reader stops at the first malformed line with an error naming the file and the line (gsr.io re-exports the
public names).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gsr.errors import InputError
from gsr.io.files import check_line_end, json_lines, open_binary, record_id, record_text, text_lines

TOPIC_FIELDS = ("title", "desc", "narr")
# tags of older TREC topics (TREC 1-3: domain, summary, concepts, factors, nationality, definitions): read, never used
IGNORED_TOPIC_TAGS = ("head", "dom", "smry", "con", "fac", "nat", "def")
QUERY_ID_KEYS = ("qid", "query_id", "_id", "id")
QUERY_TEXT_KEYS = ("text", "query", "title")

_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)[^<>\n]*>")
_FIELD_LABEL = re.compile(r"^\s*(Number|Description|Narrative|Topic)\s*:", re.IGNORECASE)


def read_trec_topics(path: str | os.PathLike, field: str = "title") -> dict[str, str]:
    """TREC topics in SGML form (<top>, <num>, <title>, <desc>, <narr>); `field` may join several with '+'.

    Any other tag (a misspelt <titel>, HTML) is an error naming file:line; the fields of TREC 1-3 topics
    (IGNORED_TOPIC_TAGS) are recognised and left out.

    Args:
        path: The topics file (plain or .gz).
        field: 'title', 'desc', 'narr' or several joined with '+' ('title+desc').

    Returns:
        {qid: text}.

    Raises:
        InputError: If the file is malformed or holds no topic (the message names file:line), or `field` is unknown.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "topics.txt")
        ...     _ = path.write_text("<top>\\n<num> 301\\n<title> nurse pay\\n<desc> How are nurses paid?\\n</top>\\n")
        ...     read_trec_topics(path), read_trec_topics(path, "title+desc")
        ({'301': 'nurse pay'}, {'301': 'nurse pay How are nurses paid?'})
    """
    fields = topic_fields(field)
    path = Path(path)
    known = ("top", "num", *TOPIC_FIELDS, *IGNORED_TOPIC_TAGS)
    topics: dict[str, str] = {}
    current: dict[str, list[str]] | None = None
    active = None
    started = 0
    for lineno, line in text_lines(path):
        position = 0
        for match in _TAG.finditer(line):
            if active is not None and current is not None:
                current[active].append(line[position : match.start()])
            closing, tag = match.group(1), match.group(2).lower()
            position = match.end()
            if tag not in known:
                raise InputError(
                    f"{path}:{lineno}: unknown tag {match.group(0)!r} in a TREC topics file (a topic "
                    f"holds <num>, <title>, <desc>, <narr>)"
                )
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
                active = None if closing or tag in IGNORED_TOPIC_TAGS else tag
        if active is not None and current is not None:
            current[active].append(line[position:])
    if current is not None:
        raise InputError(f"{path}:{started}: topic not closed with </top>")
    if not topics:
        raise InputError(f"{path}: no <top> blocks found (not a TREC topics file?)")
    return topics


def topic_fields(field: str) -> tuple[str, ...]:
    """The fields of a topic-field spec such as "title", "Description" or "title+desc" (InputError otherwise)."""
    aliases = {"description": "desc", "narrative": "narr"}
    if not isinstance(field, str):
        raise InputError(f"topic field must be a string such as 'title' or 'title+desc', not {field!r}")
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
    query_id(qid, f"{path}:{started}")
    if qid in topics:
        raise InputError(f"{path}:{started}: topic {qid} appears twice")
    values = [text(f) for f in fields]
    if not any(values):
        raise InputError(f"{path}:{started}: topic {qid} has an empty {'+'.join(fields)} field")
    topics[qid] = " ".join(v for v in values if v)


def query_id(qid: str, where: str) -> str:
    """`qid` when a TREC run or qrels line can name it (non-empty, no white space: their columns are separated by
    white space); else an InputError at `where`. A query no run can answer was measured as unanswered, unsaid."""
    if not qid or any(c.isspace() for c in qid):
        raise InputError(
            f"{where}: query id {qid!r} is empty or holds white space, which no TREC run or qrels line can name"
        )
    return qid


def _nonempty_queries(queries: dict[str, str], path: Path) -> dict[str, str]:
    if not queries:
        raise InputError(f"{path}: no queries in this file")
    return queries


def read_tsv_queries(path: str | os.PathLike) -> dict[str, str]:
    """Queries as 'qid<TAB>text' lines.

    Args:
        path: The file (plain or .gz).

    Returns:
        {qid: text}.

    Raises:
        InputError: If a line has no tab or holds a carriage return (CR-only line ends), a query appears twice or the
            file holds none.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "queries.tsv")
        ...     _ = path.write_text("q1\\tnurse pay\\n")
        ...     read_tsv_queries(path)
        {'q1': 'nurse pay'}
    """
    path = Path(path)
    queries: dict[str, str] = {}
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        check_line_end(line, path, lineno)  # CR-only line ends would merge every query into this one
        parts = line.split("\t")
        if len(parts) < 2:
            raise InputError(f"{path}:{lineno}: expected 'qid<TAB>text'")
        qid = query_id(parts[0].strip(), f"{path}:{lineno}")
        if qid in queries:
            raise InputError(f"{path}:{lineno}: query {qid} appears twice")
        queries[qid] = " ".join(parts[1:]).strip()
    return _nonempty_queries(queries, path)


def read_jsonl_queries(path: str | os.PathLike) -> dict[str, str]:
    """Queries as JSON lines with an id (qid, query_id, _id, id) and a text (text, query, title).

    Args:
        path: The file (plain or .gz).

    Returns:
        {qid: text}.

    Raises:
        InputError: If a line is not such a record, a query appears twice or the file holds none.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "queries.jsonl")
        ...     _ = path.write_text('{"_id": "q1", "text": "nurse pay"}\\n')
        ...     read_jsonl_queries(path)
        {'q1': 'nurse pay'}
    """
    path = Path(path)
    queries: dict[str, str] = {}
    for lineno, record in json_lines(path):
        where = f"{path}:{lineno}"
        qid = query_id(record_id(record, QUERY_ID_KEYS, where, "query id"), where)
        if qid in queries:
            raise InputError(f"{where}: query {qid} appears twice")
        queries[qid] = record_text(record, QUERY_TEXT_KEYS, where, "query text")
    return _nonempty_queries(queries, path)


def read_queries(path: str | os.PathLike, field: str = "title") -> dict[str, str]:
    """Queries from a TREC topics file, a TSV file or a JSONL file, told apart by extension and content.

    Args:
        path: The file (plain or .gz).
        field: The topic field(s) of a TREC topics file (see read_trec_topics).

    Returns:
        {qid: text}.

    Raises:
        InputError: If the file cannot be read as any of these (the message names file:line).

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "queries.txt")
        ...     _ = path.write_text("q1\\tnurse pay\\n")
        ...     read_queries(path)
        {'q1': 'nurse pay'}
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return read_jsonl_queries(path)
    if suffix == ".tsv":
        return read_tsv_queries(path)
    with open_binary(path) as handle:
        head = handle.read(4096).decode("utf-8", errors="replace").lstrip("\ufeff")
    if "<top>" in head.lower():
        return read_trec_topics(path, field)
    if head.lstrip().startswith("{"):
        return read_jsonl_queries(path)
    return read_tsv_queries(path)
