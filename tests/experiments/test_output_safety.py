"""Nothing the user owns is replaced (issue 35, items 5-7): `gsr export` never replaces a file and writes nothing
when one of its files is refused; no command writes over one of its own inputs, by any path, link or hard link,
whatever the flags; output paths that cannot hold a file (a folder, a FIFO, a dangling link, /proc, /sys, /dev, a
name too long for the file system) and names that hide or reorder what they show, or read as another name, are one
line before any work. Everything runs on the toy collection (tests.support.toy_collection)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import main
from tests.support.toy_collection import CONFIG, score_args, write_toy

PROJECT = Path(__file__).resolve().parents[2]
# the longest name a file has while gsr writes it, written out here rather than imported from the code it checks:
# place_file's partial name ('.NAME.<7-digit pid>.partial'), written by atomic_write under a staging name
# ('.PARTIAL.staging-<40-character host>-<12 hex digits>.tmp')
WRITTEN_OVERHEAD = (1 + 1 + 7 + len(".partial")) + (1 + len(".staging-") + 40 + 1 + 12 + len(".tmp"))


def gsr_cli(args: list[str], capsys) -> tuple[int, str, str]:
    """`gsr ARGS` in this process: (exit status, stdout, stderr); never a traceback, every error one line."""
    try:
        status = main([str(a) for a in args])
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    if status == 2:
        assert len([line for line in err.splitlines() if line.startswith("gsr: error:")]) == 1, err
    return status, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def toy(tmp_path) -> Path:
    return write_toy(tmp_path / "toy")


@pytest.fixture(params=["/proc", "/sys", "/dev"])
def pseudo(request, tmp_path) -> Path:
    """A path of this test's own under a pseudo file system (/proc, /sys, /dev), removed again should a write reach
    it (as root, a file in /dev is created)."""
    if not os.path.isdir(request.param):
        pytest.skip(f"no {request.param} here")
    path = Path(request.param) / f"gsr-test-{tmp_path.name}-{os.getpid()}"
    yield path
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)


# ----------------------------------------------------------------------------------------------- 5. gsr export

TOY1_FILES = [
    "counter-stereotypical.run",
    "documents.jsonl",
    "neutral.run",
    "qrels.txt",
    "stereotypical.run",
    "topics.tsv",
]


def test_export_never_replaces_a_file_and_a_refused_export_writes_nothing(tmp_path, capsys):
    """Today a user's edited topics.tsv was silently replaced."""
    out = tmp_path / "toy1"
    out.mkdir()
    (out / "topics.tsv").write_text("my edited topics\n", encoding="utf-8")
    status, stdout, err = gsr_cli(["export", "toy1", "--out", out], capsys)
    assert status == 2 and f"--out {out}/topics.tsv already exists; give a new file, or --overwrite" in err
    assert (out / "topics.tsv").read_text(encoding="utf-8") == "my edited topics\n"
    assert sorted(os.listdir(out)) == ["topics.tsv"] and stdout == ""  # every file checked first: no half export
    status, stdout, _ = gsr_cli(["export", "toy1", "--out", out, "--overwrite"], capsys)
    assert status == 0 and sorted(os.listdir(out)) == TOY1_FILES
    assert (out / "topics.tsv").read_text(encoding="utf-8").startswith("stonemason\t")  # replaced, as asked
    exported = snapshot(out)
    status, _, err = gsr_cli(["export", "toy1", "--out", out], capsys)  # a second export: its own files are the user's
    assert status == 2 and "documents.jsonl already exists" in err and snapshot(out) == exported


def _a_file(tmp: Path) -> tuple[Path, str]:
    (tmp / "out").write_text("x")
    return tmp / "out", "--out {tmp}/out is a file, not a folder"


def _under_a_file(tmp: Path) -> tuple[Path, str]:
    (tmp / "file").write_text("x")
    return tmp / "file" / "out", "--out {tmp}/file/out cannot be created: {tmp}/file is a file"


def _dangling_link(tmp: Path) -> tuple[Path, str]:
    (tmp / "out").symlink_to(tmp / "nowhere")
    return tmp / "out", "--out {tmp}/out is a link to {tmp}/nowhere, which does not exist"


def _under_a_dangling_link(tmp: Path) -> tuple[Path, str]:
    (tmp / "link").symlink_to(tmp / "nowhere")
    return tmp / "link" / "out", "--out {tmp}/link/out cannot be created: {tmp}/link is a link to {tmp}/nowhere"


