"""gsr's readers against the tools users compare with, on the same files (issue 36.7): TREC runs (gsr's three run
parsers) and qrels against ir_measures' read_trec_run / read_trec_qrels and ir_datasets' TrecScoredDocs / TrecQrels,
TREC topics against ir_datasets' TrecQueries, TREC SGML documents against ir_datasets' TrecDocs, on odd but valid
files. Where they differ by design, the test asserts the difference docs/reliability.md documents."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import ir_measures
import numpy as np
import pytest

from gsr.documents.sgml import TrecSgmlDocuments
from gsr.errors import InputError
from gsr.io.qrels import read_qrels
from gsr.io.run_arrays import read_run_arrays
from gsr.io.runs import _trec_run_rows, _well_formed_run, checked_run, read_trec_run
from gsr.io.topics import read_trec_topics
from gsr.io.types import rank_order
from tests.support.shared_data import ROBUST04_TOPICS

# Odd but valid runs: tabs and spaces mixed, runs of whitespace, trailing blanks and blank lines, ids beyond ASCII,
# ties, signed and scientific scores, queries interleaved.
RUNS = {
    "tabs-and-spaces": "q1\tQ0\td1\t1\t2.5\tbm25\nq1 Q0  d2 2 2.5 bm25  \n\n q1 Q0 d3 3 +1.5 bm25\n",
    "unicode-ids": "qé Q0 文書1 1 1e1 x\nqé\tQ0 d-ü 2 -3 x\nq1 Q0 ǅ 1 0 x\n",
    "ties-and-interleaved": "q2 Q0 b 1 1 t\nq1 Q0 a 1 1 t\nq2 Q0 c 2 1.0 t\nq2 Q0 a 3 1E0 t\nq1 Q0 b 2 0.5 t\n",
    "numbers": "q1 Q0 d1 1 -0.0 t\nq1 Q0 d2 2 .5 t\nq1 Q0 d3 3 5. t\nq1 Q0 d4 0004 1e-3 t\nq1 Q0 d5 -1 7 t\n",
}
QRELS = "q1\t0\td1\t2\nq1 0  d2 0  \n\nqé Q0 文書1 1\nqé\titer d-ü -1\nq2 0 d1 +3\n"


def _irds():
    formats = pytest.importorskip("ir_datasets.formats.trec", reason="ir_datasets (irds extra) is absent: not compared")
    download = pytest.importorskip("ir_datasets.util")
    return formats, download.LocalDownload


def _file(tmp_path: Path, name: str, text: str, compressed: bool = False) -> Path:
    path = tmp_path / (name + (".gz" if compressed else ""))
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if compressed else data)
    return path


def _ranked(rows) -> dict[str, list[tuple[str, float]]]:
    """ir_measures' or ir_datasets' scored documents by query, each list in trec_eval's order (rank_order): the
    order gsr's readers return, where those tools keep the file's (their measures sort for themselves)."""
    run: dict[str, list[tuple[str, float]]] = {}
    for row in rows:
        run.setdefault(row.query_id, []).append((row.doc_id, row.score))
    return {qid: rank_order(ranked) for qid, ranked in run.items()}


def _three_parsers(path: Path) -> list[dict]:
    """The run as each of gsr's parsers reads it: read_trec_run's block parser and its line parser (which names a
    malformed line), and read_run_arrays' numpy parser (gsr score's)."""
    block = _well_formed_run(path)
    assert block is not None, "the block parser gave the file to the line parser"
    lines = checked_run(_trec_run_rows(path))
    arrays = read_run_arrays(path).as_run()
    return [{q: list(ranked) for q, ranked in run.items()} for run in (block, lines, arrays)]


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", sorted(RUNS))
def test_runs_read_as_ir_measures_and_ir_datasets_read_them(tmp_path, name, compressed):
    path = _file(tmp_path, f"{name}.run", RUNS[name], compressed)
    theirs = _ranked(ir_measures.read_trec_run(str(path)))
    assert read_trec_run(path) == theirs
    for ours in _three_parsers(path):
        assert ours == theirs
    if not compressed:  # TrecScoredDocs reads plain files; a blank line is its own case below
        formats, local = _irds()
        text_without_blanks = "".join(line for line in RUNS[name].splitlines(True) if line.strip())
        plain = _file(tmp_path, f"{name}-no-blank.run", text_without_blanks)
        assert _ranked(formats.TrecScoredDocs(local(plain)).scoreddocs_iter()) == theirs


def test_the_three_run_parsers_agree_with_ir_measures_on_a_long_random_run(tmp_path):
    import random

    draw = random.Random(7)
    lines = []
    for q in range(40):
        docs = draw.sample(range(10_000), 200)
        scores = [round(draw.gauss(0, 3), draw.choice([0, 1, 3, 8])) for _ in docs]  # many ties
        spacing = draw.choice([" ", "\t", "  ", " \t "])
        lines += [spacing.join([f"q{q}", "Q0", f"D{d}", str(r + 1), str(s), "run"]) for r, (d, s) in
                  enumerate(zip(docs, scores))]  # fmt: skip
    draw.shuffle(lines)  # queries interleaved, ranks out of order: the order comes from the scores
    path = _file(tmp_path, "random.run", "\n".join(lines) + "\n")
    theirs = _ranked(ir_measures.read_trec_run(str(path)))
    assert all(ours == theirs for ours in _three_parsers(path)) and len(theirs) == 40


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        pytest.param("q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n", "document d1 appears twice", id="a-repeated-document"),
        pytest.param("q1 Q0 d1 1 nan t\n", "NaN", id="nan"),
        pytest.param("q1 Q0 d1 first 2 t\n", "rank", id="a-rank-that-is-no-integer"),
        pytest.param("q1 Q0 d1 1 1_0 t\n", "score", id="digits-grouped-with-underscores"),
        pytest.param("q1 Q0 d1 1 ٣ t\n", "score", id="arabic-indic-digits"),
        pytest.param("q1 Q0 d1 1 2 t\rq1 Q0 d2 2 1 t\r", "expected 6 columns", id="cr-only-line-ends"),
    ],
)
def test_what_ir_measures_reads_and_gsr_refuses_by_design(tmp_path, text, refused):
    """docs/reliability.md: ir_measures reads what float() and Python's universal newlines take and ignores the rank
    column; gsr reads runs as trec_eval does and refuses each of these in one line naming the file and line."""
    path = tmp_path / "odd.run"
    path.write_bytes(text.encode("utf-8"))
    assert list(ir_measures.read_trec_run(str(path)))  # read without complaint
    with pytest.raises(InputError, match=rf"odd\.run:\d+: .*{re.escape(refused)}") as raised:
        read_trec_run(path)
    for read in (read_run_arrays, lambda p: checked_run(_trec_run_rows(p))):
        with pytest.raises(InputError) as again:
            read(path)
        assert str(again.value) == str(raised.value)


def test_a_byte_order_mark_is_skipped_where_ir_measures_keeps_it_in_the_first_id(tmp_path):
    path = tmp_path / "bom.run"
    path.write_bytes(b"\xef\xbb\xbfq1 Q0 d1 1 2 t\n")
    assert [row.query_id for row in ir_measures.read_trec_run(str(path))] == ["\ufeffq1"]
    assert read_trec_run(path) == {"q1": [("d1", 2.0)]} == dict(read_run_arrays(path).as_run())


def test_a_blank_line_is_skipped_where_ir_datasets_repeats_the_line_before_it(tmp_path):
    """ir_datasets' TrecScoredDocs (0.6) has no branch for a line without columns and yields the previous row again;
    gsr and ir_measures skip blank lines (documented in docs/reliability.md)."""
    formats, local = _irds()
    path = _file(tmp_path, "blank.run", "q1 Q0 d1 1 2 t\n\nq1 Q0 d2 2 1 t\n")
    theirs = [(row.query_id, row.doc_id) for row in formats.TrecScoredDocs(local(path)).scoreddocs_iter()]
    assert theirs == [("q1", "d1"), ("q1", "d1"), ("q1", "d2")]
    assert read_trec_run(path) == {"q1": [("d1", 2.0), ("d2", 1.0)]}


def _judgments(rows) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for row in rows:
        qrels.setdefault(row.query_id, {})[row.doc_id] = row.relevance
    return qrels


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_qrels_read_as_ir_measures_and_ir_datasets_read_them(tmp_path, compressed):
    path = _file(tmp_path, "odd.qrels", QRELS, compressed)
    ours = read_qrels(path)
    assert ours == _judgments(ir_measures.read_trec_qrels(str(path)))
    assert ours["qé"] == {"文書1": 1, "d-ü": -1} and ours["q2"] == {"d1": 3}
    if not compressed:
        formats, local = _irds()
        assert ours == _judgments(formats.TrecQrels(local(path), {}).qrels_iter())


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        pytest.param("q1 0 d1 1\nq1 0 d1 2\n", "judged twice", id="one-document-two-grades"),
        pytest.param("q1 0 d1 1_0\n", "relevance grade", id="digits-grouped-with-underscores"),
        pytest.param("q1 0 d1 ٣\n", "relevance grade", id="arabic-indic-digits"),
    ],
)
def test_qrels_ir_measures_reads_and_gsr_refuses_by_design(tmp_path, text, refused):
    """ir_measures reads grades with int() (1_0 is 10, ٣ is 3) and keeps the last of two grades a dict is given;
    gsr refuses both in one line naming the file and line."""
    path = tmp_path / "odd.qrels"
    path.write_text(text, encoding="utf-8")
    assert list(ir_measures.read_trec_qrels(str(path)))
    with pytest.raises(InputError, match=rf"odd\.qrels:\d+: .*{re.escape(refused)}"):
        read_qrels(path)


def test_a_line_of_blanks_in_qrels_is_skipped_where_ir_datasets_stops(tmp_path):
    formats, local = _irds()
    path = _file(tmp_path, "blanks.qrels", "q1 0 d1 1\n  \t\nq1 0 d2 0\n")
    with pytest.raises(RuntimeError, match="expected 4 columns, got 0"):
        list(formats.TrecQrels(local(path), {}).qrels_iter())
    assert read_qrels(path) == _judgments(ir_measures.read_trec_qrels(str(path))) == {"q1": {"d1": 1, "d2": 0}}


TOPICS = (
    "<top>\n<num> Number: 301\n<title> nurse  pay\n\n<desc> Description:\nHow are nurses\npaid?\n\n"
    "<narr> Narrative:\nA relevant document\nnames café wages.\n\n</top>\n\n"
    "<top>\n\n<num> Number: 302 \n<title> Topic: wind power \n<desc> Description: \nwind?\n"
    "<narr> Narrative: \nany.\n</top>\n"
    "<top>\n<num> Number: 3ǅ3\n<title>\tthe \t tabbed title\n<desc> Description:\nx\n<narr> Narrative:\ny\n</top>\n"
)


def _collapsed(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("source", ["odd", "robust04"])
def test_topics_read_as_ir_datasets_reads_them(tmp_path, source):
    """Every field of every topic, the Robust04 file included; gsr joins a field's lines with single spaces where
    ir_datasets keeps the file's whitespace (compared collapsed)."""
    formats, local = _irds()
    if source == "robust04" and not ROBUST04_TOPICS.is_file():
        pytest.skip(f"the Robust04 topics are not at {ROBUST04_TOPICS}")
    path = ROBUST04_TOPICS if source == "robust04" else _file(tmp_path, "odd.topics", TOPICS)
    theirs = list(formats.TrecQueries(local(path)).queries_iter())
    fields = {"title": "title", "desc": "description", "narr": "narrative"}
    for ours_field, their_field in fields.items():
        ours = read_trec_topics(path, ours_field)
        assert ours == {t.query_id: _collapsed(getattr(t, their_field)) for t in theirs}, ours_field
    assert len(theirs) == (250 if source == "robust04" else 3)


