"""`gsr run --dry-run` only looks: it writes nothing into the cache and removes nothing from it (no collection entry,
no digest, no lexicon; no stale staging folder or damaged entry cleaned), and it says when another run holds the
output folder (issue 35.11)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from experiments.cli import main
from tests.support.toy_collection import write_toy


def _snapshot(folder: Path) -> dict[str, tuple[int, int, bool]]:
    """Every file and folder below `folder` (hidden ones included): (modification time, size, is a folder)."""
    found = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(root, name)
            status = path.lstat()
            found[path.relative_to(folder).as_posix()] = (status.st_mtime_ns, status.st_size, path.is_dir())
    return found


def _dry_run(folder: Path, capsys) -> str:
    status = main(["run", str(folder / "config.toml"), "--out", str(folder / "out"), "--dry-run"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out + err


def test_a_dry_run_on_an_empty_cache_writes_nothing_there(tmp_path, capsys, own_cache):
    folder = write_toy(tmp_path / "toy")
    own_cache.mkdir()
    printed = _dry_run(folder, capsys)
    assert " to compute, 0 reused" in printed
    assert _snapshot(own_cache) == {}
    assert not (folder / "out").exists()


def test_a_dry_run_neither_cleans_nor_rebuilds_the_cache_it_reads(tmp_path, capsys, own_cache):
    """After a run: a staging folder its killed writer left (old enough to be cleaned by a run) and a damaged run
    entry stay as they are; the damaged entry is planned as computed, every other step as reused."""
    folder = write_toy(tmp_path / "toy")
    assert main(["-q", "run", str(folder / "config.toml"), "--out", str(folder / "out")]) == 0
    capsys.readouterr()
    stale = own_cache / "runs" / ".x.run.staging-host-0123456789ab"
    stale.mkdir()
    old = time.time() - 3600
    os.utime(stale, (old, old))
    damaged = sorted((own_cache / "runs").glob("*.run"))[0]
    damaged.write_text(damaged.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    (folder / "config.toml").write_text((folder / "config.toml").read_text() + "\n# edited: not up to date\n")
    before = _snapshot(own_cache)
    printed = _dry_run(folder, capsys)
    assert _snapshot(own_cache) == before
    planned = [line for line in printed.splitlines() if line.endswith(str(damaged))]
    assert len(planned) == 1 and planned[0].startswith("  compute  run ")
    assert printed.count("  reuse  ") >= 1


def test_a_dry_run_says_when_another_run_holds_the_output_folder(tmp_path, capsys, own_cache):
    from experiments.report.output import writer_lock

    folder = write_toy(tmp_path / "toy")
    (folder / "out").mkdir()
    with writer_lock(folder / "out"):  # what a running `gsr run` holds
        printed = _dry_run(folder, capsys)
    assert f"{folder / 'out'} is being written by another gsr run" in printed
    assert " to compute, 0 reused" in printed  # the plan is still shown
    assert not any((folder / "out").iterdir())  # the lock file went with the lock
    printed = _dry_run(folder, capsys)
    assert "another gsr run" not in printed
