"""The one low-level layer: where caches live, how cache keys are made, how files and folders are written
atomically, and how a cache entry is verified before it is reused.

Every package writes through these functions, so the same guarantees hold everywhere:

* a file or folder appears under its final name only once it is complete (written under a staging name beside
  it and renamed), so an interrupted process never leaves half an entry behind a real name, and a forked worker
  whose parent is gone renames nothing (gsr.infra.parallel.check_parent);
* a cache entry records what it must be (each file's size and xxh3-128 content hash) in a manifest, and is
  checked against it before reuse; an entry that is corrupt or lacks its manifest is reported (logger
  ``gsr.store``, shown on stderr) by path, removed and rebuilt, never read;
* a staging entry is locked by its writer while it is written, and an entry's build by `.NAME.lock` (gsr.infra.locks:
  the operating system's lock, dropped when its holder dies, however it dies), so processes on several hosts sharing
  one cache folder, or in several PID namespaces (containers, array jobs), take turns instead of trusting process
  ids; leftovers of writers that were killed (nobody holds their lock) are removed the next time their folder is
  written to (and, by `gsr run`, everywhere under the cache and in the output folder before it starts).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gsr.errors import StorageError
from gsr.infra.digests import fast_digest, fast_digest_of_bytes
from gsr.infra.locks import lock_file, lock_now, lock_waiting
from gsr.infra.parallel import check_parent

CACHE_VARIABLE = "GSR_CACHE"
STAGING_MARK = ".staging-"  # staging names: .<final name>.staging-<host>-<random>
WRITER_LOCK = ".writer.lock"  # in a staging folder: locked by its writer until the folder is renamed into place
LOCK_SUFFIX = ".lock"  # an entry's build lock: .<final name>.lock beside it
STALE_AFTER = 10.0  # seconds: an unlocked staging entry younger than this may still be waiting for its writer's lock
FOLDER_MANIFEST = ".manifest.json"
FILE_MANIFEST_SUFFIX = ".manifest.json"
MANIFEST_FORMAT = 1

log = logging.getLogger("gsr.store")

# errors of the folder rather than of the program: a full disk or quota, a read-only or foreign folder, a name its
# file system cannot hold (gsr.infra.outputs checks names first; this is what a path it could not foresee gets)
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENAMETOOLONG})


@contextmanager
def storage_errors(folder: str | os.PathLike) -> Iterator[None]:
    """Turn a write that fails for the folder's sake (full, read-only, not ours) into a StorageError naming it."""
    try:
        yield
    except OSError as err:
        if err.errno not in STORAGE_ERRNOS:
            raise
        raise StorageError(f"cannot write in {folder}: {err.strerror or err} (nothing half-written was kept)") from None


def cache_dir() -> Path:
    """Folder holding every cache ($GSR_CACHE, else ~/.cache/gsr-bench)."""
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "gsr-bench")


_read_only: list[Path] = []  # scratch folders of the cache_read_only() blocks open now (innermost last)


@contextmanager
def cache_read_only() -> Iterator[None]:
    """Within the block the cache is only looked at: an entry that is missing or damaged is built under the same name
    in a temporary folder (removed when the block ends) instead, a damaged entry is not removed, staging leftovers are
    not cleaned and no lock file is made in the cache. `gsr run --dry-run` looks at the cache this way: it needs the
    collection's content and the inputs' digests for its keys, and must change nothing a run would find."""
    with tempfile.TemporaryDirectory(prefix="gsr-read-only-cache-") as scratch:
        _read_only.append(Path(scratch))
        try:
            yield
        finally:
            _read_only.remove(Path(scratch))


def in_read_only_cache(path: str | os.PathLike) -> bool:
    """Whether `path` is in the cache while a cache_read_only() block runs (nothing may be written there)."""
    return _read_only_twin(Path(path)) is not None


def _read_only_twin(path: Path) -> Path | None:
    """Within cache_read_only(), where an entry of the cache at `path` is built instead; None for a path outside the
    cache, or outside such a block."""
    if not _read_only:
        return None
    try:
        relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(cache_dir()))
    except ValueError:
        return None
    return _read_only[-1] / relative