def test_a_topic_without_narrative_is_read_where_ir_datasets_stops(tmp_path):
    formats, local = _irds()
    path = _file(tmp_path, "short.topics", "<top>\n<num> Number: 1\n<title> nurse pay\n</top>\n")
    with pytest.raises(AssertionError):  # TrecQueries asserts that each topic has all four fields
        list(formats.TrecQueries(local(path)).queries_iter())
    assert read_trec_topics(path) == {"1": "nurse pay"}


SGML = (
    "<DOC>\n<DOCNO> FT911-1 </DOCNO>\n<PROFILE>_AN-BEOA7AAIFT</PROFILE>\n<DATE>910514\n</DATE>\n"
    "<HEADLINE>\nFT  14 MAY 91 / Nurses &amp; pay\n</HEADLINE>\n<TEXT>\nThe nurse said she was paid\n"
    "less than   the electrician.\n</TEXT>\n</DOC>\n"
    "<DOC>\n<DOCNO>LA-é-2</DOCNO>\n<DATE>\n<P>\nMay 14, 1991, Tuesday\n</P>\n</DATE>\n<TEXT>\n<P>\n"
    "Café owners: he and she.\n</P>\n</TEXT>\n</DOC>\n"
)
DATE_WORDS = {"FT911-1": [], "LA-é-2": ["may", "tuesday"]}


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.lower())


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_sgml_documents_read_as_ir_datasets_reads_them(tmp_path, compressed):
    """The ids and words of TrecDocs (the parser of ir_datasets' trec-robust04, UTF-8 text, ids beyond ASCII
    included); by design gsr leaves out <DATE>, a metadata field as in Anserini's TrecCollection, which ir_datasets
    keeps among its content tags."""
    formats, local = _irds()
    folder = tmp_path / "disk"
    folder.mkdir()
    path = _file(folder, "docs", SGML, compressed)
    theirs = {doc.doc_id: _words(doc.text) for doc in formats.TrecDocs(local(folder)).docs_iter()}
    ours = dict(TrecSgmlDocuments([folder]))
    assert list(ours) == list(theirs) == list(DATE_WORDS)
    for docid, words in theirs.items():
        dated = DATE_WORDS[docid]
        assert words[: len(dated)] == dated and _words(ours[docid]) == words[len(dated) :], docid
    source = TrecSgmlDocuments([path])  # read by position, as gsr score reads the documents it needs
    offsets = np.array([offset for offset, _, _ in source.records(0, source.files[0])])
    assert dict(source.read_at(0, source.files[0], offsets)) == ours


def test_latin1_sgml_is_read_as_latin1_where_ir_datasets_puts_replacement_characters(tmp_path):
    """The TREC disks' 8-bit text (é as the byte 0xE9) is not UTF-8: gsr reads such a document as latin-1, where
    ir_datasets (and Anserini) decode UTF-8 and put U+FFFD for the byte."""
    formats, local = _irds()
    path = tmp_path / "fbis"
    path.write_bytes(SGML.encode("latin-1"))
    theirs = {doc.doc_id: doc.text for doc in formats.TrecDocs(local(path)).docs_iter()}
    ours = dict(TrecSgmlDocuments([path]))
    assert "LA-\ufffd-2" in theirs and "Caf\ufffd owners" in theirs["LA-\ufffd-2"]
    assert ours["LA-é-2"] == "Café owners: he and she."
