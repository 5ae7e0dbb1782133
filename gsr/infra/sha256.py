"""SHA-256 of files, computed once per file version: the published digest a shipped file is checked against, and the
one results.json records for every input."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from gsr.infra.digests import file_content_key
from gsr.infra.store import cache_dir, cached_file


def sha256_of(path: str | os.PathLike, block: int = 1 << 20) -> str:
    """SHA-256 of the file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(block):
            digest.update(chunk)
    return digest.hexdigest()


def cached_sha256(path: str | os.PathLike) -> str:
    """sha256_of(path), cached under the file's content digest (xxh3, several GB/s): a file read again after an edit
    gets its new SHA-256, an unchanged one costs a fast digest."""
    path = Path(path)

    def build(staging: Path) -> None:
        staging.write_text(sha256_of(path), encoding="utf-8")

    entry, _ = cached_file(cache_dir() / "sha256" / f"{file_content_key(path)}.txt", build)
    return entry.read_text(encoding="utf-8").strip()


def check_published(folder: Path, published: dict[str, str], what: str, package: str, error: type[Exception]) -> None:
    """Each file of `published` ({name in `folder`: its published SHA-256}) is there and has that digest; `error`
    (naming the file, `what` it belongs to and the `package` to reinstall) otherwise: a differing copy, e.g. a shadow
    package earlier on sys.path, is refused rather than used."""
    stamps = _stamps(Path(folder), published)
    if stamps is not None and stamps in _CHECKED:
        return  # checked in this process, and no file changed since (its inode change time included)
    for name, expected in published.items():
        path = Path(folder) / name
        if not path.is_file():
            raise error(f"{path}: missing from {what} (reinstall {package})")
        found = cached_sha256(path)
        if found != expected:
            raise error(
                f"{path}: SHA-256 {found} differs from the published {expected} of {what}; the file is refused "
                f"(reinstall {package}, and check no other copy is earlier on sys.path)"
            )
    if stamps is not None:
        _CHECKED.add(stamps)


_CHECKED: set[tuple] = set()  # the stamps of every set of files check_published found as published in this process


def _stamps(folder: Path, published: dict[str, str]) -> tuple | None:
    """What identifies the files as they are now (path, inode, size, modification and inode change times) beside
    their expected digests; None where one is missing."""
    try:
        found = [(folder / name).stat() for name in published]
    except OSError:
        return None
    return tuple(
        (str(folder / name), digest, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)
        for (name, digest), s in zip(published.items(), found)
    )
