"""Collections: TREC SGML, BEIR, plain files, canonical JSONL with content keys, consistency checks, export."""

from __future__ import annotations

import gzip
import json

import pytest

from experiments.collections import canonical_documents, export_collection, load_collection, read_beir_qrels
from gsr.documents.opening import iter_documents
from gsr.documents.sgml import TrecSgmlDocuments
from gsr.errors import InputError
from gsr.io.qrels import read_qrels
from gsr.io.topics import read_tsv_queries

SGML = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<PROFILE>_AN-BEOA7AAIFT</PROFILE>
<DATE>910514</DATE>
<HEADLINE>FT  14 MAY 91 / Nurses &amp; doctors</HEADLINE>
<TEXT>
The nurse said she would <B>stay</B>.
</TEXT>
</DOC>
<DOC>
<DOCNO>LA010189-0001</DOCNO>
<DOCID>1</DOCID>
<TEXT><P>The electrician fixed the wire.</P></TEXT>
</DOC>
"""


def write_sgml_sample(folder, n_files=2):
    """A small TREC-SGML tree: a plain file and a gzipped one, in sub-folders as on the disks."""
    (folder / "ft" / "ft911").mkdir(parents=True)
    (folder / "latimes").mkdir(parents=True)
    (folder / "ft" / "ft911" / "ft911_1").write_text(SGML.split("<DOC>\n<DOCNO>LA")[0], encoding="latin-1")
    la = "<DOC>\n<DOCNO>LA" + SGML.split("<DOC>\n<DOCNO>LA")[1]
    (folder / "latimes" / "la010189.gz").write_bytes(gzip.compress(la.encode("latin-1")))
    (folder / "latimes" / "readme.txt").write_text("not a document file")
    return folder


def test_sgml_documents_keep_text_and_drop_metadata(tmp_path):
    docs = dict(TrecSgmlDocuments([write_sgml_sample(tmp_path / "disks")]))
    assert set(docs) == {"FT911-1", "LA010189-0001"}
    assert docs["FT911-1"] == "FT 14 MAY 91 / Nurses doctors The nurse said she would stay ."
    assert "910514" not in docs["FT911-1"] and "AN-BEOA7AAIFT" not in docs["FT911-1"]
    assert docs["LA010189-0001"] == "The electrician fixed the wire."


def test_sgml_document_without_docno_names_file_and_line(tmp_path):
    path = tmp_path / "bad"
    path.write_text("<DOC>\n<DOCNO>A</DOCNO>x</DOC>\n\n<DOC>\n<TEXT>no id</TEXT>\n</DOC>\n")
    with pytest.raises(InputError, match=r"bad:4: <DOC> without <DOCNO>"):
        list(TrecSgmlDocuments([path]))


def test_canonical_documents_are_written_once_with_a_content_key(tmp_path):
    calls = []

    def docs():
        calls.append(1)
        return iter([("a", "one text"), ("b", "two")])

    path, key = canonical_documents("unit-test", docs)
    again, key_again = canonical_documents("unit-test", docs)
    assert (path, key) == (again, key_again) and len(calls) == 1
    assert list(iter_documents(path)) == [("a", "one text"), ("b", "two")]
    assert len(key) == 16


def test_duplicate_document_ids_fail_and_leave_no_canonical_file(tmp_path):
    with pytest.raises(InputError, match="document id a appears more than once"):
        canonical_documents("dup-test", lambda: iter([("a", "x"), ("a", "y")]))
    path, _ = canonical_documents("dup-test", lambda: iter([("a", "x")]))
    assert list(iter_documents(path)) == [("a", "x")]


def _write_files(tmp_path, qrels_text="q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": f"d{i}", "contents": f"text {i}"}) + "\n" for i in range(1, 5)))
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tnurse\nq2\telectrician\nq3\tnothing judged\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(qrels_text)
    return {"kind": "files", "documents": str(docs), "topics": str(topics), "qrels": str(qrels)}


def test_files_collection_reports_unjudged_topics(tmp_path):
    collection = load_collection(_write_files(tmp_path))
    assert collection.judged_queries() == ["q1", "q2"]
    assert collection.unjudged_queries() == ["q3"]
    assert any("q3" in note for note in collection.notes)


@pytest.mark.parametrize(
    "qrels, message",
    [
        ("q1 0 XYZ-1 1\n", "none of the 1 judged document ids is in the documents"),
        ("301 0 d1 1\n", "no topic id appears in the qrels"),
    ],
    ids=["documents-of-another-collection", "foreign-topic-ids"],
)
def test_qrels_of_another_collection_are_an_error(tmp_path, qrels, message):
    with pytest.raises(InputError, match=message):
        load_collection(_write_files(tmp_path, qrels))


def test_partially_unknown_qrels_documents_become_a_note(tmp_path):
    collection = load_collection(_write_files(tmp_path, "q1 0 d1 1\nq1 0 gone 1\n"))
    assert any("1 of 2 judged documents are not in the collection" in n for n in collection.notes)


def test_beir_folder(tmp_path):
    folder = tmp_path / "scifact"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        json.dumps({"_id": "10", "title": "Nurses", "text": "care work"})
        + "\n"
        + json.dumps({"_id": "11", "title": "", "text": "wires"})
        + "\n"
    )
    (folder / "queries.jsonl").write_text(
        json.dumps({"_id": "1", "text": "nurse"}) + "\n" + json.dumps({"_id": "2", "text": "train only"}) + "\n"
    )
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t10\t1\n")
    collection = load_collection({"kind": "beir", "path": str(folder)})
    assert collection.queries == {"1": "nurse"}
    assert collection.qrels == {"1": {"10": 1}}
    assert dict(iter_documents(collection.documents))["10"] == "Nurses care work"


def test_beir_qrels_errors_name_the_line(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n1\t10\n")
    with pytest.raises(InputError, match=r"test.tsv:2: expected"):
        read_beir_qrels(path)


def test_trec_sgml_collection_with_pyserini_cached_topics(tmp_path, monkeypatch):
    disks = write_sgml_sample(tmp_path / "disks")
    cache = tmp_path / "pyserini"
    (cache / "topics-and-qrels").mkdir(parents=True)
    (cache / "topics-and-qrels" / "topics.robust04.txt").write_text(
        "<top>\n<num> Number: 301\n<title> nurse\n<desc> Description:\nx\n<narr> Narrative:\ny\n</top>\n"
    )
    (cache / "topics-and-qrels" / "qrels.robust04.txt").write_text("301 0 FT911-1 1\n301 0 LA010189-0001 0\n")
    monkeypatch.setenv("PYSERINI_CACHE", str(cache))
    collection = load_collection(
        {"kind": "trec-sgml", "documents": [str(disks)], "topics": "pyserini:robust04", "qrels": "pyserini:robust04"}
    )
    assert collection.queries == {"301": "nurse"}
    assert collection.judged_queries() == ["301"]


def test_missing_pyserini_topics_say_where_they_were_looked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSERINI_CACHE", str(tmp_path))
    disks = write_sgml_sample(tmp_path / "disks")
    with pytest.raises(InputError, match="topics.robust04.txt: not in Pyserini's cache"):
        load_collection(
            {"kind": "trec-sgml", "documents": str(disks), "topics": "pyserini:robust04", "qrels": "pyserini:robust04"}
        )


def test_unknown_collection_kind():
    with pytest.raises(InputError, match="collection kind 'trec' is unknown"):
        load_collection({"kind": "trec"})


def test_export_toy1_round_trips(tmp_path):
    paths = export_collection("toy1", tmp_path / "toy1")
    docs = dict(iter_documents(paths["documents"]))
    topics = read_tsv_queries(paths["topics"])
    qrels = read_qrels(paths["qrels"])
    assert docs["woman_nurse"] == "The woman is a nurse."
    assert topics["nurse"] == "nurse"
    assert qrels["nurse"] == {"man_nurse": 1, "woman_nurse": 1}


def test_export_rejects_unknown_names(tmp_path):
    with pytest.raises(InputError, match="'robust04' is not a built-in collection"):
        export_collection("robust04", tmp_path)
