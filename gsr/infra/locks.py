"""Exclusive locks between processes: the one helper behind every lock gsr takes (a cache entry's build, a staging
entry's writer, an output folder's run), on filelock's native lock of an open file (filelock.lock_descriptor: flock on
Linux and macOS, LockFileEx on Windows, the primitive its FileLock takes).

The operating system drops such a lock when its holder ends, however it ends (SIGKILL included): a lock held by a
dead process never blocks anybody. It knows its holders on every host sharing the folder and in every PID namespace,
where a process id would name another process or none.

Why not filelock.FileLock itself: gsr removes a lock file when it releases it (no `.lock` file stays beside a cache
entry or in an output folder), which FileLock leaves in place on purpose, and a staging file is locked through the very
descriptor that writes it. The removal is safe because it happens while the lock is still held: a process that then
gets the lock of the removed file sees that the path no longer names it, and locks the new file (lock_file).

Where the platform has no native lock (no fcntl outside Windows), nothing is locked: the measure still runs, and one
warning per process says that processes sharing a folder are not kept apart.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gsr.errors import StorageError

with warnings.catch_warnings():  # filelock warns at import where flock is missing: gsr says it once, when it locks
    warnings.simplefilter("ignore")
    from filelock import lock_descriptor

log = logging.getLogger("gsr.store")
_NOT_FILES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)
_unlocked: list[bool] = []  # [True] once this process was told that it cannot lock


class LockBusy(Exception):
    """Another process holds the lock that lock_file(wait=False) was asked for."""


class NotALockFile(StorageError):
    """A lock's path holds something else (a folder, a symbolic link, a FIFO): refused, never followed or removed."""

    def __init__(self, path: Path, kind: str):
        super().__init__(
            f"{path} is {kind} where gsr keeps a lock file (a plain file it creates and removes); remove it"
        )
        self.path = path


def lock_now(fd: int) -> bool:
    """Take the exclusive lock of the open file `fd` if nobody holds it; False when somebody does."""
    try:
        return lock_descriptor(fd, blocking=False)
    except OSError as err:
        if err.errno != errno.ENOSYS:
            raise
        _say_unlocked()
        return True


def lock_waiting(fd: int) -> None:
    """Take the exclusive lock of the open file `fd`, waiting while another process holds it."""
    if not lock_now(fd):
        lock_descriptor(fd, blocking=True)


def _say_unlocked() -> None:
    if not _unlocked:
        _unlocked.append(True)
        log.warning(
            "this system has no file locks (neither flock nor LockFileEx): gsr processes that share a cache or an "
            "output folder are not kept apart here; run one at a time"
        )


def _open_lock_file(path: Path) -> int:
    """A descriptor of the plain file `path`, created where absent; NotALockFile where something else is there."""
    try:
        mode: int | None = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise NotALockFile(path, next((kind for test, kind in _NOT_FILES if test(mode)), "not a plain file"))
    return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)


@contextmanager
def lock_file(path: str | os.PathLike, wait: bool = True, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the lock file `path` (created, and removed when released): waiting while another process holds it
    (calling `on_wait` first), or, unless `wait`, LockBusy at once. Not re-entrant: a second hold in this process
    waits for the first (or is LockBusy), as another process's would. NotALockFile where `path` is not a plain file.
    """
    path = Path(path)
    while True:
        fd = _open_lock_file(path)
        if not lock_now(fd):
            if not wait:
                os.close(fd)
                raise LockBusy(path)
            if on_wait is not None:
                on_wait()
            lock_waiting(fd)
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:  # not a lock file its last holder removed while this process was getting its lock
            break
        os.close(fd)
        if not wait:
            raise LockBusy(path)
    try:
        yield
    finally:
        try:
            path.unlink(missing_ok=True)  # while still held (see the module's docstring)
        finally:
            os.close(fd)
