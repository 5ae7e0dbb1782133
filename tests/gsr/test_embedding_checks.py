"""Issue 35, item 4: embedding files with values that are not finite numbers, damaged or empty gensim .kv files and
words given twice are one line naming the file (and line) or a warning naming the lines, never a traceback or a
silent choice; topics TSV with CR-only line ends are refused as runs and qrels are."""

from __future__ import annotations

import importlib.util
import logging
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from gsr.errors import InputError
from gsr.io.topics import read_tsv_queries
from gsr.vectors.loading import EmbeddingError, load_embedding, read_text_vectors
from tests.support.toy_collection import score_args, write_toy

pytestmark = pytest.mark.usefixtures("own_cache")
needs_gensim = pytest.mark.skipif(importlib.util.find_spec("gensim") is None, reason="gensim (the train extra)")


def _vectors(path: Path, rows: list[str], header: bool = True) -> Path:
    dim = len(rows[0].split()) - 1
    path.write_text((f"{len(rows)} {dim}\n" if header else "") + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-Infinity", "1e39", "-3.5e38"])
def test_values_that_are_not_finite_float32_numbers_are_refused_at_their_line(tmp_path, value):
    path = _vectors(tmp_path / "v.txt", ["she 1.0 0.5", f"he -1.0 {value}", "nurse 0.5 0.5"])
    with pytest.raises(EmbeddingError) as info:
        read_text_vectors(path)
    assert str(info.value) == (
        f"{path}:3: vector value {value!r} is not a finite float32 number (NaN, infinity, or beyond ±3.4e38)"
    )


def test_gsr_score_says_so_in_one_line(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    text = (folder / "vectors.txt").read_text(encoding="utf-8")
    (folder / "vectors.txt").write_text(text.replace("she 1.0", "she nan"), encoding="utf-8")
    assert main(score_args(folder)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"gsr: error: {folder / 'vectors.txt'}:2: vector value 'nan' is not a finite float32 number" in err


def test_a_word_given_twice_with_another_vector_is_refused_naming_both_lines(tmp_path):
    path = _vectors(tmp_path / "v.txt", ["she 1.0 0.5", "he -1.0 0.5", "nurse 0.5 0.5", "he -1.0 0.25"])
    with pytest.raises(EmbeddingError) as info:
        read_text_vectors(path)
    assert str(info.value) == (
        f"{path}:5: the word 'he' is given again with another vector (first at line 3); which one is meant cannot "
        "be told: keep one"
    )


def test_a_word_given_twice_with_its_vector_is_kept_once_with_a_warning(tmp_path, caplog):
    path = _vectors(tmp_path / "v.txt", ["she 1.0 0.5", "he -1.0 0.5", "she 1.0 0.5", "nurse 0.5 0.5"])
    with caplog.at_level(logging.WARNING):
        kv = read_text_vectors(path)
    assert kv.index_to_key == ["she", "he", "nurse"]
    assert f"{path}: 1 words given twice with the same vector, kept once: 'she' (lines 2 and 4)" in caplog.text


def test_one_word_in_nfc_and_nfd_is_warned_of_with_its_lines(tmp_path, caplog):
    composed, decomposed = "café", unicodedata.normalize("NFD", "café")
    path = _vectors(tmp_path / "v.txt", [f"{decomposed} 0.1 0.2", "she 1.0 0.5", f"{composed} 0.3 0.4"], header=False)
    with caplog.at_level(logging.WARNING):
        kv = read_text_vectors(path)
    assert len(kv.index_to_key) == 3
    assert (
        f"{path}: 1 words are written in two Unicode forms (NFC and NFD), one word to gsr, which uses the NFC "
        "spelling's vector: 'café' (lines 1, 3, different vectors)"
    ) in caplog.text


@needs_gensim
def test_a_binary_file_with_a_nan_vector_names_the_word(tmp_path):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=2)
    kv.add_vectors(["she", "he", "nurse"], np.array([[1, 0.5], [-1, 0.5], [np.nan, 0.5]], dtype=np.float32))
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    with pytest.raises(EmbeddingError, match=r"v\.bin: the vector of word 'nurse' holds NaN or an infinite value$"):
        load_embedding(tmp_path / "v.bin")


@needs_gensim
@pytest.mark.parametrize("damage", ["empty", "cut"])
def test_a_damaged_or_empty_kv_file_is_one_line_naming_it(tmp_path, capsys, damage):
    from gensim.models import KeyedVectors

    folder = write_toy(tmp_path / "toy")
    kv = KeyedVectors(vector_size=2)
    kv.add_vectors(["she", "he"], np.array([[1, 0.5], [-1, 0.5]], dtype=np.float32))
    path = folder / "v.kv"
    kv.save(str(path))
    data = path.read_bytes()
    path.write_bytes(b"" if damage == "empty" else data[: len(data) // 2])
    with pytest.raises(EmbeddingError, match=rf"^{path}: not a readable gensim \.kv file \("):
        load_embedding(path, allow_pickle=True)
    assert main([*score_args(folder, embedding=False), "--embedding", str(path), "--allow-pickle"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"gsr: error: {path}: not a readable gensim .kv file (" in err


def test_topics_with_cr_only_line_ends_are_refused(tmp_path, capsys):
    path = tmp_path / "topics.tsv"
    path.write_bytes(b"q1\tnurse hospital\rq2\telectrician tools\rq3\tbudget report\r")
    with pytest.raises(InputError) as info:
        read_tsv_queries(path)
    assert str(info.value) == (
        f"{path}:1: a carriage return (CR) inside the line: the file ends its lines with CR alone (classic Mac OS); "
        "convert them to LF"
    )
    path.write_bytes(b"q1\tnurse hospital\r\nq2\telectrician tools\r\n")  # CRLF line ends are fine
    assert read_tsv_queries(path) == {"q1": "nurse hospital", "q2": "electrician tools"}
    folder = write_toy(tmp_path / "toy")
    (folder / "topics.tsv").write_bytes((folder / "topics.tsv").read_bytes().replace(b"\n", b"\r"))
    assert main(score_args(folder)) == 2
    assert "topics.tsv:1: a carriage return (CR) inside the line" in capsys.readouterr().err
