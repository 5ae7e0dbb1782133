"""Word lists for debiasing: debiaswe JSON loaders and the two named default list sets in debias/wordlists/.

- "debiaswe" (the default): Bolukbasi et al.'s own lists, copied from debiaswe (MIT licence,
  wordlists/debiaswe/LICENSE): ten definitional pairs, 52 equalize pairs, 1,441 gender-specific words. The paper
  debiased with debiaswe and these lists.
- "project": the lists this project used before, lowercase: Appendix B's gendered-entity words, definitional and
  equalize words, plurals and other person words (wordlists/gender_specific.json, wordlists/equalize_pairs.json).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from gsr.errors import EmbeddingError
from gsr.io.files import read_json

WORDLISTS = Path(__file__).resolve().parent / "wordlists"
DEFAULT_GENDER_SPECIFIC_FILE = WORDLISTS / "gender_specific.json"
DEFAULT_EQUALIZE_FILE = WORDLISTS / "equalize_pairs.json"
DEBIASWE_FOLDER = WORDLISTS / "debiaswe"
DEBIASWE_FILES = {
    "definitional": DEBIASWE_FOLDER / "definitional_pairs.json",
    "equalize": DEBIASWE_FOLDER / "equalize_pairs.json",
    "gender_specific": DEBIASWE_FOLDER / "gender_specific_full.json",
}
LIST_SETS = ("debiaswe", "project")
DEFAULT_LISTS = "debiaswe"


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
        from gsr.lexicon import load_word_pairs

        return load_word_pairs(path)
    except EmbeddingError as err:  # same message (it names the file), but the word-list error class
        raise WordListError(str(err)) from None


def _checked_lists(lists: str) -> str:
    if lists not in LIST_SETS:
        raise WordListError(f"unknown word lists {lists!r}: choose one of {', '.join(LIST_SETS)}")
    return lists


def default_definitional_pairs(lists: str = DEFAULT_LISTS) -> tuple[tuple[str, str], ...]:
    """The definitional pairs of a list set: debiaswe's file, or Bolukbasi's ten pairs as gsr.lexicon holds
    them (the same pairs in another order) for 'project'."""
    if _checked_lists(lists) == "debiaswe":
        return tuple(load_pair_list(DEBIASWE_FILES["definitional"]))
    from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS

    return DEFAULT_DEFINITIONAL_PAIRS


def default_equalize_pairs(lists: str = DEFAULT_LISTS) -> list[tuple[str, str]]:
    """The equalize pairs of a list set (debiaswe's 52, or the project's female/male counterparts)."""
    if _checked_lists(lists) == "debiaswe":
        return load_pair_list(DEBIASWE_FILES["equalize"])
    return load_pair_list(DEFAULT_EQUALIZE_FILE)


def female_first(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """`pairs` each as (female word, male word), whichever order a list gives them in.

    Lists mix orders: debiaswe's equalize pairs are male-first but for (wives, husbands) and (ex_girlfriend,
    ex_boyfriend); the project's are female-first. A word's gender is read from Appendix B's gendered-entity words
    (the last part of a phrase such as twin_brother; case ignored); a pair neither of whose words is listed there
    (monastery/convent, colt/filly) takes the order most of the list's known pairs have.
    """
    from gsr.text.intrinsic_gender import load_gendered_entities

    female, male = load_gendered_entities()

    def gender(word: str) -> int:
        head = word.lower().split("_")[-1]
        return 1 if head in female else -1 if head in male else 0

    votes = [gender(a) - gender(b) for a, b in pairs]  # > 0: female first, < 0: male first, 0: unknown
    majority = 1 if sum(v > 0 for v in votes) >= sum(v < 0 for v in votes) else -1
    return [(a, b) if (v or majority) > 0 else (b, a) for (a, b), v in zip(pairs, votes)]


def default_gender_specific(lists: str = DEFAULT_LISTS) -> list[str]:
    """The gender-specific words of a list set.

    debiaswe: gender_specific_full.json as published (debiaswe's debias() protects exactly these strings).
    project: wordlists/gender_specific.json plus every default pair's words, added here rather than copied into the
    file, so the project's three defaults cannot drift apart.
    """
    if _checked_lists(lists) == "debiaswe":
        return load_word_list(DEBIASWE_FILES["gender_specific"])
    words = dict.fromkeys(load_word_list(DEFAULT_GENDER_SPECIFIC_FILE))
    for pair in (*default_definitional_pairs("project"), *default_equalize_pairs("project")):
        words.update(dict.fromkeys(pair))
    return list(words)
