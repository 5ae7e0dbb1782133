"""Round 6 of hostile testing (the surfaces of the last round: gsr plan, the outputs check, names, signals, gsr
bias's FaiRR, the measure inside a user's project): each case that went wrong, tried as a user would."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from gsr.infra import logs
from gsr.planning.precision import precision
from gsr.planning.studies import StudyDraws
from gsr.vectors import loading
from tests.support.toy_collection import score_args, vectors_text, write_toy

# What a terminal acts on or reorders instead of showing: ESC starts a colour or cursor sequence ('\x1b[2J' clears
# the screen), U+202E shows the rest of the line right to left, U+200B shows nothing.
ACTIVE = ("\x1b", "\u202e", "\u200b")


@pytest.fixture
def toy(tmp_path) -> Path:
    return write_toy(tmp_path / "toy")


def status_of(args: list[str]) -> int:
    """`gsr ARGS` run in this process: its exit status (argparse's own errors exit)."""
    try:
        return main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def test_plan_of_a_pilot_without_noise_says_so_instead_of_crashing():
    """A pilot run whose lists have one genderedness (toy1's neutral run on three topics: g_q(L) equal everywhere)
    has no residual noise: every resampled study has the same slope (half-width exactly 0) while the formula's
    standard error is float rounding (1e-17). Their ratio at the pilot's n was 0, and `gsr plan` ended in a
    ZeroDivisionError traceback."""
    x = np.array([-0.053212333939052295, 0.11850905710306327, -0.16137760770080833])
    y = np.full(3, 0.02889806102837581)
    planned = precision(x, y, [25, 100], 0.95, 0.05, StudyDraws(200, 0))
    assert planned.method == "analytic" and "lie on a line" in planned.method_why
    assert all(width is not None and width < 1e-12 for width in planned.half_width.values())
    assert planned.n_for_target_width == 3


def test_an_error_naming_a_file_shows_its_invisible_characters_escaped(toy, capsys):
    """A topics file named with ESC, a bidi override and a zero-width space: the error line quoted the name raw, so
    the terminal ran the escape sequence and showed the line reordered. Now one line with each written as its
    escape."""
    name = "t\x1b[2J\u202egnp\u200b.tsv"
    args = score_args(toy)
    args[args.index(str(toy / "topics.tsv"))] = str(toy / name)
    assert status_of(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not any(c in err for c in ACTIVE), err
    assert "t\\x1b[2J\\u202egnp\\u200b.tsv: no such file" in err


def test_a_run_name_with_a_line_break_is_refused_in_one_line(toy, capsys):
    """`--run` of a file named 'nl<newline>x.run': refused (a name holding a control character), in one line."""
    (toy / "nl\nx.run").write_bytes((toy / "run.txt").read_bytes())
    args = score_args(toy)
    args[args.index(str(toy / "run.txt"))] = str(toy / "nl\nx.run")
    assert status_of(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nl\\nx.run" in err and "control character" in err, err


def test_warnings_and_progress_lines_show_invisible_characters_escaped(capsys):
    """Warnings and progress lines quote query ids and words of the user's files too."""
    logs.configure(logs.NORMAL)
    try:
        logs.get("test").warning("query %s has no term in the embedding", "q\x1b[31m\u202e1")
        logs.get("test").info("run %s …", "r\u200b")
    finally:
        logging.getLogger(logs.ROOT).setLevel(logging.WARNING)
    err = capsys.readouterr().err
    assert not any(c in err for c in ACTIVE), err
    assert "query q\\x1b[31m\\u202e1 has no term" in err and "run r\\u200b …" in err


def test_every_dash_of_gsr_score_says_why(toy, capsys):
    """`gsr score`'s table printed '—' under relative GSR, and for the perfect and random engines' undefined GSR,
    without a word of why (the JSON had relative_error): relative GSR over a perfect engine whose GSR is zero (one
    relevant document, sharing no word with any query, for every topic), then engines undefined with the run (every
    topic one text)."""
    with (toy / "docs.jsonl").open("a") as docs:
        docs.write('{"id": "z1", "contents": "weather rain city"}\n')
    (toy / "qrels.txt").write_text("".join(f"q{i} 0 z1 1\n" for i in range(1, 6)))
    args = [*score_args(toy), "--cutoff", "3", "--measures", "none", "--resamples", "0"]
    assert status_of(args) == 0
    out = capsys.readouterr().out
    assert "  relative: relative GSR is undefined: the perfect engine's GSR is zero up to rounding" in out, out
    (toy / "topics.tsv").write_text("".join(f"q{i}\tnurse hospital\n" for i in range(1, 6)))
    assert status_of(args) == 1
    out = capsys.readouterr().out
    for engine in ("perfect", "random"):
        assert f"  {engine}: GSR is undefined: every query has the same genderedness" in out, out


def test_a_file_named_like_the_built_in_embedding(tmp_path, monkeypatch, caplog, glove):
    """A project folder holding a vectors file named 'glove-6b-50d': `load_embedding(Path("glove-6b-50d"))` read the
    built-in GloVe instead of the file the path names (a path was compared with the built-in names as text), and
    the string read the built-in without a word about the file beside it."""
    monkeypatch.chdir(tmp_path)
    Path("glove-6b-50d").write_text(vectors_text(), encoding="utf-8")
    monkeypatch.setattr(loading, "_said_shadowed", set())
    assert loading.load_embedding(Path("glove-6b-50d")).vectors.shape[1] == 3  # the file: the toy's 3-d vectors
    assert not caplog.records
    with caplog.at_level(logging.WARNING, logger="gsr"):
        assert loading.load_embedding("glove-6b-50d").vectors.shape[1] == 50
        loading.embedding_version("glove-6b-50d")
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 1 and "give ./glove-6b-50d to read it" in said[0], said


PILOT_ROWS = [("q1", -0.62, -0.65), ("q2", 0.31, 0.30), ("q3", 0.05, 0.10), ("q4", 0.40, 0.22), ("q5", -0.30, -0.12)]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({0: "q1,-0.62,nan"}, "per_query.csv:2: 'nan' is not a finite number"),
        ({2: "q3,inf,0.10"}, "per_query.csv:4: 'inf' is not a finite number"),
        ({1: "q1,0.31,0.30"}, "per_query.csv:3: system 'bm25' has topic 'q1' again"),
    ],
)
def test_a_pilot_folder_edited_by_hand(tmp_path, capsys, edit, said):
    """`gsr plan --pilot DIR` on a per_query.csv edited by hand: a 'nan' or 'inf' in a g column dropped its topic
    unsaid (the pilot shrank from 5 topics to 4), a topic given twice replaced the first unsaid. Each is one line
    naming file:line (gsr run writes an undefined value as an empty cell)."""
    rows = [f"{qid},{gq},{gl}" for qid, gq, gl in PILOT_ROWS]
    for index, row in edit.items():
        rows[index] = row
    (tmp_path / "per_query.csv").write_text(
        "system,qid,g(q) (glove),g_q(L) (glove)\n" + "".join(f"bm25,{row}\n" for row in rows)
    )
    assert status_of(["plan", "--pilot", str(tmp_path), "--resamples", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err


def test_a_line_added_to_gsr_labels_own_file_is_told_what_the_header_asks(tmp_path):
    """A 'docid<TAB>label' line appended to the 4-column TSV `gsr label` writes was refused with "expected
    'docid<TAB>female|male|neutral'": exactly what the line was. The error says the header's column count."""
    from gsr.fairness.labels import LabelSourceError, read_labels_file

    path = tmp_path / "labels.tsv"
    path.write_text("id\tlabel\tfemale_mentions\tmale_mentions\nd1\tmale\t0\t1\nd2\tfemale\n")
    with pytest.raises(LabelSourceError, match=r"labels.tsv:3: expected 4 tab-separated columns, as the header"):
        read_labels_file(path)


HELPED_PLUGIN = '''
"""Every query gets the collection's documents in id order, every STEP-th one (STEP from the user's own helper)."""
from experiments.registry import SYSTEMS, SystemType
from my_step import STEP


def by_id(experiment, system):
    from experiments.collections import collection_docids

    docids = sorted(collection_docids(experiment.collection.documents))[::STEP][:5]
    return {q: [(d, float(len(docids) - i)) for i, d in enumerate(docids)] for q in experiment.collection.queries}


SYSTEMS.register(SystemType("by_id", "documents in id order (a plugin)", by_id))
'''


def test_editing_a_helper_module_a_plugin_imports_recomputes_its_run(tmp_path):
    """A plugin system whose module imports a helper of the user's own (`from my_step import STEP`, a module beside
    it on sys.path that no distribution's RECORD lists): editing the helper left the run 'up to date', and `--force`
    reused the cached run. Its key now covers the files of the modules the plugin imports that no installed
    distribution holds."""
    import subprocess

    from tests.support.plugins import GSR, REPOSITORY, plugin_distribution, plugin_environment
    from tests.support.toy_collection import config_with_systems

    site = tmp_path / "site"
    plugin_distribution(
        site, "gsr-by-id", {"gsr_by_id/__init__.py": HELPED_PLUGIN}, {"gsr.systems": {"by_id": "gsr_by_id"}}
    )
    (site / "my_step.py").write_text("STEP = 1\n")
    env = {**plugin_environment(site, tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    config = config_with_systems(write_toy(tmp_path / "toy"), '[[systems]]\nname = "ById"\nmodel = "by_id"\n')
    run = [*GSR, "run", str(config), "--out", str(tmp_path / "out")]
    written = tmp_path / "out" / "runs" / "ById.run"
    first = subprocess.run(run, capture_output=True, text=True, env=env, cwd=REPOSITORY)
    assert first.returncode == 0, first.stderr
    original = written.read_bytes()

    (site / "my_step.py").write_text("STEP = 2\n")
    edited = subprocess.run(run, capture_output=True, text=True, env=env, cwd=REPOSITORY)
    assert edited.returncode == 0, edited.stderr
    assert "is up to date" not in edited.stderr and "reused run ById" not in edited.stderr
    assert written.read_bytes() != original


def test_a_target_width_out_of_reach_reads_as_a_sentence(toy, capsys):
    """`--target-width 1e-300` printed "a half-width of ±1e-300 needs undefined: a half-width of 1e-300 needs more
    than 10,000,000 topics"."""
    args = ["plan", "--run", str(toy / "run.txt"), "--topics", str(toy / "topics.tsv"), "--docs"]
    args += [str(toy / "docs.jsonl"), "--embedding", str(toy / "vectors.txt"), "--resamples", "100"]
    assert status_of([*args, "--target-width", "1e-300", "--jobs", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "needs undefined" not in out
    assert "the topics a half-width of ±1e-300 needs are undefined: a half-width of 1e-300 needs more than" in out


def test_an_input_that_is_a_pipe_is_one_line_saying_so(toy, capsys):
    """`gsr score --topics <(cat topics.tsv)`: the pipe was read once for its digest (a pipe's size is 0: an empty
    file's digest) and again for its queries, found empty: "no queries in this file". A FIFO nobody writes to hung
    `gsr run` forever. A pipe or a device is now refused naming it, before it is read."""
    import os

    os.mkfifo(toy / "topics.fifo")
    read, write = os.pipe()
    try:
        os.write(write, (toy / "topics.tsv").read_bytes())
        os.close(write)
        for topics in (f"/dev/fd/{read}", str(toy / "topics.fifo"), os.devnull):
            args = score_args(toy)
            args[args.index(str(toy / "topics.tsv"))] = topics
            assert status_of(args) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"{topics}: is a " in err and "save it to a file first" in err, err
    finally:
        os.close(read)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("topics.tsv", "\tnurse\nq2\tmaid\n"),
        ("topics.tsv", "q 1\tnurse\nq2\tmaid\n"),
        ("topics.jsonl", '{"id": "q 1", "text": "nurse"}\n'),
        ("topics.sgml", "<top>\n<num> Number: 301 b\n<title> nurse\n</top>\n"),
    ],
)
def test_a_query_id_no_run_can_name_is_refused(tmp_path, name, text):
    """A query id that is empty or holds white space was read as a query ('q 1' shown as its row), which no TREC
    run or qrels line can name (their columns are split at white space): measured as unanswered, unsaid."""
    from gsr.errors import InputError
    from gsr.io.topics import read_queries

    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=rf"{name}:1: query id '.*' is empty or holds white space"):
        read_queries(path)


def test_fairr_without_the_run_documents_names_the_option_that_counts_them_neutral(toy, capsys):
    """`gsr bias` whose run retrieves documents --docs lacks: the error named the Python keyword
    (missing = 'neutral'), not the option a command line user gives."""
    run = toy / "run.txt"
    run.write_text(run.read_text().replace(" m1 ", " gone "))
    args = ["bias", "--run", str(run), "--docs", str(toy / "docs.jsonl"), "--labels", "intrinsic"]
    assert status_of(args) == 2
    err = capsys.readouterr().err
    assert "no document gone" in err and "--missing-documents neutral" in err, err


def test_a_stop_list_with_cr_only_line_ends_is_refused(tmp_path):
    """A stop list saved with CR-only line ends ('the\\ra\\rof\\r') was read as one 'word', 'the\\ra\\rof': no stop
    word was dropped, and every g_q(d) counted 'the' and 'of', unsaid. Refused as CR-only topics are."""
    from gsr.errors import InputError
    from gsr.text.analyzer import read_stopwords

    path = tmp_path / "stop.txt"
    path.write_bytes(b"the\ra\rof\r")
    with pytest.raises(InputError, match=r"stop.txt:1: a carriage return \(CR\) inside the line"):
        read_stopwords(path)
    path.write_bytes(b"the\r\nof\r\n")  # CRLF is read
    assert read_stopwords(path) == {"the", "of"}
