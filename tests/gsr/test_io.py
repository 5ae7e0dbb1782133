"""Tests for gsr.io: TREC runs, qrels and topics, TSV/JSONL queries, documents, and pandas/dict inputs.

Most cases are rows of three tables: a file that reads to a value (READS), a file that is refused with a message
naming its line (REFUSED), and a DataFrame read or refused (FRAMES)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gsr.documents.opening import iter_documents
from gsr.errors import InputError
from gsr.io.convert import as_qrels, as_queries, as_run
from gsr.io.qrels import read_qrels
from gsr.io.runs import read_trec_run
from gsr.io.topics import read_jsonl_queries, read_queries, read_trec_topics, read_tsv_queries
from gsr.io.types import rank_order
from tests.support import run_reference as reference
from tests.support.shared_data import ROBUST04_TOPICS, assert_message

pytestmark = pytest.mark.usefixtures("own_cache")  # any cache write stays in the test's own folder


def io_write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def documents(path) -> list[tuple[str, str]]:
    return list(iter_documents(path))


def topics_as(field: str):
    return lambda path: read_trec_topics(path, field)


def queries_as(field: str):
    return lambda path: read_queries(path, field)


TOPICS = """\
<top>
<num> Number: 401
<title> foreign minorities, Germany

<desc> Description:
What language and cultural differences impede the integration
of foreign minorities in Germany?

<narr> Narrative:
A relevant document will focus on the causes
of the lack of integration.
</top>

