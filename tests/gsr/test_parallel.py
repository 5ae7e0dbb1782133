"""Work in other processes: map_in_processes (forked, or spawned where the system cannot fork), and BackgroundProcesses,
which runs long jobs beside the caller, item by item."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gsr.errors import InputError
from gsr.infra.parallel import BackgroundProcesses, map_in_processes


def _write_after(item: tuple[Path, float]) -> None:
    path, seconds = item
    time.sleep(seconds)
    path.write_text(str(os.getpid()))


def _fail_on_second(item: tuple[Path, int]) -> None:
    path, number = item
    if number == 2:
        raise InputError(f"{path}:{number}: a bad line")
    path.write_text("ok")


def _pid_and_square(number: int) -> tuple[int, int]:
    return os.getpid(), number * number


@pytest.mark.parametrize("fork", [True, False], ids=["fork", "spawn-where-fork-is-missing"])
def test_mapped_work_runs_in_other_processes_in_order_with_or_without_fork(monkeypatch, fork):
    """The measure counts documents in processes: forked where the system can fork, spawned where it cannot (Windows,
    simulated here), with the same results in the same order."""
    import multiprocessing

    if not fork:
        monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
        monkeypatch.setattr(multiprocessing, "get_context", _only_spawn(multiprocessing.get_context))
    results = list(map_in_processes(_pid_and_square, range(7), 2))
    assert [square for _, square in results] == [n * n for n in range(7)]
    assert os.getpid() not in {pid for pid, _ in results}


def _only_spawn(get_context):
    def get(method=None):
        assert method == "spawn", f"asked for {method!r} where the system cannot fork"
        return get_context(method)

    return get


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


LEFT_RUNNING = """
import sys, time
from pathlib import Path

from gsr.infra.parallel import BackgroundProcesses
from tests.gsr.test_parallel import _write_after

jobs = BackgroundProcesses(_write_after, [(Path(sys.argv[1]), {seconds})], 1)
time.sleep(1.0)  # the worker is at work (it ignores SIGTERM by now): never stopped, the caller ends
"""


def test_workers_never_stopped_are_killed_when_the_caller_ends_and_write_nothing(tmp_path):
    """A caller that ends without stop() (a signal between starting the workers and handing them to whoever stops
    them, in `gsr run`): its exit kills them at once instead of waiting for them, as multiprocessing would (its exit
    handler's SIGTERM is ignored by the workers, its join then waits while they finish and commit)."""
    import subprocess
    import sys

    from tests.support.plugins import REPOSITORY

    seconds = 5.0
    script = tmp_path / "left_running.py"
    script.write_text(LEFT_RUNNING.format(seconds=seconds), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    started = time.monotonic()
    command = [sys.executable, str(script), str(tmp_path / "late")]
    done = subprocess.run(command, env=env, capture_output=True, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr.decode()
    time.sleep(max(seconds + 2 - took, 0))  # a surviving worker would have written by now
    assert not (tmp_path / "late").exists()


def test_workers_started_before_an_interrupt_in_the_constructor_are_stopped(tmp_path, monkeypatch):
    """Ctrl-C (or a stop signal) while the second worker starts: the first one, started already, is killed before
    the interrupt goes on, as nobody holds the object that would stop it."""
    import multiprocessing.context

    started: list = []
    real_start = multiprocessing.context.ForkProcess.start

    def start_then_interrupt(process):
        if started:
            raise KeyboardInterrupt
        real_start(process)
        started.append(process)

    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", start_then_interrupt)
    items = [(tmp_path / "first", 60.0), (tmp_path / "second", 60.0)]
    try:
        with pytest.raises(KeyboardInterrupt):
            BackgroundProcesses(_write_after, items, 2)
        assert len(started) == 1 and not started[0].is_alive()
    finally:  # a worker the code under test left running ends here, not in the test run's exit
        for process in started:
            process.kill()
