"""Embeddings trained on a collection: settings, the shared token pass, n-gram buckets, progress while training."""

from __future__ import annotations

import json
import logging

import pytest

from embeddings.training import (
    TokenCorpus,
    TrainingProgress,
    TrainingSettings,
    fasttext_buckets,
    train_embedding,
    write_token_corpus,
)
from experiments.config.experiment import parse_config
from experiments.config.params import ConfigError


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"dim": True}, "training dim must be an integer"),
        ({"epochs": 0}, r"training epochs must be in \[1, 1000\]"),
        ({"sample": 1.5}, r"training sample must be in \[0, 1\]"),
        ({"min_n": 5, "max_n": 4}, r"max_n \(4\) must be at least min_n \(5\)"),
        ({"buckets": -1}, "training buckets must be ≥ 0"),
        ({"method": "glove"}, "training method 'glove' is unknown"),
    ],
)
def test_bad_training_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        TrainingSettings(**settings)


def test_training_settings_are_config_keys_checked_with_the_config():
    raw = {
        "collection": {"kind": "toy1"},
        "systems": [{"name": "add", "model": "add", "embedding": "e"}],
        "embeddings": {"e": {"train": "fasttext", "sample": 0.001, "buckets": 5000, "min_n": 2, "max_n": 4}},
        "gsr": {"measuring": ["e"]},
    }
    assert parse_config(raw).embeddings["e"].train == {
        "method": "fasttext",
        "sample": 0.001,
        "buckets": 5000,
        "min_n": 2,
        "max_n": 4,
    }
    raw["embeddings"]["e"]["sample"] = "often"
    with pytest.raises(ConfigError, match=r"config: embeddings\.e\.sample must be a number"):
        parse_config(raw)


def test_fasttext_buckets_are_sized_to_the_vocabulary():
    # "<ab>": 3-grams "<ab", "ab>"; 4-gram "<ab>"; "<b>": "<b>" — four distinct n-grams, four buckets each
    assert fasttext_buckets(["ab", "b", "ab"], 3, 4) == 16
    assert fasttext_buckets([f"word{i}" for i in range(400_000)], 3, 6) == 2_000_000  # fastText's default caps it


def test_one_token_pass_writes_the_corpus_and_counts_its_words(tmp_path):
    docs = tmp_path / "docs.jsonl"
    texts = ["The nurse, the NURSE!", "", "He said: x-ray 42 the end"] * 4_000  # several chunks, order kept
    docs.write_text("".join(json.dumps({"id": f"d{i}", "contents": t}) + "\n" for i, t in enumerate(texts)))
    corpus = write_token_corpus(docs, tmp_path, n_jobs=2)
    lines = corpus.path.read_text().splitlines()
    assert lines[:3] == ["the nurse the nurse", "", "he said ray the end"] and len(lines) == 12_000
    assert corpus.documents == 12_000 and corpus.words == 9 * 4_000
    assert corpus.counts == {"the": 12_000, "nurse": 8_000, "he": 4_000, "said": 4_000, "ray": 4_000, "end": 4_000}
    again = TokenCorpus.load(tmp_path)
    assert (again.path, again.documents, again.counts) == (corpus.path, corpus.documents, corpus.counts)


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_progress_reports_epochs_words_per_second_and_eta(monkeypatch, caplog):
    clock = _Clock()
    monkeypatch.setattr("embeddings.training.time.monotonic", clock)
    caplog.set_level(logging.INFO, logger="gsr.training")
    progress = TrainingProgress("word2vec", epochs=3, words_per_epoch=1_000_000, every=0)
    progress.on_train_begin(None)
    for seconds in (10.0, 30.0):
        progress.on_epoch_begin(None)
        clock.now += seconds
        progress.on_epoch_end(None)
    assert progress.eta(into_epoch=5.0) == "ETA 15 s"  # one epoch of mean 20 s left, 5 s of it done
    progress.on_epoch_begin(None)
    clock.now += 20.0
    progress.on_epoch_end(None)
    progress.on_train_end(None)
    assert [r.getMessage() for r in caplog.records] == [
        "word2vec: epoch 1/3 in 10 s, 100,000 words/s, ETA 20 s",
        "word2vec: epoch 2/3 in 30 s, 33,333 words/s, ETA 20 s",
        "word2vec: epoch 3/3 in 20 s, 50,000 words/s, ETA 0 s",
        "word2vec: trained in 60 s",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("method", ["word2vec", "fasttext"])
def test_trained_vocabulary_is_the_one_gensim_would_scan(tmp_path, method, caplog):
    from gensim.models import Word2Vec

    docs = tmp_path / "docs.jsonl"
    words = [f"w{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(60)]
    texts = [" ".join(words[(i * 7 + j * 3) % len(words)] for j in range(i % 13)) for i in range(400)]
    docs.write_text("".join(json.dumps({"id": f"d{i}", "contents": t}) + "\n" for i, t in enumerate(texts)))
    corpus = write_token_corpus(docs, tmp_path, n_jobs=2)
    settings = TrainingSettings(method=method, dim=8, epochs=2, min_count=20)
    with caplog.at_level(logging.INFO, logger="gsr.training"):
        kv = train_embedding(corpus, settings)
    scanned = Word2Vec(min_count=20)
    scanned.build_vocab(corpus_file=str(corpus.path))
    assert sorted(kv.index_to_key) == sorted(scanned.wv.index_to_key)
    assert all(kv.get_vecattr(w, "count") == scanned.wv.get_vecattr(w, "count") for w in kv.index_to_key)
    err = caplog.text
    assert "epoch 2/2" in err and "words/s" in err and "trained in" in err
    assert ("n-gram buckets" in err) == (method == "fasttext")
