"""Tests for gsr.io: TREC runs, qrels and topics, TSV/JSONL queries, documents, and pandas/dict inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsr.io import (
    InputError,
    as_qrels,
    as_queries,
    as_run,
    iter_documents,
    rank_order,
    read_jsonl_queries,
    read_qrels,
    read_queries,
    read_trec_run,
    read_trec_topics,
    read_tsv_queries,
)
from tests.conftest import ROBUST04_TOPICS



@pytest.fixture(autouse=True)
def io_cache(tmp_path, monkeypatch):
    """Keep any cache writes inside the test's tmp folder."""
    cache = tmp_path / "gsr-cache"
    monkeypatch.setenv("GSR_CACHE", str(cache))
    return cache


def io_write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def io_jsonl(folder: Path, name: str, records) -> Path:
    return io_write(folder, name, "".join(json.dumps(r) + "\n" for r in records))


# --------------------------------------------------------------------------- runs


def test_rank_order_score_desc_then_docid_desc():
    assert rank_order([("a", 1.0), ("c", 2.0), ("b", 1.0), ("d", 0.5)]) == [
        ("c", 2.0),
        ("b", 1.0),
        ("a", 1.0),
        ("d", 0.5),
    ]


def test_read_trec_run_orders_by_score_not_rank_column(tmp_path):
    path = io_write(
        tmp_path,
        "run.txt",
        "q1 Q0 d1 1 0.5 tag\n"
        "q1 Q0 d2 2 0.9 tag\n"  # rank column disagrees with score: the score wins
        "q1 Q0 d3 3 -1.25 tag\n"
        "\n"
        "q2 Q0 x 1 3 tag\n",
    )
    run = read_trec_run(path)
    assert run == {
        "q1": [("d2", 0.9), ("d1", 0.5), ("d3", -1.25)],
        "q2": [("x", 3.0)],
    }
    assert list(run) == ["q1", "q2"]


def test_read_trec_run_ties_broken_by_docid_descending(tmp_path):
    path = io_write(
        tmp_path,
        "run.txt",
        "7 Q0 DOC-A 1 2.0 r\n"
        "7 Q0 DOC-C 2 2.0 r\n"
        "7 Q0 DOC-B 3 2.0 r\n"
        "7 Q0 DOC-Z 4 1.0 r\n"
        "7 Q0 DOC-0 5 3.0 r\n",
    )
    assert read_trec_run(path) == {
        "7": [("DOC-0", 3.0), ("DOC-C", 2.0), ("DOC-B", 2.0), ("DOC-A", 2.0), ("DOC-Z", 1.0)]
    }


