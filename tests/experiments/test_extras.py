"""The extras of gsr-bench (gsr.infra.extras): every registered system type and collection kind names a known extra,
a config whose extras are not installed stops when it is read, in one line naming them and the pip command, and
`gsr list` shows them (the extras are made missing by patching `installed`)."""

from __future__ import annotations

import pytest

from experiments.cli import main
from experiments.config.experiment import parse_config
from experiments.registry import COLLECTION_KINDS, SYSTEMS
from gsr.infra import extras
from gsr.infra.extras import EXTRAS, MissingExtraError, install_command, needing

EXPECTED = {
    "bm25": "lucene",
    "qld": "lucene",
    "tfidf": "lucene",
    "add": None,
    "si": None,
    "drmm": "neural",
    "matchpyramid": "neural",
    "run": None,
    "rerank": None,
    "dense": "dense",
    "cross_encoder": "dense",
}


def _missing(*absent):
    return lambda extra: extra not in absent


def test_every_system_and_collection_kind_names_a_known_extra():
    assert {entry.name: entry.extra for entry in SYSTEMS if entry.name in EXPECTED} == EXPECTED
    for entry in [*SYSTEMS, *COLLECTION_KINDS]:
        assert entry.extra is None or entry.extra in EXTRAS, entry.name
    assert COLLECTION_KINDS.get("lucene-index").extra == "lucene"
    assert COLLECTION_KINDS.get("ir_datasets").extra == "irds"


def test_the_wording_of_what_needs_an_extra():
    assert needing({"system": ["BM25"]}) == "system 'BM25' needs"
    assert needing({"system": ["BM25", "QLM"]}) == "systems 'BM25', 'QLM' need"
    assert needing({"collection kind": ["lucene-index"], "system": ["BM25"]}) == (
        "collection kind 'lucene-index' and system 'BM25' need"
    )
    assert install_command(["train", "lucene", "train"]) == "pip install 'gsr-bench[lucene,train]'"


def _config(**extra):
    return {
        "collection": {"kind": "demo"},
        "embeddings": {"glove": {"source": "glove-6b-50d"}, "w2v": {"train": "word2vec"}},
        "systems": [
            {"name": "BM25", "model": "bm25"},
            {"name": "QLM", "model": "qld"},
            {"name": "w2v_add", "model": "add", "embedding": "w2v"},
            {"name": "EG", "model": "rerank", "method": "epsilon_greedy", "rerank": "BM25", "seed": [0, 1]},
        ],
        "gsr": {"measuring": ["glove"]},
        **extra,
    }


def test_a_config_stops_in_one_line_naming_every_missing_extra(monkeypatch):
    parse_config(_config(debias={"variants": ["debiased"]}))  # everything installed here
    monkeypatch.setattr(extras, "installed", _missing("lucene", "train"))
    with pytest.raises(MissingExtraError) as caught:
        parse_config(_config(debias={"variants": ["debiased"]}))
    assert str(caught.value) == (
        "config: systems 'BM25', 'QLM' need the 'lucene' extra; embedding 'w2v' needs the 'train' extra: "
        "pip install 'gsr-bench[lucene,train]'"
    )
    monkeypatch.setattr(extras, "installed", _missing("train"))
    config = _config()
    config["embeddings"]["w2v"] = {"source": "vectors.bin"}  # gensim reads word2vec binary files
    with pytest.raises(MissingExtraError, match=r"^config: embedding 'w2v' needs the 'train' extra"):
        parse_config(config)
    config["embeddings"]["w2v"] = {"source": "vectors.txt"}  # a text file needs nothing
    parse_config(config)


def test_gsr_run_names_the_missing_extras_before_any_work(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(extras, "installed", _missing("lucene", "neural", "train", "plots"))
    assert main(["run", "demo", "--out", str(tmp_path / "demo")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("gsr: error: ") and "demo.toml: systems 'BM25', 'QLM'" in err
    assert err.endswith("pip install 'gsr-bench[lucene,neural,train]'")
    assert not (tmp_path / "demo").exists()


def test_gsr_validate_plots_names_the_plots_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(extras, "installed", _missing("plots"))
    assert main(["validate", "--plots", str(tmp_path / "figs")]) == 2
    assert capsys.readouterr().err.strip().endswith("needs the 'plots' extra: pip install 'gsr-bench[plots]'")


def test_gsr_list_alone_prints_every_table_and_each_extra(capsys):
    assert main(["list", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("## ")] == [
        "## configs",
        "## systems",
        "## analyses",
        "## collections",
    ]
    assert "| model | system | needs | extra | parameters |" in out
    assert "| `drmm` |" in out and "| `neural` |" in out
    assert main(["list"]) == 0  # for the terminal: each entry a wrapped paragraph naming its extra
    out = capsys.readouterr().out
    assert "drmm" in out and "extra: neural" in out
