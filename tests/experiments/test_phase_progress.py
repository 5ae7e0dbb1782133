"""Issue 37.2: every phase of `gsr run` longer than LOG_EVERY_S says how far it is in a log file (done/total, elapsed,
ETA) at least every LOG_EVERY_S, a phase whose one item takes long included (the heartbeat)."""

from __future__ import annotations

import logging
import re
import time

import pytest

from experiments import per_system
from experiments.cli import main
from experiments.report import writer
from experiments.runner import Experiment
from gsr.infra import progress
from tests.support.toy_collection import write_toy

SLOW_S = 0.1  # LOG_EVERY_S in these tests: a line at least this often
LINE = re.compile(
    r"(?P<phase>[^:]+(?:: queries \+ '[^']+')?): +\d+% (?P<done>\d+)/(?P<total>\d+) \[(\d\d:)+\d\d<[^,\]]+"
)


@pytest.fixture
def in_a_log_file(monkeypatch, caplog):
    monkeypatch.setattr(progress, "LOG_EVERY_S", SLOW_S)
    monkeypatch.setattr(progress, "_on_terminal", lambda: False)  # as under Slurm or nohup
    caplog.set_level(logging.INFO, logger="gsr")
    return caplog


def _progress_lines(caplog, phase: str) -> list[re.Match]:
    found = [LINE.match(r.getMessage()) for r in caplog.records if r.name == "gsr.progress"]
    return [m for m in found if m is not None and m.group("phase") == phase]


def test_one_long_item_still_gets_a_line_at_every_interval(in_a_log_file, monkeypatch):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.5)  # the elapsed time shown moves by whole seconds
    with progress.progress(total=2, desc="a phase of two steps", unit="step") as bar:
        time.sleep(2.8)  # the first step alone takes over five intervals
        bar.update(1)
        bar.update(1)
    lines = _progress_lines(in_a_log_file, "a phase of two steps")
    waiting = [m.group(0) for m in lines if m.group("done") == "0"]  # each line another elapsed time (00:00-00:02)
    assert len(waiting) >= 3, [r.getMessage() for r in in_a_log_file.records]
    assert lines[-1].group("done") == lines[-1].group("total") == "2"  # the last line: the phase is done


def test_a_closed_bar_stops_its_heartbeat(in_a_log_file):
    with progress.progress(total=1, desc="done at once", unit="step") as bar:
        bar.update(1)
    time.sleep(4 * SLOW_S)
    assert not _progress_lines(in_a_log_file, "done at once")


@pytest.mark.parametrize(
    ("phase", "slowed"),
    [
        ("runs", (Experiment, "run_entry")),
        ("effectiveness", (per_system, "evaluate_run")),
        ("writing the report", (writer, "write_text")),
    ],
)
def test_a_slowed_phase_of_gsr_run_logs_done_total_and_eta(
    in_a_log_file, monkeypatch, tmp_path, own_cache, phase, slowed
):
    owner, name = slowed
    real = getattr(owner, name)

    def slow(*args, **kwargs):
        time.sleep(SLOW_S)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, slow)
    folder = write_toy(tmp_path / "toy")
    assert main(["run", str(folder / "config.toml"), "--out", str(folder / "out")]) == 0
    lines = _progress_lines(in_a_log_file, phase)
    assert len(lines) >= 2, [r.getMessage() for r in in_a_log_file.records if r.name == "gsr.progress"]
    done = [int(m.group("done")) for m in lines]
    assert done == sorted(done) and done[-1] == int(lines[-1].group("total"))
