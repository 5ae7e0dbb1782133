"""The one low-level layer: where caches live, how cache keys are made, how files and folders are written
atomically, and how a cache entry is verified before it is reused.

Every package writes through these functions, so the same guarantees hold everywhere:

* a file or folder appears under its final name only once it is complete (written under a staging name beside
  it and renamed), so an interrupted process never leaves half an entry behind a real name;
* a cache entry records what it must be (each file's size and xxh3-128 content hash) in a manifest, and is
  checked against it before reuse; an entry that is corrupt or lacks its manifest is reported (logger
  ``gsr.store``, shown on stderr) by path, removed and rebuilt, never read;
* staging leftovers of processes that were killed are removed the next time their folder is written to (and,
  by `gsr run`, everywhere under the cache and in the output folder before it starts).
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

CACHE_VARIABLE = "GSR_CACHE"
STAGING_MARK = ".staging-"  # staging names: .<final name>.staging-<pid>-<random>
FOLDER_MANIFEST = ".manifest.json"
FILE_MANIFEST_SUFFIX = ".manifest.json"
MANIFEST_FORMAT = 1

log = logging.getLogger("gsr.store")


def cache_dir() -> Path:
    """Folder holding every cache ($GSR_CACHE, else ~/.cache/gsr-bench)."""
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "gsr-bench")


def unwritable(folder: str | os.PathLike) -> str | None:
    """None when `folder` is a folder this process can write in, or can create; else why not ('is a file', ...)."""
    folder = Path(folder)
    existing = folder
    while not existing.exists():  # the nearest existing ancestor decides whether the folder can be created
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        return "is a file, not a folder" if existing == folder else f"cannot be created: {existing} is a file"
    if not os.access(existing, os.W_OK | os.X_OK):
        return "is not writable" if existing == folder else f"cannot be created: {existing} is not writable"
    return None


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


def folder_content_key(folder: str | os.PathLike, *extra) -> str:
    """file_content_key over every file under `folder`, with its name relative to the folder, in name order."""
    folder = Path(folder)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return content_key([(p.relative_to(folder).as_posix(), file_content_key(p)) for p in files], *extra)


def fast_digest(path: str | os.PathLike) -> str:
    """xxh3-128 hex digest of a file's content, hashed straight from the memory-mapped file: several GB/s, about
    three times faster than reading it in blocks, cheap enough for every reuse (bench_cache_verification.py)."""
    import xxhash

    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return xxhash.xxh3_128().hexdigest()
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return xxhash.xxh3_128(mapped).hexdigest()


# ----------------------------------------------------------------------------------------------- staging names

def _staging_path(target: Path, suffix: str = "") -> Path:
    token = os.urandom(4).hex()
    return target.with_name(f".{target.name}{STAGING_MARK}{os.getpid()}-{token}{suffix}")


def _staging_owner(name: str) -> int | None:
    """The pid in a staging name, or None when `name` is not one."""
    if not name.startswith(".") or STAGING_MARK not in name:
        return None
    pid = name.split(STAGING_MARK, 1)[1].split("-", 1)[0]
    return int(pid) if pid.isdigit() else None


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_staging(folder: str | os.PathLike, recursive: bool = False) -> list[Path]:
    """Remove staging files and folders in `folder` (and, when `recursive`, in every folder below it) left by
    processes that no longer run; returns what was removed."""
    folder = Path(folder)
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for entry in folder.iterdir():
        pid = _staging_owner(entry.name)
        if pid is None:
            if recursive and entry.is_dir() and not entry.is_symlink():
                removed += clean_stale_staging(entry, recursive=True)
            continue
        if _process_alive(pid):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
        log.info("removed %s, left by a killed process", entry)
    return removed


# ----------------------------------------------------------------------------------------------- atomic writes

@contextmanager
def atomic_write(path: str | os.PathLike, binary: bool = False) -> Iterator:
    """An open file whose content appears at `path` only when the block ends without error.

    Written beside `path` under a staging name and renamed over it; parent folders are created; the file is
    made world-readable. Interrupted, it leaves nothing behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = _staging_path(path, ".tmp")
    try:
        with open(staging, "wb") if binary else open(staging, "w", encoding="utf-8", newline="") as out:
            yield out
        os.chmod(staging, 0o644)
        os.replace(staging, path)
    finally:
        staging.unlink(missing_ok=True)


