"""Issue 35, item 3, through the commands: qrels that judge no document of the collection stop `gsr score` and
`gsr run` in one line; topics typed fullwidth are measured as their ASCII spelling; a GSR measured on fewer than half
of its topics says so in a warning line and in the JSON."""

from __future__ import annotations

import json

from experiments.cli import main
from tests.support.toy_collection import TOPICS, score_args, write_toy

FULLWIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(ord("a"), ord("z") + 1)})


def gsr(args: list[str], capsys) -> tuple[int, str, str]:
    """`gsr ARGS` in this process: (exit status, stdout, stderr), never a traceback."""
    status = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    return status, out, err


def _unknown_documents(folder) -> None:
    """The qrels with every document id changed: they judge none of the collection's documents as relevant (one
    non-relevant judgment of a document of the collection is left)."""
    lines = (folder / "qrels.txt").read_text(encoding="utf-8").splitlines()
    edited = [" ".join([q, it, "z" + d if int(g) > 0 else d, g]) for q, it, d, g in (line.split() for line in lines)]
    (folder / "qrels.txt").write_text("\n".join(edited) + "\n", encoding="utf-8")


def test_gsr_score_refuses_qrels_judging_no_document_of_the_collection(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    _unknown_documents(folder)
    status, out, err = gsr(score_args(folder), capsys)
    assert status == 2 and out == ""
    assert err.strip().splitlines()[-1] == (
        f"gsr: error: qrels: none of the 10 relevant judged documents is in {folder / 'docs.jsonl'} (e.g. zf1); do "
        "the qrels belong to these documents?"
    )


def test_gsr_run_refuses_qrels_judging_no_relevant_document_of_the_collection(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    _unknown_documents(folder)
    status, _, err = gsr(["run", str(folder / "config.toml"), "--out", str(folder / "out")], capsys)
    assert status == 2
    assert "none of the 10 relevant judged document ids is in the documents (e.g. zf1)" in err


def test_fullwidth_topics_are_measured_as_typed_in_ascii(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    _, plain, _ = gsr([*score_args(folder), "--json"], capsys)
    (folder / "topics.tsv").write_text(
        "".join(f"{q}\t{t.translate(FULLWIDTH)}\n" for q, t in TOPICS.items()), encoding="utf-8"
    )
    status, folded, _ = gsr([*score_args(folder), "--json"], capsys)
    assert status == 0
    assert json.loads(folded)["gsr"] == json.loads(plain)["gsr"]
    assert json.loads(folded)["n_queries"] == len(TOPICS)


def test_a_gsr_of_few_of_the_topics_says_how_many(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    extra = "".join(f"u{i}\tzzyzx qwerty\n" for i in range(6))  # six topics with no word of the embedding
    (folder / "topics.tsv").write_text((folder / "topics.tsv").read_text(encoding="utf-8") + extra, encoding="utf-8")
    args = score_args(folder, qrels=False)
    status, out, err = gsr([*args, "--json"], capsys)
    warning = "GSR from 5 of 11 topics (6 query_out_of_vocabulary)"
    assert status == 0 and json.loads(out)["warning"] == warning
    assert f"run.txt: {warning}" in err
    status, out, _ = gsr(args, capsys)
    assert f"run.txt: warning: {warning}" in out
