"""The output folder of `gsr run`: checked before any work, written by one run at a time, and never holding a stale
file or files of two runs.

Each run leaves a manifest, `.gsr-output.json`, naming the experiment and every file it wrote. Before any work, a
folder is refused (unless `--overwrite`) when it holds files this experiment did not write: files without a
manifest, files its manifest does not list, or another experiment's results. A folder that holds an input of the
experiment (a run file under runs/, the config itself) is refused even with `--overwrite`: no output may ever
overwrite an input. After the report is written, the files the previous run of the folder wrote and this one did
not (a system since removed from the config) are deleted, so no stale run or per-query file stays beside new results.

One run writes a folder at a time (writer_lock: a lock, as the cache's, on `.gsr-output.lock`); a second stops with
one line. Outputs are written into a staging folder inside it and moved in by `commit`, the manifest first listing
every old and new file without a fingerprint, and last recording the new files: a run interrupted at any point
leaves a folder the next run accepts as its own and recomputes, never results.md of one run beside results.json of
another presented as current.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gsr.errors import InputError
from gsr.infra.digests import fast_digest
from gsr.infra.locks import LockBusy, NotALockFile, lock_file
from gsr.infra.outputs import Target, check_output_targets
from gsr.infra.store import STAGING_MARK, atomic_write, storage_errors

MANIFEST = ".gsr-output.json"
LOCK = ".gsr-output.lock"
MANIFEST_FORMAT = 2  # 2: the fingerprint of the inputs and each file's digest (format 1 manifests are never current)
LEGACY_RESULTS = "results.json"  # outputs of releases before the manifest: adopted when they name this experiment


@dataclass
class OutputFolder:
    """An output folder checked for one experiment: the files its previous run wrote (to clean up) and its identity."""

    path: Path
    experiment: dict
    previous: list[str] = field(default_factory=list)
    recorded: dict = field(default_factory=dict)

    @classmethod
    def check(
        cls, path: Path, experiment: dict, inputs: Iterable[tuple[str, Path]], overwrite: bool, option: str = "--out"
    ) -> OutputFolder:
        """The folder at `path`, refused (InputError naming `option`) when it cannot be written, holds or lies in
        one of the (config key, path) `inputs` (gsr.infra.outputs.check_output_targets), or, unless `overwrite`,
        holds files this experiment did not write."""
        path = Path(path).expanduser()
        check_output_targets([Target(option, path, folder=True, holds_no_inputs=True)], inputs, overwrite)
        if not path.is_dir():
            return cls(path, experiment)
        recorded = _read_manifest(path / MANIFEST)
        if recorded is None:
            first = next(_files_in(path), None)
            if first is None or _legacy_outputs_of(path, experiment):
                return cls(path, experiment)  # empty, or an earlier release's results of this experiment
            if not overwrite:
                raise InputError(
                    f"{option} {path} holds files gsr did not write (e.g. {first}); give an empty or "
                    "new folder, or --overwrite to write into it"
                )
            return cls(path, experiment)
        listed = set(recorded.get("files", []))
        foreign = next((name for name in _files_in(path) if name not in listed), None)
        other = recorded.get("experiment") != experiment
        if (foreign or other) and not overwrite:
            why = (
                f"the results of another experiment ({recorded.get('experiment', {}).get('name')})"
                if other
                else f"files this experiment did not write (e.g. {foreign})"
            )
            raise InputError(
                f"{option} {path} holds {why}; give an empty or new folder, or --overwrite to replace them"
            )
        return cls(path, experiment, sorted(listed), recorded)

    def up_to_date(self, fingerprint: str) -> bool:
        """Whether the folder holds this experiment's outputs of inputs with `fingerprint`, every file as written
        (digests checked): a rerun would write the same files."""
        recorded = self.recorded
        digests = recorded.get("digests")
        if recorded.get("fingerprint") != fingerprint or not isinstance(digests, dict) or not digests:
            return False
        if recorded.get("experiment") != self.experiment or set(digests) != set(recorded.get("files", [])):
            return False
        for name, digest in digests.items():
            path = self.path / name
            if not path.is_file() or fast_digest(path) != digest:
                return False
        return True

    def staging(self) -> Path:
        """A new, empty folder inside the output folder for this run's files (no listing counts its content); those
        of interrupted earlier runs are removed (the caller holds writer_lock: nobody else writes them)."""
        folder = self.path / f".gsr-output{STAGING_MARK}{secrets.token_hex(6)}"
        with storage_errors(self.path):
            for abandoned in self.path.glob(f".gsr-output{STAGING_MARK}*"):
                shutil.rmtree(abandoned, ignore_errors=True)
            folder.mkdir(parents=True)
        return folder

    def commit(self, staging: Path, written: dict[str, Path], fingerprint: str | None = None) -> dict[str, Path]:
        """Move every file of `staging` into the folder and record them (finish); returns `written` as moved.

        Until the last step the manifest lists the previous run's files and these, with no fingerprint: interrupted
        anywhere, the folder is this experiment's and out of date, so the next run recomputes."""
        names = sorted(
            path.relative_to(staging).as_posix() for path in staging.rglob("*") if path.is_file() or path.is_symlink()
        )
        self._record(sorted(set(self.previous) | set(names)))
        with storage_errors(self.path):
            for name in names:
                self._move_in(staging / name, self.path / name)
            shutil.rmtree(staging, ignore_errors=True)
        moved = {
            label: self.path / Path(path).resolve().relative_to(staging.resolve()) for label, path in written.items()
        }
        self.finish([self.path / name for name in names], fingerprint)
        return moved

    @staticmethod
    def _move_in(source: Path, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)

    def _record(self, names: list[str], fingerprint: str | None = None) -> None:
        with atomic_write(self.path / MANIFEST) as out:
            record = {"format": MANIFEST_FORMAT, "experiment": self.experiment, "files": names}
            if fingerprint is not None:
                record["fingerprint"] = fingerprint
                record["digests"] = {name: fast_digest(self.path / name) for name in names}
            json.dump(record, out, indent=1)

    def finish(self, written: Iterable[Path], fingerprint: str | None = None) -> list[Path]:
        """Delete what the previous run wrote and this one did not, then record this run's files (with their
        digests, and the inputs' `fingerprint`); returns what was deleted."""
        names = sorted({Path(p).resolve().relative_to(self.path.resolve()).as_posix() for p in written})
        stale = [self.path / name for name in self.previous if name not in set(names)]
        for path in stale:
            path.unlink(missing_ok=True)
            _remove_empty_parents(path.parent, self.path)
        self._record(names, fingerprint)
        return stale


