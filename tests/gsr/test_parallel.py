"""Work in forked processes: BackgroundProcesses runs long jobs beside the caller, item by item."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gsr.errors import InputError
from gsr.infra.parallel import BackgroundProcesses


def _write_after(item: tuple[Path, float]) -> None:
    path, seconds = item
    time.sleep(seconds)
    path.write_text(str(os.getpid()))


def _fail_on_second(item: tuple[Path, int]) -> None:
    path, number = item
    if number == 2:
        raise InputError(f"{path}:{number}: a bad line")
    path.write_text("ok")


def test_jobs_run_beside_the_caller_and_each_is_waited_for_alone(tmp_path):
    items = [(tmp_path / "slow", 2.0), (tmp_path / "fast", 0.0)]
    started = time.perf_counter()
    jobs = BackgroundProcesses(_write_after, items, 2)
    assert time.perf_counter() - started < 1.5  # the caller is not held
    jobs.wait(1)
    assert (tmp_path / "fast").exists() and jobs.done(1)
    assert not jobs.done(0) and not (tmp_path / "slow").exists()  # the slow one is still running
    jobs.wait()
    assert jobs.done(0) and (tmp_path / "slow").exists()
    assert jobs.seconds[0] >= 2.0 > jobs.seconds[1]
    assert {(tmp_path / n).read_text() for n in ("slow", "fast")} != {str(os.getpid())}  # not in this process
    jobs.stop()


def test_one_worker_takes_its_items_in_order_and_a_worker_error_is_raised_where_it_is_waited_for(tmp_path):
    items = [(tmp_path / f"item{n}", n) for n in range(4)]
    jobs = BackgroundProcesses(_fail_on_second, items, 2)  # worker 1: items 0 and 2; worker 2: items 1 and 3
    jobs.wait(1)
    jobs.wait(3)
    with pytest.raises(InputError, match=r"item2:2: a bad line"):
        jobs.wait(2)
    assert (tmp_path / "item0").exists() and not (tmp_path / "item2").exists()
    jobs.stop()


def test_stop_ends_the_running_workers(tmp_path):
    jobs = BackgroundProcesses(_write_after, [(tmp_path / "never", 60.0)], 1)
    started = time.perf_counter()
    jobs.stop()
    assert time.perf_counter() - started < 10 and not (tmp_path / "never").exists()
    with pytest.raises(RuntimeError, match="exit code"):
        jobs.wait(0)
