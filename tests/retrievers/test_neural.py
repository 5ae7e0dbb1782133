"""DRMM and MatchPyramid re-rankers: histograms, pooling, loss shape, learning on planted relevance, checkpoints."""

from __future__ import annotations

import inspect
import logging

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ir_measures = pytest.importorskip("ir_measures")

from gensim.models import KeyedVectors  # noqa: E402

from retrievers.neural import (  # noqa: E402
    DRMM,
    NEURAL_PARAMETERS,
    MatchPyramid,
    NeuralRankerError,
    collection_idf,
    crossval,
    rerank_cross_validated,
    rerank_depth,
)
from retrievers.neural.drmm import matching_histograms  # noqa: E402
from retrievers.neural.inputs import build_ranking_data, candidate_pool_idf, smoothed_idf  # noqa: E402
from retrievers.neural.matchpyramid import dynamic_max_pool  # noqa: E402
from retrievers.neural.models import model_inputs  # noqa: E402
from retrievers.neural.training import pairwise_hinge_loss, sample_training_groups, score_pairs  # noqa: E402

LETTERS = np.array(list("bcdfghjklmnpqrstvwxz"))  # no vowels: never an English stop word


def _keyed_vectors(vectors: dict[str, list[float]]) -> KeyedVectors:
    kv = KeyedVectors(len(next(iter(vectors.values()))))
    kv.add_vectors(list(vectors), np.asarray(list(vectors.values()), dtype=np.float32))
    return kv


