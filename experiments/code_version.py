"""What the code that computes a number is, as a key: the digest of the five packages' files, the version of every
installed distribution and the NLTK word lists found on this machine. The output folder's fingerprint
(experiments.report.provenance) and the key of every cached part (experiments.parts) hold them, so a change of any of
them is a new computation, never a reused one."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from gsr.infra.digests import content_key, folder_content_key
from gsr.text.corpora import nltk_words

PACKAGES = ("gsr", "embeddings", "debias", "retrievers", "experiments")
NLTK_WORD_LISTS = (("stopwords", "english"), ("names", "female.txt"), ("names", "male.txt"))  # what gsr.text reads


def source_digest() -> str:
    """One digest of every file of the five packages (code, word lists, report assets), by relative path: a change to
    any of them makes earlier outputs out of date (compiled bytecode, which Python rewrites, left out)."""
    root = Path(__file__).resolve().parents[1]
    return content_key([folder_content_key(root / package, package, exclude=("__pycache__",)) for package in PACKAGES])


def installed_versions() -> list[tuple[str, str]]:
    """(name, version) of every installed Python distribution, sorted: the libraries and the data packages (the
    built-in embedding and encoder) the numbers come from. Read from each distribution's metadata header (the
    Name and Version lines), a tenth of the time parsing it whole takes for the 400 of a full install."""
    found = {}
    for dist in importlib.metadata.distributions():
        name, version = _name_and_version(dist)
        found[name.lower()] = version
    return sorted(found.items())


def _name_and_version(dist: importlib.metadata.Distribution) -> tuple[str, str]:
    header: dict[str, str] = {}
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    for line in text.splitlines():
        if not line.strip():
            break  # the header ends at the first empty line
        key, colon, value = line.partition(":")
        if colon and key in ("Name", "Version") and key not in header:
            header[key] = value.strip()
    if len(header) < 2:  # an unusual header: the email parser reads it as importlib.metadata does
        return dist.metadata["Name"] or "", dist.version
    return header["Name"], header["Version"]


def found_word_lists() -> list:
    """The NLTK word lists gsr.text reads, as found on this machine (their absence changes the fallbacks)."""
    return [nltk_words(*corpus) for corpus in NLTK_WORD_LISTS]
