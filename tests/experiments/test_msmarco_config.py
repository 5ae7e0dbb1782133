"""experiments/msmarco.toml on a small sample in MS MARCO's layout (collection.tsv, qrels.dev.small.tsv beside the
config, the built-in msmarco-gender:n queries): BM25 and MiniLM run, RR@10, nDCG@10 and GSR@10 are in the table,
RaB/ARaB@10 come from the paper's word list, NFaiRR@10 against BM25's top 200 and the measures compared; missing
files stop it before any work, naming them all."""

from __future__ import annotations

import importlib.util
import shutil

import numpy as np
import pytest

from experiments.cli import main
from experiments.config.experiment import BUILTIN_CONFIGS
from gsr.io.msmarco_gender import msmarco_gender_queries

WORDS = ["she", "he", "her", "his", "woman", "man", "mother", "father", "nurse", "doctor", "city", "water", "law"]


def _sample(folder, queries: dict[str, str], per_query: int = 6) -> None:
    rng = np.random.default_rng(0)
    lines, qrels = [], []
    for n, (qid, text) in enumerate(queries.items()):
        for i in range(per_query):
            pid = 1000 * n + i
            words = text.split() + list(rng.choice(WORDS, size=12))
            rng.shuffle(words)
            lines.append(f"{pid}\t{' '.join(words)}")
            if i == 0:
                qrels.append(f"{qid}\t0\t{pid}\t1")
    (folder / "collection.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "qrels.dev.small.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")


def test_missing_files_stop_it_before_any_work_naming_them(tmp_path, capsys):
    shutil.copy(BUILTIN_CONFIGS["msmarco"], tmp_path / "msmarco.toml")
    assert main(["run", str(tmp_path / "msmarco.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "collection.documents" in err and "collection.tsv" in err and "qrels.dev.small.tsv" in err
    assert "collection.topics" not in err  # msmarco-gender:n is a built-in topic set, not a file


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("pyserini") is None or importlib.util.find_spec("sentence_transformers") is None,
    reason="the lucene and dense extras are not installed (bash setup.sh installs them)",
)
def test_the_config_runs_on_a_sample_in_the_same_layout(tmp_path, capsys):
    queries = msmarco_gender_queries("msmarco-gender:n")
    _sample(tmp_path, dict(list(queries.items())[:8]))
    config = BUILTIN_CONFIGS["msmarco"].read_text(encoding="utf-8").replace("batch_size = 256", "batch_size = 16")
    (tmp_path / "msmarco.toml").write_text(config.replace('device = "auto"', 'device = "cpu"'), encoding="utf-8")
    assert main(["-q", "run", str(tmp_path / "msmarco.toml"), "--out", str(tmp_path / "out")]) == 0
    table = (tmp_path / "out" / "results.md").read_text(encoding="utf-8")
    assert "| system | RR@10 | nDCG@10 | GSR (glove) |" in table  # GSR at [gsr] cutoff = 10
    assert "| BM25 |" in table and "| MiniLM |" in table
    bias = (tmp_path / "out" / "label_bias.md").read_text(encoding="utf-8")
    assert "RaB" in bias and "ARaB" in bias and "NFaiRR@10" in bias and "top 200 documents per query of BM25" in bias
    agreement = (tmp_path / "out" / "measure_agreement.md").read_text(encoding="utf-8")
    assert "| GSR (glove) | NFaiRR@10 |" in agreement and "two systems" in agreement
