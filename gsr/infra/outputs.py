"""Where a command may write, checked before any work: the one check every command that writes a file or a folder
calls (`check_output_targets`: gsr score --html, rerank --out, debias --out, export --out, queries and validate
--plots, gsr run's output folder), and the one way a file is put in place without replacing another (`place_file`).

* Nothing the user owns is replaced without --overwrite: a file at an output path, or a link there (even one to
  nothing), is refused unless the command was given --overwrite. With it, the name is replaced: every file is
  written under another name and renamed onto it, so a link there is replaced itself and what it points to is left
  as it is.
* No command writes over one of its inputs, whatever the flags: an output that is an input by the same path,
  another spelling, a symbolic link or a hard link (files compared by device and inode, links followed), or that
  lies in an input folder (documents as a folder of files, a Lucene index), is refused even with --overwrite; a
  folder a command fills and cleans up wholly (gsr run's) holds no input. Standard output and standard error are
  never an input either: a shell's `>` has already emptied the file then, and `>>` would append to a file being read.
* A path that cannot be written is one line: a folder, a FIFO or a device where a file goes; a file, or a link to
  nothing, where a folder goes or above the path; a folder this process cannot write in; a path on a pseudo file
  system of the kernel (/proc, /sys, /dev but for its memory file system /dev/shm, or a proc, sysfs, cgroup ...
  mount anywhere), where a write fails or reaches the kernel instead of a file.
* Every name along the path fits its file system: PC_NAME_MAX bytes (255 on ext4, XFS, Btrfs, APFS) in the file
  system's encoding, counting the longest name a file has while it is written (`longest_written_name`).

Every target is checked before the first one is written, so a refused command writes nothing (no half export).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gsr.errors import InputError
from gsr.infra.names import shortened
from gsr.infra.store import longest_staging_name

PSEUDO_FOLDERS = ("/proc", "/sys", "/dev")
MEMORY_FOLDERS = ("/dev/shm",)  # a tmpfs under /dev: scratch space that holds real files
PSEUDO_FILE_SYSTEMS = frozenset(
    {
        "autofs",
        "binfmt_misc",
        "bpf",
        "cgroup",
        "cgroup2",
        "configfs",
        "debugfs",
        "devpts",
        "devtmpfs",
        "efivarfs",
        "fusectl",
        "mqueue",
        "proc",
        "pstore",
        "securityfs",
        "sysfs",
        "tracefs",
    }
)
DEFAULT_NAME_MAX = 255  # bytes; where the file system does not say (os.pathconf unavailable)
DEFAULT_PATH_MAX = 4096  # bytes, Linux's; likewise
PID_DIGITS = 7  # Linux process ids stay below 2**22: place_file's partial names are at most this much longer
FILE_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFSOCK: "a socket"}
STREAMS = {1: "standard output", 2: "standard error"}
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")  # what smart_open (gensim's writer) compresses by


@dataclass(frozen=True)
class Target:
    """An output path and the option or config key (`option`) that named it, as errors show it."""

    option: str
    path: Path
    folder: bool = False  # a folder the command writes files into (each of them a Target of its own)
    holds_no_inputs: bool = False  # a folder the command fills and cleans up wholly (gsr run's): no input may be in it


@dataclass(frozen=True)
class _Input:
    label: str  # the option or config key that names it
    path: Path  # as given
    real: Path  # links resolved
    folder: bool


def check_output_targets(targets: Iterable[Target], inputs: Iterable[tuple[str, object]], overwrite: bool) -> None:
    """Refuse, with an InputError naming the option and path, any of `targets` that cannot be written or that would
    write over an input, and (unless `overwrite`) any file target that exists; `inputs` are (option, path) pairs,
    values that are no existing path (irds:ID, a built-in name, None) are skipped. Standard output and standard error
    are checked against the inputs too. Nothing is written: call it before any work."""
    known = _known_inputs(inputs)
    streams = {descriptor: _stream_input(descriptor, known) for descriptor in STREAMS}
    if streams[2] is not None:  # not even the error may be appended to an input: it goes where the output goes
        _move_standard_error(to_output=streams[1] is None)
    for descriptor, found in streams.items():
        if found is not None:
            raise InputError(
                f"{STREAMS[descriptor]} is the input {found.label} {found.path}: gsr never writes over one of its "
                "inputs (a shell's '>' has already emptied it, and '>>' would append to what is being read); "
                "restore the file and send the output elsewhere"
            )
    for target in targets:
        path = Path(os.path.abspath(os.path.expanduser(target.path)))
        problem = _place_problem(path, target.folder) or (
            _folder_problem(path, known, target.holds_no_inputs)
            if target.folder
            else _file_problem(path, known, overwrite)
        )
        if problem:
            raise InputError(f"{target.option} {target.path} {problem}")


def option_inputs(args, *names: str) -> list[tuple[str, object]]:
    """The inputs of a command as check_output_targets takes them: ('--name', value) for each of `names` that the
    parsed `args` hold, an option given several values once per value."""
    inputs: list[tuple[str, object]] = []
    for name in names:
        value = getattr(args, name, None)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is not None:
                inputs.append((f"--{name.replace('_', '-')}", item))
    return inputs


def place_file(
    write: Callable[[Path], object], path: Path, overwrite: bool, option: str, during: str = "gsr worked"
) -> Path:
    """`write(partial)` beside `path`, then the file moved to `path`: replacing what is there with `overwrite`,
    otherwise created only if `path` still does not exist (a file that appeared there meanwhile, `during` the work,
    is never replaced, and the InputError says so). Returns `path`."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial{_compression_suffix(path.name)}")
    try:
        write(partial)
        if overwrite:
            os.replace(partial, path)
            return path
        try:
            try:
                os.link(partial, path)  # fails where a file exists: never overwritten
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: an exclusive create, then the bytes
                with open(path, "xb") as out, open(partial, "rb") as written:
                    shutil.copyfileobj(written, out)
        except FileExistsError:
            raise InputError(
                f"{option} {path} appeared while {during}; it was left as it is (--overwrite replaces it)"
            ) from None
    finally:
        partial.unlink(missing_ok=True)
    return path


