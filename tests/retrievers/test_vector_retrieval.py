"""w2v_add / w2v_si: exact top-k by cosine against a brute-force computation, self-information, word lookup,
caching."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from gensim.models import KeyedVectors

from gsr.documents.stats import DocumentStats
from gsr.text.analyzer import Analyzer
from retrievers.vector_average import VectorAverageRetriever, self_information, top_k_inner_products

WORDS = ["nurse", "hospital", "care", "electrician", "wire", "tools", "she", "he", "garden", "music"]


def _kv(seed=0, dim=8):
    rng = np.random.default_rng(seed)
    kv = KeyedVectors(dim)
    kv.add_vectors(WORDS, rng.normal(size=(len(WORDS), dim)).astype(np.float32))
    return kv


def _collection(seed=1, n=60):
    rng = np.random.default_rng(seed)
    vocabulary = WORDS + ["unknownword", "the"]
    return {f"d{i:03d}": " ".join(rng.choice(vocabulary, size=rng.integers(1, 12))) for i in range(n)}


def _brute_force(kv, docs, query, weights):
    """Independent cosine ranking straight from the texts."""
    analyzer = Analyzer()

    def vector(text):
        total = np.zeros(kv.vector_size)
        for t in analyzer.tokens(text):
            if t in kv.key_to_index and t not in ("she", "he"):
                total += weights(t) * kv[t]
        return total

    q = vector(query)
    scores = {}
    for docid, text in docs.items():
        d = vector(text)
        norm = np.linalg.norm(d) * np.linalg.norm(q)
        scores[docid] = float(d @ q / norm) if norm > 0 else 0.0
    return scores


@pytest.mark.parametrize("weighting", ["add", "si"])
def test_ranking_matches_brute_force_cosine(weighting):
    kv, docs = _kv(), _collection()
    stats = DocumentStats.build(docs.items(), Analyzer(), n_jobs=1)
    retriever = VectorAverageRetriever(kv, stats, weighting)
    analyzer = Analyzer()
    frequency = {}
    for text in docs.values():
        for t in analyzer.tokens(text):
            frequency[t] = frequency.get(t, 0) + 1
    total, size = sum(frequency.values()), len(frequency)

    def weight(term):
        if weighting == "add":
            return 1.0
        return -math.log((frequency.get(term, 0) + 1) / (total + size))

    run = retriever.search({"q": "nurse hospital care"}, k=10)
    expected = _brute_force(kv, docs, "nurse hospital care", weight)
    best = sorted(expected.items(), key=lambda kv_: (-kv_[1], kv_[0]))[:10]
    assert [round(s, 5) for _, s in run["q"]] == [round(s, 5) for _, s in best]
    for docid, score in run["q"]:
        assert score == pytest.approx(expected[docid], abs=1e-5)


def test_self_information_is_minus_log_smoothed_probability():
    si = self_information(np.array([3, 1, 0]))
    assert si == pytest.approx(-np.log(np.array([4, 2, 1]) / 7))


def test_out_of_vocabulary_query_retrieves_nothing():
    stats = DocumentStats.build(_collection().items(), Analyzer(), n_jobs=1)
    run = VectorAverageRetriever(_kv(), stats).search({"q1": "zzzz qqqq", "q2": "nurse"}, k=5)
    assert run["q1"] == [] and len(run["q2"]) == 5


def test_gendered_pronouns_do_not_drive_retrieval():
    stats = DocumentStats.build({"a": "she she she", "b": "nurse"}.items(), Analyzer(), n_jobs=1)
    run = VectorAverageRetriever(_kv(), stats).search({"q": "she nurse"}, k=2)
    assert run["q"][0][0] == "b" and run["q"][1][1] == 0.0


def test_top_k_over_blocks_equals_full_sort():
    rng = np.random.default_rng(3)
    documents = rng.normal(size=(1000, 5)).astype(np.float32)
    queries = rng.normal(size=(4, 5)).astype(np.float32)
    scores, rows = top_k_inner_products(documents, queries, k=17, step=64)
    full = queries @ documents.T
    for i in range(4):
        expected = np.argsort(-full[i], kind="stable")[:17]
        assert list(rows[i]) == list(expected)
        assert scores[i] == pytest.approx(full[i][expected], abs=1e-6)


def test_document_vectors_are_cached_by_key(tmp_path):
    stats = DocumentStats.build(_collection().items(), Analyzer(), n_jobs=1)
    first = VectorAverageRetriever(_kv(), stats, cache_key="unit")
    assert isinstance(first.documents, np.memmap)
    second = VectorAverageRetriever(_kv(), stats, cache_key="unit")
    assert np.array_equal(np.asarray(first.documents), np.asarray(second.documents))


def test_corrupt_cached_document_vectors_are_rebuilt_not_read(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("GSR_CACHE", str(tmp_path))
    stats = DocumentStats.build(_collection().items(), Analyzer(), n_jobs=1)
    expected = np.array(VectorAverageRetriever(_kv(), stats, cache_key="corrupt").documents)
    [cached] = (tmp_path / "document-vectors").glob("*.npy")
    content = bytearray(cached.read_bytes())
    middle = len(content) // 2
    content[middle : middle + 8] = b"\x7f" * 8  # same size, other numbers: only the content hash can tell
    cached.write_bytes(bytes(content))
    with caplog.at_level(logging.WARNING, logger="gsr.store"):
        again = VectorAverageRetriever(_kv(), stats, cache_key="corrupt")
    assert "is corrupt" in caplog.text and str(cached) in caplog.text
    assert isinstance(again.documents, np.memmap)
    assert np.array_equal(np.asarray(again.documents), expected)
    assert np.array_equal(np.load(cached), expected)  # the rebuilt file replaced the corrupt one


def test_words_are_looked_up_by_the_project_policy():
    """A lowercase token finds an embedding key that exists only in Title case, in documents and queries alike."""
    kv = KeyedVectors(3)
    kv.add_vectors(["Nurse", "garden"], np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float32))
    stats = DocumentStats.build({"a": "nurse", "b": "garden"}.items(), Analyzer(), n_jobs=1)
    for weighting in ("add", "si"):
        retriever = VectorAverageRetriever(kv, stats, weighting)
        assert np.asarray(retriever.documents).tolist() == [[1, 0, 0], [0, 1, 0]]
        run = retriever.search({"q": "nurse"}, k=2)
        assert run["q"][0] == ("a", pytest.approx(1.0)) and run["q"][1][1] == 0.0


def test_unknown_weighting_is_rejected():
    stats = DocumentStats.build({"a": "nurse"}.items(), Analyzer(), n_jobs=1)
    with pytest.raises(ValueError, match="weighting 'idf' is unknown"):
        VectorAverageRetriever(_kv(), stats, "idf")
