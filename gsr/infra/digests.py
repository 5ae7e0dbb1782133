"""Keys naming content: of JSON-serialisable parts (SHA-256), of a file (xxh3-128 of its bytes, several GB/s) and of a
folder's files. Every cache key and every check that an input or output is unchanged is made of these."""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import stat
from collections.abc import Collection
from pathlib import Path


def content_key(*parts, length: int = 16) -> str:
    """A short SHA-256 hex key naming the JSON-serialisable `parts` (dict keys sorted; other objects by str)."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def file_content_key(path: str | os.PathLike, *extra) -> str:
    """A key naming a file's content (its xxh3-128 digest and size) plus anything else given. Never its path,
    size and modification time alone: a copy edited in place with the same size and time (`cp -p`, `rsync -t`,
    `tar x`) gets a new key, so no cache entry computed from the old content is reused."""
    path = Path(path)
    return content_key(fast_digest(path), path.stat().st_size, *extra)


def folder_content_key(folder: str | os.PathLike, *extra, exclude: Collection[str] = ()) -> str:
    """file_content_key over every file under `folder`, with its name relative to the folder, in name order; files
    under a folder named in `exclude` (e.g. __pycache__) are left out."""
    folder = Path(folder)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not set(exclude) & set(p.parts))
    return content_key([(p.relative_to(folder).as_posix(), file_content_key(p)) for p in files], *extra)


_NOT_REGULAR = (
    (stat.S_ISFIFO, "a pipe (a FIFO, or a shell's <(…))"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_regular_input(path: str | os.PathLike) -> None:
    """An InputError where `path` (its links followed) is a pipe, a device or a socket: gsr reads an input more
    than once (its digest names what is cached from it, then its content), and a pipe gives its content once (the
    second read found it empty: "no queries in this file"), and its size, 0, would give every pipe one digest, an
    empty file's. A missing path is left to the reader."""
    from gsr.errors import InputError

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    kind = next((what for test, what in _NOT_REGULAR if test(mode)), None)
    if kind is not None:
        raise InputError(
            f"{path}: is {kind}, not a file: gsr reads an input more than once (to know it, then to read it), which "
            "only a file allows; save it to a file first"
        )


def fast_digest(path: str | os.PathLike) -> str:
    """xxh3-128 hex digest of a file's content, hashed straight from the memory-mapped file: several GB/s, about
    three times faster than reading it in blocks, cheap enough for every reuse (bench_cache_verification.py). A
    pipe or a device is an InputError (check_regular_input)."""
    import xxhash

    check_regular_input(path)
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return xxhash.xxh3_128().hexdigest()
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return xxhash.xxh3_128(mapped).hexdigest()


def fast_digest_of_bytes(data: bytes) -> str:
    """fast_digest of content held in memory."""
    import xxhash

    return xxhash.xxh3_128(data).hexdigest()