def _where_built(path: Path) -> Path:
    """`path`, or its twin in the read-only block's scratch folder when it is a cache entry to build there (missing or
    damaged in a cache that is only looked at)."""
    twin = _read_only_twin(path)
    return path if twin is None or verify(path) is None else twin


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


# ----------------------------------------------------------------------------------------------- staging names


STAGING_HOST_CHARS = 40  # the host name's share of a staging name, cut to this length
STAGING_TOKEN_BYTES = 6  # the random part of a staging name (12 hexadecimal digits)


def _staging_path(target: Path, suffix: str = "") -> Path:
    token = os.urandom(STAGING_TOKEN_BYTES).hex()
    host = "".join(c if c.isalnum() or c in "-_" else "_" for c in socket.gethostname())[:STAGING_HOST_CHARS]
    return target.with_name(f".{target.name}{STAGING_MARK}{host or 'host'}-{token}{suffix}")


def longest_staging_name(name: str) -> str:
    """The longest name a file `name` has while atomic_write writes it, on any host: the name that must fit the file
    system's limit (a longer one fails only when the file is written, after the work)."""
    return f".{name}{STAGING_MARK}{'h' * STAGING_HOST_CHARS}-{'0' * 2 * STAGING_TOKEN_BYTES}.tmp"


def _is_staging(name: str) -> bool:
    return name.startswith(".") and STAGING_MARK in name


def _abandoned(entry: Path) -> bool:
    """True when no process holds the writer's lock of a staging entry (a file, or a folder's WRITER_LOCK) and it is
    older than STALE_AFTER (a writer locks its entry right after creating it). The lock knows its holders whatever host
    or PID namespace they run in, where a process id would name another process or none."""
    try:
        if time.time() - entry.lstat().st_mtime < STALE_AFTER:
            return False
        lock = entry / WRITER_LOCK if entry.is_dir() and not entry.is_symlink() else entry
        fd = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        return entry.is_dir() and not (entry / WRITER_LOCK).exists()  # a folder whose writer died before locking
    except OSError:
        return False
    try:
        return lock_now(fd)
    finally:
        os.close(fd)


def clean_stale_staging(folder: str | os.PathLike, recursive: bool = False) -> list[Path]:
    """Remove staging files and folders in `folder` (and, when `recursive`, in every folder below it) that no process
    is writing any more (see _abandoned); returns what was removed."""
    folder = Path(folder)
    removed: list[Path] = []
    if not folder.is_dir() or in_read_only_cache(folder):
        return removed
    for entry in folder.iterdir():
        if not _is_staging(entry.name):
            if recursive and entry.is_dir() and not entry.is_symlink():
                removed += clean_stale_staging(entry, recursive=True)
            continue
        if not _abandoned(entry):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
        log.info("removed %s, left by a process that no longer writes it", entry)
    return removed


_HELD: set[Path] = set()  # entry locks this process holds (taking one again would wait on itself)
_RECOMPUTING_SINCE: list[float] = []  # within recomputing(): when it began


@contextmanager
def recomputing() -> Iterator[None]:
    """Within the block, no cache entry written before it began is reused: each is built again where it is asked
    for, and replaces the old one; an entry written since (by this process, a forked one or any other) is reused as
    usual. What `gsr run --force` runs in: every step computed anew, however much of it the cache holds."""
    _RECOMPUTING_SINCE.append(time.time())
    try:
        yield
    finally:
        _RECOMPUTING_SINCE.pop()


def _outdated(entry: Path) -> bool:
    """True within recomputing() for an entry whose manifest was written before the block began."""
    if not _RECOMPUTING_SINCE:
        return False
    manifest = entry / FOLDER_MANIFEST if entry.is_dir() else file_manifest_path(entry)
    try:
        return manifest.stat().st_mtime < _RECOMPUTING_SINCE[0]
    except OSError:
        return False


