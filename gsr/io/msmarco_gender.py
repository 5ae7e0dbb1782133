"""Rekabsaz & Schedl's (SIGIR 2020) gender-annotated MS MARCO passage queries and gender-specific word list, shipped
in gsr/data/msmarco_gender/ (MIT licence, see its README.md and LICENSE).

The topic set is named where topics are read (`gsr score --topics`, gsr.io.as_queries, a config's `topics`):
`msmarco-gender` holds all 3,750 queries, `msmarco-gender:n` the non-gendered ones the paper measures, `:f`, `:m`,
`:o` the female, male and other ones, and `msmarco-gender:f,m` any several labels together. The CSV has no header
and no quoting: the id is the text before the first comma, the label the text after the last one, and the query
text between may hold commas (read intact). The word list holds one `word,f` or `word,m` per line.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import TypeGuard

from gsr.errors import InputError
from gsr.io.files import text_lines

MSMARCO_GENDER = "msmarco-gender"  # the name of the topic set and of the word list
DATA = Path(__file__).resolve().parents[1] / "data" / "msmarco_gender"
QUERIES_FILE = DATA / "queries_gender_annotated.csv"
WORDLIST_FILE = DATA / "wordlist_genderspecific.txt"
QUERY_LABELS = {"n": "non-gendered", "f": "female", "m": "male", "o": "other"}  # the annotators' labels, file order
WORD_GENDERS = {"f": "female", "m": "male"}


def is_msmarco_gender(source: object) -> TypeGuard[str]:
    """True for 'msmarco-gender' and 'msmarco-gender:LABELS' (the built-in topic set, which wins over a file of that
    name: write ./msmarco-gender for the file).

    Args:
        source: What a topics argument names.

    Returns:
        Whether it names the built-in topic set.

    Example:
        >>> is_msmarco_gender("msmarco-gender:f"), is_msmarco_gender("./msmarco-gender")
        (True, False)
    """
    return isinstance(source, str) and (source == MSMARCO_GENDER or source.startswith(MSMARCO_GENDER + ":"))


def topic_set_labels(source: str = MSMARCO_GENDER) -> tuple[str, ...]:
    """The query labels a topic-set name selects: every label for 'msmarco-gender', those listed (comma-separated)
    after 'msmarco-gender:'; an unknown or missing label is an InputError naming it and the valid ones.

    Args:
        source: The topic-set name.

    Returns:
        The labels, each once, in the order given.

    Raises:
        InputError: If `source` is not the topic set or names an unknown label.

    Example:
        >>> topic_set_labels("msmarco-gender:f,m"), topic_set_labels("msmarco-gender")
        (('f', 'm'), ('n', 'f', 'm', 'o'))
    """
    if not is_msmarco_gender(source):
        raise InputError(f"{source!r} is not the msmarco-gender topic set ('msmarco-gender' or 'msmarco-gender:n,f')")
    if source == MSMARCO_GENDER:
        return tuple(QUERY_LABELS)
    valid = ", ".join(f"{k} ({v})" for k, v in QUERY_LABELS.items())
    labels: list[str] = []
    for part in source[len(MSMARCO_GENDER) + 1 :].split(","):
        label = part.strip()
        if label not in QUERY_LABELS:
            raise InputError(
                f"{source}: unknown query label {label!r}; the labels are {valid}, one or several joined with ','"
            )
        if label not in labels:
            labels.append(label)
    return tuple(labels)


def read_annotated_queries(path: str | os.PathLike = QUERIES_FILE) -> dict[str, tuple[str, str]]:
    """{qid: (text, label)} of a gender-annotated queries file in the shipped CSV's form ('id,text,label' lines, id
    before the first comma, label after the last); a malformed line, an unknown label or a repeated id is an
    InputError naming file:line.

    Args:
        path: The file (default: the shipped queries_gender_annotated.csv).

    Returns:
        {qid: (text, label)}, in the file's order.

    Raises:
        InputError: If a line is malformed, a label unknown, an id repeated or the file holds no query.

    Example:
        >>> queries = read_annotated_queries()
        >>> len(queries), queries["986563"]
        (3750, ('who was known as the heretic king', 'm'))
    """
    path = Path(path)
    queries: dict[str, tuple[str, str]] = {}
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        qid, _, rest = line.partition(",")
        text, comma, label = rest.rpartition(",")
        qid, label = qid.strip(), label.strip()
        if not comma or not qid or not text.strip():
            raise InputError(f"{path}:{lineno}: expected 'id,text,label'")
        if label not in QUERY_LABELS:
            raise InputError(f"{path}:{lineno}: label {label!r} is not one of {', '.join(QUERY_LABELS)}")
        if qid in queries:
            raise InputError(f"{path}:{lineno}: query {qid} appears twice")
        queries[qid] = (text, label)
    if not queries:
        raise InputError(f"{path}: no queries in this file")
    return queries


def msmarco_gender_queries(source: str = MSMARCO_GENDER) -> dict[str, str]:
    """{qid: text} of the topic set `source` names ('msmarco-gender', 'msmarco-gender:n', 'msmarco-gender:f,m'),
    in the file's order.

    Args:
        source: The topic-set name.

    Returns:
        {qid: text}.

    Raises:
        InputError: If `source` names an unknown label.

    Example:
        >>> queries = msmarco_gender_queries("msmarco-gender:f")
        >>> len(queries), queries["338042"]
        (742, 'how popular is the name katie')
    """
    wanted = topic_set_labels(source)
    return {qid: text for qid, (text, label) in read_annotated_queries().items() if label in wanted}


def msmarco_gender_labels(source: str = MSMARCO_GENDER) -> dict[str, str]:
    """{qid: label} (n, f, m or o; QUERY_LABELS names them) of the topic set `source` names: to group per-query
    results by the annotators' label.

    Args:
        source: The topic-set name.

    Returns:
        {qid: label}.

    Raises:
        InputError: If `source` names an unknown label.

    Example:
        >>> from collections import Counter
        >>> Counter(msmarco_gender_labels().values())
        Counter({'n': 1765, 'm': 1202, 'f': 742, 'o': 41})
    """
    wanted = topic_set_labels(source)
    return {qid: label for qid, (_, label) in read_annotated_queries().items() if label in wanted}


def read_gender_wordlist(path: str | os.PathLike = WORDLIST_FILE) -> tuple[frozenset[str], frozenset[str]]:
    """(female, male) words of a 'word,f' / 'word,m' list (the shipped wordlist_genderspecific.txt's form), lowercased
    as the authors' code reads it (and in Unicode NFC, as the analyzer's tokens); a malformed line or a word listed as
    both is an InputError naming file:line.

    Args:
        path: The list (default: the shipped wordlist_genderspecific.txt).

    Returns:
        (female words, male words).

    Raises:
        InputError: If a line is malformed, a word is listed as both, or a gender has no word.

    Example:
        >>> female, male = read_gender_wordlist()
        >>> len(female), len(male), "daughter" in female
        (32, 32, True)
    """
    path = Path(path)
    words: dict[str, set[str]] = {"f": set(), "m": set()}
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = [unicodedata.normalize("NFC", p.strip().lower()) for p in line.split(",")]
        if len(parts) != 2 or not parts[0] or parts[1] not in WORD_GENDERS:
            raise InputError(f"{path}:{lineno}: expected 'word,f' or 'word,m', not {line.strip()!r}")
        word, gender = parts
        other = "m" if gender == "f" else "f"
        if word in words[other]:
            raise InputError(f"{path}:{lineno}: {word!r} is listed as both female and male")
        words[gender].add(word)
    if not words["f"] or not words["m"]:
        raise InputError(f"{path}: a gender word list needs female (',f') and male (',m') words")
    return frozenset(words["f"]), frozenset(words["m"])
