"""Work spread over processes: a collection in shards, and a function mapped over them in forked workers that
survive Ctrl-C cleanly."""

from __future__ import annotations

import collections
import signal
from collections.abc import Callable, Iterable, Iterator
from itertools import islice


def document_shards(documents: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    """(docid, text) pairs in lists of `size` (the last one shorter)."""
    iterator = iter(documents)
    while shard := list(islice(iterator, size)):
        yield shard


def map_in_processes(function: Callable, items: Iterable, n_jobs: int) -> Iterator:
    """`function` over `items` in `n_jobs` forked processes, results in order, at most 2 × n_jobs items in flight.

    Ctrl-C reaches every process of the terminal's group: the workers ignore it, and the parent cancels what has not
    started and waits for the shards being counted (a second or so), so no worker is left behind and none prints a
    traceback. (multiprocessing.Pool.terminate can hang here: its feeder thread may stay blocked writing a shard
    into the pipe of workers it has just killed.)
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(
        n_jobs,
        mp_context=multiprocessing.get_context("fork"),
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
