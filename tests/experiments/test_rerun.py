"""A rerun of `gsr run` whose config, inputs, code and libraries are those the output folder's files were computed
from prints the results it finds and recomputes nothing; any change, an edited output file or --force recomputes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.report import provenance
from tests.support.toy_collection import write_toy


def _run(folder: Path, capsys, *extra: str) -> tuple[str, str]:
    status = main(["run", str(folder / "config.toml"), "--out", str(folder / "out"), *extra])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out, err


def _stamps(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (folder / "out").rglob("*") if p.is_file()}


@pytest.fixture
def computed(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    out, _ = _run(folder, capsys)
    return folder, out


def test_an_unchanged_rerun_prints_the_same_results_and_writes_nothing(computed, capsys):
    folder, first = computed
    before = _stamps(folder)
    out, err = _run(folder, capsys)
    assert out == first and "is up to date" in err and "run " not in err
    assert _stamps(folder) == before
    manifest = json.loads((folder / "out" / ".gsr-output.json").read_text(encoding="utf-8"))
    assert set(manifest["digests"]) == set(manifest["files"]) and len(manifest["fingerprint"]) > 8


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda folder: (folder / "out" / "results.md").write_text("edited\n"), id="an-edited-output"),
        pytest.param(lambda folder: (folder / "out" / "per_query.csv").unlink(), id="a-deleted-output"),
        pytest.param(
            lambda folder: (folder / "qrels.txt").write_text((folder / "qrels.txt").read_text() + "401 0 d9 0\n"),
            id="an-edited-input",
        ),  # fmt: skip
        pytest.param(
            lambda folder: (folder / "config.toml").write_text(
                (folder / "config.toml").read_text() + "\n# a comment\n"
            ),
            id="an-edited-config",
        ),  # fmt: skip
    ],
)
def test_a_change_recomputes(computed, capsys, change):
    folder, first = computed
    change(folder)
    out, err = _run(folder, capsys)
    assert "is up to date" not in err and out.splitlines()[0] == first.splitlines()[0]
    assert (folder / "out" / "results.md").read_text(encoding="utf-8") != "edited\n"
    assert (folder / "out" / "per_query.csv").is_file()


def test_changed_code_or_libraries_or_force_recompute(computed, capsys, monkeypatch):
    folder, _ = computed
    monkeypatch.setattr(provenance, "source_digest", lambda: "another version of the code")
    assert "is up to date" not in _run(folder, capsys)[1]
    monkeypatch.setattr(provenance, "installed_versions", lambda: [("numpy", "0.0")])
    assert "is up to date" not in _run(folder, capsys)[1]
    assert "is up to date" in _run(folder, capsys)[1]
    before = _stamps(folder)
    assert "is up to date" not in _run(folder, capsys, "--force")[1]
    assert _stamps(folder)["results.json"] != before["results.json"]


def test_other_nltk_word_lists_recompute(computed, capsys, monkeypatch, tmp_path):
    """The stop words and first names come from NLTK's corpora where they are found (else from fallbacks): another
    list found there is another input, whichever was found before."""
    folder, _ = computed
    other = tmp_path / "nltk" / "corpora" / "stopwords"
    other.mkdir(parents=True)
    (other / "english").write_text("the\nof\n", encoding="utf-8")
    monkeypatch.setattr("gsr.text.corpora.nltk_data_path", lambda: [tmp_path / "nltk"])
    assert "is up to date" not in _run(folder, capsys)[1]


def test_a_second_run_into_a_folder_being_written_stops_in_one_line(computed, capsys):
    """Issue 27.8: one output folder, one writer; the second run stops before any work, naming the folder."""
    from experiments.report.output import writer_lock

    folder, _ = computed
    before = _stamps(folder)
    with writer_lock(folder / "out"):  # another run holds it (an flock: any process, host or PID namespace)
        status = main(["run", str(folder / "config.toml"), "--out", str(folder / "out"), "--force"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "is being written by another gsr run" in err, err
    assert _stamps(folder) == before
    assert "is up to date" in _run(folder, capsys)[1]  # released: the folder is as the first run left it


def test_another_process_holding_the_folder_is_seen(computed, capsys):
    import subprocess
    import sys

    folder, _ = computed
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom pathlib import Path\nfrom experiments.report.output import writer_lock\n"
            f"with writer_lock(Path({str(folder / 'out')!r})):\n    print('held', flush=True)\n    time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["run", str(folder / "config.toml"), "--out", str(folder / "out")]) == 2
        assert "is being written by another gsr run" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


@pytest.mark.parametrize("kind", ["folder", "link", "dangling-link", "fifo"])
def test_an_output_lock_path_that_is_not_a_plain_file_is_refused_before_any_work(tmp_path, capsys, own_cache, kind):
    """Issue 35.7: where the output folder's lock file goes there is a folder, a link or a FIFO: one line naming it,
    before any work; what is there stays as it was (a link is neither followed nor removed, its target never made)."""
    from experiments.report.output import LOCK

    folder = write_toy(tmp_path / "toy")
    out, target = folder / "out", tmp_path / "target.txt"
    out.mkdir()
    lock = out / LOCK
    if kind == "folder":
        lock.mkdir()
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        if kind == "link":
            target.write_text("the user's own file\n")
        lock.symlink_to(target)
    status = main(["run", str(folder / "config.toml"), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and f"{lock} is a" in err and "--out" in err, err
    assert [p.name for p in out.iterdir()] == [LOCK] and not own_cache.exists()  # no work done
    assert (
        lock.is_dir()
        if kind == "folder"
        else stat.S_ISFIFO(lock.lstat().st_mode)
        if kind == "fifo"
        else lock.is_symlink()
    )
    assert target.read_text() == "the user's own file\n" if kind == "link" else not target.exists()


@pytest.mark.parametrize("moved_before_the_kill", [0, 3])
def test_a_run_killed_while_moving_its_files_in_is_recomputed_next_time(
    computed, capsys, monkeypatch, moved_before_the_kill
):
    """Interrupted between writing its files and recording them, a run leaves a folder the next run accepts as this
    experiment's and recomputes: never refused as files gsr did not write, never printed as up to date."""
    from experiments.report.output import OutputFolder

    folder, first = computed
    (folder / "config.toml").write_text((folder / "config.toml").read_text() + "\n# changed\n")  # a rerun computes
    real_move, calls = OutputFolder._move_in, []

    def killed(source, target):
        if len(calls) == moved_before_the_kill:
            raise KeyboardInterrupt
        calls.append(target)
        real_move(source, target)

    monkeypatch.setattr(OutputFolder, "_move_in", staticmethod(killed))
    assert main(["run", str(folder / "config.toml"), "--out", str(folder / "out")]) != 0
    monkeypatch.setattr(OutputFolder, "_move_in", staticmethod(real_move))
    capsys.readouterr()
    out, err = _run(folder, capsys)
    assert "is up to date" not in err and out == first
    assert "is up to date" in _run(folder, capsys)[1]
    manifest = json.loads((folder / "out" / ".gsr-output.json").read_text(encoding="utf-8"))
    assert not [p for p in (folder / "out").iterdir() if ".staging-" in p.name and p.is_dir() and any(p.iterdir())]
    assert "results.md" in manifest["files"] and manifest["fingerprint"]


def test_dry_run_lists_what_would_be_computed_and_what_is_reused(tmp_path, capsys, own_cache):
    """gsr run --dry-run: every system's run (and trained or debiased embedding) as compute or reuse, with its cache
    entry, and nothing written to the output folder; after a run, all of it is reused, and with --force none of it."""
    folder = write_toy(tmp_path / "toy")
    args = ["run", str(folder / "config.toml"), "--out", str(folder / "out"), "--dry-run"]
    assert main(args) == 0
    before = capsys.readouterr().out
    assert " to compute, 0 reused" in before and "  compute  run " in before
    assert not (folder / "out" / "results.md").exists()
    _run(folder, capsys)
    assert main(args) == 0
    assert "is up to date: `gsr run` would compute nothing" in capsys.readouterr().out
    elsewhere = ["run", str(folder / "config.toml"), "--out", str(folder / "elsewhere"), "--dry-run"]
    assert main(elsewhere) == 0
    after = capsys.readouterr().out
    assert "0 of " in after and "  compute  " not in after and after.count("  reuse  ") == before.count("  compute  ")
    assert main([*args, "--force"]) == 0  # --force recomputes everything: nothing the cache holds is reused
    assert capsys.readouterr().out.count("  compute  ") == before.count("  compute  ")
