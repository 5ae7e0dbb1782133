"""Experiment configs: the built-in ones parse; every mistake is reported before work starts, naming the key."""

from __future__ import annotations

import pytest

from experiments.config.experiment import load_config, parse_config
from experiments.config.params import ConfigError
from tests.support.configs import config_with


def test_builtin_configs_parse():
    demo = load_config("demo")
    regular = [s.name for s in demo.systems if s.variant == "regular" and s.model != "rerank"]
    assert regular == ["BM25", "QLM", "tf-idf", "w2v_add", "w2v_si", "ftt_add", "DRMM", "MatchPyramid"]
    assert "MatchPyramid (strong)" in [s.name for s in demo.systems]
    assert {"rank_change", "reliability", "intrinsic_gender"} <= set(demo.analyses)
    assert demo.systems[0].params == {"k1": 0.9, "b": 0.4}
    assert demo.systems[1].params == {"mu": 1000}
    robust = load_config("robust04")
    assert robust.collection["kind"] == "trec-sgml" and robust.measuring == ["w2v", "ftt"]


def test_lexical_defaults_are_the_papers():
    config = parse_config(config_with(systems=[{"name": "B", "model": "bm25"}, {"name": "Q", "model": "qld"}]))
    assert config.systems[0].params == {"k1": 0.9, "b": 0.4} and config.systems[1].params == {"mu": 1000.0}


@pytest.mark.parametrize(
    "raw, message",
    [
        (config_with(colection={}), "unknown key 'colection'"),
        (config_with(collection={"kind": "demo", "path": "x"}), "unknown key 'collection.path'"),
        (config_with(collection={"kind": "trec"}), "collection.kind 'trec' is unknown"),
        (config_with(collection={"kind": "files", "documents": "d"}), "collection.topics is required"),
        (config_with(systems=[{"name": "B", "model": "bm25", "mu": 3}]), "unknown key 'systems[0].mu'"),
        (config_with(systems=[{"name": "B", "model": "dph"}]), "systems[0].model 'dph' is unknown"),
        (config_with(systems=[{"name": "W", "model": "add"}]), "systems[0].embedding is required"),
        (
            config_with(systems=[{"name": "W", "model": "add", "embedding": "ftt"}]),
            "'ftt' is not defined under [embeddings]",
        ),
        (config_with(systems=[{"name": "B", "model": "bm25"}, {"name": "B", "model": "qld"}]), "'B' is used twice"),
        (config_with(embeddings={"e": {"source": "x", "train": "fasttext"}}), "exactly one of 'source'"),
        (config_with(embeddings={"e": {"train": "glove"}}), "training method 'glove' is unknown"),
        (config_with(embeddings={"e": {"source": "glove-6b-50d", "dim": 3}}), "embeddings.e.dim only applies"),
        (config_with(gsr={"measuring": ["ftt"]}), "gsr.measuring 'ftt' is not defined"),
        (config_with(gsr={"cutoff": 0}), "gsr.cutoff must be"),
        (config_with(gsr={"measure": ["glove"]}), "unknown key 'gsr.measure'"),
        (config_with(evaluation={"measures": ["MAPP"]}), "measure 'MAPP' is not an ir_measures measure"),
        (config_with(evaluation={"baseline": "QLM"}), "evaluation.baseline 'QLM' is not a system"),
        (config_with(depth=0), "depth must be in [1, 100,000], not 0"),
        (config_with(debias={"variants": ["soft"]}), "debias.variants 'soft' is unknown"),
        (config_with(debias={"systems": ["BM25"]}), "debias.systems 'BM25' is not a system with an embedding"),
        (config_with(debias={"method": "hard"}), "unknown key 'debias.method'"),
        (config_with(debias={"lists": "bolukbasi"}), "debias.lists must be one of debiaswe, project, not 'bolukbasi'"),
        (
            config_with(gsr={"measuring": ["glove"], "exclusion": "porter"}),
            "gsr.exclusion must be one of exact, lemma, stem",
        ),
        (config_with(analyses={"gap": "smoothed"}), "analyses.gap must be one of ratio, add-one"),
        (config_with(analyses={"kendall": True}), "unknown key 'analyses.kendall'"),
        (
            config_with(
                systems=[
                    {"name": "B", "model": "bm25"},
                    {"name": "D", "model": "drmm", "embedding": "glove", "rerank": "QLM"},
                ]
            ),
            "D.rerank 'QLM' is not a system",
        ),
        (config_with(evaluation={"test": "z"}), "evaluation.test must be one of t, wilcoxon, randomization, not 'z'"),
        (config_with(evaluation={"correction": "fdr"}), "evaluation.correction must be one of holm, bonferroni, none"),
        (config_with(evaluation={"resamples": -1}), "evaluation.resamples must be in [0, 1,000,000], not -1"),
        (config_with(evaluation={"resamples": 0}), "evaluation.resamples must be ≥ 1 in an experiment"),
        (config_with(evaluation={"level": 95}), "evaluation.level must be in (0, 1), not 95"),
        (config_with(evaluation={"seed": True}), "evaluation.seed must be an integer, not True"),
        (config_with(evaluation={"measures": ["AP", "GSR@0"]}), "'GSR@0' is not a GSR measure name"),
        (config_with(evaluation={"measures": ["AP", "gL@10"]}), "'gL@10' is a per-query value"),
        (config_with(evaluation={"measures": ["GSR@10", "GSR@10"]}), "names 'GSR@10' twice"),
        (
            config_with(evaluation={"measures": ["GSR@10"]}, gsr={"measuring": ["glove"], "cutoff": "relevant"}),
            "gsr.cutoff 'relevant' disagrees with the first GSR measure",
        ),
        (
            config_with(evaluation={"measures": ["GSR@10"]}, gsr={}),
            "gsr.measuring names no embedding, so GSR would measure nothing",
        ),
        (config_with(systems=[{"name": "R", "model": "run"}]), "systems[0].path is required for model 'run'"),
        (
            config_with(systems=[{"name": "R", "model": "run", "path": "r.txt", "embedding": "glove"}]),
            "unknown key 'systems[0].embedding'",
        ),
        (
            config_with(
                systems=[
                    {"name": "R", "model": "run", "path": "r.txt"},
                    {"name": "W", "model": "add", "embedding": "glove"},
                ],
                debias={"systems": ["R"]},
            ),
            "debias.systems 'R' is a run file (model = \"run\"): a run cannot be debiased",
        ),
    ],
)
def test_mistakes_name_the_key(raw, message):
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert message in str(err.value)