<top>
<num> Number: 402 <title> behavioral genetics
<desc> Description: What is happening in the field of behavioral genetics?
<narr> Narrative: Relevant documents include genetic causes.
</top>
"""
TITLES = {"401": "foreign minorities, Germany", "402": "behavioral genetics"}
DESC_401 = "What language and cultural differences impede the integration of foreign minorities in Germany?"
DESC_402 = "What is happening in the field of behavioral genetics?"


# --------------------------------------------------------------------------- files that read to a value

READS = {
    # runs: ranked by score (trec_eval's order), not by the rank column; ties by document id descending
    "run-score-not-rank-column": (
        read_trec_run,
        "run.txt",
        "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.9 tag\nq1 Q0 d3 3 -1.25 tag\n\nq2 Q0 x 1 3 tag\n",
        {"q1": [("d2", 0.9), ("d1", 0.5), ("d3", -1.25)], "q2": [("x", 3.0)]},
    ),
    "run-ties-by-docid-descending": (
        read_trec_run,
        "run.txt",
        "7 Q0 DOC-A 1 2.0 r\n7 Q0 DOC-C 2 2.0 r\n7 Q0 DOC-B 3 2.0 r\n7 Q0 DOC-Z 4 1.0 r\n7 Q0 DOC-0 5 3.0 r\n",
        {"7": [("DOC-0", 3.0), ("DOC-C", 2.0), ("DOC-B", 2.0), ("DOC-A", 2.0), ("DOC-Z", 1.0)]},
    ),
    "run-tabs-and-trailing-whitespace": (
        read_trec_run,
        "run.txt",
        "q1\tQ0\td1\t1\t1e-3\tbm25  \r\nq1 Q0 d2 2 2E2 bm25\n",
        {"q1": [("d2", 200.0), ("d1", 0.001)]},
    ),
    "run-same-document-in-two-queries": (
        read_trec_run,
        "run.txt",
        "q1 Q0 d1 1 0.9 tag\nq2 Q0 d1 1 0.4 tag\n",
        {"q1": [("d1", 0.9)], "q2": [("d1", 0.4)]},
    ),
    "run-as-run-path": (
        as_run,
        "run.txt",
        "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.9 tag\n",
        {"q1": [("d2", 0.9), ("d1", 0.5)]},
    ),
    # qrels: Q0 or 0 in the iteration column, negative grades kept, a repeated identical judgment is fine
    "qrels": (
        read_qrels,
        "qrels.txt",
        "301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n\n302 Q0 LA-1 2\n302 0 LA-2 -1\n301 0 FBIS3-10082 1\n",
        {"301": {"FBIS3-10082": 1, "FBIS3-10169": 0}, "302": {"LA-1": 2, "LA-2": -1}},
    ),
    "qrels-as-qrels-path": (as_qrels, "qrels", "1 0 a 3\n", {"1": {"a": 3}}),
    # TREC topics: title by default; labels ("Description:") stripped, lines joined; fields joined with '+'
    "topics-title-is-default": (read_trec_topics, "topics.txt", TOPICS, TITLES),
    "topics-desc": (topics_as("desc"), "topics.txt", TOPICS, {"401": DESC_401, "402": DESC_402}),
    "topics-narr": (
        topics_as("narr"),
        "topics.txt",
        TOPICS,
        {
            "401": "A relevant document will focus on the causes of the lack of integration.",
            "402": "Relevant documents include genetic causes.",
        },
    ),
    "topics-title+desc": (
        topics_as("title+desc"),
        "topics.txt",
        TOPICS,
        {"401": f"foreign minorities, Germany {DESC_401}", "402": f"behavioral genetics {DESC_402}"},
    ),
    "topics-field-Description": (lambda path: topics_as("Description")(path)["402"], "topics.txt", TOPICS, DESC_402),
    "topics-field-DESC": (lambda path: topics_as("DESC")(path)["402"], "topics.txt", TOPICS, DESC_402),
    "topics-field-padded-desc": (lambda path: topics_as(" desc ")(path)["402"], "topics.txt", TOPICS, DESC_402),
    "topics-upper-case-tags-and-labels": (
        read_trec_topics,
        "t.txt",
        "<TOP>\n<NUM> NUMBER: 7\n<TITLE> Topic: jaguar speed\n</TOP>\n",
        {"7": "jaguar speed"},
    ),
    "topics-closing-field-tags": (
        topics_as("title+desc"),
        "t.txt",
        "<top><num>5</num><title>red wine</title>ignored between tags<desc>a b</desc></top>\n",
        {"5": "red wine a b"},
    ),
    "topics-title+desc-one-empty": (
        topics_as("title+desc"),
        "t.txt",
        "<top>\n<num> 3\n<title> a\n<desc> Description:\n</top>\n",
        {"3": "a"},
    ),
    # TSV and JSONL queries
    "tsv-queries": (
        read_tsv_queries,
        "q.tsv",
        "1\tmale nurse\n\n 2 \t  doctor salary \r\n3\ta\tb\n",
        {"1": "male nurse", "2": "doctor salary", "3": "a b"},
    ),
    "jsonl-queries-key-variants": (
        read_jsonl_queries,
        "q.jsonl",
        jsonl(
            [
                {"qid": "a", "query": "nurse"},
                {"query_id": "b", "text": "doctor"},
                {"_id": 3, "text": "pilot", "metadata": {}},
                {"id": "d", "title": "ceo"},
            ]
        ),
        {"a": "nurse", "b": "doctor", "3": "pilot", "d": "ceo"},
    ),
    # read_queries tells the formats apart: by extension first ('.tsv' wins even over JSON-looking text) ...
    "queries-tsv-by-extension": (read_queries, "q.TSV", '{"x"\tnurse\n', {'{"x"': "nurse"}),
    "queries-jsonl-by-extension": (read_queries, "q.jsonl", jsonl([{"qid": "1", "text": "nurse"}]), {"1": "nurse"}),
    "queries-json-by-extension": (read_queries, "q.json", jsonl([{"qid": "1", "text": "nurse"}]), {"1": "nurse"}),
    # ... then by content
    "queries-trec-without-extension": (read_queries, "topics", TOPICS, TITLES),
    "queries-trec-without-extension-desc": (lambda path: queries_as("desc")(path)["402"], "topics", TOPICS, DESC_402),
    "queries-trec-with-txt-extension": (
        read_queries,
        "topics.robust.txt",
        TOPICS.upper().replace("NUMBER:", "Number:"),
        {"401": "FOREIGN MINORITIES, GERMANY", "402": "BEHAVIORAL GENETICS"},
    ),
    "queries-jsonl-without-extension": (
        read_queries,
        "queries",
        '\n  {"qid": "5", "query": "nurse"}\n',
        {"5": "nurse"},
    ),
    "queries-tsv-without-extension": (read_queries, "queries", "5\tnurse\n6\tdoctor\n", {"5": "nurse", "6": "doctor"}),
    "queries-as-queries-path-narr": (
        lambda path: as_queries(path, "narr")["402"],
        "topics",
        TOPICS,
        "Relevant documents include genetic causes.",
    ),
    # documents: JSONL with id/contents, BEIR's _id/title/text (title first), other keys; TSV
    "documents-jsonl-id-contents": (
        documents,
        "docs.jsonl",
        jsonl([{"id": "d1", "contents": "she is a nurse"}, {"id": 2, "contents": "he is a doctor"}]),
        [("d1", "she is a nurse"), ("2", "he is a doctor")],
    ),
    "documents-jsonl-str-path": (
        lambda path: documents(str(path)),
        "docs.jsonl",
        jsonl([{"id": "d1", "contents": "she is a nurse"}]),
        [("d1", "she is a nurse")],
    ),
    "documents-jsonl-beir": (
        documents,
        "corpus.jsonl",
        jsonl(
            [
                {"_id": "a", "title": "Nursing", "text": "she is a nurse"},
                {"_id": "b", "title": "", "text": "untitled body"},
                {"_id": "c", "text": "no title key"},
            ]
        ),
        [("a", "Nursing she is a nurse"), ("b", "untitled body"), ("c", "no title key")],
    ),
    "documents-jsonl-other-keys": (
        documents,
        "d.jsonl",
        jsonl([{"docno": "x", "body": "b1"}, {"doc_id": "y", "text": "b2"}]),
        [("x", "b1"), ("y", "b2")],
    ),
    "documents-tsv": (
        documents,
        "docs.tsv",
        "d1\tshe is a nurse\n\n d2 \the\tis a doctor\n",
        [("d1", "she is a nurse"), ("d2", "he\tis a doctor")],
    ),
}


@pytest.mark.parametrize("read, name, text, expected", READS.values(), ids=READS.keys())
def test_reads(read, name, text, expected, tmp_path):
    assert read(io_write(tmp_path, name, text)) == expected


def test_reads_keep_file_order_and_integer_grades(tmp_path):
    run = read_trec_run(io_write(tmp_path, "run.txt", "q2 Q0 a 1 1 t\nq1 Q0 b 1 1 t\n"))
    assert list(run) == ["q2", "q1"]  # queries in file order
    qrels = read_qrels(io_write(tmp_path, "qrels.txt", "301 0 a 1\n301 0 b 0\n"))
    assert all(type(g) is int for docs in qrels.values() for g in docs.values())


# --------------------------------------------------------------------------- files that are refused

# "{path}" stands for the file; a message ending with "…" is a prefix of the error's message
REFUSED = {
    "run-document-twice-in-a-query": (
        read_trec_run,
        "run.txt",
        "q1 Q0 d1 1 0.9 tag\nq2 Q0 d1 1 0.9 tag\nq1 Q0 d2 2 0.8 tag\nq1 Q0 d1 3 0.1 tag\n",
        "{path}:4: document d1 appears twice for query q1",
    ),
    "run-empty": (read_trec_run, "run.txt", "\n\n", "{path}: the run is empty…"),
    "qrels-judged-twice-differently": (
        read_qrels,
        "qrels.txt",
        "301 0 d1 1\n302 0 d1 0\n301 0 d1 2\n",
        "{path}:3: document d1 judged twice for query 301 with different grades",
    ),
    "topics-unknown-field": (topics_as("title+body"), "topics.txt", TOPICS, "unknown topic field 'body'…"),
    "topics-not-closed": (
        read_trec_topics,
        "t.txt",
        "<top>\n<num> 1\n<title> a\n</top>\n\n<top>\n<num> 2\n<title> b\n",
        "{path}:6: topic not closed with </top>",
    ),
    "topics-nested-top": (
        read_trec_topics,
        "t.txt",
        "<top>\n<num> 1\n<title> a\n<top>\n<num> 2\n</top>\n",
        "{path}:4: <top> opened before the topic of line 1 was closed",
    ),
    "topics-closing-top-without-opening": (
        read_trec_topics,
        "t.txt",
        "<top>\n<num> 1\n<title> a\n</top>\n</top>\n",
        "{path}:5: </top> without <top>",
    ),
    "topics-field-outside-top": (
        read_trec_topics,
        "t.txt",
        "<num> 1\n<top>\n<num> 1\n<title> a\n</top>\n",
        "{path}:1: <num> outside a <top> block",
    ),
    "topics-missing-num": (
        read_trec_topics,
        "t.txt",
        "<top>\n<num> 1\n<title> a\n</top>\n<top>\n<title> b\n</top>\n",
        "{path}:5: topic has no <num>",
    ),
    "topics-label-only-num": (
        read_trec_topics,
        "t.txt",
        "<top>\n<num> Number:\n<title> a\n</top>\n",
        "{path}:1: topic has no <num>",
    ),
    "topics-duplicate-topic": (
        read_trec_topics,
        "t.txt",
        "<top>\n<num> Number: 9\n<title> a\n</top>\n\n<top>\n<num> Number: 9\n<title> b\n</top>\n",
        "{path}:6: topic 9 appears twice",
    ),
    "topics-empty-requested-field": (
        topics_as("desc"),
        "t.txt",
        "<top>\n<num> 3\n<title> a\n<desc> Description:\n</top>\n",
        "{path}:1: topic 3 has an empty desc field",
    ),
    "topics-no-top-blocks-empty": (
        read_trec_topics,
        "t.txt",
        "",
        "{path}: no <top> blocks found (not a TREC topics file?)",
    ),
    "topics-no-top-blocks-tsv": (
        read_trec_topics,
        "t.txt",
        "301\tsome query\n",
        "{path}: no <top> blocks found (not a TREC topics file?)",
    ),
    "topics-no-top-blocks-text": (
        read_trec_topics,
        "t.txt",
        "just some text\nmore text\n",
        "{path}: no <top> blocks found (not a TREC topics file?)",
    ),
    "tsv-queries-missing-tab": (read_tsv_queries, "q.tsv", "1\tnurse\n2 doctor\n", "{path}:2: expected 'qid<TAB>text'"),
    "tsv-queries-duplicate": (
        read_tsv_queries,
        "q.tsv",
        "1\tnurse\n2\tdoctor\n1\tpilot\n",
        "{path}:3: query 1 appears twice",
    ),
    "jsonl-queries-bad-json": (
        read_jsonl_queries,
        "q.jsonl",
        '{"qid": "1", "text": "a"}\n\n{"qid": "2", "text": \n',
        "{path}:3: invalid JSON (…",
    ),
    "jsonl-queries-not-an-object": (
        read_jsonl_queries,
        "q.jsonl",
        '{"qid": "1", "text": "a"}\n["2", "b"]\n',
        "{path}:2: expected a JSON object",
    ),
    "jsonl-queries-missing-id": (
        read_jsonl_queries,
        "q.jsonl",
        jsonl([{"qid": "1", "text": "a"}, {"number": "2", "text": "b"}]),
        "{path}:2: no query id field (one of qid, query_id, _id, id)",
    ),
    "jsonl-queries-missing-text": (
        read_jsonl_queries,
        "q.jsonl",
        jsonl([{"qid": "1", "body": "a"}]),
        "{path}:1: no query text field (one of text, query, title)",
    ),
    "jsonl-queries-duplicate": (
        read_jsonl_queries,
        "q.jsonl",
        jsonl([{"qid": "1", "text": "a"}, {"qid": "2", "text": "b"}, {"qid": 1, "text": "c"}]),
        "{path}:3: query 1 appears twice",
    ),
    "documents-jsonl-missing-text": (
        documents,
        "d.jsonl",
        jsonl([{"id": "x", "contents": "ok"}, {"id": "y", "words": "??"}]),
        "{path}:2: no document text field (one of contents, text, body)",
    ),
    "documents-jsonl-missing-id": (
        documents,
        "d.jsonl",
        jsonl([{"contents": "ok"}]),
        "{path}:1: no document id field (one of id, docid, doc_id, docno, _id)",
    ),
    "documents-tsv-missing-tab": (
        documents,
        "docs.tsv",
        "d1\tok\nd2 no tab here\n",
        "{path}:2: expected 'docid<TAB>text'",
    ),
}


@pytest.mark.parametrize("read, name, text, message", REFUSED.values(), ids=REFUSED.keys())
def test_refused(read, name, text, message, tmp_path):
    path = io_write(tmp_path, name, text)
    with pytest.raises(InputError) as info:
        read(path)
    assert_message(info.value, message, path)


@pytest.mark.parametrize("read", [read_trec_run, read_queries], ids=["run", "queries"])
def test_missing_file(read, tmp_path):
    path = tmp_path / "absent"
    with pytest.raises(InputError) as info:
        read(path)
    assert str(info.value) == f"{path}: no such file"


def test_rank_order_score_desc_then_docid_desc():
    assert rank_order([("a", 1.0), ("c", 2.0), ("b", 1.0), ("d", 0.5)]) == [
        ("c", 2.0),
        ("b", 1.0),
        ("a", 1.0),
        ("d", 0.5),
    ]


@pytest.mark.parametrize(
    ("line", "found"), [("q1 Q0 d2 2 0.5", "found 5"), ("q1 Q0 d2 2 0.5 tag extra", "found 7"), ("q1", "found 1")]
)
def test_read_trec_run_wrong_column_count(tmp_path, line, found):
    path = io_write(tmp_path, "run.txt", f"q1 Q0 d1 1 0.9 tag\n\n{line}\n")
    with pytest.raises(InputError) as info:
        read_trec_run(path)
    message = str(info.value)
    assert message.startswith(f"{path}:3: ")
    assert "expected 6 columns" in message
    assert found in message


@pytest.mark.parametrize(
    "line, message",
    [
        ("q1 Q0 d2 2 high tag", "score must be a number written with ASCII digits (as trec_eval reads it), not 'high'"),
        ("q1 Q0 d2 two 0.5 tag", "rank must be an integer written with ASCII digits, not 'two'"),
        ("q1 Q0 d2 2.0 0.5 tag", "rank must be an integer written with ASCII digits, not '2.0'"),
        (
            "q1 Q0 d2 2 1_000 tag",
            "score must be a number written with ASCII digits (as trec_eval reads it), not '1_000'",
        ),
        ("q1 Q0 d2 1_0 0.5 tag", "rank must be an integer written with ASCII digits, not '1_0'"),
        ("q1 Q0 d2 2 \uff11\uff10 tag", "score must be a number written with ASCII digits"),
        ("q1 Q0 d2 2 \u0663 tag", "score must be a number written with ASCII digits"),
    ],
)
def test_read_trec_run_non_numeric_rank_or_score(tmp_path, line, message):
    path = io_write(tmp_path, "run.txt", f"q1 Q0 d1 1 0.9 tag\n{line}\n")
    with pytest.raises(InputError) as info:
        read_trec_run(path)
    assert str(info.value).startswith(f"{path}:2: {message}")


@pytest.mark.parametrize("nan", ["nan", "NaN", "-nan"])
def test_read_trec_run_nan_score(tmp_path, nan):
    path = io_write(tmp_path, "run.txt", f"q1 Q0 d1 1 0.9 tag\nq1 Q0 d2 2 0.8 tag\nq1 Q0 d3 3 {nan} tag\n")
    with pytest.raises(InputError) as info:
        read_trec_run(path)
    assert str(info.value) == f"{path}:3: score is NaN"


def test_read_trec_run_not_utf8(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d\xff 1 0.5 tag\n")
    with pytest.raises(InputError, match="not UTF-8 text") as info:
        read_trec_run(path)
    assert str(info.value).startswith(f"{path}:1: not UTF-8 text (byte 0xff at column 8)")


def test_read_trec_run_empty_file_allowed_when_asked(tmp_path):
    assert read_trec_run(io_write(tmp_path, "run.txt", "\n\n"), allow_empty=True) == {}


@pytest.mark.parametrize(("line", "found"), [("301 0 d1", "found 3"), ("301 0 d1 1 extra", "found 5")])
def test_read_qrels_wrong_column_count(tmp_path, line, found):
    path = io_write(tmp_path, "qrels.txt", f"301 0 d0 1\n{line}\n")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: expected 4 columns")
    assert found in message


@pytest.mark.parametrize("grade", ["1.0", "rel", "0.5"])
def test_read_qrels_non_integer_grade(tmp_path, grade):
    path = io_write(tmp_path, "qrels.txt", f"301 0 d0 1\n301 0 d9 0\n301 0 d1 {grade}\n")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    assert str(info.value) == f"{path}:3: relevance grade must be an integer, found {grade!r}"


# --------------------------------------------------------------------------- Robust04's topics (shared data)


@pytest.fixture
def io_robust04():
    if not ROBUST04_TOPICS.exists():
        pytest.skip(f"Robust04 topics file not available at {ROBUST04_TOPICS}")
    return ROBUST04_TOPICS


def test_read_trec_topics_robust04_titles(io_robust04):
    topics = read_trec_topics(io_robust04)
    assert len(topics) == 250
    assert topics["301"] == "International Organized Crime"
    assert topics["302"] == "Poliomyelitis and Post-Polio"
    assert set(topics) == {str(n) for n in list(range(301, 451)) + list(range(601, 701))}
    assert all(t and t == t.strip() and "  " not in t for t in topics.values())
    assert not any(t.lower().startswith(("topic:", "number:")) for t in topics.values())


def test_read_trec_topics_robust04_desc(io_robust04):
    topics = read_trec_topics(io_robust04, "desc")
    assert len(topics) == 250
    assert topics["301"] == (
        "Identify organizations that participate in international criminal activity, the activity, and, "
        "if possible, collaborating organizations and the countries involved."
    )
    assert not any(t.lower().startswith("description:") for t in topics.values())


def test_read_queries_detects_robust04_topics(io_robust04):
    assert read_queries(io_robust04, "title+desc")["301"].startswith(
        "International Organized Crime Identify organizations"
    )


# --------------------------------------------------------------------------- in-memory inputs


def test_iter_documents_dict_pairs_and_iterators():
    assert list(iter_documents({"d1": "she", 2: "he"})) == [("d1", "she"), ("2", "he")]
    pairs = [("d1", "she"), ("d2", "he")]
    assert list(iter_documents(pairs)) == pairs
    assert list(iter_documents(iter(pairs))) == pairs


# A DataFrame in ir_measures' or PyTerrier's column names (or other accepted ones) read to a value, or refused
FRAMES = {
    "documents-docno-text": (
        lambda frame: list(iter_documents(frame)),
        {"docno": [10, 11], "text": ["she is a nurse", "he is a doctor"]},
        [("10", "she is a nurse"), ("11", "he is a doctor")],
    ),
    "documents-contents-preferred": (
        lambda frame: list(iter_documents(frame)),
        {"doc_id": ["a"], "body": ["x"], "contents": ["preferred"]},
        [("a", "preferred")],
    ),
    "run-ir-measures": (
        as_run,
        {"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "b", "c", "a"], "score": [1.0, 3.0, 1.0, 0.5]},
        {"1": [("b", 3.0), ("c", 1.0), ("a", 1.0)], "2": [("a", 0.5)]},
    ),
    "run-pyterrier": (
        as_run,
        {
            "qid": [301, 301, 302],
            "docid": [0, 1, 7],
            "docno": ["FT-1", "FT-2", "LA-9"],
            "rank": [1, 0, 0],
            "score": [2, 5, 1],
            "query": ["q", "q", "r"],
        },
        {"301": [("FT-2", 5.0), ("FT-1", 2.0)], "302": [("LA-9", 1.0)]},
    ),
    "qrels-ir-measures": (
        as_qrels,
        {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 2]},
        {"1": {"a": 1, "b": 0}, "2": {"a": 2}},
    ),
    "qrels-pyterrier": (
        as_qrels,
        {"qid": [301, 301], "docno": ["FT-1", "FT-2"], "label": [2, 0]},
        {"301": {"FT-1": 2, "FT-2": 0}},
    ),
    "queries-ir-measures": (
        as_queries,
        {"query_id": ["1", "2"], "text": ["nurse", "doctor"]},
        {"1": "nurse", "2": "doctor"},
    ),
    "queries-pyterrier": (
        as_queries,
        {"qid": [301, 302], "query": ["crime", "polio"]},
        {"301": "crime", "302": "polio"},
    ),
}
FRAMES_REFUSED = {
    "documents-no-text-column": (
        iter_documents,
        {"docno": ["a"], "words": ["x"]},
        "DataFrame has no document text column (one of contents, text, body)",
    ),
    "run-no-score-column": (as_run, {"qid": ["1"], "docno": ["a"]}, "DataFrame has no score column"),
    "qrels-no-relevance-column": (
        as_qrels,
        {"qid": ["1"], "docno": ["a"], "score": [1.0]},
        "DataFrame has no relevance column",
    ),
    "queries-no-text-column": (
        as_queries,
        {"qid": ["1"], "words": ["x"]},
        "DataFrame has no query text column (one of text, query, title)",
    ),
    "run-nan-score": (
        as_run,
        {"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [float("nan"), 1.0]},
        "run DataFrame, row 0: score is NaN",
    ),
    "run-document-twice": (
        as_run,
        {"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]},
        "document a appears twice for query 1",
    ),
    "qrels-fractional-grade": (
        as_qrels,
        {"query_id": ["1"], "doc_id": ["a"], "relevance": [1.7]},
        "qrels DataFrame, row 0: relevance grade must be an integer, found 1.7",
    ),
}


@pytest.mark.parametrize("read, columns, expected", FRAMES.values(), ids=FRAMES.keys())
def test_dataframes(read, columns, expected):
    pd = pytest.importorskip("pandas")
    got = read(pd.DataFrame(columns))
    assert got == expected
    if read is as_run:  # scores are floats and grades ints, whatever the column's type
        assert all(type(score) is float for ranked in got.values() for _, score in ranked)
    if read is as_qrels:
        assert all(type(grade) is int for judged in got.values() for grade in judged.values())


@pytest.mark.parametrize("read, columns, message", FRAMES_REFUSED.values(), ids=FRAMES_REFUSED.keys())
def test_dataframes_refused(read, columns, message):
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError) as info:
        read(pd.DataFrame(columns))
    assert message in str(info.value)


MAPPINGS = {
    "run-dicts-and-pairs": (
        as_run,
        {"1": {"a": 1, "b": 2, "c": 2}, 2: [("x", "0.5"), ("y", 0.7)]},
        {"1": [("c", 2.0), ("b", 2.0), ("a", 1.0)], "2": [("y", 0.7), ("x", 0.5)]},
    ),
    "qrels-dict": (as_qrels, {1: {"a": "2", "b": 0}}, {"1": {"a": 2, "b": 0}}),
    "qrels-none": (as_qrels, None, None),
    "qrels-records": (as_qrels, [("1", "a", 1)], {"1": {"a": 1}}),  # (qid, docid, grade) records
    "queries-dict": (as_queries, {1: "nurse", "2": 3}, {"1": "nurse", "2": "3"}),
}


@pytest.mark.parametrize("read, value, expected", MAPPINGS.values(), ids=MAPPINGS.keys())
def test_mappings_and_records(read, value, expected):
    assert read(value) == expected


@pytest.mark.parametrize(
    "read, what", [(as_run, "a run"), (as_qrels, "qrels"), (as_queries, "queries")], ids=["run", "qrels", "queries"]
)
def test_other_types_are_refused(read, what):
    with pytest.raises(TypeError, match=f"cannot read {what} from int"):
        read(5)


def test_in_memory_run_scores_are_checked_like_files():
    with pytest.raises(InputError, match="run, query 1, document a: score is NaN"):
        as_run({"1": {"a": float("nan"), "b": 1.0}})


def test_a_run_as_written_equals_the_file_read_back(tmp_path):
    """The runner keeps a run it has just written instead of reading it back: the two must be the same run, in the
    same order, with the same floats (ties, float32 and integer scores, infinities, a query without documents)."""
    from gsr.io.runs import as_written, read_trec_run, write_trec_run

    rng = np.random.default_rng(3)
    run = {f"q{i}": [(f"d{j}", float(rng.integers(0, 4))) for j in rng.permutation(30)] for i in range(12, 0, -1)}
    run["q5"] = [(f"d{j}", np.float32(rng.random())) for j in range(20)]
    run["q6"] = [("a", math.inf), ("b", -math.inf), ("c", 0.1 + 0.2), ("d", -0.0), ("e", 3)]
    run["q7"] = []
    path = write_trec_run(run, tmp_path / "run.trec")
    read = read_trec_run(path)
    kept = as_written(run, path)
    assert list(kept) == list(read) and kept == read
    assert all(repr(a) == repr(b) for q in read for (_, a), (_, b) in zip(kept[q], read[q]))


def test_a_run_read_by_the_readers_is_not_checked_twice_and_a_plain_mapping_is(tmp_path):
    """read_trec_run's result passes through as_run as it is (gsr score reads each run once); the same lists as a
    plain dict are checked row by row, so a NaN put into them is still refused."""
    from gsr.io import as_run
    from gsr.io.runs import read_trec_run
    from gsr.io.types import CheckedRun

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n", encoding="utf-8")
    run = read_trec_run(path)
    assert isinstance(run, CheckedRun) and as_run(run) is run
    plain = {"q1": [("a", 2.0), ("b", float("nan"))]}
    with pytest.raises(InputError, match="score is NaN"):
        as_run(plain)


# --------------------------------------------------------------------------------- gsr.io.runs against the reference
# gsr.io.runs reads, checks and writes runs a block or a query at a time; tests.support.run_reference holds its
# functions as they were (one row at a time), which every result, written byte and error message of the new ones must
# equal.


def _outcome(call, *args, **kwargs):
    """('ok', the value with every float's repr and every pair's type) or ('error', type, message)."""
    try:
        value = call(*args, **kwargs)
    except Exception as err:
        return "error", type(err), str(err)
    if isinstance(value, dict):
        shown = [(q, [(type(p), d, repr(s)) for p in ranked for d, s in [p]]) for q, ranked in value.items()]
        return "ok", type(value), shown
    return "ok", value


def _same_writes(run, folder: Path, tag="gsr"):
    """write_trec_run and the reference write the same bytes, or fail alike leaving nothing; as_written equals the
    reference's; both return the outcome."""
    from gsr.io.runs import as_written, write_trec_run

    old, new = folder / "reference.run", folder / "new.run"
    expected = _outcome(reference.write_trec_run, run, old, tag)
    got = _outcome(write_trec_run, run, new, tag)
    assert got[0] == expected[0] and got[1:] == (expected[1:] if got[0] == "error" else (new,))
    assert old.exists() == new.exists() and (not old.exists() or old.read_bytes() == new.read_bytes())
    assert _outcome(as_written, run, new) == _outcome(reference.as_written, run, new)
    return got


