"""Word lists for debiasing: debiaswe JSON loaders and the project's own defaults in debias/wordlists/."""

from __future__ import annotations

import os
from pathlib import Path

from embeddings.direction import DEFAULT_DEFINITIONAL_PAIRS, load_word_pairs
from embeddings.loading import EmbeddingError
from gsr.io import read_json

WORDLISTS = Path(__file__).resolve().parent / "wordlists"
DEFAULT_GENDER_SPECIFIC_FILE = WORDLISTS / "gender_specific.json"
DEFAULT_EQUALIZE_FILE = WORDLISTS / "equalize_pairs.json"


class WordListError(EmbeddingError):
    """A word-list file that cannot be read or is not in the expected JSON shape; the message names it."""


def load_word_list(path: str | os.PathLike) -> list[str]:
    """Read a debiaswe-style JSON list of words (e.g. gender_specific_full.json)."""
    path = Path(path)
    data = read_json(path, error=WordListError)
    if not isinstance(data, list):
        raise WordListError(f"{path}: expected a JSON list of words, found {type(data).__name__}")
    for number, item in enumerate(data, start=1):
        if not isinstance(item, str) or not item.strip():
            raise WordListError(f"{path}: item {number} is not a word: {item!r}")
    return list(data)


def load_pair_list(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Read a debiaswe-style JSON list of [word, word] pairs (definitional or equalize pairs)."""
    try:
        return load_word_pairs(path)
    except EmbeddingError as err:  # same message (it names the file), but the word-list error class
        raise WordListError(str(err)) from None


def default_definitional_pairs() -> tuple[tuple[str, str], ...]:
    """Bolukbasi et al.'s ten definitional pairs, female first (embeddings.direction's constant)."""
    return DEFAULT_DEFINITIONAL_PAIRS


def default_equalize_pairs() -> list[tuple[str, str]]:
    """The project's equalize pairs (debias/wordlists/equalize_pairs.json): female/male counterparts."""
    return load_pair_list(DEFAULT_EQUALIZE_FILE)


def default_gender_specific() -> list[str]:
    """The project's gender-specific words: wordlists/gender_specific.json plus every default pair's words.

    The file holds the gendered-entity words of Fabris et al.'s Appendix B and a few more words that
    are gendered by definition; the definitional and equalize words are added here rather than copied
    into the file, so the three defaults cannot drift apart.
    """
    words = dict.fromkeys(load_word_list(DEFAULT_GENDER_SPECIFIC_FILE))
    for pair in (*default_definitional_pairs(), *default_equalize_pairs()):
        words.update(dict.fromkeys(pair))
    return list(words)
