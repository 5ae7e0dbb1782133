"""gsr.infra.store: verified cache entries, nested verified folders, locks, staging leftovers of killed processes."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from gsr.infra.locks import lock_now
from gsr.infra.store import WRITER_LOCK, atomic_folder, cached_file, cached_folder, clean_stale_staging, verify


def test_a_cache_folder_holding_a_verified_folder_is_reused_not_rebuilt(tmp_path, caplog):
    builds = []

    def build(staging):
        builds.append(staging)
        with atomic_folder(staging / "index") as inner:  # as the Lucene index inside the runner's cache entry
            (inner / "segments_1").write_bytes(b"x" * 100)

    entry, reused = cached_folder(tmp_path / "entry", build)
    assert not reused and verify(entry) is None and (entry / "index" / ".manifest.json").is_file()
    with caplog.at_level(logging.WARNING, logger="gsr.store"):
        again, reused = cached_folder(tmp_path / "entry", build)
    assert reused and len(builds) == 1 and not caplog.records


def test_a_changed_byte_or_a_stray_file_is_reported_and_rebuilt(tmp_path, caplog):
    path, _ = cached_file(tmp_path / "run.txt", lambda staging: staging.write_text("q1 Q0 d1 1 1.0 x\n"))
    path.write_text("q1 Q0 d2 1 1.0 x\n")  # same size, other content
    assert "content differs" in verify(path)
    with caplog.at_level(logging.WARNING, logger="gsr.store"):
        cached_file(tmp_path / "run.txt", lambda staging: staging.write_text("q1 Q0 d1 1 1.0 x\n"))
    assert "is corrupt" in caplog.text and path.read_text() == "q1 Q0 d1 1 1.0 x\n"
    folder, _ = cached_folder(tmp_path / "f", lambda staging: (staging / "a").write_text("a"))
    (folder / "stray").write_text("b")
    assert verify(folder) == "stray was not written with it"


def _aged(path: Path, seconds: float = 60) -> Path:
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_staging_nobody_holds_is_removed_and_one_its_writer_holds_kept(tmp_path):
    """Whether a writer is alive is asked of its lock, not of a process id, which names another process (or none)
    in another PID namespace or on another host sharing the cache."""
    abandoned_folder = tmp_path / f".a.staging-host-{os.getpid()}"  # a live process's id: it proves nothing
    abandoned_folder.mkdir()
    (abandoned_folder / WRITER_LOCK).write_text("")
    abandoned_file = tmp_path / ".b.staging-host-999999999.tmp"
    abandoned_file.write_text("half")
    held_folder = tmp_path / ".c.staging-host-999999999"  # a dead process's id: the writer may live elsewhere
    held_folder.mkdir()
    held = os.open(held_folder / WRITER_LOCK, os.O_RDWR | os.O_CREAT)
    assert lock_now(held)
    fresh = tmp_path / ".d.staging-host-1"  # its writer may not have taken its lock yet
    fresh.mkdir()
    for path in (abandoned_folder / WRITER_LOCK, abandoned_folder, abandoned_file, held_folder):
        _aged(path)
    try:
        assert sorted(clean_stale_staging(tmp_path)) == sorted([abandoned_folder, abandoned_file])
        assert held_folder.exists() and fresh.exists()
    finally:
        os.close(held)
    assert clean_stale_staging(tmp_path) == [held_folder]  # released: nobody writes it any more


def test_two_processes_building_one_entry_take_turns_and_both_read_it(tmp_path):
    """The second waits on the entry's lock and reuses what the first built, instead of removing the entry while
    the first reads it; nothing is left behind."""
    script = (
        "import sys, time, json\n"
        "from pathlib import Path\n"
        "from gsr.infra.store import cached_folder\n"
        "def build(staging):\n"
        "    time.sleep(1.0)\n"
        "    (staging / 'value.json').write_text(json.dumps(sys.argv[2]))\n"
        "folder, reused = cached_folder(Path(sys.argv[1]), build)\n"
        "print(json.dumps([(folder / 'value.json').read_text(), reused]))\n"
    )
    entry = tmp_path / "cache" / "entry"
    processes = [
        subprocess.Popen([sys.executable, "-c", script, str(entry), name], stdout=subprocess.PIPE, text=True)
        for name in ("first", "second")
    ]
    outputs = [json.loads(p.communicate(timeout=60)[0]) for p in processes]
    assert all(p.returncode == 0 for p in processes)
    assert outputs[0][0] == outputs[1][0] and sorted(reused for _, reused in outputs) == [False, True]
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["entry"]


def test_a_file_between_its_move_and_its_manifest_is_waited_for_not_removed(tmp_path, caplog):
    """A builder in another process holds the entry's lock from putting the file in place until its manifest is
    written; a reader that finds the file without a manifest meanwhile waits for the lock and reuses the entry (two
    runs sharing a cache once removed each other's fresh run files here)."""
    from gsr.infra.store import reusable

    entry, ready = tmp_path / "run.txt", tmp_path / "ready"
    builder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from gsr.infra.store import entry_lock, record_file\n"
            f"entry = Path({str(entry)!r})\n"
            "with entry_lock(entry):\n"
            "    entry.write_text('q1 Q0 d1 1 1.0 t\\n')\n"
            f"    Path({str(ready)!r}).touch()\n"
            "    time.sleep(1.0)\n"
            "    record_file(entry)\n",
        ],
        cwd=Path(__file__).resolve().parents[2],
    )
    while not ready.exists():
        assert builder.poll() is None, "the builder ended before putting its file in place"
        time.sleep(0.01)
    with caplog.at_level(logging.WARNING, logger="gsr.store"):
        assert reusable(entry)  # waited for the builder's lock, then found the manifest
    assert builder.wait(timeout=30) == 0 and entry.is_file() and "corrupt" not in caplog.text