def longest_written_name(name: str) -> str:
    """The longest name a file `name` has while it is written: place_file's partial file, written atomically
    (gsr.infra.store.atomic_write) under a staging name of its own."""
    return longest_staging_name(f".{name}.{'9' * PID_DIGITS}.partial{_compression_suffix(name)}")


def _compression_suffix(name: str) -> str:
    """The ending by which a writer compresses a file (word2vec files, gensim's and ours), kept on its partial file."""
    return next((name[-len(suffix) :] for suffix in COMPRESSED_SUFFIXES if name.lower().endswith(suffix)), "")


def name_max(folder: str | os.PathLike) -> int:
    """The most bytes a file name may have in `folder` (or in the nearest folder above it that exists)."""
    try:
        return os.pathconf(_nearest_existing(Path(folder)), "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # a system without pathconf, or a file system that does not say
        return DEFAULT_NAME_MAX


def _path_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        return DEFAULT_PATH_MAX


def file_name_problem(name: str, folder: str | os.PathLike) -> str | None:
    """Why a file named `name` cannot be written in `folder`: its name, or the longest name it has while it is
    written, is longer than the file system allows; else None."""
    limit, written = name_max(folder), _bytes(longest_written_name(name))
    if written <= limit:
        return None
    return (
        f"is {_bytes(name)} bytes long; written under a staging name {written - _bytes(name)} bytes longer, it "
        f"exceeds the {limit} bytes a file name may have in {_nearest_existing(Path(folder))}"
    )


# ----------------------------------------------------------------------------------------------- the checks


def _known_inputs(inputs: Iterable[tuple[str, object]]) -> dict:
    """{(device, inode): _Input} of every input that exists: the file a path names, and a link itself where the path
    is one (a link the user names is theirs too); folders also under their resolved path, as ('folder', path)."""
    known: dict = {}
    for label, value in inputs:
        path = Path(os.path.expanduser(os.fspath(value) if isinstance(value, os.PathLike) else str(value)))
        try:
            status, link = path.stat(), path.lstat()
        except (OSError, ValueError):  # not a file (irds:ID, a built-in name) or not there
            continue
        found = _Input(label, path, Path(os.path.realpath(path)), stat.S_ISDIR(status.st_mode))
        for identity in {(status.st_dev, status.st_ino), (link.st_dev, link.st_ino)}:
            known.setdefault(identity, found)
        if found.folder:
            known.setdefault(("folder", found.real), found)
    return known


def _stream_input(descriptor: int, known: dict) -> _Input | None:
    """The input that the file open as `descriptor` (1: standard output, 2: standard error) is, if it is one."""
    try:
        status = os.fstat(descriptor)
    except OSError:  # closed
        return None
    return known.get((status.st_dev, status.st_ino)) if stat.S_ISREG(status.st_mode) else None


def _move_standard_error(to_output: bool) -> None:
    """Point descriptor 2 at standard output's file (`to_output`) or at the null device."""
    sys.stderr.flush()
    moved = os.dup(1) if to_output else os.open(os.devnull, os.O_WRONLY)
    os.dup2(moved, 2)
    os.close(moved)


def _place_problem(path: Path, folder: bool) -> str | None:
    """What stands in the way of creating `path`: a pseudo file system, the nearest existing path above it (a file, a
    link to nothing, a folder this process cannot write in), a name longer than the file system allows."""
    pseudo = _pseudo_file_system(path)
    if pseudo:
        return (
            f"is on {pseudo}, a pseudo file system of the kernel: it holds no files gsr could write; give a path "
            "on a disk"
        )
    above = _nearest_existing(path.parent)
    if os.path.islink(above) and not os.path.exists(above):
        return f"cannot be created: {above} is a link to {os.readlink(above)}, which does not exist"
    if not above.is_dir():
        return f"cannot be created: {above} is {_kind(above) or 'a file'}"
    missing = [] if above == path.parent else list(path.parent.relative_to(above).parts)
    missing += [path.name] if folder and not os.path.lexists(path) else []
    long = next((name for name in missing if _bytes(name) > name_max(above)), None)
    if long is not None:
        return (
            f"cannot be created: the name {shortened(long)} is {_bytes(long)} bytes long, over the "
            f"{name_max(above)} bytes a file name may have in {above}"
        )
    problem = None if folder or os.path.lexists(path) else file_name_problem(path.name, above)
    if problem:
        return f"cannot be written: its name {problem}; give a shorter name"
    longest = _bytes(str(path.parent / longest_written_name(path.name if not folder else f"{path.name}/x")))
    if longest > _path_max(above):
        return (
            f"cannot be written: the path of what gsr writes there is {longest} bytes long, over the "
            f"{_path_max(above)} bytes a path may have; give a shorter path"
        )
    if not os.access(above, os.W_OK | os.X_OK) and not (above == path.parent and os.path.lexists(path) and folder):
        return f"cannot be created: {above} is not writable"
    return None


def _folder_problem(path: Path, known: dict, holds_no_inputs: bool) -> str | None:
    if os.path.islink(path) and not os.path.exists(path):
        return f"is a link to {os.readlink(path)}, which does not exist; give a folder, or remove the link"
    if os.path.exists(path) and not path.is_dir():
        return f"is {_kind(path) or 'a file'}, not a folder"
    if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
        return "is not writable"
    inside = _input_folder_around(path, known)
    if inside is not None:
        return inside
    if holds_no_inputs:
        return _held_input(path, known)
    return None


def _file_problem(path: Path, known: dict, overwrite: bool) -> str | None:
    if path.is_dir():
        return "is a folder; give the path of the file to write"
    kind = _kind(path) if path.exists() else None
    if kind:
        return f"is {kind}, not a regular file; give the path of a file to write"
    found = _same_file(path, known)
    if found is not None:
        return (
            f"is the input {found.label} {found.path}{_how(path, found)}; gsr never writes over one of its inputs, "
            "not even with --overwrite: give another path"
        )
    inside = _input_folder_around(path, known)
    if inside is not None:
        return inside
    if os.path.lexists(path) and not overwrite:
        if not path.exists():
            return (
                f"already exists (a link to {os.readlink(path)}, which does not exist); give a new file, or "
                "--overwrite to replace the link"
            )
        return "already exists; give a new file, or --overwrite to replace it"
    return None


def _held_input(folder: Path, known: dict) -> str | None:
    """An input inside `folder`, under the folder's own path or as a link or hard link in it, as an error's end."""
    real = Path(os.path.realpath(folder))
    inputs = {found.path: found for found in known.values()}
    for found in inputs.values():
        if found.real == real or real in found.real.parents:
            return _holds(found.path, found)
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            found = _same_file(Path(root) / name, known)
            if found is not None:
                return _holds(Path(root) / name, found)
    return None


def _holds(path: Path, found: _Input) -> str:
    how = "" if path == found.path else f" (the input {found.label} {found.path}{_how(path, found)})"
    label = f" ({found.label})" if not how and found.label else ""
    return (
        f"holds {path}, an input of this command{label}{how}, which its outputs could overwrite; write the results "
        "to another folder"
    )


def _same_file(path: Path, known: dict) -> _Input | None:
    """The input `path` is (followed through links) or, where it is a link, the input it stands for."""
    for status in (_stat(path, os.stat), _stat(path, os.lstat)):
        if status is not None and (status.st_dev, status.st_ino) in known:
            return known[(status.st_dev, status.st_ino)]
    return None


def _input_folder_around(path: Path, known: dict) -> str | None:
    real = Path(os.path.realpath(path))
    for parent in real.parents:
        found = known.get(("folder", parent))
        if found is not None:
            return (
                f"lies in {found.path}, the input {found.label}; gsr never writes into one of its inputs, not even "
                "with --overwrite: give another path"
            )
    return None


def _how(path: Path, found: _Input) -> str:
    if os.path.realpath(path) == str(found.real):
        return "" if os.path.abspath(path) == os.path.abspath(found.path) else ", through a link"
    return ", a hard link of it"


def _stat(path: Path, how: Callable) -> os.stat_result | None:
    try:
        return how(path)
    except (OSError, ValueError):
        return None


def _kind(path: Path) -> str | None:
    """'a FIFO', 'a device', 'a socket' for what is not a regular file nor a folder; None otherwise."""
    status = _stat(path, os.stat)
    return None if status is None else FILE_KINDS.get(stat.S_IFMT(status.st_mode))


def _bytes(name: str) -> int:
    try:
        return len(os.fsencode(name))
    except UnicodeError:
        return len(name.encode("utf-8", "surrogatepass"))


def _nearest_existing(path: Path) -> Path:
    path = Path(os.path.abspath(path))
    while not os.path.lexists(path) and path.parent != path:
        path = path.parent
    return path


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _pseudo_file_system(path: Path) -> str | None:
    """'/proc', '/sys', '/dev', or 'MOUNT (TYPE)' for another pseudo file system's mount, where `path` lies, as
    written or with its links resolved; None on a file system that holds files."""
    for where in (os.path.abspath(path), os.path.realpath(path)):  # /proc/self/fd/1 resolves to anything
        if any(_within(where, folder) for folder in MEMORY_FOLDERS):
            continue
        for folder in PSEUDO_FOLDERS:
            if _within(where, folder):
                return folder
        mount, kind = _mount_of(where)
        if kind in PSEUDO_FILE_SYSTEMS:
            return f"{mount} ({kind})"
    return None


def _mount_of(real: str) -> tuple[str, str]:
    """(mount point, file system type) of the mount holding `real`, from /proc/self/mountinfo; ('', '') where it
    cannot be read (not Linux)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            lines = mounts.read().splitlines()
    except OSError:
        return "", ""
    best = ("", "")
    for line in lines:
        fields = line.split()
        if "-" not in fields[6:]:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])  # spaces are written \040
        kind = fields[fields.index("-", 6) + 1]
        if _within(real, point) and len(point) >= len(best[0]):
            best = (point, kind)
    return best