def synthetic_collection(n_queries=30, n_candidates=20, n_relevant=4, doc_length=30, dim=16, seed=0):
    """Planted relevance: query q_i is two words of topic i; relevant documents carry those words or their
    near-synonyms (the topic's other words, whose vectors lie close); the others carry another topic's words and
    sometimes one stray query word. The BM25 'run' lists candidates in random order."""
    rng = np.random.default_rng(seed)
    words = iter(dict.fromkeys("".join(rng.choice(LETTERS, 7)) for _ in range(n_queries * 6 + 400)))
    topics = [[next(words) for _ in range(6)] for _ in range(n_queries)]
    filler = [next(words) for _ in range(200)]
    centers = rng.normal(size=(n_queries, dim))
    vectors = {w: centers[t] + 0.4 * rng.normal(size=dim) for t, ws in enumerate(topics) for w in ws}
    vectors.update({w: rng.normal(size=dim) for w in filler})
    queries, texts, candidates, qrels = {}, {}, {}, {}
    for i in range(n_queries):
        qid = f"q{i}"
        queries[qid] = " ".join(topics[i][:2])
        docids = []
        for j in range(n_candidates):
            relevant = j < n_relevant
            pool = (topics[i][:2] if j % 2 == 0 else topics[i][2:]) if relevant else topics[(i + 1 + j) % n_queries]
            length = int(rng.integers(doc_length // 2, doc_length * 3 // 2))
            body = list(rng.choice(filler, length))
            spots = rng.choice(length, length // 6, replace=False)
            for spot, word in zip(spots, rng.choice(pool, len(spots))):
                body[spot] = word
            if not relevant and j % 3 == 0:
                body[int(rng.integers(length))] = topics[i][0]
            docid = f"{qid}-d{j}"
            texts[docid] = " ".join(body)
            docids.append(docid)
            if relevant:
                qrels.setdefault(qid, {})[docid] = 1 + (j % 2 == 0)
        candidates[qid] = [(docids[o], float(n_candidates - r)) for r, o in enumerate(rng.permutation(n_candidates))]
    return queries, texts, candidates, qrels, _keyed_vectors(vectors)


@pytest.fixture(scope="module")
def collection():
    return synthetic_collection()


def mean_ap(qrels, run) -> float:
    return ir_measures.calc_aggregate([ir_measures.AP], qrels, {q: dict(r) for q, r in run.items()})[ir_measures.AP]


# ----------------------------------------------------------------------------------------------- DRMM histograms


def test_drmm_histogram_exact_match_bin_and_log_counts():
    kv = _keyed_vectors({"cat": [1, 0], "kitten": [2, 0], "dog": [0.8, 0.6], "tree": [0, 1], "car": [-1, 0]})
    data = build_ranking_data(
        {"q": "cat"}, {"d": "cat dog cat tree car kitten unknownword"}, {"q": [("d", 1.0)]}, {}, kv, tokenize=str.split
    )
    counts = matching_histograms(data.query_terms[0], data.doc_terms, data.unit_vectors)
    expected = np.zeros(30, dtype=np.int64)
    expected[29] = 2  # 'cat' twice: the exact-match bin
    expected[28] = 1  # 'kitten' has cosine 1 but is another word: the top cosine bin, not the exact one
    expected[26] = 1  # 'dog': cosine 0.8 -> floor(1.8 / 2 * 29)
    expected[14] = 1  # 'tree': cosine 0 -> floor(14.5)
    expected[0] = 1  # 'car': cosine -1
    assert counts.shape == (1, 1, 30)
    np.testing.assert_array_equal(counts[0, 0], expected)  # the OOV word is dropped
    lch = model_inputs("drmm", data).histograms[0, 0].numpy()
    np.testing.assert_allclose(lch, np.log1p(expected), rtol=1e-6)


def test_terms_are_looked_up_by_the_project_policy_after_a_zero_padding_row():
    kv = _keyed_vectors({"Cat": [3, 4], "dog": [0, 2], "ZERO": [0, 0]})
    data = build_ranking_data({"q": "cat"}, {"d": "dog cat zero fish"}, {"q": [("d", 1.0)]}, {}, kv, tokenize=str.split)
    assert data.words == ["dog", "Cat", "ZERO"]  # first-seen order; 'cat' found as 'Cat', 'zero' as 'ZERO'
    np.testing.assert_array_equal(data.doc_terms[0], [1, 2, 3])  # 'fish' is dropped
    np.testing.assert_array_equal(data.query_terms[0], [2])
    np.testing.assert_allclose(data.unit_vectors, [[0, 0], [0, 1], [0.6, 0.8], [0, 0]])
    assert data.unit_vectors.dtype == np.float32


def test_declared_parameters_match_the_defaults_of_rerank_cross_validated():
    signature = inspect.signature(rerank_cross_validated).parameters
    assert [p.name for p in NEURAL_PARAMETERS] == ["depth", "epochs", "seed", "device"]
    for param in NEURAL_PARAMETERS:
        assert signature[param.name].default == param.default, param.name
    assert NEURAL_PARAMETERS[0].check(100) == 100 and NEURAL_PARAMETERS[0].check("auto") == "auto"
    for wrong in (0, 2.5, True, "deep"):
        with pytest.raises(ValueError, match=r"depth must be an integer in \[1, 100,000\] or 'auto'"):
            NEURAL_PARAMETERS[0].check(wrong)


def test_auto_depth_reaches_the_largest_number_of_relevant_documents():
    qrels = {"q1": {f"d{i}": 1 for i in range(150)} | {"x": 0}, "q2": {"d1": 2}, "q3": {f"d{i}": 1 for i in range(400)}}
    assert rerank_depth("auto", qrels, ["q1", "q2"]) == 150  # K = 150 relevant (grade > 0) documents
    assert rerank_depth("auto", qrels, ["q2"]) == 100  # never below 100 (nDCG@100)
    assert rerank_depth("auto", qrels, ["q1", "q3"]) == 400
    assert rerank_depth(30, qrels, ["q3"]) == 30


def test_collection_idf_is_the_smoothed_formula():
    assert smoothed_idf(0, 9) == pytest.approx(np.log(10 / 0.5))
    idf = collection_idf(["nurse", "unseen"], {"nurse": 3, "care": 9}, 9)
    assert idf == pytest.approx({"nurse": np.log(10 / 3.5), "unseen": np.log(10 / 0.5)})
    pool = candidate_pool_idf([["nurse", "care"], ["care"]])
    assert pool("nurse") == pytest.approx(smoothed_idf(1, 2)) and pool("care") == pytest.approx(smoothed_idf(2, 2))


def test_drmm_gating_ignores_padded_query_terms():
    model = DRMM()
    histograms = torch.rand(2, 3, 30)
    idf = torch.tensor([[2.0, 1.0, 0.0], [2.0, 1.0, 5.0]])
    short = model(histograms, idf, torch.tensor([[True, True, False], [True, True, False]]))
    garbage = histograms.clone()
    garbage[:, 2] = 100.0
    assert torch.allclose(short, model(garbage, idf, torch.tensor([[True, True, False]] * 2)))


# ------------------------------------------------------------------------------------------------ MatchPyramid


@pytest.mark.parametrize("query_lengths, doc_lengths", [([1, 2, 10], [1, 57, 500]), ([3, 7, 4], [3, 9, 10])])
def test_dynamic_pooling_gives_fixed_shape_and_ignores_padding(query_lengths, doc_lengths):
    torch.manual_seed(0)
    q_len, d_len = torch.tensor(query_lengths), torch.tensor(doc_lengths)
    x = torch.rand(3, 4, 10, 500)
    for b, (lq, ld) in enumerate(zip(query_lengths, doc_lengths)):
        x[b, :, lq:, :] = 1e6  # padding must never win a max
        x[b, :, :, ld:] = 1e6
    pooled = dynamic_max_pool(x, q_len, d_len, (3, 10))
    assert pooled.shape == (3, 4, 3, 10)
    assert pooled.max() < 1e6
    narrow = dynamic_max_pool(x[..., : max(doc_lengths)].contiguous(), q_len, d_len, (3, 10))
    assert torch.equal(pooled, narrow)


def test_dynamic_pooling_takes_region_maxima():
    x = torch.arange(20.0).view(1, 1, 1, 20).repeat(1, 1, 2, 1)
    pooled = dynamic_max_pool(x, torch.tensor([2]), torch.tensor([20]), (1, 10))
    assert pooled.flatten().tolist() == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0, 19.0]
    pooled = dynamic_max_pool(x, torch.tensor([1]), torch.tensor([4]), (2, 3))
    assert pooled[0, 0].tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


@pytest.mark.parametrize("seed", range(3))
def test_scoring_pools_to_the_bit_the_maxima_training_pools(seed):
    """Without gradients (scoring) the pooling runs one adaptive max pooling per length, training keeps the gather
    whose gradients the checkpoints were trained with: the same maxima and the same model scores, for lengths from 0
    (taken as 1) past the region count, with many ties."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(64, 3, 10, 120, generator=generator).round(decimals=1)
    query_lengths = torch.randint(0, 11, (64,), generator=generator)
    doc_lengths = torch.randint(0, 121, (64,), generator=generator)
    doc_lengths[:4] = torch.tensor([0, 1, 9, 120])
    with torch.no_grad():
        scored = dynamic_max_pool(x, query_lengths, doc_lengths, (3, 10))
    trained = dynamic_max_pool(x.clone().requires_grad_(), query_lengths, doc_lengths, (3, 10))
    assert trained.requires_grad and torch.equal(scored, trained.detach())
    torch.manual_seed(seed)
    model = MatchPyramid()
    matrices = x[:, 0]
    with torch.no_grad():
        scores = model(matrices, query_lengths, doc_lengths)
    assert torch.equal(scores, model(matrices, query_lengths, doc_lengths).detach())


def test_matchpyramid_scores_do_not_depend_on_batch_padding(collection):
    queries, texts, candidates, qrels, kv = collection
    data = build_ranking_data(queries, texts, candidates, qrels, kv)
    inputs = model_inputs("matchpyramid", data)
    torch.manual_seed(0)
    model = MatchPyramid()
    pairs = torch.arange(0, len(data.pair_doc), 7)  # documents of 15 to 44 terms
    together = score_pairs(model, inputs, pairs, batch_size=len(pairs))
    alone = score_pairs(model, inputs, pairs, batch_size=1)
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-6)


def test_matchpyramid_matrices_computed_once_are_those_of_the_batch(collection):
    from retrievers.neural.matchpyramid import cosine_matching_matrices

    queries, texts, candidates, qrels, kv = collection
    data = build_ranking_data(queries, texts, candidates, qrels, kv)
    inputs = model_inputs("matchpyramid", data)
    pairs = torch.tensor([5, 0, len(data.pair_doc) - 1, 3])
    matrices, query_lengths, doc_lengths = inputs.batch(pairs)
    vectors = torch.from_numpy(data.unit_vectors)
    width = int(doc_lengths.max())
    query_rows = torch.zeros((len(pairs), matrices.shape[1]), dtype=torch.long)
    doc_rows = torch.zeros((len(pairs), width), dtype=torch.long)
    for i, pair in enumerate(pairs.tolist()):
        terms = data.query_terms[data.pair_query[pair]][:10]
        query_rows[i, : len(terms)] = torch.as_tensor(terms)
        words = data.doc_terms[data.pair_doc[pair]][:500]
        doc_rows[i, : len(words)] = torch.as_tensor(words)
    assert matrices.shape == (len(pairs), query_rows.shape[1], width)
    torch.testing.assert_close(matrices, cosine_matching_matrices(vectors, query_rows, doc_rows), rtol=0, atol=1e-6)


# -------------------------------------------------------------------------------------------- loss and sampling


def test_hinge_loss_reads_the_number_of_negatives_from_the_shape():
    scores = torch.tensor([[2.0, 0.5, 1.5, 3.0], [0.0, -2.0, 0.0, 0.5]])
    expected = np.mean([0.0, 0.5, 2.0, 0.0, 1.0, 1.5])
    assert float(pairwise_hinge_loss(scores)) == pytest.approx(expected)
    with pytest.raises(NeuralRankerError, match="groups, 1 \\+ negatives"):
        pairwise_hinge_loss(scores.flatten())  # flat scores could be regrouped wrongly: refused
    with pytest.raises(NeuralRankerError):
        pairwise_hinge_loss(scores[:, :1])


@pytest.mark.parametrize("negatives", [1, 3])
def test_sampled_groups_are_a_positive_then_lower_graded_negatives(collection, negatives):
    queries, texts, candidates, qrels, kv = collection
    data = build_ranking_data(queries, texts, candidates, qrels, kv)
    groups = sample_training_groups(data, data.qids[:10], negatives, np.random.default_rng(0))
    assert groups.shape == (sum(len(qrels[q]) for q in data.qids[:10]), 1 + negatives)
    grades = data.pair_grade[groups.numpy()]
    assert (grades[:, :1] > 0).all() and (grades[:, 1:] < grades[:, :1]).all()
    same_query = data.pair_query[groups.numpy()]
    assert (same_query == same_query[:, :1]).all()
    with pytest.raises(NeuralRankerError):
        sample_training_groups(data, data.qids, 0, np.random.default_rng(0))


# ---------------------------------------------------------------------------------------- learning and runs


@pytest.mark.slow
@pytest.mark.parametrize("model, epochs", [("drmm", 6), ("matchpyramid", 2)])
def test_trained_models_beat_the_random_candidate_order(collection, model, epochs):
    queries, texts, candidates, qrels, kv = collection
    run = rerank_cross_validated(model, queries, texts, candidates, qrels, kv, epochs=epochs, seed=1, threads=1)
    assert list(run) == list(queries)
    assert all(len(run[q]) == len(candidates[q]) for q in queries)
    random_map, model_map = mean_ap(qrels, candidates), mean_ap(qrels, run)
    assert random_map < 0.35
    assert model_map > random_map + 0.3


@pytest.mark.slow
def test_runs_are_deterministic_and_progress_is_logged(collection, caplog):
    queries, texts, candidates, qrels, kv = collection
    folds = [["q0", "q1", "q2", "q3"], ["q4", "q5", "q6", "q7"], ["q8", "q9", "q10", "q11"]]
    args = ("matchpyramid", queries, texts, candidates, qrels, kv)
    with caplog.at_level(logging.INFO, logger="gsr.neural"):
        first = rerank_cross_validated(*args, folds=folds, epochs=1)
    assert list(first) == [q for fold in folds for q in fold]
    assert rerank_cross_validated(*args, folds=folds, epochs=1) == first
    assert rerank_cross_validated(*args, folds=folds, epochs=1, seed=7) != first
    assert "[matchpyramid] fold 3/3 epoch 1/1 loss" in caplog.text


@pytest.mark.slow
def test_candidates_below_depth_follow_the_reranked_ones(collection):
    queries, texts, candidates, qrels, kv = collection
    run = rerank_cross_validated("drmm", queries, texts, candidates, qrels, kv, depth=8, epochs=1)
    for qid, ranked in run.items():
        assert {d for d, _ in ranked[:8]} == {d for d, _ in candidates[qid][:8]}
        assert [d for d, _ in ranked[8:]] == [d for d, _ in candidates[qid][8:]]
        scores = [s for _, s in ranked]
        assert scores == sorted(scores, reverse=True) and len(set(scores[7:])) == len(scores[7:])


@pytest.mark.slow
def test_query_without_embedded_terms_keeps_the_run_order(collection):
    queries, texts, candidates, qrels, kv = collection
    queries = {**queries, "q0": "zzzunknown"}
    with pytest.warns(UserWarning, match="no term in the embedding"):
        run = rerank_cross_validated("drmm", queries, texts, candidates, qrels, kv, epochs=1)
    assert run["q0"] == candidates["q0"]


# --------------------------------------------------------------------------------------------------- checkpoints


@pytest.mark.slow
def test_interrupted_runs_resume_from_checkpoints_and_corrupt_ones_are_rebuilt(
    collection, tmp_path, monkeypatch, caplog
):
    queries, texts, candidates, qrels, kv = collection
    args = ("drmm", queries, texts, candidates, qrels, kv)
    monkeypatch.setattr(crossval, "_available_cores", lambda: 1)  # tiny models: a second thread only adds waiting
    reference = rerank_cross_validated(*args, epochs=1)

    trained = []
    real_train = crossval.train_ranker

    def train_until_fold_3(*a, **kw):
        if kw["label"].endswith("fold 3/5"):
            raise KeyboardInterrupt
        trained.append(kw["label"])
        return real_train(*a, **kw)

    monkeypatch.setattr(crossval, "train_ranker", train_until_fold_3)
    with pytest.raises(KeyboardInterrupt):
        rerank_cross_validated(*args, epochs=1, checkpoint_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.pt")) == ["drmm-fold1of5.pt", "drmm-fold2of5.pt"]

    monkeypatch.setattr(crossval, "train_ranker", lambda *a, **kw: trained.append(kw["label"]) or real_train(*a, **kw))
    trained.clear()
    assert rerank_cross_validated(*args, epochs=1, checkpoint_dir=tmp_path) == reference
    assert trained == ["[drmm] fold 3/5", "[drmm] fold 4/5", "[drmm] fold 5/5"]

    trained.clear()
    assert rerank_cross_validated(*args, epochs=1, checkpoint_dir=tmp_path) == reference
    assert trained == []

    (tmp_path / "drmm-fold2of5.pt").write_bytes((tmp_path / "drmm-fold2of5.pt").read_bytes()[:100])
    (tmp_path / "drmm-fold4of5.pt").write_bytes(b"not a checkpoint")
    with caplog.at_level("WARNING", logger="gsr.store"):
        assert rerank_cross_validated(*args, epochs=1, checkpoint_dir=tmp_path) == reference
    assert trained == ["[drmm] fold 2/5", "[drmm] fold 4/5"]
    for k in (2, 4):  # reported by path (the manifest's size and hash no longer match), retrained
        assert f"{tmp_path / f'drmm-fold{k}of5.pt'} is corrupt" in caplog.text
    assert sorted(p.name for p in tmp_path.glob("*.pt")) == [f"drmm-fold{k}of5.pt" for k in range(1, 6)]

    trained.clear()
    with pytest.warns(UserWarning, match="other inputs or settings"):
        rerank_cross_validated(*args, epochs=2, checkpoint_dir=tmp_path)
    assert len(trained) == 5


# ---------------------------------------------------------------------------------------------------- bad input


def test_bad_inputs_raise_clear_errors(collection):
    queries, texts, candidates, qrels, kv = collection
    args = (queries, texts, candidates, qrels, kv)
    with pytest.raises(NeuralRankerError, match="unknown neural model 'knrm'"):
        rerank_cross_validated("knrm", *args)
    with pytest.raises(NeuralRankerError, match=r"folds \[1\] are empty"):
        rerank_cross_validated("drmm", *args, folds=[["q0", "q1"], [], ["q2"]])
    with pytest.raises(NeuralRankerError, match="'q1' is in fold 0 and fold 1"):
        rerank_cross_validated("drmm", *args, folds=[["q0", "q1"], ["q1", "q2"]])
    with pytest.raises(NeuralRankerError, match="without query text"):
        rerank_cross_validated("drmm", *args, folds=[["q0", "nope"], ["q2"]])
    with pytest.raises(NeuralRankerError, match=r"no candidate documents in the run: \['q3'\]"):
        rerank_cross_validated("drmm", queries, texts, {**candidates, "q3": []}, qrels, kv)
    with pytest.raises(NeuralRankerError, match="no text for candidate document 'q0-d0'"):
        rerank_cross_validated("drmm", queries, {k: v for k, v in texts.items() if k != "q0-d0"}, candidates, qrels, kv)
    with pytest.raises(NeuralRankerError, match="nothing to learn from"):
        rerank_cross_validated("drmm", queries, texts, candidates, {}, kv, epochs=1)
    with pytest.raises(NeuralRankerError, match="cannot split 3 queries into 5 folds"):
        rerank_cross_validated("drmm", {q: queries[q] for q in ["q0", "q1", "q2"]}, texts, candidates, qrels, kv)