def test_read_trec_run_tabs_and_trailing_whitespace(tmp_path):
    path = io_write(tmp_path, "run.txt", "q1\tQ0\td1\t1\t1e-3\tbm25  \r\nq1 Q0 d2 2 2E2 bm25\n")
    assert read_trec_run(path) == {"q1": [("d2", 200.0), ("d1", 0.001)]}


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("q1 Q0 d2 2 0.5", "found 5"),
        ("q1 Q0 d2 2 0.5 tag extra", "found 7"),
        ("q1", "found 1"),
    ],
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
    "line",
    [
        "q1 Q0 d2 2 high tag",  # non-numeric score
        "q1 Q0 d2 two 0.5 tag",  # non-numeric rank
        "q1 Q0 d2 2.0 0.5 tag",  # rank is not an integer
    ],
)
def test_read_trec_run_non_numeric_rank_or_score(tmp_path, line):
    path = io_write(tmp_path, "run.txt", f"q1 Q0 d1 1 0.9 tag\n{line}\n")
    with pytest.raises(InputError) as info:
        read_trec_run(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: ")
    assert "rank must be an integer and score a number" in message
    assert repr(line) in message


@pytest.mark.parametrize("nan", ["nan", "NaN", "-nan"])
def test_read_trec_run_nan_score(tmp_path, nan):
    path = io_write(tmp_path, "run.txt", f"q1 Q0 d1 1 0.9 tag\nq1 Q0 d2 2 0.8 tag\nq1 Q0 d3 3 {nan} tag\n")
    with pytest.raises(InputError, match=r":3: score is NaN$") as info:
        read_trec_run(path)
    assert str(info.value) == f"{path}:3: score is NaN"


def test_read_trec_run_duplicate_document_in_query(tmp_path):
    path = io_write(
        tmp_path,
        "run.txt",
        "q1 Q0 d1 1 0.9 tag\nq2 Q0 d1 1 0.9 tag\nq1 Q0 d2 2 0.8 tag\nq1 Q0 d1 3 0.1 tag\n",
    )
    with pytest.raises(InputError) as info:
        read_trec_run(path)
    assert str(info.value) == f"{path}:4: document d1 appears twice for query q1"


def test_read_trec_run_same_document_in_two_queries_is_fine(tmp_path):
    path = io_write(tmp_path, "run.txt", "q1 Q0 d1 1 0.9 tag\nq2 Q0 d1 1 0.4 tag\n")
    assert read_trec_run(path) == {"q1": [("d1", 0.9)], "q2": [("d1", 0.4)]}


def test_read_trec_run_missing_file(tmp_path):
    path = tmp_path / "absent.run"
    with pytest.raises(InputError) as info:
        read_trec_run(path)
    assert str(info.value) == f"{path}: no such file"


def test_read_trec_run_not_utf8(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d\xff 1 0.5 tag\n")
    with pytest.raises(InputError, match="not UTF-8 text") as info:
        read_trec_run(path)
    assert str(info.value).startswith(f"{path}:1: not UTF-8 text (byte 0xff at column 8)")


def test_read_trec_run_empty_file(tmp_path):
    path = io_write(tmp_path, "run.txt", "\n\n")
    with pytest.raises(InputError, match="the run is empty"):
        read_trec_run(path)
    assert read_trec_run(path, allow_empty=True) == {}


# --------------------------------------------------------------------------- qrels


def test_read_qrels_basic(tmp_path):
    path = io_write(
        tmp_path,
        "qrels.txt",
        "301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n\n302 Q0 LA-1 2\n302 0 LA-2 -1\n301 0 FBIS3-10082 1\n",
    )
    qrels = read_qrels(path)
    assert qrels == {
        "301": {"FBIS3-10082": 1, "FBIS3-10169": 0},
        "302": {"LA-1": 2, "LA-2": -1},
    }
    assert all(type(g) is int for docs in qrels.values() for g in docs.values())


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


def test_read_qrels_conflicting_duplicate(tmp_path):
    path = io_write(tmp_path, "qrels.txt", "301 0 d1 1\n302 0 d1 0\n301 0 d1 2\n")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    assert str(info.value) == f"{path}:3: document d1 judged twice for query 301 with different grades"


# --------------------------------------------------------------------------- TREC topics

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


@pytest.fixture
def io_topics(tmp_path):
    return io_write(tmp_path, "topics.txt", TOPICS)


def test_read_trec_topics_title_is_default(io_topics):
    assert read_trec_topics(io_topics) == {"401": "foreign minorities, Germany", "402": "behavioral genetics"}


def test_read_trec_topics_desc_multiline_joined_and_label_stripped(io_topics):
    assert read_trec_topics(io_topics, "desc") == {
        "401": "What language and cultural differences impede the integration of foreign minorities in Germany?",
        "402": "What is happening in the field of behavioral genetics?",
    }


def test_read_trec_topics_narr(io_topics):
    assert read_trec_topics(io_topics, "narr") == {
        "401": "A relevant document will focus on the causes of the lack of integration.",
        "402": "Relevant documents include genetic causes.",
    }


def test_read_trec_topics_title_plus_desc(io_topics):
    topics = read_trec_topics(io_topics, "title+desc")
    assert topics["402"] == "behavioral genetics What is happening in the field of behavioral genetics?"
    assert topics["401"] == (
        "foreign minorities, Germany What language and cultural differences impede the integration "
        "of foreign minorities in Germany?"
    )


@pytest.mark.parametrize("field", ["Description", "DESC", " desc "])
def test_read_trec_topics_field_aliases_and_case(io_topics, field):
    assert read_trec_topics(io_topics, field)["402"] == "What is happening in the field of behavioral genetics?"


def test_read_trec_topics_upper_case_tags_and_labels(tmp_path):
    path = io_write(tmp_path, "t.txt", "<TOP>\n<NUM> NUMBER: 7\n<TITLE> Topic: jaguar speed\n</TOP>\n")
    assert read_trec_topics(path) == {"7": "jaguar speed"}


def test_read_trec_topics_closing_field_tags(tmp_path):
    path = io_write(
        tmp_path,
        "t.txt",
        "<top><num>5</num><title>red wine</title>ignored between tags<desc>a b</desc></top>\n",
    )
    assert read_trec_topics(path, "title+desc") == {"5": "red wine a b"}


def test_read_trec_topics_unknown_field(io_topics):
    with pytest.raises(InputError) as info:
        read_trec_topics(io_topics, "title+body")
    assert "unknown topic field 'body'" in str(info.value)


def test_read_trec_topics_unclosed_top(tmp_path):
    path = io_write(tmp_path, "t.txt", "<top>\n<num> 1\n<title> a\n</top>\n\n<top>\n<num> 2\n<title> b\n")
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}:6: topic not closed with </top>"


def test_read_trec_topics_nested_top(tmp_path):
    path = io_write(tmp_path, "t.txt", "<top>\n<num> 1\n<title> a\n<top>\n<num> 2\n</top>\n")
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}:4: <top> opened before the topic of line 1 was closed"