def _a_target_is_a_folder(tmp: Path) -> tuple[Path, str]:
    (tmp / "out" / "topics.tsv").mkdir(parents=True)
    return tmp / "out", "--out {tmp}/out/topics.tsv is a folder"


def _a_target_is_a_fifo(tmp: Path) -> tuple[Path, str]:
    (tmp / "out").mkdir()
    os.mkfifo(tmp / "out" / "qrels.txt")
    return tmp / "out", "--out {tmp}/out/qrels.txt is a FIFO, not a regular file"


@pytest.mark.parametrize(
    "make", [_a_file, _under_a_file, _dangling_link, _under_a_dangling_link, _a_target_is_a_folder, _a_target_is_a_fifo]
)
def test_export_to_a_path_that_cannot_hold_its_files_is_one_line_even_with_overwrite(make, tmp_path, capsys):
    """Today a file, a path under a file or a dangling link at --out was a FileExistsError traceback."""
    target, message = make(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for extra in ([], ["--overwrite"]):
        status, _, err = gsr_cli(["export", "toy1", "--out", target, *extra], capsys)
        assert status == 2 and message.format(tmp=tmp_path) in err
        assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written, nothing replaced


def test_export_over_a_dangling_link_needs_overwrite_and_then_replaces_the_link(tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "qrels.txt").symlink_to(tmp_path / "gone")
    status, _, err = gsr_cli(["export", "toy1", "--out", tmp_path / "out"], capsys)
    assert status == 2 and f"qrels.txt already exists (a link to {tmp_path}/gone, which does not exist)" in err
    assert gsr_cli(["export", "toy1", "--out", tmp_path / "out", "--overwrite"], capsys)[0] == 0
    assert not (tmp_path / "out" / "qrels.txt").is_symlink() and not (tmp_path / "gone").exists()


def test_export_onto_a_pseudo_file_system_is_one_line(pseudo, capsys):
    """Today /proc was a FileNotFoundError traceback, and /dev (as root) got the files."""
    status, _, err = gsr_cli(["export", "toy1", "--out", pseudo], capsys)
    assert status == 2 and f"--out {pseudo} is on {pseudo.parent}, a pseudo file system" in err
    assert not os.path.lexists(pseudo)


def test_export_into_a_folder_it_cannot_write_is_one_line(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root writes in any folder")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    status, _, err = gsr_cli(["export", "toy1", "--out", locked / "out"], capsys)
    assert status == 2 and f"cannot be created: {locked} is not writable" in err


def test_an_export_folder_name_too_long_for_the_file_system_is_one_line(tmp_path, capsys):
    status, _, err = gsr_cli(["export", "toy1", "--out", tmp_path / ("d" * 300)], capsys)
    assert status == 2 and "bytes long, over the" in err and not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------------------------- 6. inputs


def _spelled(toy: Path, name: str, how: str) -> Path:
    """Another path to the toy's file `name`: itself, another spelling, a symbolic link or a hard link."""
    if how == "itself":
        return toy / name
    if how == "spelled":
        (toy / "sub").mkdir(exist_ok=True)
        return toy / "sub" / ".." / name
    other = toy / f"other-{how}-{name}"
    if how == "symlink":
        other.symlink_to(toy / name)
    else:
        os.link(toy / name, other)
    return other


SCORE_INPUTS = {
    "--qrels": "qrels.txt",
    "--topics": "topics.tsv",
    "--run": "run.txt",
    "--docs": "docs.jsonl",
    "--embedding": "vectors.txt",
    "--definitional": "pairs.json",
    "--stopwords": "stop.txt",
}


@pytest.mark.parametrize("how", ["itself", "spelled", "symlink", "hardlink"])
@pytest.mark.parametrize("option", SCORE_INPUTS)
def test_score_html_never_writes_over_one_of_its_inputs_even_with_overwrite(option, how, toy, capsys):
    """Today `--html QRELS --overwrite` turned the qrels into HTML."""
    target = _spelled(toy, SCORE_INPUTS[option], how)
    extra = {"--definitional": ["--definitional", toy / "pairs.json"], "--stopwords": ["--stopwords", toy / "stop.txt"]}
    before = snapshot(toy)
    status, out, err = gsr_cli([*score_args(toy), *extra.get(option, []), "--html", target, "--overwrite"], capsys)
    assert status == 2 and out == ""  # before any work
    assert f"--html {target} is the input {option} {toy / SCORE_INPUTS[option]}" in err
    assert "not even with --overwrite" in err
    assert snapshot(toy) == before


def test_score_html_in_a_folder_of_input_documents_is_refused(toy, capsys):
    documents = toy / "documents"
    documents.mkdir()
    shutil.copy(toy / "docs.jsonl", documents / "part-1.jsonl")
    args = [*score_args(toy), "--docs", documents, "--html", documents / "report.html"]
    status, out, err = gsr_cli(args, capsys)
    assert status == 2 and out == "" and f"lies in {documents}, the input --docs" in err
    assert sorted(os.listdir(documents)) == ["part-1.jsonl"]


def test_score_html_at_a_dangling_link_is_found_before_the_work(toy, capsys):
    """Today the link was found only after scoring, as 'appeared while scoring'."""
    link = toy / "report.html"
    link.symlink_to(toy / "missing" / "report.html")
    status, out, err = gsr_cli([*score_args(toy), "--html", link], capsys)
    assert status == 2 and out == "" and "already exists (a link to" in err and "--overwrite to replace the link" in err
    assert gsr_cli([*score_args(toy), "--html", link, "--overwrite", "-q"], capsys)[0] == 0
    assert not link.is_symlink() and link.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_score_html_on_a_pseudo_file_system_is_refused_before_the_work(pseudo, toy, capsys):
    """Today /dev/gsr.html was written (as root) and /proc/gsr.html was a traceback after the work."""
    status, out, err = gsr_cli([*score_args(toy), "--html", pseudo, "--overwrite"], capsys)
    assert status == 2 and out == "" and "a pseudo file system of the kernel" in err and not os.path.lexists(pseudo)


def test_score_html_that_is_a_fifo_or_a_folder_is_refused_even_with_overwrite(toy, capsys):
    os.mkfifo(toy / "pipe.html")
    (toy / "folder.html").mkdir()
    for target, said in ((toy / "pipe.html", "is a FIFO, not a regular file"), (toy / "folder.html", "is a folder")):
        status, out, err = gsr_cli([*score_args(toy), "--html", target, "--overwrite"], capsys)
        assert status == 2 and out == "" and said in err


def test_score_html_name_too_long_for_the_file_system_is_refused_before_the_work(toy, capsys):
    limit = os.pathconf(toy, "PC_NAME_MAX")
    longest = "r" * (limit - WRITTEN_OVERHEAD - len(".html")) + ".html"
    status, out, err = gsr_cli([*score_args(toy), "--html", toy / ("r" + longest)], capsys)
    assert status == 2 and out == "" and "give a shorter name" in err
    assert gsr_cli([*score_args(toy), "--html", toy / longest, "-q"], capsys)[0] == 0  # the longest name that fits
    assert (toy / longest).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("how", ["itself", "symlink", "hardlink"])
def test_rerank_never_writes_over_its_run_and_replaces_a_file_only_with_overwrite(how, toy, capsys):
    """Today `gsr rerank --out RUN` replaced the run silently."""
    target = _spelled(toy, "run.txt", how)
    before = snapshot(toy)
    rerank = ["rerank", "--run", toy / "run.txt", "--method", "epsilon_greedy", "--out", target]
    for extra in ([], ["--overwrite"]):
        status, _, err = gsr_cli([*rerank, *extra], capsys)
        assert status == 2 and f"--out {target} is the input --run {toy / 'run.txt'}" in err
    assert snapshot(toy) == before
    (toy / "mine.run").write_text("my own run\n", encoding="utf-8")
    rerank[-1] = toy / "mine.run"
    status, _, err = gsr_cli(rerank, capsys)
    assert status == 2 and "already exists; give a new file, or --overwrite" in err
    assert (toy / "mine.run").read_text(encoding="utf-8") == "my own run\n"
    assert gsr_cli([*rerank, "--overwrite"], capsys)[0] == 0
    assert (toy / "mine.run").read_text(encoding="utf-8").startswith("q1 Q0 ")


def test_rerank_never_writes_over_its_labels(toy, capsys):
    (toy / "labels.tsv").write_text("m1\tmale\nf1\tfemale\n", encoding="utf-8")
    rerank = ["rerank", "--run", toy / "run.txt", "--method", "dash", "--labels", toy / "labels.tsv"]
    status, _, err = gsr_cli([*rerank, "--out", toy / "labels.tsv", "--overwrite"], capsys)
    assert status == 2 and "is the input --labels" in err
    assert (toy / "labels.tsv").read_text(encoding="utf-8") == "m1\tmale\nf1\tfemale\n"


@pytest.mark.parametrize(
    "option, name, extra",
    [
        ("--embedding", "vectors.txt", []),
        ("--definitional", "pairs.json", ["--definitional", "{toy}/pairs.json"]),
        ("--gender-specific", "words.json", ["--gender-specific", "{toy}/words.json"]),
    ],
)
@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_debias_never_writes_over_one_of_its_inputs_through_links(option, name, extra, how, toy, capsys):
    target = _spelled(toy, name, how)
    before = snapshot(toy)
    args = ["debias", "--embedding", toy / "vectors.txt", *(e.format(toy=toy) for e in extra), "--out", target]
    status, _, err = gsr_cli([*args, "--overwrite"], capsys)
    assert status == 2 and f"--out {target} is the input {option} {toy / name}" in err
    assert snapshot(toy) == before


def test_debias_compressed_output_is_compressed_and_never_replaced_without_overwrite(toy, capsys):
    import gzip

    out = toy / "debiased.txt.gz"
    assert gsr_cli(["debias", "--embedding", toy / "vectors.txt", "--out", out], capsys)[0] == 0
    assert gzip.decompress(out.read_bytes()).split(b"\n", 1)[0] == b"38 3"  # the writer still saw the .gz ending
    written = out.read_bytes()
    status, _, err = gsr_cli(["debias", "--embedding", toy / "vectors.txt", "--out", out], capsys)
    assert status == 2 and "already exists" in err and out.read_bytes() == written
    assert not [p for p in toy.iterdir() if "partial" in p.name or "staging" in p.name]


def _gsr_process(args: list, stdout=subprocess.PIPE, stderr=subprocess.PIPE) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    code = "import sys; from experiments.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], stdout=stdout, stderr=stderr, env=env, timeout=120, check=False
    )


@pytest.mark.parametrize(
    "command, stream, victim",
    [
        (["label", "--docs", "{toy}/docs.jsonl"], "stdout", "--docs docs.jsonl"),
        (
            ["queries", "--topics", "{toy}/topics.tsv", "--embedding", "{toy}/vectors.txt"],
            "stdout",
            "--topics topics.tsv",
        ),
        (
            ["bias", "--run", "{toy}/run.txt", "--labels", "intrinsic", "--docs", "{toy}/docs.jsonl"],
            "stdout",
            "--run run.txt",
        ),
        (score_args(Path("{toy}")), "stdout", "--qrels qrels.txt"),
        (score_args(Path("{toy}")), "stderr", "--qrels qrels.txt"),
    ],
    ids=["label-stdout", "queries-stdout", "bias-stdout", "score-stdout", "score-stderr"],
)
def test_standard_output_or_error_sent_to_an_input_is_refused(command, stream, victim, toy):
    """`gsr label --docs d.jsonl >> d.jsonl` appended labels to the documents being read (and `>` emptied them)."""
    option, name = victim.split()
    before = (toy / name).read_bytes()
    with open(toy / name, "ab") as appended:
        done = _gsr_process([part.format(toy=toy) for part in map(str, command)], **{stream: appended})
    assert done.returncode == 2
    assert (toy / name).read_bytes() == before  # not one byte appended, the error message included
    said = (done.stderr if stream == "stdout" else done.stdout).decode()
    assert f"standard {'output' if stream == 'stdout' else 'error'} is the input {option} {toy / name}" in said


def test_plots_never_replace_a_figure_without_overwrite(toy, capsys):
    folder = toy / "figures"
    folder.mkdir()
    (folder / "fig7_queries.png").write_bytes(b"my figure")
    queries = ["queries", "--topics", toy / "topics.tsv", "--embedding", toy / "vectors.txt", "--plots", folder]
    status, out, err = gsr_cli(queries, capsys)
    assert status == 2 and out == "" and f"--plots {folder}/fig7_queries.png already exists" in err
    (folder / "fig1_stereotypes.png").write_bytes(b"my figure")
    status, out, err = gsr_cli(["validate", "--embedding", toy / "vectors.txt", "--plots", folder], capsys)
    assert status == 2 and out == "" and f"--plots {folder}/fig1_stereotypes.png already exists" in err
    assert (folder / "fig7_queries.png").read_bytes() == (folder / "fig1_stereotypes.png").read_bytes() == b"my figure"
    status, _, err = gsr_cli([*queries[:-1], toy / "topics.tsv"], capsys)
    assert status == 2 and "is a file, not a folder" in err


def _run(toy: Path, capsys, *extra, out: Path | None = None) -> tuple[int, str, str]:
    return gsr_cli(["run", toy / "config.toml", "--out", out or toy / "out", "--quiet", *extra], capsys)


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_run_output_folder_holding_a_link_to_an_input_is_refused_even_with_overwrite(how, toy, capsys):
    (toy / "out").mkdir()
    link = toy / "out" / "results.md"
    link.symlink_to(toy / "qrels.txt") if how == "symlink" else os.link(toy / "qrels.txt", link)
    before = snapshot(toy)
    for extra in ([], ["--overwrite"]):
        status, out, err = _run(toy, capsys, *extra)
        assert status == 2 and out == "" and f"holds {link}, an input of this command (the input" in err
    assert snapshot(toy) == before


def test_run_output_folder_inside_an_input_folder_is_refused(toy, capsys):
    documents = toy / "documents"
    documents.mkdir()
    shutil.copy(toy / "docs.jsonl", documents / "part-1.jsonl")
    (toy / "config.toml").write_text(CONFIG.replace('documents = "docs.jsonl"', 'documents = "documents"'))
    status, _, err = _run(toy, capsys, out=documents / "out")
    assert status == 2 and f"lies in {documents}, the input collection.documents" in err
    assert sorted(os.listdir(documents)) == ["part-1.jsonl"]


def test_run_output_on_a_pseudo_file_system_is_one_line(pseudo, toy, capsys):
    status, _, err = _run(toy, capsys, out=pseudo)
    assert status == 2 and "a pseudo file system of the kernel" in err and not os.path.lexists(pseudo)


# ----------------------------------------------------------------------------------------------- 7. names


def _config(toy: Path, old: str, new: str) -> None:
    text = (toy / "config.toml").read_text(encoding="utf-8")
    assert old in text
    (toy / "config.toml").write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_system_name_too_long_for_its_output_files_is_refused_before_the_work(toy, capsys):
    """A 300-character name crashed with 'File name too long' after all the work."""
    _config(toy, 'name = "add"', 'name = "' + "a" * 300 + '"')
    status, out, err = _run(toy, capsys)
    assert status == 2 and out == "" and "systems[0].name 'aaaa" in err and "choose a shorter name" in err
    assert not (toy / "out").exists()


def test_the_longest_system_name_that_fits_runs_and_one_more_byte_is_refused(toy, capsys):
    """The toy config debiases 'add': its longest output file is runs/NAME__debiased_.run."""
    limit = os.pathconf(toy, "PC_NAME_MAX")
    longest = "a" * (limit - WRITTEN_OVERHEAD - len("__debiased_.run"))
    _config(toy, 'name = "add"', f'name = "{longest}a"')
    status, _, err = _run(toy, capsys)
    assert status == 2 and "systems[0].name 'aaaa" in err and "runs/aaaa" in err
    _config(toy, f'name = "{longest}a"', f'name = "{longest}"')
    status, _, err = _run(toy, capsys)
    assert status == 0, err
    assert (toy / "out" / "runs" / f"{longest}__debiased_.run").is_file()
    assert (toy / "out" / "per_query" / f"{longest}.txt").is_file()


def test_a_measuring_embedding_name_too_long_for_its_figure_is_refused(toy, capsys):
    (toy / "config.toml").write_text(CONFIG.replace("tiny", "t" * 250), encoding="utf-8")  # gsr_NAME.png
    status, _, err = _run(toy, capsys)
    assert status == 2 and "gsr.measuring 'tttt" in err and "gsr_" in err


def test_an_output_folder_name_too_long_is_refused_before_the_work(toy, capsys):
    status, _, err = _run(toy, capsys, out=toy / ("o" * 300))
    assert status == 2 and "--out" in err and "bytes long, over the" in err


INVISIBLE = {
    "bell": "\x07",
    "newline": "\n",
    "tab": "\t",
    "escape": "\x1b",
    "rlo": "\u202e",
    "lre": "\u202a",
    "pdf": "\u202c",
    "lri": "\u2066",
    "pdi": "\u2069",
    "zwsp": "\u200b",
    "zwnj": "\u200c",
    "zwj": "\u200d",
    "word-joiner": "\u2060",
    "bom": "\ufeff",
    "soft-hyphen": "\u00ad",
    "line-separator": "\u2028",
}


def _toml(text: str) -> str:
    return json.dumps(text)  # a TOML basic string: JSON's escapes are TOML's


@pytest.mark.parametrize("character", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_names_with_invisible_or_reordering_characters_are_refused_naming_the_key(character, toy, capsys):
    cases = [
        ('name = "add"', f"name = {_toml('ad' + character + 'd')}", "systems[0].name"),
        ("threads = 1", f"threads = 1\nname = {_toml('exp' + character)}", "name 'exp"),
        ("[embeddings.tiny]", f"[embeddings.{_toml('ti' + character + 'ny')}]", "the embedding name holds"),
    ]
    original = (toy / "config.toml").read_text(encoding="utf-8")
    for old, new, key in cases:
        (toy / "config.toml").write_text(original.replace(old, new, 1), encoding="utf-8")
        status, _, err = _run(toy, capsys)
        assert status == 2 and key in err and f"U+{ord(character):04X}" in err, (new, err)


@pytest.mark.parametrize(
    "name, reads_as",
    [
        ("ｐｅｒｆｅｃｔ", "perfect"),
        ("ＲＡＮＤＯＭ", "random"),
        ("Ｐerfect", "perfect"),
        ("ｒandom", "random"),
        ("perfect ", "perfect"),
        ("\u00a0random", "random"),
    ],
)
def test_a_system_name_that_folds_to_a_reference_engine_is_refused(name, reads_as, toy, capsys):
    _config(toy, 'name = "add"', f'name = "{name}"')
    status, _, err = _run(toy, capsys)
    assert status == 2 and f"systems[0].name: system name {name!r} is reserved" in err and f"{reads_as!r}" in err


@pytest.mark.parametrize("other", ["ＡＤＤ", "Add", "ａｄｄ", " add", "add\u3000"])
def test_two_systems_whose_names_fold_to_one_are_refused(other, toy, capsys):
    _config(toy, 'name = "si"', f'name = "{other}"')
    status, _, err = _run(toy, capsys)
    assert status == 2 and f"systems[1].name: systems 'add' and {other!r}" in err


def test_two_measuring_embeddings_whose_names_fold_to_one_are_refused(toy, capsys):
    _config(toy, "[embeddings.tiny]", '[embeddings."ＴＩＮＹ"]\nsource = "vectors.txt"\n[embeddings.tiny]')
    _config(toy, 'measuring = "tiny"', 'measuring = ["tiny", "ＴＩＮＹ"]')
    status, _, err = _run(toy, capsys)
    assert status == 2 and "gsr.measuring 'tiny' and 'ＴＩＮＹ' would name one GSR column" in err


@pytest.mark.parametrize(
    "file_name, message",
    [
        ("ｐｅｒｆｅｃｔ", "would be taken for the perfect reference engine"),
        ("Random", "would be taken for the random reference engine"),
        ("run\u202etxt.exe", "its name holds a bidirectional override, U+202E"),
        ("ru\u200bn.txt", "its name holds a zero-width character, U+200B"),
        ("run\x1b[31m.txt", "its name holds a control character, U+001B"),
    ],
)
def test_score_refuses_run_names_that_hide_or_read_as_another_row(file_name, message, toy, capsys):
    shutil.copy(toy / "run.txt", toy / file_name)
    status, out, err = gsr_cli([*score_args(toy, runs=(file_name,))], capsys)
    assert status == 2 and out == "" and message in err


def test_score_names_runs_whose_file_names_fold_to_one_by_their_paths(toy, capsys):
    for folder, name in (("a", "run.txt"), ("b", "ＲＵＮ.txt")):
        (toy / folder).mkdir()
        shutil.copy(toy / "run.txt", toy / folder / name)
    status, out, _ = gsr_cli(
        [*score_args(toy, runs=("a/run.txt", "b/ＲＵＮ.txt")), "--json", "--resamples", "0"], capsys
    )
    assert status == 0 and [r["run"] for r in json.loads(out)["runs"]] == [f"{toy}/a/run.txt", f"{toy}/b/ＲＵＮ.txt"]
    shutil.copy(toy / "run.txt", toy / "a" / "RUN.txt")
    status, _, err = gsr_cli([*score_args(toy, runs=("a/run.txt", "a/RUN.txt")), "--resamples", "0"], capsys)
    assert status == 2 and "would name one row" in err


# ----------------------------------------------------------------------------------------------- the helpers


def test_folding_and_name_problems_by_hand():
    from gsr.infra.names import first_clash, folded, name_problem

    assert folded("Ｐｅｒ\u200bＦＥＣＴ") == "perfect" and folded("Straße") == folded("STRASSE") == "strasse"
    assert folded("ﬁle") == "file"  # a ligature (NFKC)
    assert first_clash(["bm25", "qld", "ＱＬＤ"]) == ("ＱＬＤ", "qld")
    assert first_clash(["x", "y"], reserved=["perfect"]) is None
    assert name_problem("BM25 (k1=0.9)") is None and name_problem("é à ü 日本") is None
    assert name_problem("   ") == "is blank"
    for character in INVISIBLE.values():
        assert name_problem(f"a{character}b").startswith("holds ") and "at character 2" in name_problem(
            f"a{character}b"
        )


def test_the_name_limit_is_the_file_systems_with_the_staging_names(tmp_path):
    from gsr.infra.outputs import file_name_problem, longest_written_name, name_max

    assert name_max(tmp_path / "not" / "yet") == os.pathconf(tmp_path, "PC_NAME_MAX")
    assert len(longest_written_name("x")) == 1 + WRITTEN_OVERHEAD
    assert len(longest_written_name("x.gz")) == 4 + WRITTEN_OVERHEAD + 3  # the partial file keeps the .gz ending
    fits = "é" * ((os.pathconf(tmp_path, "PC_NAME_MAX") - WRITTEN_OVERHEAD) // 2)  # bytes count, not characters
    assert file_name_problem(fits, tmp_path) is None and file_name_problem(fits + "é", tmp_path) is not None


def test_an_output_path_reached_through_proc_is_refused_whatever_it_points_to(toy, capsys):
    """/proc/self/fd/1 resolves to whatever standard output is; a write there is the kernel's business."""
    for target in (Path("/proc/self/fd/1"), Path("/proc/self/cwd/report.html"), Path("/dev/stdout")):
        status, out, err = gsr_cli([*score_args(toy), "--html", target, "--overwrite"], capsys)
        assert status == 2 and out == "" and "a pseudo file system of the kernel" in err


def test_an_output_path_longer_than_the_file_system_allows_is_one_line(toy, capsys):
    """Each name fits, the whole path does not (PC_PATH_MAX, 4096 bytes on Linux)."""
    deep = toy.joinpath(*["d" * 200] * 25)
    status, out, err = gsr_cli([*score_args(toy), "--html", deep / "report.html"], capsys)
    assert status == 2 and out == "" and "bytes long, over the" in err and not (toy / ("d" * 200)).exists()
    status, _, err = gsr_cli(["export", "toy1", "--out", deep], capsys)
    assert status == 2 and "bytes long, over the" in err and not (toy / ("d" * 200)).exists()


def test_a_name_too_long_that_no_check_foresaw_is_a_storage_error_naming_the_folder(tmp_path):
    """The net under the checks: a write the checks did not foresee fails in one line, never a traceback."""
    from gsr.errors import StorageError
    from gsr.infra.store import atomic_write

    with pytest.raises(StorageError, match=f"cannot write in {tmp_path}: File name too long"):
        with atomic_write(tmp_path / ("a" * 300)) as out:
            out.write("x")


def test_export_into_gsrs_own_package_data_is_refused(capsys):
    import gsr

    data = Path(gsr.__file__).parent / "data" / "grepbiasir" / "runs"
    before = snapshot(data)
    status, _, err = gsr_cli(["export", "grepbiasir", "--out", data, "--overwrite"], capsys)
    assert status == 2 and f"lies in {data.parent.parent}, the input gsr's own package data" in err
    assert snapshot(data) == before