_IDS = ["d-1", "D07", "doc_é", "文書", "x" * 40, "😀", "a.b/c", "Q0", "0", "-1", "ü\u0301", "\ufeffbom"]
_SCORES = [0.0, -0.0, 1.0, -1.0, 2.5, 0.1 + 0.2, 1e-300, -1e300, math.inf, -math.inf, 3, 7, 1e16, 5e-324]


def _random_run(rng, queries: int, depth: int, *, tied: bool = True) -> dict:
    run = {}
    for i in range(queries):
        n = int(rng.integers(0, depth + 1))
        ids = [f"d{j}" for j in rng.choice(10 * depth, size=n, replace=False)]
        odd = min(n, int(rng.integers(0, 3)))  # ids of other kinds: unicode, Q0, numbers
        ids[:odd] = rng.choice(_IDS, size=odd, replace=False).tolist()
        pick = rng.random()
        if pick < 0.3:  # many ties
            scores = [float(rng.integers(-3, 4)) for _ in range(n)]
        elif pick < 0.5:  # float32 scores, as the dense and neural systems give them
            scores = [np.float32(x) for x in rng.normal(size=n)]
        elif pick < 0.6:
            scores = [_SCORES[k] for k in rng.integers(0, len(_SCORES), size=n)]
        else:
            scores = rng.normal(10, 5, size=n).round(int(rng.integers(1, 12)) if tied else 15).tolist()
        rows = list(zip(ids, scores))
        if rng.random() < 0.7:  # best first, ties in any order (as a system gives them)
            rows.sort(key=lambda pair: float(pair[1]), reverse=True)
        run[f"q{i}" if i % 7 else f"クエリ{i}"] = rows if rng.random() < 0.9 else [list(r) for r in rows]
    return run


