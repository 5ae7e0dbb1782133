"""Names a user gives that gsr shows in tables and writes into file names: the systems, embeddings and experiment of a
config, the runs `gsr score` names after their files. One check for all of them, used by the config and the commands:

* a name holds no character that hides or reorders what it shows: control characters (a tab, a newline, an escape),
  bidirectional overrides and isolates (U+202A-202E, U+2066-2069), zero-width characters (U+200B-200D, U+2060,
  U+FEFF) or any other invisible formatting character (Unicode categories Cc, Cf, Zl, Zp, and lone surrogates,
  which are bytes of a file name that is not UTF-8): 'random\\u202e' or 'per\\u200bfect' would print as another row;
* two names are one when they fold to the same text (`folded`: zero-width characters removed, NFKC, case folded,
  white space trimmed), so 'Ｐｅｒｆｅｃｔ' (fullwidth), 'PERFECT', 'perfect ' and 'perfect' are the reference engine's
  row, and 'ADD' is the system 'add'. Letters of other scripts that look alike (a Cyrillic 'р') are not folded.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
BIDI_CONTROLS = frozenset(chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def folded(name: str) -> str:
    """The form names are compared in: zero-width characters removed, compatibility forms folded (NFKC: fullwidth
    'Ａ' is 'A', the ligature 'ﬁ' is 'fi', a no-break space a space) and case folded ('ß' is 'ss'), NFKC once more
    as casefolding can leave text that is not normalised (Unicode's NFKC_Casefold); then white space trimmed and
    each run of it one space, as a table shows it.

    Example:
        >>> folded("Ｐｅｒ\\u200bＦＥＣＴ "), folded("BM25\\u00a0 (k1=0.9)")
        ('perfect', 'bm25 (k1=0.9)')
    """
    visible = "".join(c for c in name if c not in ZERO_WIDTH)
    return " ".join(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", visible).casefold()).split())


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a row or a file ('is blank', 'holds a bidirectional override, U+202E (RIGHT-TO-LEFT
    OVERRIDE), at character 3 ...'), or None.

    Example:
        >>> name_problem("bm25"), name_problem("bm\\u202e25")[:40]
        (None, 'holds a bidirectional override, U+202E (')
    """
    if not name.strip():
        return "is blank"
    for position, character in enumerate(name, 1):
        if character in BIDI_CONTROLS:
            kind = "a bidirectional override"
        elif character in ZERO_WIDTH:
            kind = "a zero-width character"
        elif unicodedata.category(character) == "Cc":
            kind = "a control character"
        elif unicodedata.category(character) == "Cs":
            kind = "a byte that is not UTF-8"
        elif unicodedata.category(character) in INVISIBLE_CATEGORIES:
            kind = "an invisible formatting character"
        else:
            continue
        what = unicodedata.name(character, "") or "unnamed"
        return (
            f"holds {kind}, U+{ord(character):04X} ({what}), at character {position}: it would hide or reorder "
            "what the name shows"
        )
    return None


def first_clash(names: Iterable[str], reserved: Iterable[str] = ()) -> tuple[str, str] | None:
    """The first name of `names` that folds to a `reserved` name or to an earlier name, with that one; else None.

    Example:
        >>> first_clash(["bm25", "ＢＭ25"]), first_clash(["Random"], reserved=["perfect", "random"])
        (('ＢＭ25', 'bm25'), ('Random', 'random'))
    """
    seen = {folded(name): name for name in reserved}
    for name in names:
        key = folded(name)
        if key in seen:
            return name, seen[key]
        seen[key] = name
    return None


def shortened(name: str, shown: int = 40) -> str:
    """`name` quoted for an error, its middle left out where it is longer than `shown` characters.

    Example:
        >>> shortened("a" * 300, 10)
        "'aaaaa…aaaaa'"
    """
    return repr(name if len(name) <= shown else f"{name[: shown // 2]}…{name[-(shown // 2) :]}")


def printable(text: str, kept: str = "\n") -> str:
    """`text` as a terminal shows it safely: every character that would hide, reorder or act instead of showing
    (control characters such as ESC, which starts a terminal's colour and cursor sequences, bidirectional overrides,
    zero-width and other invisible formatting characters: Unicode categories Cc, Cf, Cs, Zl, Zp) written as its
    escape, `\\u202e`, as Python's repr writes it; the characters of `kept` (a message's own line breaks) are left.
    Error and warning lines quote file names, query ids and words of the user's files, which may hold any of them.

    Example:
        >>> print(printable("evil\\u202egnp.run: no such file"), printable("\\x1b[31mred"))
        evil\\u202egnp.run: no such file \\x1b[31mred
    """
    return "".join(
        character
        if character in kept or unicodedata.category(character) not in INVISIBLE_CATEGORIES
        else repr(character)[1:-1]
        for character in text
    )