def test_a_published_file_checked_once_is_checked_again_once_it_changes(tmp_path):
    """check_published reads each file once per process (its stamps remembered), and again after any change to it."""
    import hashlib

    import pytest

    from gsr.errors import InputError
    from gsr.infra.sha256 import check_published

    path = tmp_path / "weights.bin"
    path.write_bytes(b"the published bytes")
    published = {"weights.bin": hashlib.sha256(b"the published bytes").hexdigest()}
    check_published(tmp_path, published, "a model", "a-package", InputError)
    check_published(tmp_path, published, "a model", "a-package", InputError)  # remembered
    path.write_bytes(b"the published byteX")  # same size; its modification and inode change times move
    with pytest.raises(InputError, match="weights.bin: SHA-256 .* differs from the published"):
        check_published(tmp_path, published, "a model", "a-package", InputError)


def test_a_cached_file_is_copied_only_as_its_manifest_records_it(tmp_path):
    """copy_verified: the entry's bytes at the target where they verify; a changed or unrecorded entry copies
    nothing (None), and the target is left as it was."""
    from gsr.infra.store import copy_verified

    entry, _ = cached_file(tmp_path / "run.txt", lambda staging: staging.write_text("q1 Q0 d1 1 1.0 x\n"))
    copied = copy_verified(entry, tmp_path / "out" / "run.txt")
    assert copied == tmp_path / "out" / "run.txt" and copied.read_bytes() == entry.read_bytes()
    entry.write_text("q1 Q0 d2 1 1.0 x\n")  # same size, other content
    assert copy_verified(entry, tmp_path / "out" / "other.txt") is None
    assert not (tmp_path / "out" / "other.txt").exists()
    unrecorded = tmp_path / "plain.txt"
    unrecorded.write_text("q1 Q0 d1 1 1.0 x\n")
    assert copy_verified(unrecorded, tmp_path / "out" / "plain.txt") is None
    assert copy_verified(tmp_path / "missing.txt", tmp_path / "out" / "missing.txt") is None


def test_a_lock_held_by_a_killed_process_is_free_at_once(tmp_path):
    """SIGKILL leaves no lock behind: the system drops a dead holder's lock (gsr.infra.locks, on filelock's native
    lock), so the next process takes it without waiting, and removes the file the dead one left."""
    import signal

    import pytest

    from gsr.infra.locks import LockBusy, lock_file

    path = tmp_path / ".entry.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom gsr.infra.locks import lock_file\n"
            "with lock_file(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockBusy), lock_file(path, wait=False):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        holder.stdout.close()
    assert path.is_file()  # the dead holder could not remove it
    started = time.perf_counter()
    with lock_file(path, wait=False):
        pass
    assert time.perf_counter() - started < 1 and not path.exists()


def test_a_cache_lock_path_that_is_not_a_file_is_one_error_naming_it(tmp_path):
    import pytest

    from gsr.errors import StorageError

    (tmp_path / ".entry.txt.lock").mkdir()
    with pytest.raises(StorageError, match=r"\.entry\.txt\.lock is a folder where gsr keeps a lock file"):
        cached_file(tmp_path / "entry.txt", lambda staging: staging.write_text("x"))
    assert (tmp_path / ".entry.txt.lock").is_dir() and not (tmp_path / "entry.txt").exists()
