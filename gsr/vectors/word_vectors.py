"""Word vectors without gensim: the part of gensim's KeyedVectors that gsr-bench reads (`key_to_index`,
`index_to_key`, `vectors`, `vector_size`, `[word]`, `word in kv`) and writes (`save_word2vec_format`).

load_embedding returns these for the built-in GloVe, text files and every cached embedding, so the core install
(`pip install gsr-bench`, no gensim) measures GSR, debiases and writes embeddings. gensim (the `train` extra) reads
word2vec binary and gensim .kv files and trains word2vec/fastText; a fastText model keeps gensim's
FastTextKeyedVectors, whose character n-grams compose vectors of unseen words.
"""

from __future__ import annotations

import bz2
import gzip
import os
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np


class KeyedVectorsLike(Protocol):
    """What gsr reads of an embedding (the gender direction, g(w) of every word): gensim's KeyedVectors and WordVectors
    have it."""

    @property
    def key_to_index(self) -> Mapping[str, int]: ...

    @property
    def index_to_key(self) -> Sequence[str]: ...

    @property
    def vectors(self) -> np.ndarray: ...

    def __getitem__(self, word: str, /) -> np.ndarray: ...


class WordVectors:
    """Rows of `vectors` [n, dim] (float32, possibly a read-only memory map) keyed by the words of `index_to_key`.

    `key_to_index`, when given, must map each word of `index_to_key` to its row (no copy is made); otherwise it is
    built, and the words must be distinct.
    """

    def __init__(self, index_to_key: Sequence[str], vectors: np.ndarray, key_to_index: dict[str, int] | None = None):
        if vectors.ndim != 2 or vectors.shape[0] != len(index_to_key):
            raise ValueError(f"{len(index_to_key)} words but vectors of shape {vectors.shape}")
        self.index_to_key = list(index_to_key)
        self.key_to_index = key_to_index if key_to_index is not None else {w: i for i, w in enumerate(index_to_key)}
        if len(self.key_to_index) != len(self.index_to_key):
            raise ValueError("the words are not distinct")
        self.vectors = vectors
        self.norms = None  # gensim's cached norms: never filled here

    @property
    def vector_size(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.index_to_key)

    def __contains__(self, key: object) -> bool:
        return key in self.key_to_index

    def has_index_for(self, key: object) -> bool:
        return key in self.key_to_index

    def get_index(self, key: str) -> int:
        """The row of `key`; KeyError when the vocabulary lacks it."""
        try:
            return self.key_to_index[key]
        except KeyError:
            raise KeyError(f"Key '{key}' not present") from None

    def get_vector(self, key: str) -> np.ndarray:
        return self.vectors[self.get_index(key)]

    def __getitem__(self, keys):
        """The vector of a word, or a [len(keys), dim] array for a list of words."""
        if isinstance(keys, str):
            return self.get_vector(keys)
        return np.vstack([self.get_vector(key) for key in keys])

    def __repr__(self) -> str:
        return f"<WordVectors: {len(self):,} words x {self.vector_size} dimensions>"

    def save_word2vec_format(self, fname: str | os.PathLike, binary: bool = False) -> None:
        """Write word2vec's format as gensim does: a 'count dim' header, then per word the word and its float32 values
        (text: space-separated, one word a line; binary: the raw little-endian floats after 'word '). A name ending in
        .gz or .bz2 is compressed."""
        name = os.fspath(fname)
        opener = gzip.open if name.endswith(".gz") else bz2.open if name.endswith(".bz2") else open
        with opener(name, "wb") as out:
            out.write(f"{len(self)} {self.vector_size}\n".encode())
            for word, row in zip(self.index_to_key, self.vectors):
                row = np.asarray(row, dtype=np.float32)
                if binary:
                    out.write(f"{word} ".encode() + row.astype("<f4").tobytes())
                else:
                    out.write(f"{word} {' '.join(str(value) for value in row)}\n".encode())
