"""Work spread over processes: a collection in shards, and a function mapped over them in forked workers that
survive Ctrl-C cleanly and never outlive their parent.

Every forked worker starts with worker_started: it ignores the signals that stop its parent (Ctrl-C's SIGINT, SIGTERM,
SIGHUP: the parent decides, and ends its workers), asks Linux to kill it when its parent dies (PR_SET_PDEATHSIG, so a
parent killed outright takes its workers along), and remembers its parent: gsr.infra.store commits no cache entry
from a worker whose parent is gone (orphaned), where the kernel's signal has not arrived yet or there is none.
"""

from __future__ import annotations

import collections
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # what stops `gsr` (experiments.cli), not its workers
PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent dies
_parent: int | None = None  # in a forked worker: its parent's process id (worker_started)


class Orphaned(BaseException):
    """Raised in a worker whose parent is gone, at the point where it would commit a result nobody will use (a
    BaseException, as SystemExit: no `except Exception` of the work in progress keeps it from ending the worker)."""


def worker_started(parent: int) -> None:
    """The first thing a forked worker of process `parent` does: ignore STOP_SIGNALS, die with its parent (Linux's
    PR_SET_PDEATHSIG, SIGKILL), and remember it (orphaned). A parent that died before the request took effect ends
    the worker at once."""
    global _parent
    for stop in STOP_SIGNALS:
        signal.signal(stop, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _parent = parent
    if os.getppid() != parent:
        os._exit(1)


def orphaned() -> bool:
    """Whether this process is a forked worker whose parent is gone (it was adopted by another process)."""
    return _parent is not None and os.getppid() != _parent


def check_parent() -> None:
    """Raises Orphaned in a worker whose parent is gone: called before anything is committed to the cache."""
    if orphaned():
        raise Orphaned(f"process {os.getpid()}: its parent {_parent} is gone; nothing is committed")


def document_shards(documents: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    """(docid, text) pairs in lists of `size` (the last one shorter)."""
    iterator = iter(documents)
    while shard := list(islice(iterator, size)):
        yield shard


def start_method() -> str:
    """How worker processes start: forked where the system can fork (Linux, macOS: they start at once, with what this
    process has loaded), spawned where it cannot (Windows), so the measure's counting in processes runs anywhere."""
    import multiprocessing

    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def map_in_processes(function: Callable, items: Iterable, n_jobs: int) -> Iterator:
    """`function` over `items` in `n_jobs` processes (forked where the system can: start_method), results in order,
    at most 2 × n_jobs items in flight; `function` and the items must pickle.

    Ctrl-C reaches every process of the terminal's group: the workers ignore it (worker_started), and the parent
    cancels what has not started and waits for the shards being counted (a second or so), so no worker is left behind
    and none prints a traceback. (multiprocessing.Pool.terminate can hang here: its feeder thread may stay blocked
    writing a shard into the pipe of workers it has just killed.)
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(
        n_jobs,
        mp_context=multiprocessing.get_context(start_method()),
        initializer=worker_started,
        initargs=(os.getpid(),),
    )
    pending: collections.deque = collections.deque()
    try:
        for item in items:
            pending.append(executor.submit(function, item))
            if len(pending) >= 2 * n_jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


class BackgroundProcesses:
    """`function` over `items` in up to `n_jobs` forked processes (each takes every n_jobs-th item, in order) while
    the caller goes on with other work: `done(i)` says whether item i is finished, `wait(i)` waits for it (`wait()`
    for all) and raises the error a worker met there, `stop()` ends the workers.

    For long jobs whose results land elsewhere (a cache): the embeddings the collection trains on run beside the
    Lucene index and the systems that need none of them, and each system waits only for its own. The workers ignore
    Ctrl-C, SIGTERM and SIGHUP, which may reach the whole group; the caller's stop() (on an interrupt, a signal or an
    error) kills them, so nobody waits for a job that will not be used; the interpreter's exit kills those nobody
    stopped, and they die with a parent killed outright (worker_started).
    """

    def __init__(self, function: Callable, items: list, n_jobs: int):
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.items = items
        self.seconds: dict[int, float] = {}  # finished item -> how long its worker took for it
        self._worker_of: dict[int, tuple] = {}
        self._workers: list[tuple] = []
        self._owner = os.getpid()
        _stopped_at_exit(self)
        indices = list(range(len(items)))
        try:
            for first in range(min(n_jobs, len(items))):
                mine = indices[first::n_jobs]
                receive, send = context.Pipe(duplex=False)
                process = context.Process(
                    target=_run_reporting, args=(os.getpid(), send, function, items, mine), daemon=True
                )
                worker = (process, receive)
                self._workers.append(worker)
                process.start()
                send.close()
                self._worker_of.update({index: worker for index in mine})
        except BaseException:  # Ctrl-C or a stop signal while they start: nobody holds this object yet to stop them
            self.stop()
            raise

    def done(self, index: int) -> bool:
        """Whether item `index` is finished (its worker's messages read without waiting)."""
        self._read(self._worker_of[index], block=False, until=index)
        return index in self.seconds

    def wait(self, index: int | None = None) -> None:
        """Returns once item `index` (every item, when None) is finished; a worker's error is raised here, as it was
        raised there."""
        for wanted in self._worker_of if index is None else [index]:
            self._read(self._worker_of[wanted], block=True, until=wanted)

    def _read(self, worker: tuple, block: bool, until: int) -> None:
        process, receive = worker
        while until not in self.seconds and (block or receive.poll()):
            try:
                kind, index, outcome = receive.recv()
            except EOFError:  # the worker ended before finishing `until`: killed; its exit code says how
                process.join()
                raise RuntimeError(f"a background worker ended with exit code {process.exitcode}") from None
            if kind == "error":
                process.join()
                raise outcome
            self.seconds[index] = outcome

    def stop(self) -> None:
        """Ends the workers still running, at once (SIGKILL: they ignore the signals that stop their parent; their
        half-written cache entries are staging folders, cleaned later)."""
        for process, _ in self._workers:
            if process.pid is None:  # never started: interrupted while the workers started
                continue
            if process.is_alive():
                process.kill()
            process.join()
        _UNSTOPPED.discard(self)

    close = stop  # as a shared resource of an experiment, closed when it ends


_UNSTOPPED: set[BackgroundProcesses] = set()  # started in this process and not stopped yet


def _stopped_at_exit(jobs: BackgroundProcesses) -> None:
    """Has `jobs` stopped when the interpreter exits, if nobody has stopped it before (a stop signal that came between
    starting it and handing it to whoever stops it). Otherwise multiprocessing's own exit handler would end it: it
    sends SIGTERM, which the workers ignore, then waits for them to finish, and they commit to the cache while their
    parent, still there, waits for them."""
    import atexit
    import multiprocessing.util  # noqa: F401  registers its exit handler when imported; atexit runs later ones first

    atexit.unregister(_stop_unstopped)  # registered once, after multiprocessing's
    atexit.register(_stop_unstopped)
    _UNSTOPPED.add(jobs)


def _stop_unstopped() -> None:
    for jobs in list(_UNSTOPPED):
        if jobs._owner == os.getpid():  # a forked child's copy names its parent's workers: never its to stop
            jobs.stop()


def _run_reporting(parent: int, send, function: Callable, items: list, indices: list[int]) -> None:
    worker_started(parent)
    for index in indices:
        started = time.perf_counter()
        try:
            function(items[index])
        except BaseException as err:  # reported to the parent, which raises it
            try:
                send.send(("error", index, err))
            except Exception:  # an exception that cannot be pickled: its text
                send.send(("error", index, RuntimeError(f"{type(err).__name__}: {err}")))
            return
        send.send(("done", index, time.perf_counter() - started))
