"""Rekabsaz, Kopeinik & Schedl's (SIGIR 2021) fairness-sensitive queries and gender-representative word list, shipped
in gsr/data/fairness_sensitive/ (MIT licence, see its README.md and LICENSE).

The topic sets are named where topics are read (`gsr score --topics`, `gsr bias --topics`, gsr.io.as_queries, a
config's `topics`): `fairness-sensitive:msmarco-dev` (215 MS MARCO passage dev queries) and
`fairness-sensitive:dl19` (the 30 TREC DL 2019 passage queries of the shipped file). Filters after further colons
select by the annotations: `fairness-sensitive:msmarco-dev:category=Career` (one field, several values joined with
',' for any of them), `…:category=Career:domain=Work` (every filter must hold). The fields are `category`, `domain`
and `subdomain`; values are compared without regard to case and surrounding spaces, and a domain also matches its
annotations with a parenthesised facet (`domain=Health` selects 'Health (behavior)').

The annotation files are read as they are, with these repairs (README.md lists them): CRLF line ends; trailing
spaces ('Work ', 'Politics '); several values in a cell separated by ',' (subdomains also by ';'), never inside
parentheses ('Health (status, access)' is one domain); known categories and domains in one spelling
('Violence and exploitation', 'Social Inequaltiy' and 'career' read as 'Violence and Exploitation', 'Social
Inequality', 'Career'). Other values (including the subdomains' typos) are kept as written.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from gsr.errors import InputError
from gsr.io.files import text_lines

FAIRNESS_SENSITIVE = "fairness-sensitive"
DATA = Path(__file__).resolve().parents[1] / "data" / "fairness_sensitive"
SET_FILES = {
    "msmarco-dev": DATA / "msmarco_passage.dev.fair.FULL_ANNOTATION.tsv",
    "dl19": DATA / "trecdeep19_passage.fair.FULL_ANNOTATION.tsv",
}
REPRESENTATIVE_WORDS = "gender-representative"  # the name of the shipped word list
REPRESENTATIVE_WORDS_FILE = DATA / "wordlist_gender_representative.txt"
HEADER = ("QID", "Query", "Categories", "Domains", "Subdomains", "Example/Description")
FIELDS = ("category", "domain", "subdomain")
# the societal categories (UN Women) and gender-equality-index domains (EIGE) of the dataset's README, one spelling
CATEGORIES = ("Career", "Education", "Health", "Politics", "Social Inequality", "Violence and Exploitation")
DOMAINS = ("Health", "Knowledge", "Money", "Power", "Time", "Violence against women", "Work")
MISSPELT = {"social inequaltiy": "Social Inequality"}
_SEPARATORS = {"category": ",", "domain": ",", "subdomain": ",;"}


@dataclass(frozen=True)
class FairnessQuery:
    """One annotated query: its text, categories, domains, subdomains and the annotators' example of harm.

    Args:
        text: The query.
        categories: Its societal categories.
        domains: Its gender-equality-index domains.
        subdomains: Its subdomains (as written).
        description: The example or description ('' where none).

    Example:
        >>> fairness_sensitive_annotations("fairness-sensitive:dl19")["1115776"].domains
        ('Work',)
    """

    text: str
    categories: tuple[str, ...]
    domains: tuple[str, ...]
    subdomains: tuple[str, ...]
    description: str

    def values(self, field: str) -> tuple[str, ...]:
        """The values of one field: 'category', 'domain' or 'subdomain'.

        Args:
            field: The field.

        Returns:
            Its values.
        """
        return {"category": self.categories, "domain": self.domains, "subdomain": self.subdomains}[field]


def is_fairness_sensitive(source: object) -> TypeGuard[str]:
    """True for 'fairness-sensitive:…' names (the built-in topic sets, which win over a file of that name: write
    ./fairness-sensitive:… for the file).

    Args:
        source (object): What a topics argument names.

    Returns:
        Whether it names a built-in fairness-sensitive topic set.

    Example:
        >>> is_fairness_sensitive("fairness-sensitive:dl19"), is_fairness_sensitive("./fairness-sensitive:dl19")
        (True, False)
    """
    return isinstance(source, str) and (source == FAIRNESS_SENSITIVE or source.startswith(FAIRNESS_SENSITIVE + ":"))


def _split_outside_parentheses(cell: str, separators: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for character in cell:
        depth += (character == "(") - (character == ")")
        if character in separators and depth <= 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(character)
    parts.append("".join(current))
    return parts


def _spelled(value: str, known: tuple[str, ...]) -> str:
    spelling = {k.casefold(): k for k in known}
    folded = value.casefold()
    return MISSPELT.get(folded) or spelling.get(folded) or value


def annotation_values(cell: str, field: str) -> tuple[str, ...]:
    """The values of one annotation cell: split at ',' (subdomains also ';') outside parentheses, spaces trimmed and
    collapsed, empty parts dropped, known categories and domains in their one spelling.

    Example:
        >>> annotation_values("Health (status, access), money ", "domain")
        ('Health (status, access)', 'Money')
    """
    known = CATEGORIES if field == "category" else DOMAINS if field == "domain" else ()
    values = []
    for part in _split_outside_parentheses(cell, _SEPARATORS[field]):
        value = _spelled(" ".join(part.split()), known)
        if value and value not in values:
            values.append(value)
    return tuple(values)


def read_fairness_annotations(path: str | os.PathLike) -> dict[str, FairnessQuery]:
    """{qid: FairnessQuery} of a FULL_ANNOTATION file (a header row, then 'QID<TAB>Query<TAB>Categories<TAB>Domains
    <TAB>Subdomains<TAB>Example/Description' rows); a row of another shape or a repeated id is an InputError naming
    file:line.

    Args:
        path: The file.

    Returns:
        {qid: FairnessQuery}, in the file's order.

    Raises:
        InputError: If the header or a row is malformed, an id repeats or the file holds no query.

    Example:
        >>> queries = read_fairness_annotations(SET_FILES["dl19"])
        >>> len(queries), queries["148538"].text
        (30, 'difference between rn and bsn')
    """
    path = Path(path)
    queries: dict[str, FairnessQuery] = {}
    header_seen = False
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        cells = line.split("\t")
        if not header_seen:
            if tuple(c.strip() for c in cells) != HEADER:
                raise InputError(f"{path}:{lineno}: expected the header {'<TAB>'.join(HEADER)}")
            header_seen = True
            continue
        if len(cells) != len(HEADER) or not cells[0].strip() or not cells[1].strip():
            raise InputError(f"{path}:{lineno}: expected {len(HEADER)} tab-separated columns ({', '.join(HEADER)})")
        qid = cells[0].strip()
        if qid in queries:
            raise InputError(f"{path}:{lineno}: query {qid} appears twice")
        queries[qid] = FairnessQuery(
            cells[1].strip(),
            annotation_values(cells[2], "category"),
            annotation_values(cells[3], "domain"),
            annotation_values(cells[4], "subdomain"),
            cells[5].strip(),
        )
    if not queries:
        raise InputError(f"{path}: no queries in this file")
    return queries


def _matches(value: str, wanted: str, field: str) -> bool:
    folded, wanted = value.casefold(), wanted.casefold()
    return folded == wanted or (field == "domain" and re.sub(r"\s*\(.*\)$", "", folded) == wanted)


def topic_set_selection(source: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    """(the set, {field: wanted values}) of a name such as 'fairness-sensitive:msmarco-dev:category=Career,Health';
    an unknown set, field or filter without '=' is an InputError naming it and what is valid.

    Args:
        source: The topic-set name.

    Returns:
        (set name, filters).

    Raises:
        InputError: If the name is malformed.

    Example:
        >>> topic_set_selection("fairness-sensitive:dl19:category=Health,Politics:domain=Power")
        ('dl19', {'category': ('Health', 'Politics'), 'domain': ('Power',)})
    """
    sets = ", ".join(f"{FAIRNESS_SENSITIVE}:{name}" for name in SET_FILES)
    if not is_fairness_sensitive(source):
        raise InputError(f"{source!r} is not a fairness-sensitive topic set ({sets})")
    parts = source.split(":")
    if len(parts) < 2 or parts[1].strip() not in SET_FILES:
        raise InputError(f"{source}: name one of the topic sets {sets} (then filters such as ':category=Career')")
    filters: dict[str, tuple[str, ...]] = {}
    for part in parts[2:]:
        field, equals, values = part.partition("=")
        field = field.strip().lower()
        wanted = tuple(v.strip() for v in values.split(",") if v.strip())
        if not equals or field not in FIELDS or not wanted:
            raise InputError(
                f"{source}: filter {part!r} is not FIELD=VALUE[,VALUE…] with FIELD one of {', '.join(FIELDS)}"
            )
        if field in filters:
            raise InputError(f"{source}: the filter on {field} is given twice (join its values with ',')")
        filters[field] = wanted
    return parts[1].strip(), filters


def fairness_sensitive_annotations(source: str) -> dict[str, FairnessQuery]:
    """{qid: FairnessQuery} of the queries a topic-set name selects (see the module docstring); a filter value no
    query has is an InputError listing the values there are.

    Args:
        source: The topic-set name, e.g. 'fairness-sensitive:msmarco-dev:category=Career'.

    Returns:
        {qid: FairnessQuery}, in the file's order.

    Raises:
        InputError: If the name is malformed or a filter value matches no query.

    Example:
        >>> len(fairness_sensitive_annotations("fairness-sensitive:msmarco-dev:category=Career"))
        64
    """
    name, filters = topic_set_selection(source)
    queries = read_fairness_annotations(SET_FILES[name])
    for field, wanted in filters.items():
        present = sorted({v for q in queries.values() for v in q.values(field)}, key=str.casefold)
        for value in wanted:
            if not any(_matches(v, value, field) for v in present):
                raise InputError(
                    f"{source}: no query of {FAIRNESS_SENSITIVE}:{name} has {field} {value!r}; the values are "
                    f"{'; '.join(present)}"
                )
        queries = {
            qid: q for qid, q in queries.items() if any(_matches(v, w, field) for v in q.values(field) for w in wanted)
        }
    return queries


def fairness_sensitive_queries(source: str) -> dict[str, str]:
    """{qid: text} of the queries a topic-set name selects ('fairness-sensitive:msmarco-dev', '…:dl19', with
    filters such as ':category=Career' or ':domain=Work').

    Args:
        source: The topic-set name.

    Returns:
        {qid: text}, in the file's order.

    Raises:
        InputError: If the name is malformed or a filter value matches no query.

    Example:
        >>> queries = fairness_sensitive_queries("fairness-sensitive:dl19:domain=Power")
        >>> sorted(queries.values())
        ['definition declaratory judgment', 'when was the salvation army founded']
    """
    return {qid: q.text for qid, q in fairness_sensitive_annotations(source).items()}
