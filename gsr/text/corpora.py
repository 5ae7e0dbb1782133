"""NLTK's word-list corpora (names, stop words), read from NLTK's data path as nltk reads them (without importing
nltk, which takes half a second), with the install hint callers print when a corpus is missing before they fall
back to another list.

Nothing is downloaded at run time: a corpus is used where NLTK would find it (NLTK_DATA, ~/nltk_data,
<venv>/nltk_data, /usr/share/nltk_data, ...), else the caller's fallback is used (warn_missing): said once per cache
where nltk is installed (its downloader is the way to install the corpus), never where it is not (the light install:
the fallback is the list to use), otherwise only under --verbose.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import zipfile
from pathlib import Path

LOG = logging.getLogger("gsr.corpora")
_warned: set[str] = set()


def install_hint(corpus: str) -> str:
    """The command that installs an NLTK corpus (needs internet once), and where NLTK looks for it."""
    return f"python -m nltk.downloader {corpus}  (or put corpora/{corpus}.zip under a folder named in NLTK_DATA)"


def nltk_data_path() -> list[Path]:
    """The folders NLTK looks in for its data, in its order: $NLTK_DATA, then ~/nltk_data and the system's folders
    (nltk.data.path, without importing nltk, which takes half a second)."""
    folders = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    folders.append(Path.home() / "nltk_data")
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        folders += [
            Path(prefix) / "nltk_data",
            Path(prefix) / "share" / "nltk_data",
            Path(prefix) / "lib" / "nltk_data",
        ]
    folders += [
        Path(p)
        for p in (
            "/usr/share/nltk_data",
            "/usr/local/share/nltk_data",
            "/usr/lib/nltk_data",
            "/usr/local/lib/nltk_data",
        )
    ]
    return folders


def nltk_words(corpus: str, fileid: str) -> list[str] | None:
    """The words of one file of an NLTK word-list corpus (e.g. 'names', 'female.txt'), one per line as NLTK's
    WordListCorpusReader reads them, from `corpora/CORPUS/FILEID` or `corpora/CORPUS.zip` in the first folder of
    nltk_data_path() that has it; None when none has. NLTK_DATA is read on every call."""
    for folder in nltk_data_path():
        plain, packed = folder / "corpora" / corpus / fileid, folder / "corpora" / f"{corpus}.zip"
        if plain.is_file():
            return _lines(plain.read_bytes())
        if packed.is_file():
            try:
                with zipfile.ZipFile(packed) as archive:
                    return _lines(archive.read(f"{corpus}/{fileid}"))
            except (KeyError, zipfile.BadZipFile, OSError):
                continue
    return None


def _lines(data: bytes) -> list[str]:
    return [line for line in data.decode("utf-8").splitlines() if line.strip()]  # as nltk.tokenize.line_tokenize


def nltk_installed() -> bool:
    """Whether nltk itself is installed (its downloader can install a missing corpus); the core install has no nltk."""
    return importlib.util.find_spec("nltk") is not None


def warn_missing(corpus: str, fallback: str) -> None:
    """Note that a corpus is not installed, how to install it, and what is used instead: a warning the first time a
    cache (GSR_CACHE) sees it where nltk is installed; otherwise (every later time, and always where nltk is not
    installed: the fallback is then the list meant) a DEBUG line, shown by --verbose; once per process."""
    if corpus in _warned:
        return
    _warned.add(corpus)
    from gsr.infra.store import cache_dir, in_read_only_cache

    marker = cache_dir() / "notices" / f"nltk-{corpus}-missing"
    first = nltk_installed() and not marker.exists()
    LOG.log(
        logging.WARNING if first else logging.DEBUG,
        "NLTK's %r corpus is not installed; using %s instead. Install it with: %s",
        corpus,
        fallback,
        install_hint(corpus),
    )
    if first and not in_read_only_cache(marker):  # a dry run leaves the cache as it found it
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:  # a read-only cache: the notice is shown again next time, nothing else changes
            pass