@contextmanager
def writer_lock(path: Path, option: str = "--out") -> Iterator[None]:
    """Hold the output folder `path` for this run alone (gsr.infra.locks.lock_file on its `.gsr-output.lock`: hosts
    sharing the folder and PID namespaces included); InputError in one line if another run holds it, or if that
    path is a folder, a link or a FIFO. The lock file is removed when the run ends, and a folder this call created
    is removed again if the run left nothing in it."""
    created = not path.exists()
    with storage_errors(path):
        path.mkdir(parents=True, exist_ok=True)
    try:
        with ExitStack() as held:
            try:
                with storage_errors(path):
                    held.enter_context(lock_file(path / LOCK, wait=False))
            except LockBusy:
                raise InputError(
                    f"{option} {path} is being written by another gsr run; wait for it to finish, or give another "
                    "folder"
                ) from None
            except NotALockFile as err:
                raise InputError(f"{option} {path}: {err}, or give another folder") from None
            yield
    finally:
        if created and path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _files_in(folder: Path) -> Iterator[str]:
    """The files below `folder` (relative names), lazily: a refusal needs one, not a walk of a whole disk."""
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if STAGING_MARK not in name)
        for name in sorted(files):
            if STAGING_MARK not in name and name not in (MANIFEST, LOCK):
                yield (Path(root) / name).relative_to(folder).as_posix()


def _read_manifest(path: Path) -> dict | None:
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        raise InputError(f"{path}: an unreadable output manifest; delete it, or give another output folder") from None
    return recorded if isinstance(recorded, dict) else None


def _legacy_outputs_of(path: Path, experiment: dict) -> bool:
    try:
        return json.loads((path / LEGACY_RESULTS).read_text(encoding="utf-8")).get("experiment") == experiment["name"]
    except (OSError, ValueError, AttributeError):
        return False


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        os.rmdir(folder)
        folder = folder.parent