@pytest.mark.parametrize("seed", range(12))
def test_runs_are_written_checked_and_read_back_as_the_reference_does(tmp_path, seed):
    rng = np.random.default_rng(seed)
    run = _random_run(rng, queries=int(rng.integers(1, 40)), depth=60)
    assert _same_writes(run, tmp_path)[0] == "ok"
    path = tmp_path / "new.run"
    assert _outcome(read_trec_run, path) == _outcome(reference.read_trec_run, path)


def test_a_run_read_back_is_the_reference_reading_even_from_many_blocks(tmp_path, monkeypatch):
    import gsr.io.runs

    rng = np.random.default_rng(99)
    run = _random_run(rng, queries=50, depth=200)
    path = gsr.io.runs.write_trec_run(run, tmp_path / "run.txt")
    expected = _outcome(reference.read_trec_run, path)
    for block in (7, 100, 4096):
        monkeypatch.setattr(gsr.io.runs, "BLOCK", block)
        assert _outcome(read_trec_run, path) == expected


_SEPARATORS = [" ", "\t", "  ", " \t ", "\u3000", "\x85", "\x0b", "\x1f", "\u2028", "\r"]


def _messy_file(rng, run: dict, path: Path) -> Path:
    """`run` as a run file with odd but valid spacing: other whitespace between columns (in half the files ASCII's
    only), blank lines, CRLF, byte-order marks at line starts, queries interleaved, no final line end;
    gzip-compressed where the name ends in .gz."""
    separators = _SEPARATORS if rng.random() < 0.5 else [s for s in _SEPARATORS if s.isascii()]
    lines = []
    for qid, ranked in run.items():
        for rank, (docid, score) in enumerate(ranked, start=1):
            sep = [rng.choice(separators) if rng.random() < 0.2 else " " for _ in range(5)]
            fields = [qid, "Q0", docid, str(rank), repr(float(score)), "tag"]
            line = "".join(f + s for f, s in zip(fields, sep)) + fields[-1]
            if rng.random() < 0.05:
                line = rng.choice(separators) + line + rng.choice(["", " ", "\r"])
            lines.append(rng.choice(["", "\ufeff", "\ufeff "], p=[0.96, 0.02, 0.02]) + line)
            if rng.random() < 0.03:
                lines.append(rng.choice(["", " ", "\t\r", "\ufeff", *separators]))
    if rng.random() < 0.5:
        lines = [lines[k] for k in rng.permutation(len(lines))]
    ending = "\r\n" if rng.random() < 0.3 else "\n"
    data = (ending.join(lines) + (ending if rng.random() < 0.5 else "")).encode("utf-8")
    if path.name.endswith(".gz"):
        import gzip

        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("seed", range(10))
