"""NLTK's word-list corpora (names, stop words), read through nltk from NLTK's data path, with the install hint
callers print when a corpus is missing before they fall back to another list.

Nothing is downloaded at run time: a corpus is used where `nltk.data.find` finds it (NLTK_DATA, ~/nltk_data,
<venv>/nltk_data, /usr/share/nltk_data, ...), else the caller's fallback is used and one warning per corpus says how
to install it (`python -m nltk.downloader NAME`).
"""

from __future__ import annotations

import logging
import os

LOG = logging.getLogger("gsr.corpora")
_warned: set[str] = set()


def install_hint(corpus: str) -> str:
    """The command that installs an NLTK corpus (needs internet once), and where NLTK looks for it."""
    return f"python -m nltk.downloader {corpus}  (or put corpora/{corpus}.zip under a folder named in NLTK_DATA)"


def nltk_words(corpus: str, fileid: str) -> list[str] | None:
    """The words of one file of an NLTK word-list corpus (e.g. 'names', 'female.txt'); None when nltk or the corpus
    is not installed. NLTK_DATA is re-read on every call, so a path set after nltk was imported still counts."""
    try:
        import nltk
    except ImportError:
        return None
    for folder in reversed([p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]):
        if folder not in nltk.data.path:
            nltk.data.path.insert(0, folder)
    try:
        return list(getattr(nltk.corpus, corpus).words(fileid))
    except LookupError:  # nltk's lazy loader: the corpus is on none of NLTK's data folders, unzipped or zipped
        return None


def warn_missing(corpus: str, fallback: str) -> None:
    """One warning per corpus and process: it is not installed, how to install it, and what is used instead."""
    if corpus in _warned:
        return
    _warned.add(corpus)
    LOG.warning("NLTK's %r corpus is not installed; using %s instead. Install it with: %s",
                corpus, fallback, install_hint(corpus))
