"""Which queries the adversarial probe edits: Feng & Shah's occupation queries (a query naming an occupation of a
word list, experiments/wordlists/occupations.txt by default), all of them, or one query category's."""

from __future__ import annotations

import re
from pathlib import Path

from gsr.errors import InputError
from gsr.io.files import text_lines

OCCUPATIONS = Path(__file__).resolve().parents[1] / "wordlists" / "occupations.txt"
ALL = "all"
OCCUPATION_QUERIES, CATEGORY_PREFIX = "occupations", "category:"
_WORDS = re.compile(r"[^\W\d_]+")


def word_tokens(text: str) -> list[str]:
    """Lowercase runs of letters."""
    return _WORDS.findall(text.lower())


def occupation_terms(path: str | Path = OCCUPATIONS) -> list[tuple[str, ...]]:
    """The occupation list: one name per line (several words allowed), '#' starts a comment."""
    terms = []
    for _, line in text_lines(path):
        words = tuple(word_tokens(line.split("#", 1)[0]))
        if words:
            terms.append(words)
    if not terms:
        raise InputError(f"{path}: no occupation in this file")
    return terms


def _matches(token: str, word: str) -> bool:
    return token == word or token == word + "s" or token == word + "es"


def is_occupation_query(text: str, terms: list[tuple[str, ...]]) -> bool:
    """Whether the query names an occupation of `terms` (consecutive words; the last may take -s or -es)."""
    tokens = word_tokens(text)
    for term in terms:
        for start in range(len(tokens) - len(term) + 1):
            window = tokens[start : start + len(term)]
            if window[:-1] == list(term[:-1]) and _matches(window[-1], term[-1]):
                return True
    return False


def probe_queries(collection, query_ids: list[str], selection: str, occupations: str | None = None) -> list[str]:
    """The probed queries among `query_ids`: the occupation queries, all of them, or one category's (category:NAME,
    where the collection has query categories, e.g. Grep-BiasIR's Career)."""
    if selection == ALL:
        return list(query_ids)
    if selection.startswith(CATEGORY_PREFIX):
        category = selection[len(CATEGORY_PREFIX) :]
        return [q for q in query_ids if collection.query_categories.get(q) == category]
    terms = occupation_terms(occupations or OCCUPATIONS)
    return [q for q in query_ids if is_occupation_query(collection.queries[q], terms)]