def test_run_files_of_any_spacing_read_as_the_reference_reads_them(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    run = _random_run(rng, queries=int(rng.integers(1, 30)), depth=40)
    run = {q: [(d, s) for d, s in ranked if not (isinstance(s, float) and s != s)] for q, ranked in run.items()}
    path = _messy_file(rng, run, tmp_path / ("run.txt.gz" if seed % 3 == 0 else "run.txt"))
    expected = _outcome(reference.read_trec_run, path, allow_empty=True)
    assert _outcome(read_trec_run, path, allow_empty=True) == expected


_CORRUPTIONS = [
    lambda line, rng: " ".join(line.split()[:-1]),  # a column short
    lambda line, rng: line + " extra",
    lambda line, rng: "\ufeff " + " ".join(line.split()[:-1]),  # a mark (skipped), then a column short
    lambda line, rng: line.replace(" ", "\u3000", 1).replace("Q0 ", "", 1),
    lambda line, rng: line.replace(line.split()[4], "nan") if len(line.split()) > 4 else line,
    lambda line, rng: line.replace(line.split()[3], "x", 1) if len(line.split()) > 3 else line,
    lambda line, rng: line + "\x00",
]


@pytest.mark.parametrize("seed", range(24))
def test_corrupted_run_files_are_refused_as_the_reference_refuses_them(tmp_path, seed):
    """Random odd files with one to three random faults each, often in the last lines (columns short or extra, a NaN,
    a rank that is no number, a NUL byte; a line repeated): the same error, naming the same line, as the line-by-line
    reader."""
    rng = np.random.default_rng(300 + seed)
    run = _random_run(rng, queries=int(rng.integers(1, 12)), depth=30)
    path = _messy_file(rng, run, tmp_path / ("run.txt.gz" if seed % 4 == 0 else "run.txt"))
    import gzip

    data = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    lines = data.decode("utf-8").split("\n")
    for _ in range(int(rng.integers(1, 4))):
        at = int(rng.integers(0, len(lines))) if rng.random() < 0.6 else len(lines) - int(rng.integers(1, 3))
        if rng.random() < 0.2:
            lines.insert(int(rng.integers(0, len(lines) + 1)), lines[at])  # a document twice (or a blank line)
        else:
            lines[at] = _CORRUPTIONS[int(rng.integers(0, len(_CORRUPTIONS)))](lines[at], rng)
    data = "\n".join(lines).encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    assert _outcome(read_trec_run, path, True) == _outcome(reference.read_trec_run, path, True)


_BAD_LINES = [
    "q1 Q0 d9 1 0.5",  # 5 columns
    "q1 Q0 d9 1 0.5 t extra",  # 7
    "q1",
    "q1 Q0 d9 1.0 0.5 t",  # the rank not an integer
    "q1 Q0 d9 \u0663 0.5 t",
    "q1 Q0 d9 1_0 0.5 t",
    "q1 Q0 d9 １ 0.5 t",
    "q1 Q0 d9 1 high t",  # the score not a number
    "q1 Q0 d9 1 1_000 t",
    "q1 Q0 d9 1 \uff11 t",
    "q1 Q0 d9 1 0x10 t",
    "q1 Q0 d9 1 1e t",
    "q1 Q0 d9 1 infinit t",
    "q1 Q0 d9 1 nan t",
    "q1 Q0 d9 1 -NaN t",
    "q1 Q0 DUP 1 0.5 t",  # the same document twice for a query
    "q1 Q0 d9\x00 1 0.5 t",  # a NUL byte
    b"q1 Q0 d\xff9 1 0.5 t",  # not UTF-8
    b"q1 Q0 d\xe2\x82 1 0.5 t",
    "q1 Q0 d9 " + "1" * 5000 + " 0.5 t",  # more digits than int() reads (a ValueError, as before)
]


@pytest.mark.parametrize("bad", _BAD_LINES)
@pytest.mark.parametrize("at", ["first", "middle", "late", "last"])
def test_malformed_run_lines_are_refused_with_the_reference_message(tmp_path, bad, at):
    """The error names the same line with the same message, however late in a large file the line is; where a file
    holds several errors, the first is reported."""
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i % 100}.25 t".encode() for i in range(3000)]
    lines.insert(1, b"q1 Q0 DUP 1 0.5 t" if at != "first" else lines[1])
    position = {"first": 0, "middle": 1500, "late": len(lines) - 2, "last": len(lines)}[at]
    lines.insert(position, bad if isinstance(bad, bytes) else bad.encode())
    for name in ("run.txt", "run.txt.gz"):
        path = tmp_path / name
        data = b"\n".join(lines) + b"\n"
        if name.endswith(".gz"):
            import gzip

            data = gzip.compress(data)
        path.write_bytes(data)
        expected = _outcome(reference.read_trec_run, path)
        assert expected[0] == "error"
        assert _outcome(read_trec_run, path) == expected


