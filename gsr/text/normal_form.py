"""One Unicode form for every text: "café" typed as one code point and as "e" + U+0301 is one word.

Python's regular expressions split "cafe\u0301" into "cafe" (a combining mark is not a word character), and
embeddings, word lists and collections each come in whichever form their authors' tools wrote. gsr tokenises and
looks words up in NFC, the form nearly all text on the web is in, so the two spellings get one g(w)."""

from __future__ import annotations

import unicodedata


def nfc(text: str) -> str:
    """`text` in Unicode Normalization Form C (ASCII text, the common case, returned as it is at once)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    """`text` in Normalization Form D: how a vocabulary written decomposed spells a word."""
    return text if text.isascii() else unicodedata.normalize("NFD", text)