def test_read_trec_topics_closing_top_without_opening(tmp_path):
    path = io_write(tmp_path, "t.txt", "<top>\n<num> 1\n<title> a\n</top>\n</top>\n")
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}:5: </top> without <top>"


def test_read_trec_topics_field_outside_top(tmp_path):
    path = io_write(tmp_path, "t.txt", "<num> 1\n<top>\n<num> 1\n<title> a\n</top>\n")
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}:1: <num> outside a <top> block"


def test_read_trec_topics_missing_num(tmp_path):
    path = io_write(tmp_path, "t.txt", "<top>\n<num> 1\n<title> a\n</top>\n<top>\n<title> b\n</top>\n")
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}:5: topic has no <num>"


def test_read_trec_topics_label_only_num_is_missing(tmp_path):
    path = io_write(tmp_path, "t.txt", "<top>\n<num> Number:\n<title> a\n</top>\n")
    with pytest.raises(InputError, match=r":1: topic has no <num>$"):
        read_trec_topics(path)


def test_read_trec_topics_duplicate_topic(tmp_path):
    path = io_write(
        tmp_path,
        "t.txt",
        "<top>\n<num> Number: 9\n<title> a\n</top>\n\n<top>\n<num> Number: 9\n<title> b\n</top>\n",
    )
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}:6: topic 9 appears twice"


def test_read_trec_topics_empty_requested_field(tmp_path):
    path = io_write(tmp_path, "t.txt", "<top>\n<num> 3\n<title> a\n<desc> Description:\n</top>\n")
    with pytest.raises(InputError) as info:
        read_trec_topics(path, "desc")
    assert str(info.value) == f"{path}:1: topic 3 has an empty desc field"
    # title+desc is fine when only one of them has text
    assert read_trec_topics(path, "title+desc") == {"3": "a"}


@pytest.mark.parametrize("text", ["", "301\tsome query\n", "just some text\nmore text\n"])
def test_read_trec_topics_no_top_blocks(tmp_path, text):
    path = io_write(tmp_path, "t.txt", text)
    with pytest.raises(InputError) as info:
        read_trec_topics(path)
    assert str(info.value) == f"{path}: no <top> blocks found (not a TREC topics file?)"


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
    assert topics["301"].startswith("Identify organizations")
    assert topics["301"] == (
        "Identify organizations that participate in international criminal activity, the activity, and, "
        "if possible, collaborating organizations and the countries involved."
    )
    assert not any(t.lower().startswith("description:") for t in topics.values())


def test_read_queries_detects_robust04_topics(io_robust04):
    assert read_queries(io_robust04, "title+desc")["301"].startswith(
        "International Organized Crime Identify organizations"
    )


# --------------------------------------------------------------------------- TSV / JSONL queries


def test_read_tsv_queries(tmp_path):
    path = io_write(tmp_path, "q.tsv", "1\tmale nurse\n\n 2 \t  doctor salary \r\n3\ta\tb\n")
    assert read_tsv_queries(path) == {"1": "male nurse", "2": "doctor salary", "3": "a b"}


def test_read_tsv_queries_missing_tab(tmp_path):
    path = io_write(tmp_path, "q.tsv", "1\tnurse\n2 doctor\n")
    with pytest.raises(InputError) as info:
        read_tsv_queries(path)
    assert str(info.value) == f"{path}:2: expected 'qid<TAB>text'"