@pytest.mark.parametrize(
    "data",
    [b"", b"\n\n \t\n", b"\xef\xbb\xbf\n", b"\xef\xbb\xbfq1 Q0 d1 1 0.5 t\n\xef\xbb\xbfq1 Q0 d2 2 0.25 t",
     b"q1 Q0 d1 1 0.5 t\n\xef\xbb\xbf\xef\xbb\xbfq1 Q0 d2 2 0.25 t\n", b"q1 Q0 d1 1 0.5 t\r\n\r\n",
     b"q1 Q0 d1 1 0.5 t\n\xef\xbb\xbf q1 Q0 d2 2 0.25\n", b"q1 Q0 d1 1 0.5 t\n\xef\xbb\xbf\n\xef\xbb\xbf \n",
     b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 \xef\xbb\xbf\n", "q1 Q0 d\u00e9 1 0.5 t\n\ufeff q1 Q0 d2 2 0.25\n".encode(),
     b"q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 0.5 t\nq1 Q0 d2 1 0.75 t\nq1 Q0 d1 3 0.5 t\n",  # q1's d1 twice, apart
     b"q1 Q0 d1 +1 +.5 t\nq1 Q0 d2 -2 -5. t\nq1 Q0 d3 007 1E+3 t\nq1 Q0 d4 1 -INF t\nq1 Q0 d5 1 Infinity t\n",
     b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 1 0.5 t\nq1 Q0 d3 1 -0.0 t\nq1 Q0 d4 1 0.0 t\nq1 Q0 d0 1 0 t\n"],
)  # fmt: skip
@pytest.mark.parametrize("allow_empty", [False, True])
def test_run_file_edge_cases_read_as_the_reference_reads_them(tmp_path, data, allow_empty):
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert _outcome(read_trec_run, path, allow_empty) == _outcome(reference.read_trec_run, path, allow_empty)


def test_a_broken_gzip_run_is_refused_as_before(tmp_path):
    import gzip

    text = "".join(f"q1 Q0 d{i} {i} {1 / (i + 1)!r} t\n" for i in range(20000)).encode()
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(text)[:-200])
    expected = _outcome(reference.read_trec_run, path)
    assert expected[0] == "error" and "gzip" in expected[2]
    assert _outcome(read_trec_run, path) == expected
    assert _outcome(read_trec_run, tmp_path / "absent.run") == _outcome(
        reference.read_trec_run, tmp_path / "absent.run"
    )


