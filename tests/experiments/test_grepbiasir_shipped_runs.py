"""The Grep-BiasIR runs shipped with gsr (gsr/data/grepbiasir/runs/) are `gsr run grepbiasir`'s BM25 and MiniLM runs,
cut to their top SHIPPED_DEPTH documents per query (docs/grepbiasir.md, "Shipped runs"): the config run again here
gives them back, document for document; and the cut is why `gsr score`'s MAP on them differs from the config's
table while the top-20 measures and GSR do not."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from experiments.config.experiment import BUILTIN_CONFIGS, parse_config
from gsr.io.runs import read_trec_run

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "gsr" / "data" / "grepbiasir" / "runs"


def _generate():
    sys.path.insert(0, str(ROOT / "docs"))
    import generate  # docs/generate.py: what writes the shipped files

    return generate


def test_the_shipped_runs_are_the_configs_systems_cut_to_the_shipped_depth():
    """Each shipped file is named after a system of the built-in config and holds SHIPPED_DEPTH documents per query
    (fewer only where the query has fewer), for every one of its 117 queries."""
    generate = _generate()
    raw = tomllib.loads(BUILTIN_CONFIGS["grepbiasir"].read_text(encoding="utf-8"))
    systems = {s["name"] for s in raw["systems"]}
    assert set(generate.SHIPPED_RUNS) <= systems
    for name in generate.SHIPPED_RUNS.values():
        run = read_trec_run(SHIPPED / f"{name}.run")
        assert len(run) == 117
        assert max(len(ranked) for ranked in run.values()) == generate.SHIPPED_DEPTH


@pytest.mark.slow
def test_the_config_run_again_gives_the_shipped_runs(tmp_path, monkeypatch):
    """grepbiasir.toml cut to the shipped systems (MiniLM where the dense extra is installed), run in an empty cache:
    each system's top SHIPPED_DEPTH per query is the shipped file's, in the same order with the same scores (as
    written, to 4 decimals and Anserini's tie offsets); the MAP of the cut BM25 run is below the full run's, its
    nDCG@10 the same."""
    import ir_measures

    from experiments.runner import Experiment
    from gsr.infra.extras import installed

    generate = _generate()
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "fresh-cache"))
    wanted = {"BM25"} | ({"MiniLM"} if installed("dense") else set())
    raw = tomllib.loads(BUILTIN_CONFIGS["grepbiasir"].read_text(encoding="utf-8"))
    raw["systems"] = [s for s in raw["systems"] if s["name"] in wanted]
    raw.pop("debias", None)
    raw["analyses"] = {"intrinsic_gender": False, "rank_change": False, "gender_versions": False}
    raw["output"] = str(tmp_path / "out")
    result = Experiment(parse_config(raw, BUILTIN_CONFIGS["grepbiasir"])).run()
    for system in wanted:
        shipped = read_trec_run(SHIPPED / f"{generate.SHIPPED_RUNS[system]}.run")
        fresh = result.runs[system]
        assert set(shipped) == set(fresh), system
        for qid, ranked in shipped.items():
            top = fresh[qid][: generate.SHIPPED_DEPTH]
            assert [d for d, _ in ranked] == [d for d, _ in top], (system, qid)
            assert [s for _, s in ranked] == pytest.approx([s for _, s in top], abs=1e-6), (system, qid)
    qrels = result.collection.qrels
    cut = read_trec_run(SHIPPED / "bm25.run")
    measures = [ir_measures.AP, ir_measures.nDCG @ 10]

    def scores(run):
        flat = {q: {d: s for d, s in ranked} for q, ranked in run.items()}
        return ir_measures.calc_aggregate(measures, qrels, flat)

    full, shipped = scores(result.runs["BM25"]), scores(cut)
    assert shipped[ir_measures.AP] < full[ir_measures.AP]  # relevant versions below rank 20 count only in the full run
    assert shipped[ir_measures.nDCG @ 10] == pytest.approx(full[ir_measures.nDCG @ 10])