def test_read_tsv_queries_duplicate(tmp_path):
    path = io_write(tmp_path, "q.tsv", "1\tnurse\n2\tdoctor\n1\tpilot\n")
    with pytest.raises(InputError) as info:
        read_tsv_queries(path)
    assert str(info.value) == f"{path}:3: query 1 appears twice"


def test_read_jsonl_queries_key_variants(tmp_path):
    path = io_jsonl(
        tmp_path,
        "q.jsonl",
        [
            {"qid": "a", "query": "nurse"},
            {"query_id": "b", "text": "doctor"},
            {"_id": 3, "text": "pilot", "metadata": {}},
            {"id": "d", "title": "ceo"},
        ],
    )
    assert read_jsonl_queries(path) == {"a": "nurse", "b": "doctor", "3": "pilot", "d": "ceo"}


def test_read_jsonl_queries_bad_json(tmp_path):
    path = io_write(tmp_path, "q.jsonl", '{"qid": "1", "text": "a"}\n\n{"qid": "2", "text": \n')
    with pytest.raises(InputError) as info:
        read_jsonl_queries(path)
    assert str(info.value).startswith(f"{path}:3: invalid JSON (")


def test_read_jsonl_queries_not_an_object(tmp_path):
    path = io_write(tmp_path, "q.jsonl", '{"qid": "1", "text": "a"}\n["2", "b"]\n')
    with pytest.raises(InputError) as info:
        read_jsonl_queries(path)
    assert str(info.value) == f"{path}:2: expected a JSON object"


def test_read_jsonl_queries_missing_id(tmp_path):
    path = io_jsonl(tmp_path, "q.jsonl", [{"qid": "1", "text": "a"}, {"number": "2", "text": "b"}])
    with pytest.raises(InputError) as info:
        read_jsonl_queries(path)
    assert str(info.value) == f"{path}:2: no query id field (one of qid, query_id, _id, id)"


def test_read_jsonl_queries_missing_text(tmp_path):
    path = io_jsonl(tmp_path, "q.jsonl", [{"qid": "1", "body": "a"}])
    with pytest.raises(InputError) as info:
        read_jsonl_queries(path)
    assert str(info.value) == f"{path}:1: no query text field (one of text, query, title)"


def test_read_jsonl_queries_duplicate(tmp_path):
    path = io_jsonl(tmp_path, "q.jsonl", [{"qid": "1", "text": "a"}, {"qid": "2", "text": "b"}, {"qid": 1, "text": "c"}])
    with pytest.raises(InputError) as info:
        read_jsonl_queries(path)
    assert str(info.value) == f"{path}:3: query 1 appears twice"


# --------------------------------------------------------------------------- read_queries format detection


def test_read_queries_tsv_by_extension(tmp_path):
    # '.tsv' wins even if the text looks like JSON
    path = io_write(tmp_path, "q.TSV", '{"x"\tnurse\n')
    assert read_queries(path) == {'{"x"': "nurse"}


@pytest.mark.parametrize("name", ["q.jsonl", "q.json"])
def test_read_queries_jsonl_by_extension(tmp_path, name):
    path = io_jsonl(tmp_path, name, [{"qid": "1", "text": "nurse"}])
    assert read_queries(path) == {"1": "nurse"}


def test_read_queries_trec_content_without_extension(tmp_path):
    path = io_write(tmp_path, "topics", TOPICS)
    assert read_queries(path) == {"401": "foreign minorities, Germany", "402": "behavioral genetics"}
    assert read_queries(path, "desc")["402"] == "What is happening in the field of behavioral genetics?"


def test_read_queries_trec_content_with_txt_extension(tmp_path):
    path = io_write(tmp_path, "topics.robust.txt", TOPICS.upper().replace("NUMBER:", "Number:"))
    assert read_queries(path) == {"401": "FOREIGN MINORITIES, GERMANY", "402": "BEHAVIORAL GENETICS"}


def test_read_queries_jsonl_content_without_extension(tmp_path):
    path = io_write(tmp_path, "queries", '\n  {"qid": "5", "query": "nurse"}\n')
    assert read_queries(path) == {"5": "nurse"}