class _Listing(list):
    """A list of pairs that is not exactly a list (a Sequence the fast path lists first)."""


@pytest.mark.parametrize(
    "run, tag",
    [
        ({"q 1": [("a", 1.0)]}, "t"),
        ({"q1": []}, "x y"),
        ({"": [("a", 1.0)]}, "t"),
        ({"q1": [("a", 1.0), ("", 2.0)]}, "t"),
        ({"q1": [("a", 1.0)], "q2": [("b", 1.0), ("c d", 0.5)]}, "t"),
        ({"q1": [("a", 1.0), ("b", math.nan), ("c d", 0.5)]}, "t"),
        ({"q1": [("a", 1.0)], "q2": [("a", 1.0), ("b", 0.5), ("c", -math.nan)]}, "t"),
        ({"q1": [("a", 1.0), ("b c", math.nan)]}, "t"),
        ({"q1": [("a", "1.5"), ("b", "high")]}, "t"),  # float("high") fails as before
        ({"q1": [("a", 1.0), ("b", None)]}, "t"),
        ({"q1": [("a", 1.0), (7, 0.5)]}, "t"),  # not a string
        ({"q1": [("a", 1.0), ("b", 0.5, "x")]}, "t"),  # not a pair
        ({"q1": [("a", 1.0), ("b\ud800", 0.5)]}, "t"),  # a lone surrogate cannot be written as UTF-8
        ({"q1\ud800": [("a", 1.0)]}, "t"),
        ({"q1\ud800": []}, "t"),
        ({"q1": [("a", 1.0)]}, "t\ud800"),
        ({"q1": {"ab": 1.0, "cd": 2.0}}, "t"),  # a dict's keys unpacked as pairs
        ({"q1": iter([("a", 1.0), ("b", 2.0)])}, "t"),
        ({"q1": _Listing([("b", 2.0), ("a", 1.0)])}, "t"),
        ({"q1": ("a", 1.0)}, "t"),
        ({"q1": [("a", 1.0), ("a", 0.5)]}, "t"),  # written twice; as_written refuses it
        ({"q1": [("a", 1.0), (["x"], 0.5)]}, "t"),
        ({"q1": [("a", np.float32(0.1)), ("b", np.float64(0.2)), ("c", True), ("d", 2**60 + 1)]}, "t"),
        ({"q1": [(1, 1.0), ("b", 1.0)]}, "t"),
    ],
)
def test_runs_are_refused_or_written_and_checked_as_the_reference_does(tmp_path, run, tag):
    if isinstance(run.get("q1"), type(iter([]))):  # an iterator is used up by the first writer: one per writer
        items = list(run["q1"])
        old, new = tmp_path / "reference.run", tmp_path / "new.run"
        from gsr.io.runs import write_trec_run

        assert _outcome(reference.write_trec_run, {"q1": iter(items)}, old, tag)[0] == "ok"
        assert _outcome(write_trec_run, {"q1": iter(items)}, new, tag)[0] == "ok"
        assert old.read_bytes() == new.read_bytes()
        return
    _same_writes(run, tmp_path, tag)


