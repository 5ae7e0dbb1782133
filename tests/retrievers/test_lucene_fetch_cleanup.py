"""A Lucene fetch's output file and folder go with its texts, even when the texts are never read: a generator closed
before its first item never runs its `finally`, so LuceneIndexDocuments.ids_at (which reads the ids alone) left the
worker's output file open (a ResourceWarning at exit of the test run, issue 37.4) and its folder behind. The worker
is replaced by a function writing what it would write: no JVM."""

from __future__ import annotations

import gc
import json
import warnings
from pathlib import Path

import pytest

from retrievers.lucene import api
from retrievers.lucene.source import LuceneIndexDocuments

DOCUMENTS = {"d1": "the nurse", "d2": "the electrician", "d3": "the budget"}


@pytest.fixture
def fake_index(tmp_path, monkeypatch) -> Path:
    """An index folder the checks accept, a worker that writes the fetched documents, and a temporary folder of the
    test's own, where every fetch makes its work folder."""
    index = tmp_path / "index"
    index.mkdir()
    (index / "segments_1").write_bytes(b"")
    ids = list(DOCUMENTS)

    def worker(arguments: list[str], *, what: str) -> None:
        option = dict(zip(arguments[1::2], arguments[2::2]))
        request = json.loads(Path(option["--request"]).read_text())
        found = [ids[p] for p in request["positions"]] + [d for d in request["ids"] if d in DOCUMENTS]
        lines = [json.dumps([d, DOCUMENTS[d], None]) + "\n" for d in found]
        Path(option["--output"]).write_text("".join(lines), encoding="utf-8")

    monkeypatch.setattr(api, "run_worker", worker)
    monkeypatch.setattr(api.tempfile, "tempdir", str(tmp_path / "work"))
    (tmp_path / "work").mkdir()
    return index


def _left(index: Path) -> list[Path]:
    return list((index.parent / "work").iterdir())


def test_ids_alone_leave_no_open_file_nor_folder(fake_index):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        assert LuceneIndexDocuments(fake_index).ids_at([2, 0]) == ["d3", "d1"]
        gc.collect()
    assert _left(fake_index) == []


def test_texts_dropped_unread_or_half_read_leave_nothing(fake_index):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        ids, texts = api.fetch_documents(fake_index, {"d2"}, [0])
        assert ids == ["d1"] and _left(fake_index)  # the worker's output, until the texts go
        del texts
        gc.collect()
        assert _left(fake_index) == []
        _, texts = api.fetch_documents(fake_index, {"d2"}, [0])
        assert next(texts) == ("d1", "the nurse")
        del texts
        gc.collect()
    assert _left(fake_index) == []


def test_texts_read_to_the_end_are_all_there(fake_index):
    _, texts = api.fetch_documents(fake_index, {"d2", "d3", "unknown"}, [0, 0])
    assert dict(texts) == {"d1": "the nurse", "d2": "the electrician", "d3": "the budget"}
    assert _left(fake_index) == []
