"""The gender direction of Bolukbasi et al. (paper §2.2) and word genderedness (Eq. 1)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from embeddings.loading import EmbeddingError, release_rows
from gsr.io import read_json
from gsr.lexicon import GenderLexicon, vocabulary_key
from gsr.numeric import unit_rows

# Bolukbasi et al.'s ten definitional pairs, female word first (paper §2.2).
DEFAULT_DEFINITIONAL_PAIRS: tuple[tuple[str, str], ...] = (
    ("she", "he"),
    ("her", "his"),
    ("woman", "man"),
    ("Mary", "John"),
    ("herself", "himself"),
    ("daughter", "son"),
    ("mother", "father"),
    ("gal", "guy"),
    ("girl", "boy"),
    ("female", "male"),
)

ORIENTATION_PAIR = ("she", "he")


def load_word_pairs(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Read word pairs from a debiaswe-style JSON file: a list of two-word lists."""
    path = Path(path)
    data = read_json(path, error=EmbeddingError)
    if not isinstance(data, list):
        raise EmbeddingError(f"{path}: expected a JSON list of [word, word] pairs")
    pairs = []
    for number, item in enumerate(data, start=1):
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(w, str) for w in item)):
            raise EmbeddingError(f"{path}: item {number} is not a pair of words: {item!r}")
        pairs.append((item[0], item[1]))
    return pairs


def lookup_word(kv, word: str) -> str | None:
    """The key of `word` in a KeyedVectors under the project's lookup policy (gsr.lexicon.vocabulary_key)."""
    return vocabulary_key(kv.key_to_index, word)


def _definitional_unit(kv, word: str) -> np.ndarray:
    vector = np.asarray(kv[lookup_word(kv, word)], dtype=np.float64)
    if not vector.any():
        raise EmbeddingError(f"the definitional word {word!r} has an all-zero vector")
    return unit_rows(vector)


@dataclass(frozen=True)
class GenderDirection:
    """A unit gender direction w_g, oriented so that female words project positive."""

    vector: np.ndarray
    explained_variance: float
    explained_variance_ratios: tuple[float, ...] = ()
    pairs: tuple[tuple[str, str], ...] = field(default=())

    def genderedness(self, vectors: np.ndarray) -> np.ndarray:
        """Eq. 1, g(w) = w·w_g / (|w||w_g|), for each row of `vectors` (NaN for all-zero rows)."""
        return word_genderedness(vectors, self.vector)

    def vocabulary_genderedness(self, kv, chunk_rows: int = 200_000) -> np.ndarray:
        """Eq. 1 for every word of a KeyedVectors, in chunks so a memory-mapped embedding is never copied whole."""
        total = len(kv.index_to_key)
        out = np.empty(total, dtype=np.float64)
        for start in range(0, total, chunk_rows):
            out[start : start + chunk_rows] = self.genderedness(kv.vectors[start : start + chunk_rows])
            release_rows(kv.vectors, start, start + chunk_rows)
        return out


def word_genderedness(vectors: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Eq. 1: cosine of each word vector with the gender direction; NaN where a vector is all zeros."""
    vectors = np.asarray(vectors)
    direction = np.asarray(direction, dtype=np.float64)
    dots = vectors @ direction.astype(vectors.dtype, copy=False)
    norms = np.linalg.norm(vectors, axis=-1) * np.linalg.norm(direction)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.asarray(dots, dtype=np.float64) / norms
    return np.where(norms > 0, g, np.nan)


def pair_difference_components(female: np.ndarray, male: np.ndarray) -> tuple[np.ndarray, tuple[float, ...]]:
    """§2.2's PCA of pair differences: the principal components (unit rows, largest first) of the pair-centred
    rows a − (a + b)/2 and b − (a + b)/2 of each (female, male) pair of vectors, and each one's share of the
    variance. Row i of `female` and `male` is one pair; the rows are used as given (normalise them first where the
    method does). Shared by the word-embedding direction below and the encoder debiasing (debias.encoder)."""
    female, male = np.asarray(female, dtype=np.float64), np.asarray(male, dtype=np.float64)
    centre = (female + male) / 2
    matrix = np.empty((2 * len(female), female.shape[1]))
    matrix[0::2], matrix[1::2] = female - centre, male - centre  # pair by pair, as Bolukbasi et al.'s code stacks them
    # Rows of each pair sum to zero, so the matrix is already column-centred, as PCA requires.
    _, singular, vt = np.linalg.svd(matrix, full_matrices=False)
    variance = singular**2
    ratios = tuple(float(v) for v in variance / variance.sum())
    return vt / np.linalg.norm(vt, axis=1, keepdims=True), ratios


def fit_gender_direction(kv, pairs=None) -> GenderDirection:
    """§2.2: first principal component of the centred, unit-normalised definitional pairs, female-positive."""
    pairs = tuple(tuple(p) for p in (pairs if pairs is not None else DEFAULT_DEFINITIONAL_PAIRS))
    if len(pairs) < 2:
        raise EmbeddingError("the gender direction needs at least two definitional pairs")
    missing = [w for pair in pairs for w in pair if lookup_word(kv, w) is None]
    if missing:
        raise EmbeddingError(
            "definitional word(s) missing from the embedding: " + ", ".join(missing)
            + " (give other pairs with --definitional)"
        )
    female = np.vstack([_definitional_unit(kv, f) for f, _ in pairs])
    male = np.vstack([_definitional_unit(kv, m) for _, m in pairs])
    components, ratios = pair_difference_components(female, male)
    direction = components[0]
    she, he = (lookup_word(kv, w) for w in ORIENTATION_PAIR)
    if she is None or he is None:
        raise EmbeddingError("cannot orient the gender direction: 'she' or 'he' is missing from the embedding")
    if float((_definitional_unit(kv, she) - _definitional_unit(kv, he)) @ direction) < 0:
        direction = -direction
    return GenderDirection(direction, ratios[0], ratios, pairs)


def gender_lexicon(kv, pairs=None, direction: GenderDirection | None = None, name: str = "embedding") -> GenderLexicon:
    """g(w) of Eq. 1 for every word of `kv`, with the Bolukbasi direction fitted on `pairs` unless given."""
    direction = direction or fit_gender_direction(kv, pairs)
    return GenderLexicon(kv.key_to_index, direction.vocabulary_genderedness(kv), name=name, direction=direction)