@contextmanager
def entry_lock(target: str | os.PathLike) -> Iterator[None]:
    """Hold the build lock of one entry (gsr.infra.locks.lock_file on `.NAME.lock` beside it): processes that build
    the same entry, on any host sharing the folder or in any PID namespace, take turns, so the second finds the
    first's entry instead of removing it while it is being read. The lock file is removed when released; re-entrant
    within a process."""
    target = Path(target)
    path = target.with_name(f".{target.name}{LOCK_SUFFIX}")
    if path in _HELD:
        yield
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with lock_file(path, on_wait=lambda: log.info("waiting for another process that builds %s", target)):
        _HELD.add(path)
        try:
            yield
        finally:
            _HELD.discard(path)


# ----------------------------------------------------------------------------------------------- atomic writes


@contextmanager
def atomic_write(path: str | os.PathLike, binary: bool = False) -> Iterator:
    """An open file whose content appears at `path` only when the block ends without error.

    Written beside `path` under a staging name (locked while it is written, see clean_stale_staging) and renamed
    over it; parent folders are created; the file is made world-readable. Interrupted, it leaves nothing behind.
    """
    path = Path(path)
    staging = _staging_path(path, ".tmp")
    with storage_errors(path.parent):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(staging, "wb") if binary else open(staging, "w", encoding="utf-8", newline="") as out:
                lock_waiting(out.fileno())
                yield out
                out.flush()
                os.chmod(staging, 0o644)
                check_parent()  # a worker whose parent is gone commits nothing
                os.replace(staging, path)
        finally:
            staging.unlink(missing_ok=True)


@contextmanager
def atomic_folder(target: str | os.PathLike, manifest: bool = True) -> Iterator[Path]:
    """A fresh staging folder that replaces `target` (with a manifest of its files) when the block succeeds.

    Under the entry's build lock: where another process finished the same entry meanwhile and it verifies, that
    one is kept and this staging folder dropped."""
    target = Path(target)
    staging = _staging_path(target)
    with storage_errors(target.parent):
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_staging(target.parent)
        staging.mkdir()
        fd = os.open(staging / WRITER_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            lock_waiting(fd)
            yield staging
            os.unlink(staging / WRITER_LOCK)  # the lock stays held through the open descriptor until the rename
            if manifest:
                _write_json(staging / FOLDER_MANIFEST, _describe_folder(staging))
            check_parent()
            with entry_lock(target):
                if target.exists() and not _outdated(target) and verify(target) is None and manifest:
                    log.info("%s was finished by another process meanwhile; it is kept", target)
                else:
                    if target.exists():
                        _remove(target)
                    os.rename(staging, target)
        finally:
            os.close(fd)
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)


# ----------------------------------------------------------------------------------------------- manifests


def _describe_file(path: Path) -> dict:
    return {"size": path.stat().st_size, "xxh3_128": fast_digest(path)}


def _describe_folder(folder: Path) -> dict:
    own = folder / FOLDER_MANIFEST  # a verified folder nested inside (an index in a cache entry) keeps its manifest
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p != own)
    return {"format": MANIFEST_FORMAT, "files": {p.relative_to(folder).as_posix(): _describe_file(p) for p in files}}


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


def _recorded_files(manifest: Path) -> dict:
    """A manifest's {file name: {size, xxh3_128}}; OSError or ValueError (KeyError, TypeError) where unreadable."""
    recorded = json.loads(manifest.read_text(encoding="utf-8"))
    files = recorded["files"]
    if recorded.get("format") != MANIFEST_FORMAT or not isinstance(files, dict):
        raise ValueError(manifest)
    return files


def verified_bytes(entry: str | os.PathLike) -> bytes | None:
    """The content of the cache file `entry`, read once, where it is what its manifest records; else None (missing,
    damaged or without a manifest: the caller builds it again through cached_file, which reports and removes it)."""
    entry = Path(entry)
    if _outdated(entry):
        return None
    try:
        expected = _recorded_files(file_manifest_path(entry))[entry.name]
        data = entry.read_bytes()
        if len(data) != expected["size"] or fast_digest_of_bytes(data) != expected["xxh3_128"]:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data


