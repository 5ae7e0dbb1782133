"""Memory-mapped embeddings scanned once leave the process's RSS (gsr.infra.numeric.release_rows)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from gsr.infra.numeric import release_rows

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")


def _file_backed_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssFile:"))


def test_released_rows_leave_rss_and_read_back_unchanged(tmp_path):
    path = tmp_path / "vectors.npy"
    written = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(40_000, 100))
    written[:] = np.arange(40_000, dtype=np.float32)[:, None]
    written.flush()
    del written
    vectors = np.load(path, mmap_mode="r")
    total = float(vectors.sum(dtype=np.float64))  # every page resident: 16 MB
    before = _file_backed_kib()
    release_rows(vectors, 0, 20_000)
    half = _file_backed_kib()
    release_rows(vectors, 20_000, 40_000)
    after = _file_backed_kib()
    assert before - half > 6_000 and half - after > 6_000  # about 7,800 KiB each
    assert float(vectors.sum(dtype=np.float64)) == total and vectors[39_999, 0] == 39_999


def test_arrays_in_memory_and_views_are_accepted():
    release_rows(np.ones((10, 3)), 0, 10)  # nothing to release
    release_rows(np.ones((10, 3))[2:5], 0, 3)
    release_rows(np.ones(0), 0, 5)