def test_paper_choices_have_the_papers_defaults_and_named_options(tmp_path):
    config = parse_config(config_with())
    assert (config.exclusion, config.stopwords, config.debias_list_set) == ("lemma", None, "debiaswe")
    assert config.analyses["intrinsic_gender"]["gap"] == "ratio"
    chosen = parse_config(
        config_with(
            gsr={"measuring": ["glove"], "exclusion": "stem", "stopwords": "sklearn"},
            debias={"lists": "project"},
            analyses={"gap": "add-one"},
        ),
        tmp_path / "x.toml",
    )
    assert (chosen.exclusion, chosen.stopwords, chosen.debias_list_set) == ("stem", "sklearn", "project")
    assert chosen.analyses["intrinsic_gender"]["gap"] == "add-one"
    from_file = parse_config(config_with(gsr={"measuring": ["glove"], "stopwords": "stop.txt"}), tmp_path / "x.toml")
    assert from_file.stopwords == tmp_path / "stop.txt"


def test_robust04_config_is_the_whole_of_section_4_2():
    config = load_config("robust04")
    regular = [s for s in config.systems if s.variant == "regular"]
    assert [(s.name, s.model) for s in regular] == [
        ("BM25", "bm25"),
        ("QLM", "qld"),
        ("tf-idf", "tfidf"),
        ("w2v_add", "add"),
        ("w2v_si", "si"),
        ("ftt_add", "add"),
        ("DRMM", "drmm"),
        ("MatchPyramid", "matchpyramid"),
    ]  # today's dense ranker is commented out (a six-line block: tests/retrievers/test_dense.py)
    assert {s.embedding for s in regular if s.model in ("drmm", "matchpyramid")} == {"w2v"}
    assert all(s.params["depth"] == "auto" for s in regular if s.model in ("drmm", "matchpyramid"))
    assert config.debias_variants == ["debiased", "strong"] and config.debias_list_set == "debiaswe"
    assert len(config.systems) == 8 + 5 * 2  # every embedding system again, debiased and strong
    assert config.measuring == ["w2v", "ftt"] and config.cutoff == "relevant" and config.baseline == "BM25"
    assert set(config.analyses) == {"rank_change", "reliability", "intrinsic_gender"}
    assert (config.exclusion, config.stopwords) == ("lemma", "nltk")


def test_missing_or_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[collection\nkind = 'demo'")
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        load_config(bad)


def test_relative_paths_are_resolved_against_the_config_folder(tmp_path):
    path = tmp_path / "sub" / "exp.toml"
    path.parent.mkdir()
    path.write_text(
        '[collection]\nkind = "files"\ndocuments = "docs.jsonl"\ntopics = "pyserini:robust04"\n'
        'qrels = "/abs/qrels.txt"\n[[systems]]\nname = "B"\nmodel = "bm25"\n'
        '[embeddings.glove]\nsource = "glove-6b-50d"\n[gsr]\nmeasuring = "glove"\n'
    )
    config = load_config(path)
    assert config.collection["documents"] == str(tmp_path / "sub" / "docs.jsonl")
    assert config.collection["topics"] == "pyserini:robust04"
    assert config.collection["qrels"] == "/abs/qrels.txt"
    assert str(config.output) == "out/exp"


def test_statistics_settings_and_gsr_measures():
    config = parse_config(config_with())
    assert (config.test, config.correction, config.resamples, config.level, config.seed) == ("t", "holm", 1000, 0.95, 0)
    assert config.gsr_columns() == [("glove", "glove", "relevant")]
    config = parse_config(
        config_with(
            evaluation={
                "measures": ["AP", "GSR@10", "GSR@rel"],
                "test": "wilcoxon",
                "correction": "none",
                "resamples": 200,
                "level": 0.9,
                "seed": 3,
            }
        )
    )
    assert config.measures == ["AP"] and config.cutoff == 10 and config.extra_cutoffs == ["relevant"]
    assert config.gsr_columns() == [("glove", "glove", 10), ("glove@rel", "glove", "relevant")]
    assert (config.test, config.correction, config.resamples, config.level, config.seed) == (
        "wilcoxon",
        "none",
        200,
        0.9,
        3,
    )
    bare = parse_config(config_with(evaluation={"measures": ["AP", "GSR"]}, gsr={"measuring": ["glove"], "cutoff": 20}))
    assert bare.cutoff == 20 and bare.extra_cutoffs == []
    with pytest.raises(ConfigError, match="the same GSR cut-off twice"):
        parse_config(config_with(evaluation={"measures": ["GSR", "GSR@rel"]}))


def test_run_file_paths_are_relative_to_the_config(tmp_path):
    (tmp_path / "configs").mkdir()
    path = tmp_path / "configs" / "x.toml"
    config = parse_config(config_with(systems=[{"name": "R", "model": "run", "path": "../runs/splade.txt"}]), path)
    assert config.systems[0].params["path"] == str(tmp_path / "configs" / ".." / "runs" / "splade.txt")