def recorded_digest(entry: str | os.PathLike) -> str:
    """The content digest (xxh3-128) the manifest of the cache file `entry` records: the key of its content without
    reading it again, for an entry that was just verified (reusable, cached_file) or written."""
    entry = Path(entry)
    return _recorded_files(file_manifest_path(entry))[entry.name]["xxh3_128"]


def copy_verified(entry: str | os.PathLike, target: str | os.PathLike) -> Path | None:
    """The cache file `entry` copied to `target` (atomic_write) where the bytes read are those its manifest records,
    else None and nothing written (the caller makes the file itself): a damaged entry never reaches a report."""
    data = verified_bytes(entry)
    if data is None:
        return None
    with atomic_write(target, binary=True) as out:
        out.write(data)
    return Path(target)


def verify(entry: str | os.PathLike) -> str | None:
    """None when the cache file or folder `entry` matches its manifest, else why not (missing manifest included)."""
    entry = Path(entry)
    if not entry.exists():
        return "it does not exist"
    manifest = entry / FOLDER_MANIFEST if entry.is_dir() else file_manifest_path(entry)
    try:
        files = _recorded_files(manifest)
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
    """True when `entry` exists and verifies (and, within recomputing(), was written since it began); a corrupt
    entry is reported by path and removed (so it is rebuilt).

    An entry that fails is checked again under its build lock before anything is removed: another process may be
    between putting a file in place and writing its manifest (it holds the lock until both are done), and that entry
    is whole once the lock is free."""
    entry = Path(entry)
    if not entry.exists() and not file_manifest_path(entry).exists():
        return False
    if _outdated(entry):  # recomputing(): built again, in place
        return False
    if verify(entry) is None:
        return True
    if in_read_only_cache(entry):  # looked at only: a damaged entry stays where it is
        return False
    with entry_lock(entry):  # re-entrant: a builder that holds it checks again here without waiting on itself
        if not entry.exists() and not file_manifest_path(entry).exists():
            return False
        problem = verify(entry)
        if problem is None:
            return True
        log.warning("cache entry %s is corrupt (%s); it is removed and rebuilt", entry, problem)
        _remove(entry)
    return False


def _built_once(path: Path, build_entry: Callable[[], object]) -> tuple[Path, bool]:
    """(path, reused): the verified entry at `path`, or `build_entry()` run under the entry's build lock after a
    second look (a process that waited for the lock finds the entry another one built, and reuses it)."""
    if reusable(path):
        return path, True
    with storage_errors(path.parent), entry_lock(path):
        if reusable(path):
            return path, True
        build_entry()
    return path, False


def cached_file(path: str | os.PathLike, build: Callable[[Path], None]) -> tuple[Path, bool]:
    """The verified cache file at `path`, built by `build(staging_path)` when absent or corrupt; (path, reused).
    Within cache_read_only() the path returned may be a temporary twin of `path` (see there)."""
    path = _where_built(Path(path))

    def build_file() -> None:
        clean_stale_staging(path.parent)
        staging = _staging_path(path, path.suffix)
        fd = os.open(staging, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)  # locked: no clean-up takes it meanwhile
        try:
            lock_waiting(fd)
            build(staging)
            if not staging.is_file():
                raise RuntimeError(f"building {path} left no file at {staging}")
            os.chmod(staging, 0o644)
            check_parent()
            os.replace(staging, path)
        finally:
            os.close(fd)
            staging.unlink(missing_ok=True)
        record_file(path)

    return _built_once(path, build_file)


def cached_folder(path: str | os.PathLike, build: Callable[[Path], object]) -> tuple[Path, bool]:
    """The verified cache folder at `path`, built by `build(staging_folder)` when absent or corrupt; (path, reused).
    Within cache_read_only() the path returned may be a temporary twin of `path` (see there)."""
    path = _where_built(Path(path))

    def build_folder() -> None:
        with atomic_folder(path) as staging:
            build(staging)

    return _built_once(path, build_folder)
