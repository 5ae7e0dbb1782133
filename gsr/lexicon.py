"""Word genderedness lookups, g(w) for the tokens GSR averages over, and the project's one word-lookup policy."""

from __future__ import annotations

import math
from collections.abc import Container, Iterable, Mapping

import numpy as np


def case_variants(word: str) -> tuple[str, ...]:
    """The word as written, then its lowercase, Title-case and UPPER-case forms, without repeats."""
    return tuple(dict.fromkeys((word, word.lower(), word.title(), word.upper())))


def vocabulary_key(vocabulary: Container[str], word: str) -> str | None:
    """The lookup policy of every package: the first of case_variants(word) in `vocabulary`, else None.

    So 'Mary' resolves in a lowercase vocabulary and 'nasa' in one that only has 'NASA'.
    """
    for candidate in case_variants(word):
        if candidate in vocabulary:
            return candidate
    return None


class GenderLexicon:
    """g(w) for a vocabulary; words are looked up by `vocabulary_key` (as given, then lower, Title, UPPER case).

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

    def get(self, word: str) -> float | None:
        """g(word), or None when no case form of it is in the vocabulary."""
        memo = self._memo.get(word)
        if memo is not None:
            return None if math.isnan(memo) else memo
        key = vocabulary_key(self._index, word)
        value = math.nan if key is None else float(self._values[self._index[key]])
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

