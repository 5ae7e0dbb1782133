"""One Unicode form for every text: "café" typed as one code point and as "e" + U+0301 is one word.

Python's regular expressions split "cafe\u0301" into "cafe" (a combining mark is not a word character), and
embeddings, word lists and collections each come in whichever form their authors' tools wrote. gsr tokenises and
looks words up in NFC, the form nearly all text on the web is in, so the two spellings get one g(w).

Texts are tokenised in NFKC (nfkc), which also folds compatibility forms into the letters they stand for: fullwidth
"ｎｕｒｓｅ" (East Asian input methods), ligatures "ﬁ", the long s "ſ". Left as they are, such words are in no
embedding's vocabulary, and a query written with them silently drops out of GSR. NFKC costs about 10 µs per
2,000 characters, a twentieth of splitting them into words, so documents are folded alike (a query and its
documents must be split the same way for g_q(d) to leave the query's words out)."""

from __future__ import annotations

import unicodedata


def nfc(text: str) -> str:
    """`text` in Unicode Normalization Form C (ASCII text, the common case, returned as it is at once)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def nfkc(text: str) -> str:
    """`text` in Normalization Form KC: NFC with compatibility forms folded ("ｎｕｒｓｅ" and "ﬁre" become "nurse" and
    "fire"); what every text is tokenised in (gsr.text.analyzer)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def nfd(text: str) -> str:
    """`text` in Normalization Form D: how a vocabulary written decomposed spells a word."""
    return text if text.isascii() else unicodedata.normalize("NFD", text)