def test_read_queries_tsv_content_without_extension(tmp_path):
    path = io_write(tmp_path, "queries", "5\tnurse\n6\tdoctor\n")
    assert read_queries(path) == {"5": "nurse", "6": "doctor"}


def test_read_queries_missing_file(tmp_path):
    path = tmp_path / "absent"
    with pytest.raises(InputError) as info:
        read_queries(path)
    assert str(info.value) == f"{path}: no such file"


# --------------------------------------------------------------------------- documents


def test_iter_documents_jsonl_id_contents(tmp_path):
    path = io_jsonl(
        tmp_path,
        "docs.jsonl",
        [{"id": "d1", "contents": "she is a nurse"}, {"id": 2, "contents": "he is a doctor"}],
    )
    assert list(iter_documents(path)) == [("d1", "she is a nurse"), ("2", "he is a doctor")]
    assert list(iter_documents(str(path))) == [("d1", "she is a nurse"), ("2", "he is a doctor")]


def test_iter_documents_jsonl_beir(tmp_path):
    path = io_jsonl(
        tmp_path,
        "corpus.jsonl",
        [
            {"_id": "a", "title": "Nursing", "text": "she is a nurse"},
            {"_id": "b", "title": "", "text": "untitled body"},
            {"_id": "c", "text": "no title key"},
        ],
    )
    assert list(iter_documents(path)) == [
        ("a", "Nursing she is a nurse"),
        ("b", "untitled body"),
        ("c", "no title key"),
    ]


def test_iter_documents_jsonl_other_keys(tmp_path):
    path = io_jsonl(tmp_path, "d.jsonl", [{"docno": "x", "body": "b1"}, {"doc_id": "y", "text": "b2"}])
    assert list(iter_documents(path)) == [("x", "b1"), ("y", "b2")]


def test_iter_documents_jsonl_missing_text(tmp_path):
    path = io_jsonl(tmp_path, "d.jsonl", [{"id": "x", "contents": "ok"}, {"id": "y", "words": "??"}])
    with pytest.raises(InputError) as info:
        list(iter_documents(path))
    assert str(info.value) == f"{path}:2: no document text field (one of contents, text, body)"


def test_iter_documents_jsonl_missing_id(tmp_path):
    path = io_jsonl(tmp_path, "d.jsonl", [{"contents": "ok"}])
    with pytest.raises(InputError) as info:
        list(iter_documents(path))
    assert str(info.value) == f"{path}:1: no document id field (one of id, docid, doc_id, docno, _id)"


def test_iter_documents_tsv(tmp_path):
    path = io_write(tmp_path, "docs.tsv", "d1\tshe is a nurse\n\n d2 \the\tis a doctor\n")
    assert list(iter_documents(path)) == [("d1", "she is a nurse"), ("d2", "he\tis a doctor")]


def test_iter_documents_tsv_missing_tab(tmp_path):
    path = io_write(tmp_path, "docs.tsv", "d1\tok\nd2 no tab here\n")
    with pytest.raises(InputError) as info:
        list(iter_documents(path))
    assert str(info.value) == f"{path}:2: expected 'docid<TAB>text'"


def test_iter_documents_dict():
    assert list(iter_documents({"d1": "she", 2: "he"})) == [("d1", "she"), ("2", "he")]


def test_iter_documents_list_of_pairs():
    pairs = [("d1", "she"), ("d2", "he")]
    assert list(iter_documents(pairs)) == pairs
    assert list(iter_documents(iter(pairs))) == pairs


def test_iter_documents_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"docno": [10, 11], "text": ["she is a nurse", "he is a doctor"]})
    assert list(iter_documents(frame)) == [("10", "she is a nurse"), ("11", "he is a doctor")]
    frame = pd.DataFrame({"doc_id": ["a"], "body": ["x"], "contents": ["preferred"]})
    assert list(iter_documents(frame)) == [("a", "preferred")]


def test_iter_documents_dataframe_missing_text_column():
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"DataFrame has no document text column \(one of contents, text, body\)"):
        iter_documents(pd.DataFrame({"docno": ["a"], "words": ["x"]}))


# --------------------------------------------------------------------------- pandas / dict inputs


