"""gsr.store: verified cache entries, nested verified folders, staging leftovers of killed processes."""

from __future__ import annotations

import logging

from gsr.infra.store import atomic_folder, cached_file, cached_folder, clean_stale_staging, verify


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


def test_staging_of_a_dead_process_is_removed_and_a_live_ones_kept(tmp_path):
    dead = tmp_path / ".entry.staging-999999999-abcd"
    dead.mkdir()
    import os

    alive = tmp_path / f".entry.staging-{os.getpid()}-abcd"
    alive.mkdir()
    assert clean_stale_staging(tmp_path) == [dead]
    assert alive.exists() and not dead.exists()
