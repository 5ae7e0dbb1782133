"""Text handling of the paper (§3.2.2): lowercase, split on punctuation, stop words out, gendered words kept."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

from gsr.io import text_lines

# Pronouns and titles that every general stop list drops but that carry gender (paper §3.2.2).
GENDERED_KEEP_WORDS = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself", "mr", "mrs", "ms"})

_WORD_RUNS = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1)
def default_stopwords() -> frozenset[str]:
    """scikit-learn's English stop list (318 words) without the gendered pronouns and titles."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) - GENDERED_KEEP_WORDS


def read_stopwords(path: str | os.PathLike) -> frozenset[str]:
    """A stop list file, one word per line ('#' starts a comment); gendered pronouns and titles are kept.

    Read as every text file is (gsr.io.text_lines: UTF-8, BOM skipped, other bytes an error naming file:line).
    """
    words = set()
    for _, line in text_lines(path):
        word = line.split("#", 1)[0].strip().lower()
        if word:
            words.add(word)
    return frozenset(words) - GENDERED_KEEP_WORDS


@lru_cache(maxsize=None)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@dataclass(frozen=True)
class Analyzer:
    """Turns text into the bag of words GSR averages over, and maps a word to its inflection class."""

    stopwords: frozenset[str] | None = None

    def __post_init__(self):
        if self.stopwords is None:
            object.__setattr__(self, "stopwords", default_stopwords())

    def tokens(self, text: str) -> list[str]:
        """Lowercased runs of letters and digits; keeps those of >= 2 letters, no digit, not a stop word."""
        stop = self.stopwords
        return [t for t in _WORD_RUNS.findall(text.lower()) if len(t) > 1 and t.isalpha() and t not in stop]

    def inflection_class(self, word: str) -> str:
        """The Snowball (Porter2) stem: words sharing it are treated as inflections of one another."""
        return _stemmer().stemWord(word)

    def inflection_classes(self, words: list[str]) -> list[str]:
        """inflection_class for many words at once (one call into the stemmer)."""
        return _stemmer().stemWords(list(words))


def default_analyzer() -> Analyzer:
    """The analyzer used when none is given."""
    return Analyzer()
