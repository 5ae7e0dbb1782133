"""SIGTERM and SIGHUP stop `gsr run` as Ctrl-C does, and no worker outlives it (issue 35.10): background training and
figure workers end with the parent, whether it is stopped by a signal it handles or killed outright (SIGKILL; they
die with it, PR_SET_PDEATHSIG), and a worker whose parent is gone commits nothing to the cache.

Each test starts the command in a process group of its own, signals it while a slowed worker is at work, and then
checks the exit status, the one line it printed, that no process of the group is left, and that no cache entry
appears after the worker would have finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.plugins import REPOSITORY
from tests.support.processes import start_until
from tests.support.toy_collection import config_with_systems, write_toy

SLOW = 6.0  # seconds a slowed worker waits before it works and commits

SLOW_TRAINING = """
import sys, time
from embeddings import training

real = training.train_embedding


def slow_training(*args, **kwargs):  # the forked training worker runs this: still training when the signal comes
    time.sleep({slow})
    return real(*args, **kwargs)


training.train_embedding = slow_training
from experiments.cli import main

sys.exit(main(sys.argv[1:]))
"""

W2V_SYSTEM = """[embeddings.w2v]
train = "word2vec"
dim = 8
min_count = 1
epochs = 1
[[systems]]
name = "w2v_add"
model = "add"
embedding = "w2v"
"""


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _group_ends(group: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while _group_alive(group):
        if time.monotonic() > deadline:
            os.killpg(group, signal.SIGKILL)
            return False
        time.sleep(0.1)
    return True


def _entries(cache: Path) -> list[str]:
    """The cache's committed entries (no staging or lock names)."""
    return sorted(
        p.relative_to(cache).as_posix()
        for p in cache.rglob("*")
        if not any(part.startswith(".") for part in p.relative_to(cache).parts)
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "stop, to_group, status, name",
    [
        (signal.SIGTERM, False, 128 + signal.SIGTERM, "SIGTERM"),
        (signal.SIGHUP, True, 128 + signal.SIGHUP, "SIGHUP"),  # a closed terminal hangs up its whole group
        (signal.SIGKILL, False, -signal.SIGKILL, None),
    ],
)
def test_gsr_run_stopped_by_a_signal_leaves_no_worker_and_no_late_cache_entry(tmp_path, stop, to_group, status, name):
    config = config_with_systems(write_toy(tmp_path / "toy"), W2V_SYSTEM, threads=2)  # training in the background
    driver = tmp_path / "slow_gsr.py"
    driver.write_text(SLOW_TRAINING.format(slow=SLOW), encoding="utf-8")
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY), "GSR_CACHE": str(cache)}
    command = [sys.executable, str(driver), "run", str(config), "--out", str(tmp_path / "out")]
    # signalled while it waits for the slowed training worker: in a step, so the line names it
    process, lines = start_until(command, env, "waiting for w2v, training in the background")
    # the measuring embedding (a file) is read and cached by the checks before any work (its definitional words,
    # Experiment.preflight): an entry of the parent's, finished before the worker started, which a rerun reuses
    before = [e for e in _entries(cache) if e.startswith("embeddings/")]
    assert not [e for e in before if e.startswith("embeddings/trained-")], "the worker trained before the signal"
    time.sleep(0.5)
    if to_group:
        os.killpg(process.pid, stop)
    else:
        process.send_signal(stop)
    try:
        lines.append(process.communicate(timeout=60)[1])
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("the stopped run did not end:\n" + "".join(lines))
    err = "".join(lines)
    assert process.returncode == status, err
    assert _group_ends(process.pid), "a worker outlived gsr run:\n" + err
    kept = _entries(cache)
    time.sleep(SLOW + 3)  # the slowed worker would have trained and committed by now
    assert _entries(cache) == kept
    assert [e for e in kept if e.startswith("embeddings/")] == before  # nothing the worker trained was committed
    if name is not None:
        assert "Traceback" not in err, err
        last = err.strip().splitlines()[-1]
        assert last.startswith(f"gsr: stopped by {name}: gsr run during "), err
        assert "nothing half-written was kept, and running it again resumes after the last finished step" in last


SLOW_FIGURE = """
import sys, time
from pathlib import Path

from experiments.report.png_kit import draw_figure, figures_aside, new_figure


def slow_figure():
    time.sleep({slow})
    return new_figure(2, 2)


with figures_aside(2):
    draw_figure(slow_figure, (), Path(sys.argv[1]))
    print("drawing aside", file=sys.stderr, flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
def test_figure_workers_die_with_their_parent_and_write_nothing(tmp_path, stop):
    driver = tmp_path / "figure.py"
    driver.write_text(SLOW_FIGURE.format(slow=SLOW), encoding="utf-8")
    target = tmp_path / "figure.png"
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY), "GSR_CACHE": str(tmp_path / "cache")}
    process, lines = start_until([sys.executable, str(driver), str(target)], env, "drawing aside")
    time.sleep(0.5)
    process.send_signal(stop)  # the parent alone: its default action ends it, the worker is not told
    process.communicate(timeout=60)
    assert _group_ends(process.pid), "a figure worker outlived its parent"
    time.sleep(SLOW + 2)
    assert not list(tmp_path.glob("*.png")) and not list(tmp_path.glob(".figure.png*"))
