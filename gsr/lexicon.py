"""Word genderedness lookups: g(w) for the tokens GSR averages over."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np


class GenderLexicon:
    """g(w) for a vocabulary; a word is looked up as given, then lowercase, Title-case and UPPER-case.

    Words whose vector is all zeros (g is NaN) count as out of vocabulary.
    """

    def __init__(self, index: Mapping[str, int], values: np.ndarray, name: str = "custom", direction=None):
        values = np.asarray(values, dtype=np.float64)
        if len(index) != len(values):
            raise ValueError(f"{len(index)} words but {len(values)} genderedness values")
        self._index = index
        self._values = values
        self.name = name
        self.direction = direction
        self._memo: dict[str, float] = {}

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, float], name: str = "custom") -> GenderLexicon:
        """A lexicon from a plain {word: g} mapping (hand-made examples, other tools' scores)."""
        words = list(mapping)
        index = {w: i for i, w in enumerate(words)}
        return cls(index, np.array([mapping[w] for w in words], dtype=np.float64), name=name)

    @classmethod
    def from_embedding(cls, kv, direction=None, pairs=None, name: str = "embedding") -> GenderLexicon:
        """Eq. 1 over a whole embedding, with the Bolukbasi direction fitted on `pairs` unless given."""
        from embeddings.direction import fit_gender_direction

        direction = direction or fit_gender_direction(kv, pairs)
        values = direction.vocabulary_genderedness(kv)
        return cls(kv.key_to_index, values, name=name, direction=direction)

    def get(self, word: str) -> float | None:
        """g(word), or None when no case form of it is in the vocabulary."""
        memo = self._memo.get(word)
        if memo is not None:
            return None if math.isnan(memo) else memo
        value = math.nan
        for candidate in (word, word.lower(), word.title(), word.upper()):
            i = self._index.get(candidate)
            if i is not None:
                value = float(self._values[i])
                break
        self._memo[word] = value
        return None if math.isnan(value) else value

    def __contains__(self, word: str) -> bool:
        return self.get(word) is not None

    def values(self, words: Iterable[str]) -> np.ndarray:
        """g for each word, NaN where out of vocabulary."""
        return np.array([self._nan_get(w) for w in words], dtype=np.float64)

    def _nan_get(self, word: str) -> float:
        value = self.get(word)
        return math.nan if value is None else value

