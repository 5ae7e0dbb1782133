"""Bad input to FaiRR/NFaiRR in `gsr bias` (issue 38): a word-list line without ',f' / ',m', an unknown group, a
threshold < 0, a background run that misses a query of the run, a cut-off ≤ 0, a background depth ≤ 0 and shares
that are no distribution. Each stops with one line naming the file and line or the option (exit status 2, no
traceback), before any document is read: no cache entry of the collection is made."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from experiments.cli import main
from gsr.io.fairness_sensitive import REPRESENTATIVE_WORDS_FILE
from tests.support.toy_collection import write_toy


@dataclass(frozen=True)
class Case:
    """Extra `gsr bias` arguments ({dir}: the toy folder), files to write first, and the message."""

    extra: tuple[str, ...]
    message: str
    files: tuple[tuple[str, str], ...] = ()


CASES = {
    "word-list-line-without-group": Case(
        ("--gender-words", "{dir}/words.txt"),
        "{dir}/words.txt:2: expected 'word,GROUP' (e.g. 'she,f'), not 'nurse'",
        (("words.txt", "she,f\nnurse\nhe,m\n"),),
    ),
    "word-list-unknown-group": Case(
        ("--gender-words", "{dir}/words.txt"),
        "{dir}/words.txt:3: unknown group 'x' (the groups are f, m; their shares name them)",
        (("words.txt", "she,f\nhe,m\nnurse,x\n"),),
    ),
    "word-list-word-in-two-groups": Case(
        ("--gender-words", "{dir}/words.txt"),
        "{dir}/words.txt:2: 'she' is listed under groups f and m",
        (("words.txt", "she,f\nShe,m\n"),),
    ),
    "threshold-below-zero": Case(
        ("--neutrality-threshold", "-1"), "argument --neutrality-threshold: must be a number ≥ 0, not '-1'"
    ),
    "threshold-not-a-number": Case(
        ("--neutrality-threshold", "one"), "argument --neutrality-threshold: must be a number ≥ 0, not 'one'"
    ),
    "background-misses-a-query": Case(
        ("--background", "{dir}/background.txt"),
        "background run {dir}/background.txt misses query q2 (and 3 more) of the run",
        (("background.txt", "q1 Q0 m1 1 2.0 bg\n"),),
    ),
    "cutoff-zero": Case(("--cutoffs", "5,0"), "argument --cutoffs: must be positive integers joined with ','"),
    "cutoff-negative": Case(("--cutoffs", "-5"), "argument --cutoffs: must be positive integers joined with ','"),
    "background-depth-zero": Case(
        ("--background-depth", "0"), "argument --background-depth: must be a positive integer, not '0'"
    ),
    "shares-not-summing-to-one": Case(
        ("--group-shares", "f=0.5,m=0.6"), "argument --group-shares: the group shares must sum to 1"
    ),
    "shares-for-groups-the-list-lacks": Case(
        ("--group-shares", "w=0.5,x=0.5"),
        f"{REPRESENTATIVE_WORDS_FILE}:1: unknown group 'm' (the groups are w, x; their shares name them)",
    ),
    "rab-labels-without-labels": Case(("--rab", "labels"), "--rab labels reads the document labels: give --labels"),
    "background-without-docs": Case(
        ("--background", "{dir}/run.txt", "--no-fairr"), "--background is FaiRR's background run: give --docs"
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_fairr_input(case: Case, tmp_path, capsys, own_cache):
    folder = write_toy(tmp_path / "toy")
    for name, text in case.files:
        (folder / name).write_text(text, encoding="utf-8")
    extra = [a.replace("{dir}", str(folder)) for a in case.extra]
    try:
        status = main(["bias", "--run", str(folder / "run.txt"), "--docs", str(folder / "docs.jsonl"), *extra])
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    out, err = capsys.readouterr()
    assert status == 2, err
    assert "Traceback" not in err + out
    errors = [line for line in err.splitlines() if "error: " in line]
    assert len(errors) == 1 and errors[0].startswith("gsr"), err  # one message (argparse adds a usage above)
    assert case.message.replace("{dir}", str(folder)) in errors[0], err
    assert not list(Path(own_cache).glob("document-*")), "the documents were read before the error"


def test_the_toy_collection_passes_without_the_mutations(tmp_path, capsys, own_cache):
    """The cases above fail for their mutation alone: the same command on the untouched files works."""
    folder = write_toy(tmp_path / "toy")
    argv = ["bias", "--run", str(folder / "run.txt"), "--docs", str(folder / "docs.jsonl"), "--json"]
    assert main([*argv, "--background", str(folder / "run.txt"), "--cutoffs", "5,10"]) == 0, capsys.readouterr().err
    assert "NFaiRR@10" in capsys.readouterr().out


def test_neither_labels_nor_documents(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    assert main(["bias", "--run", str(folder / "run.txt")]) == 2
    assert "give --labels (the label-based measures) or --docs" in capsys.readouterr().err