def test_as_run_ir_measures_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "query_id": ["1", "1", "1", "2"],
            "doc_id": ["a", "b", "c", "a"],
            "score": [1.0, 3.0, 1.0, 0.5],
        }
    )
    assert as_run(frame) == {"1": [("b", 3.0), ("c", 1.0), ("a", 1.0)], "2": [("a", 0.5)]}


def test_as_run_pyterrier_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "qid": [301, 301, 302],
            "docid": [0, 1, 7],
            "docno": ["FT-1", "FT-2", "LA-9"],
            "rank": [1, 0, 0],
            "score": [2, 5, 1],
            "query": ["q", "q", "r"],
        }
    )
    run = as_run(frame)
    assert run == {"301": [("FT-2", 5.0), ("FT-1", 2.0)], "302": [("LA-9", 1.0)]}
    assert all(type(s) is float for docs in run.values() for _, s in docs)


def test_as_run_dataframe_missing_score():
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"DataFrame has no score column"):
        as_run(pd.DataFrame({"qid": ["1"], "docno": ["a"]}))


def test_as_run_dicts():
    assert as_run({"1": {"a": 1, "b": 2, "c": 2}, 2: [("x", "0.5"), ("y", 0.7)]}) == {
        "1": [("c", 2.0), ("b", 2.0), ("a", 1.0)],
        "2": [("y", 0.7), ("x", 0.5)],
    }


def test_as_run_path(tmp_path):
    path = io_write(tmp_path, "run.txt", "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.9 tag\n")
    assert as_run(path) == as_run(str(path)) == {"q1": [("d2", 0.9), ("d1", 0.5)]}


def test_as_run_rejects_other_types():
    with pytest.raises(TypeError, match="cannot read a run from int"):
        as_run(5)


def test_as_qrels_ir_measures_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 2]})
    qrels = as_qrels(frame)
    assert qrels == {"1": {"a": 1, "b": 0}, "2": {"a": 2}}
    assert all(type(g) is int for docs in qrels.values() for g in docs.values())


def test_as_qrels_pyterrier_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": [301, 301], "docno": ["FT-1", "FT-2"], "label": [2, 0]})
    assert as_qrels(frame) == {"301": {"FT-1": 2, "FT-2": 0}}


def test_as_qrels_dataframe_missing_relevance():
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"DataFrame has no relevance column"):
        as_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]}))


def test_as_qrels_dict_path_and_none(tmp_path):
    assert as_qrels({1: {"a": "2", "b": 0}}) == {"1": {"a": 2, "b": 0}}
    assert as_qrels(None) is None
    path = io_write(tmp_path, "qrels", "1 0 a 3\n")
    assert as_qrels(path) == {"1": {"a": 3}}
    assert as_qrels([("1", "a", 1)]) == {"1": {"a": 1}}  # (qid, docid, grade) records
    with pytest.raises(TypeError, match="cannot read qrels from int"):
        as_qrels(3)


def test_as_queries_ir_measures_and_pyterrier_dataframes():
    pd = pytest.importorskip("pandas")
    assert as_queries(pd.DataFrame({"query_id": ["1", "2"], "text": ["nurse", "doctor"]})) == {
        "1": "nurse",
        "2": "doctor",
    }
    assert as_queries(pd.DataFrame({"qid": [301, 302], "query": ["crime", "polio"]})) == {
        "301": "crime",
        "302": "polio",
    }


def test_as_queries_dataframe_missing_text():
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"DataFrame has no query text column \(one of text, query, title\)"):
        as_queries(pd.DataFrame({"qid": ["1"], "words": ["x"]}))


def test_as_queries_dict_and_path(tmp_path):
    assert as_queries({1: "nurse", "2": 3}) == {"1": "nurse", "2": "3"}
    path = io_write(tmp_path, "topics", TOPICS)
    assert as_queries(path, "narr")["402"] == "Relevant documents include genetic causes."
    with pytest.raises(TypeError, match="cannot read queries from int"):
        as_queries(7)


def test_in_memory_inputs_are_checked_like_files():
    from gsr.io import InputError, as_qrels, as_run

    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match="run, query 1, document a: score is NaN"):
        as_run({"1": {"a": float("nan"), "b": 1.0}})
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match="document a appears twice for query 1"):
        as_run(frame)
    with pytest.raises(InputError, match="qrels DataFrame, query 1, document a: relevance grade must be an integer, found 1.7"):
        as_qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1.7]}))