@contextmanager
def atomic_folder(target: str | os.PathLike, manifest: bool = True) -> Iterator[Path]:
    """A fresh staging folder that replaces `target` (with a manifest of its files) when the block succeeds."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(target.parent)
    staging = _staging_path(target)
    staging.mkdir()
    try:
        yield staging
        if manifest:
            _write_json(staging / FOLDER_MANIFEST, _describe_folder(staging))
        if target.exists():
            _remove(target)
        try:
            os.rename(staging, target)
        except OSError:
            if verify(target) is not None:  # not a concurrent build of the same entry that finished first
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


# ----------------------------------------------------------------------------------------------- manifests

def _describe_file(path: Path) -> dict:
    return {"size": path.stat().st_size, "xxh3_128": fast_digest(path)}


def _describe_folder(folder: Path) -> dict:
    own = folder / FOLDER_MANIFEST  # a verified folder nested inside (an index in a cache entry) keeps its manifest
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p != own)
    return {"format": MANIFEST_FORMAT,
            "files": {p.relative_to(folder).as_posix(): _describe_file(p) for p in files}}


def _write_json(path: Path, data: dict) -> None:
    with atomic_write(path) as out:
        json.dump(data, out, indent=1, sort_keys=True)


def file_manifest_path(path: Path) -> Path:
    """Where a cached file's manifest lives: beside it, NAME.manifest.json."""
    return path.with_name(path.name + FILE_MANIFEST_SUFFIX)


def record_file(path: str | os.PathLike) -> None:
    """Write the manifest of a finished cache file (size and content hash), so later reuses can verify it."""
    path = Path(path)
    _write_json(file_manifest_path(path), {"format": MANIFEST_FORMAT, "files": {path.name: _describe_file(path)}})


def _check(files: dict, root: Path) -> str | None:
    for name, expected in files.items():
        path = root / name
        if not path.is_file():
            return f"{name} is missing"
        size = path.stat().st_size
        if size != expected.get("size"):
            return f"{name} has {size:,} bytes, {expected.get('size'):,} were written"
        if fast_digest(path) != expected.get("xxh3_128"):
            return f"{name}'s content differs from what was written"
    return None


def verify(entry: str | os.PathLike) -> str | None:
    """None when the cache file or folder `entry` matches its manifest, else why not (missing manifest included)."""
    entry = Path(entry)
    if not entry.exists():
        return "it does not exist"
    manifest = entry / FOLDER_MANIFEST if entry.is_dir() else file_manifest_path(entry)
    try:
        recorded = json.loads(manifest.read_text(encoding="utf-8"))
        files = recorded["files"]
        if recorded.get("format") != MANIFEST_FORMAT or not isinstance(files, dict):
            raise ValueError
    except FileNotFoundError:
        return "it has no manifest (an interrupted or older write)"
    except (OSError, ValueError, KeyError, TypeError):
        return f"its manifest {manifest.name} is unreadable"
    if entry.is_dir():
        present = {p.relative_to(entry).as_posix() for p in entry.rglob("*") if p.is_file()} - {FOLDER_MANIFEST}
        extra = sorted(present - set(files))
        if extra:
            return f"{extra[0]} was not written with it"
        return _check(files, entry)
    return _check(files, entry.parent)


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink(missing_ok=True)
        file_manifest_path(entry).unlink(missing_ok=True)


def reusable(entry: str | os.PathLike) -> bool:
    """True when `entry` exists and verifies; a corrupt entry is reported by path and removed (so it is rebuilt)."""
    entry = Path(entry)
    if not entry.exists() and not file_manifest_path(entry).exists():
        return False
    problem = verify(entry)
    if problem is None:
        return True
    log.warning("gsr: cache entry %s is corrupt (%s); it is removed and rebuilt", entry, problem)
    _remove(entry)
    return False


def cached_file(path: str | os.PathLike, build: Callable[[Path], None]) -> tuple[Path, bool]:
    """The verified cache file at `path`, built by `build(staging_path)` when absent or corrupt; (path, reused)."""
    path = Path(path)
    if reusable(path):
        return path, True
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(path.parent)
    staging = _staging_path(path, path.suffix)
    try:
        build(staging)
        if not staging.is_file():
            raise RuntimeError(f"building {path} wrote nothing")
        os.chmod(staging, 0o644)
        os.replace(staging, path)
    finally:
        staging.unlink(missing_ok=True)
    record_file(path)
    return path, False


def cached_folder(path: str | os.PathLike, build: Callable[[Path], None]) -> tuple[Path, bool]:
    """The verified cache folder at `path`, built by `build(staging_folder)` when absent or corrupt; (path, reused)."""
    path = Path(path)
    if reusable(path):
        return path, True
    with atomic_folder(path) as staging:
        build(staging)
    return path, False
