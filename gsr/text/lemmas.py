"""The lemma of a word, as gsr.text.analyzer.lemma defines it (lemminflect's dictionary, the noun reading first), from
a table of lemminflect's whole dictionary built once per machine and cached as arrays.

lemminflect takes half a second to load its dictionary in every process, then copies a dict per look-up; the table
answers in microseconds without it, in both directions: a word's lemma, and every word whose lemma a given word is
(what g_q(d) leaves out for a query term, found without lemmatising a collection's vocabulary).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from gsr.infra.digests import content_key
from gsr.infra.store import cache_dir, cached_folder

TABLE_FORMAT = 1
# lemminflect's parts of speech in the order a word's lemma is chosen: query terms are mostly nouns (as WordNet's
# lemmatiser assumes by default), so 'nursing' stays 'nursing' while 'women' becomes 'woman'.
LEMMA_POS_ORDER = ("NOUN", "PROPN", "VERB", "AUX", "ADJ", "ADV")


def chosen_lemma(readings: dict, word: str) -> str:
    """The lemma of `word` among lemminflect's `readings` ({part of speech: lemmas}): the first lemma of the first
    reading in LEMMA_POS_ORDER, then of any reading; the word itself where there is none."""
    for pos in LEMMA_POS_ORDER:
        if readings.get(pos):
            return readings[pos][0]
    for lemmas in readings.values():
        if lemmas:
            return lemmas[0]
    return word


def _build(staging: Path) -> None:
    from lemminflect import getAllLemmas
    from lemminflect.core.Lemmatizer import Lemmatizer

    lemmatizer = Lemmatizer()
    words = sorted(w for w in {*lemmatizer._getLemmaDict(), *lemmatizer._getOverridesDict()} if w == w.lower())
    pairs = [(w, chosen_lemma(getAllLemmas(w), w)) for w in words]
    changed = [(w, lemma) for w, lemma in pairs if lemma != w]
    np.save(staging / "words.npy", np.array([w for w, _ in changed], dtype=str), allow_pickle=False)
    np.save(staging / "lemmas.npy", np.array([lemma for _, lemma in changed], dtype=str), allow_pickle=False)


class LemmaTable:
    """Every lowercase word of lemminflect's dictionary whose lemma is another word, sorted, with its lemma."""

    def __init__(self, words: np.ndarray, lemmas: np.ndarray):
        self.words, self.lemmas = words, lemmas
        self._by_lemma = np.argsort(lemmas, kind="stable")
        self._sorted_lemmas = lemmas[self._by_lemma]

    @classmethod
    def cached(cls) -> LemmaTable:
        """The table of the installed lemminflect, built into the cache the first time (about two seconds)."""
        from importlib.metadata import version

        key = content_key("lemma-table", TABLE_FORMAT, version("lemminflect"), LEMMA_POS_ORDER)
        folder, _ = cached_folder(cache_dir() / "lemma-tables" / key, _build)
        return cls(
            np.load(folder / "words.npy", allow_pickle=False), np.load(folder / "lemmas.npy", allow_pickle=False)
        )

    def lemma(self, word: str) -> str:
        """The lemma of a lowercase word (the word itself where the dictionary gives no other)."""
        at = int(np.searchsorted(self.words, word))
        return str(self.lemmas[at]) if at < len(self.words) and self.words[at] == word else word

    def lemmas_of(self, words: list[str]) -> list[str]:
        """lemma() of many lowercase words at once."""
        if not words:
            return []
        asked = np.array(words, dtype=str)
        at = np.minimum(np.searchsorted(self.words, asked), len(self.words) - 1)
        found = self.words[at] == asked
        return np.where(found, self.lemmas[at], asked).tolist()

    def members(self, lemmas: list[str]) -> list[list[str]]:
        """For each lemma, every lowercase word whose lemma it is, the lemma itself first when it is its own."""
        if not lemmas:
            return []
        asked = np.array(lemmas, dtype=str)
        begins = np.searchsorted(self._sorted_lemmas, asked, "left").tolist()
        ends = np.searchsorted(self._sorted_lemmas, asked, "right").tolist()
        own = [own == lemma for own, lemma in zip(self.lemmas_of(list(lemmas)), lemmas)]
        return [
            ([lemma] if is_own else []) + self.words[self._by_lemma[begin:end]].tolist()
            for lemma, is_own, begin, end in zip(lemmas, own, begins, ends)
        ]


@lru_cache(maxsize=1)
def lemma_table() -> LemmaTable:
    """The cached table, loaded once per process."""
    return LemmaTable.cached()
