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
