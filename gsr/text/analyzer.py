"""Text handling of the paper (§3.2.2): lowercase, split on punctuation, stop words out, gendered words kept, and
which document words count as a query term's inflections (`exact | lemma | stem`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from gsr.errors import ParamError
from gsr.io.files import check_line_end, text_lines
from gsr.settings import DEFAULT_EXCLUSION, DEFAULT_STOP_LIST, EXCLUSION, STOP_LISTS
from gsr.text.corpora import nltk_words, warn_missing
from gsr.text.lemmas import chosen_lemma, lemma_table
from gsr.text.normal_form import nfkc

# Pronouns and titles that every general stop list drops but that carry gender (paper §3.2.2).
GENDERED_KEEP_WORDS = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself", "mr", "mrs", "ms"})
"""The gendered pronouns and titles no stop list drops (§3.2.2): they carry the gender GSR measures.

Example:
    >>> "her" in GENDERED_KEEP_WORDS, "her" in default_analyzer().stopwords
    (True, False)
"""

NLTK_STOPWORDS_COPY = Path(__file__).resolve().parent / "wordlists" / "nltk_english_stopwords.txt"

_WORD_RUNS = re.compile(r"[^\W_]+")

TOKENS_VERSION = 2
"""How texts are split into tokens, as part of the keys of everything cached from tokens (document statistics, token
corpora and the embeddings trained on them, the runs of systems that read the collection's tokens): 2 folds NFKC
(gsr.text.normal_form.nfkc), 1 was NFC.

Example:
    >>> TOKENS_VERSION
    2
"""


def _word_lines(path: str | os.PathLike) -> list[str]:
    """Words of a list file, one per line; '#' starts a comment (read with gsr.io.text_lines: UTF-8, BOM skipped,
    other bytes an error naming file:line)."""
    words = []
    for lineno, line in text_lines(path):
        check_line_end(line, path, lineno)  # CR-only line ends: the whole list one 'word', no stop word dropped
        word = nfkc(line.split("#", 1)[0].strip().lower())
        if word:
            words.append(word)
    return words


@lru_cache(maxsize=1)
def nltk_stopwords() -> frozenset[str]:
    """NLTK's English stop words (179 function words), read through nltk; where the corpus is not installed, the
    copy of the same list that ships with gsr (a warning says how to install the corpus)."""
    words = nltk_words("stopwords", "english")
    if words is None:
        warn_missing("stopwords", f"the copy of its English list in {NLTK_STOPWORDS_COPY.name}")
        words = _word_lines(NLTK_STOPWORDS_COPY)
    return frozenset(w.lower() for w in words)


def stopword_list(name: str) -> frozenset[str]:
    """A named stop list ('nltk' or 'sklearn') without the gendered pronouns and titles."""
    if name == "nltk":
        words = nltk_stopwords()
    elif name == "sklearn":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        words = frozenset(ENGLISH_STOP_WORDS)
    else:
        raise ParamError(f"unknown stop list {name!r}: choose one of {', '.join(STOP_LISTS)} or give a file")
    return frozenset(words) - GENDERED_KEEP_WORDS


def default_stopwords() -> frozenset[str]:
    """The default stop list: NLTK's English stop words without the gendered pronouns and titles."""
    return stopword_list(DEFAULT_STOP_LIST)


def read_stopwords(path: str | os.PathLike) -> frozenset[str]:
    """A stop list file, one word per line ('#' starts a comment); gendered pronouns and titles are kept.

    Args:
        path: The file (UTF-8, plain or .gz).

    Returns:
        The stop words, lowercased, without GENDERED_KEEP_WORDS.

    Raises:
        InputError: If the file cannot be read.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "stop.txt")
        ...     _ = path.write_text("The\\nher  # never dropped\\n")
        ...     read_stopwords(path)
        frozenset({'the'})
    """
    return frozenset(_word_lines(path)) - GENDERED_KEEP_WORDS


def stopwords_of(spec: str | os.PathLike | None) -> frozenset[str]:
    """The stop list named by `spec`: None for the default, 'nltk' or 'sklearn', else a file (read_stopwords).

    Args:
        spec: None, 'nltk', 'sklearn' or a file.

    Returns:
        The stop words, without GENDERED_KEEP_WORDS.

    Raises:
        InputError: If the file cannot be read.

    Example:
        >>> "the" in stopwords_of("nltk"), "she" in stopwords_of("nltk")
        (True, False)
    """
    if spec is None:
        return default_stopwords()
    if isinstance(spec, str) and spec in STOP_LISTS:
        return stopword_list(spec)
    return read_stopwords(spec)


@cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def lemma(word: str) -> str:
    """The word's dictionary lemma by lemminflect (noun reading first, then verb, adjective, adverb; the first lemma
    listed for that reading; gsr.text.lemmas.LEMMA_POS_ORDER); the word itself where lemminflect's dictionary does
    not know it. Lowercase words (every token) are looked up in the cached table of lemminflect's dictionary."""
    if word == word.lower():
        return lemma_table().lemma(word)
    from lemminflect import getAllLemmas

    return chosen_lemma(getAllLemmas(word), word)


@dataclass(frozen=True)
class Analyzer:
    """Turns text into the bag of words GSR averages over, and maps a word to its inflection class.

    Args:
        stopwords: The words dropped (default: NLTK's English stop words; gendered pronouns and titles never drop).
        exclusion: Which document words count as a query term in g_q(d): 'exact' (the same word), 'lemma' (the
            same lemminflect lemma: women/woman, children/child, but not organ/organization; the default) or 'stem'
            (the same Snowball stem: nursing/nurse, but also organ/organization, fertile/fertilization).

    Raises:
        ParamError: If `exclusion` is none of these.

    Example:
        >>> analyzer = Analyzer(exclusion="stem")
        >>> analyzer.tokens("She is a nurse; he's nursing 2 patients."), analyzer.inflection_class("nursing")
        (['she', 'nurse', 'he', 'nursing', 'patients'], 'nurs')
    """

    stopwords: frozenset[str] | None = None
    exclusion: str = DEFAULT_EXCLUSION

    def __post_init__(self):
        if self.stopwords is None:
            object.__setattr__(self, "stopwords", default_stopwords())
        EXCLUSION.check(self.exclusion)

    def tokens(self, text: str) -> list[str]:
        """Lowercased runs of letters and digits of the NFKC text (fullwidth and ligature forms folded,
        gsr.text.normal_form.nfkc); keeps those of >= 2 letters, no digit, not a stop word.

        Args:
            text: The text.

        Returns:
            The tokens, in the text's order.
        """
        stop = self.stopwords or frozenset()  # never None after __post_init__
        return [t for t in _WORD_RUNS.findall(nfkc(text).lower()) if len(t) > 1 and t.isalpha() and t not in stop]

    def inflection_class(self, word: str) -> str:
        """The class under `exclusion`: the word, its lemma or its Snowball stem; words sharing it are one term.

        Args:
            word: The word.

        Returns:
            Its class.
        """
        if self.exclusion == "lemma":
            return lemma(word)
        if self.exclusion == "stem":
            return _stemmer().stemWord(word)
        return word

    def inflection_classes(self, words: list[str]) -> list[str]:
        """inflection_class for many words at once (one call into the stemmer in 'stem' mode).

        Args:
            words: The words.

        Returns:
            Their classes, in the same order.
        """
        if self.exclusion == "stem":
            return _stemmer().stemWords(list(words))
        if self.exclusion == "lemma":
            if all(w == w.lower() for w in words):
                return lemma_table().lemmas_of(list(words))
            return [lemma(w) for w in words]
        return list(words)

    def class_members(self, words: list[str]) -> list[list[str]] | None:
        """For each lowercase word, every word of its inflection class, where they can be listed without a
        vocabulary: the word itself ('exact'), its lemma and the lemma's inflected forms ('lemma'); None for 'stem'
        (its classes are found by stemming a vocabulary) and for words that are not lowercase.

        Args:
            words: The words.

        Returns:
            Each word's class members, or None.
        """
        if not all(w == w.lower() for w in words):
            return None
        if self.exclusion == "exact":
            return [[w] for w in words]
        if self.exclusion == "lemma":
            table = lemma_table()
            return [
                members if word in members else [word, *members]
                for word, members in zip(words, table.members(table.lemmas_of(list(words))))
            ]
        return None


def default_analyzer() -> Analyzer:
    """The analyzer used when none is given.

    Returns:
        Analyzer(): NLTK's stop words without the gendered words, 'lemma' exclusion.

    Example:
        >>> default_analyzer().exclusion, default_analyzer().inflection_class("women")
        ('lemma', 'woman')
    """
    return Analyzer()