@pytest.mark.parametrize(
    "docid", [f"a{chr(c)}b" for c in (0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1F, 0x85, 0xA0, 0x2028, 0x3000)]
)
def test_an_id_holding_any_whitespace_is_refused_when_written(tmp_path, docid):
    from gsr.io.runs import write_trec_run

    for run in ({"q1": [("ok", 2.0), (docid, 1.0)]}, {docid: [("ok", 1.0)]}):
        assert _same_writes(run, tmp_path)[0] == "error"
    with pytest.raises(InputError, match="cannot be a column of a TREC run"):
        write_trec_run({"q1": [("ok", 1.0)]}, tmp_path / "run.txt", tag=docid)


def test_str_split_splits_at_exactly_the_characters_isspace_calls_whitespace():
    """write_trec_run checks a query's ids at once (joined by spaces, split again, they must come back unchanged):
    that is run_column's test only if str.split() splits at exactly the characters for which isspace() is true.
    read_trec_run counts a line's columns with numpy where its whitespace is ASCII: its table of those bytes and its
    pattern of the wider ones (and their UTF-8 lead bytes) must hold exactly the characters isspace() is true for."""
    import gsr.io.runs

    every = "".join(map(chr, range(0x110000)))
    kept = set("".join(every.split()))
    spaces = {c for c in every if c.isspace()}
    assert {c for c in every if c not in kept} == spaces
    assert {chr(b) for b in range(128) if not gsr.io.runs._WORD_BYTE[b]} == {c for c in spaces if c.isascii()}
    assert gsr.io.runs._WORD_BYTE[128:].all()
    wide = {c for c in spaces if not c.isascii()}
    assert set(gsr.io.runs._WIDE_SPACE.findall(every)) == wide
    assert all(c.encode()[:1].translate(None, gsr.io.runs._NOT_WIDE_SPACE_LEAD) for c in wide)


def test_float_reads_exactly_the_ascii_scores_decimal_text_reads():
    """read_trec_run converts a file's scores with float() without matching each against decimal_text's pattern
    where they are ASCII without '_': float()'s grammar then is that pattern (whitespace aside, which no column
    holds), every text of a small alphabet up to length 5 and the spellings of infinity and NaN show it."""
    import itertools

    from gsr.io.numbers import _DECIMAL

    def reads(text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return False
        return True

    texts = ["".join(t) for n in range(1, 6) for t in itertools.product("1.e+-E0", repeat=n)]
    texts += [
        f"{sign}{word}{tail}"
        for sign in ("", "+", "-", "--")
        for word in ("inf", "INF", "iNfInItY", "infinity", "infinit", "nan", "NaN", "nana", "in", "1e5", "0x1")
        for tail in ("", "1", "e1", ".", "x")
    ]
    texts += ["1\x00", "1\x7f", "1/2", "1,5", "(1)", "1j", "1L", "1d", "1f", "0b1", "0o7", "1e5.5", "٣"[:0] + "3"]
    for text in texts:
        assert reads(text) == bool(_DECIMAL.fullmatch(text)), text


def test_well_formed_runs_take_the_fast_paths(tmp_path, monkeypatch):
    """A well-formed file (ASCII or not, plain or gzip-compressed, oddly spaced) is read without the line-by-line
    reader, and a well-formed run written and checked without going through its rows one by one."""
    import gsr.io.runs

    rng = np.random.default_rng(5)
    run = _random_run(rng, queries=20, depth=30)
    expected_bytes = reference.write_trec_run(run, tmp_path / "reference.run").read_bytes()
    expected_run = _outcome(reference.as_written, run, tmp_path / "new.run")
    columns = []

    def counted(text, what):
        columns.append(what)
        return text

    def refused(*args):
        raise AssertionError("read or checked row by row")

    monkeypatch.setattr(gsr.io.runs, "run_column", counted)
    monkeypatch.setattr(gsr.io.runs, "_trec_run_rows", refused)
    monkeypatch.setattr(gsr.io.runs, "_checked_rows", refused)
    path = gsr.io.runs.write_trec_run(run, tmp_path / "new.run")
    assert path.read_bytes() == expected_bytes and columns == ["the run tag"] + ["query id"] * len(run)
    assert _outcome(gsr.io.runs.as_written, run, path) == expected_run
    plain = {q: [(d, s) for d, s in ranked if d.isascii()] for q, ranked in run.items() if q.isascii()}
    for name, source in (("ascii.txt", plain), ("utf8.txt", run), ("messy.txt", run), ("messy.txt.gz", run)):
        path = tmp_path / name
        if name.startswith("messy"):  # other whitespace (Unicode's too: counted line by line), marks, CRLF
            _messy_file(rng, source, path)
        else:  # counted with numpy
            path.write_bytes(reference.write_trec_run(source, tmp_path / "plain.run").read_bytes())
            assert path.read_bytes().isascii() == (name == "ascii.txt")
        assert _outcome(read_trec_run, path, True) == _outcome(reference.read_trec_run, path, True)


def test_a_subset_of_a_checked_run_is_measured_without_checking_it_again():
    from gsr.io.convert import as_run
    from gsr.io.types import CheckedRun, run_subset, top_ranked

    checked = CheckedRun({"q1": [("d2", 2.0), ("d1", 1.0)], "q2": [("d3", 1.0)], "q3": []})
    subset = run_subset(checked, ["q1", "q3", "q9"])
    assert subset == {"q1": [("d2", 2.0), ("d1", 1.0)]} and as_run(subset) is subset  # taken as it is
    plain = run_subset({"q1": [("d1", 1.0), ("d2", 2.0)]}, ["q1"])
    assert not isinstance(plain, CheckedRun) and as_run(plain) == {"q1": [("d2", 2.0), ("d1", 1.0)]}  # checked
    assert top_ranked({"q1": [("d1", 1.0), ("d2", 2.0), ("d3", 2.0)]}, "q1", 2) == [("d3", 2.0), ("d2", 2.0)]
    assert top_ranked(checked, "q1", 1) == [("d2", 2.0)] and top_ranked(checked, "q9", 5) == []
