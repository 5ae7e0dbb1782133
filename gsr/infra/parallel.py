"""Work spread over processes: a collection in shards, and a function mapped over them in forked workers that
survive Ctrl-C cleanly."""

from __future__ import annotations

import collections
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice


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

    Ctrl-C reaches every process of the terminal's group: the workers ignore it, and the parent cancels what has not
    started and waits for the shards being counted (a second or so), so no worker is left behind and none prints a
    traceback. (multiprocessing.Pool.terminate can hang here: its feeder thread may stay blocked writing a shard
    into the pipe of workers it has just killed.)
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(
        n_jobs,
        mp_context=multiprocessing.get_context(start_method()),
        initializer=signal.signal,
        initargs=(signal.SIGINT, signal.SIG_IGN),
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
    Ctrl-C, which reaches the whole terminal group; the caller's stop() (on an interrupt or an error) terminates them,
    so nobody waits for a job that will not be used.
    """

    def __init__(self, function: Callable, items: list, n_jobs: int):
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.items = items
        self.seconds: dict[int, float] = {}  # finished item -> how long its worker took for it
        self._worker_of: dict[int, tuple] = {}
        self._workers = []
        indices = list(range(len(items)))
        for first in range(min(n_jobs, len(items))):
            mine = indices[first::n_jobs]
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_run_reporting, args=(send, function, items, mine), daemon=True)
            process.start()
            send.close()
            worker = (process, receive)
            self._workers.append(worker)
            self._worker_of.update({index: worker for index in mine})

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
        """Ends the workers still running (their half-written cache entries are staging folders, cleaned later)."""
        for process, _ in self._workers:
            if process.is_alive():
                process.terminate()
            process.join()

    close = stop  # as a shared resource of an experiment, closed when it ends


def _run_reporting(send, function: Callable, items: list, indices: list[int]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
