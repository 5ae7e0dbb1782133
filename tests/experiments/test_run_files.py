"""experiments.run_files: a system's cached run file holds the run in trec_eval's order, so the report can copy it."""

from __future__ import annotations

import pytest

from experiments.run_files import write_ranked_run
from gsr.errors import InputError
from gsr.io.runs import read_trec_run, write_trec_run


def test_the_file_holds_the_run_as_trec_eval_ranks_it(tmp_path):
    run = {"q2": [("d1", 2.0), ("d2", 2.0), ("d3", 1.5)], "q1": [("a", 1.0)], "q3": []}  # a tie, ids ascending
    path = tmp_path / "cache.run"
    ranked = write_ranked_run(run, path, "sys")
    assert ranked == read_trec_run(path)
    assert [d for d, _ in ranked["q2"]] == ["d2", "d1", "d3"]  # trec_eval: ties by docid, descending
    again = write_trec_run(ranked, tmp_path / "report.run", tag="sys")
    assert again.read_bytes() == path.read_bytes()  # what the report would write is the cache file's bytes


def test_a_run_the_writer_refuses_gets_the_writers_error(tmp_path):
    with pytest.raises(InputError, match="score is NaN, which a TREC run cannot hold"):
        write_ranked_run({"q1": [("d1", float("nan"))]}, tmp_path / "a.run", "sys")
    with pytest.raises(InputError, match=r"b\.run: query q1.*document d1 appears twice"):
        write_ranked_run({"q1": [("d1", 1.0), ("d1", 0.5)]}, tmp_path / "staging", "sys", named=tmp_path / "b.run")
