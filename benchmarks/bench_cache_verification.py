"""What verifying a cache entry costs: gsr.infra.digests.fast_digest (xxh3-128 over the whole file, what every reuse
of a cache entry computes) against loading the same file.

For each size (default 1 GB and 3.6 GB, the size of a 3M × 300 float32 embedding such as word2vec GoogleNews) it
writes a float32 .npy array into a scratch folder and measures, warm (the file in the page cache) and cold (its pages
evicted with posix_fadvise, this file only), the seconds of:

* verification: fast_digest of the file;
* loading: np.load of the whole array into memory;
* a memory-mapped reuse: np.load(mmap_mode="r") and one pass over every row (what a cached embedding costs).

It prints seconds, GB/s and verification's share of verify + load (and of verify + memory-mapped pass). A measurement
script, not a test: it asserts nothing. Needs the sizes' sum free on disk and the largest size free in memory.

    python benchmarks/bench_cache_verification.py                  # 1 GB and 3.6 GB
    python benchmarks/bench_cache_verification.py --sizes 0.2      # quick check
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gsr.infra.digests import fast_digest

GB = 1e9
COLUMNS = 300  # an embedding's width


def write_array(path: Path, size: float) -> int:
    """A float32 (rows × 300) .npy file of about `size` GB, written in blocks; returns its size in bytes."""
    rows = int(size * GB / (4 * COLUMNS))
    header = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, COLUMNS))
    rng = np.random.default_rng(0)
    block = 200_000
    for start in range(0, rows, block):
        header[start : start + block] = rng.standard_normal((min(block, rows - start), COLUMNS), dtype=np.float32)
    header.flush()
    del header
    return path.stat().st_size


def evict(path: Path) -> None:
    """Drop this file's pages from the page cache, so the next read comes from the disk."""
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
        os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def mapped_pass(path: Path) -> None:
    array = np.load(path, mmap_mode="r")
    total = 0.0
    for start in range(0, len(array), 200_000):
        total += float(array[start : start + 200_000].sum(dtype=np.float64))


def measure(path: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Best of `repeat` seconds per (state, action)."""
    actions = {
        "verify": lambda: fast_digest(path),
        "load": lambda: np.load(path),
        "mmap pass": lambda: mapped_pass(path),
    }
    times: dict[str, dict[str, float]] = {"cold": {}, "warm": {}}
    for name, action in actions.items():
        cold, warm = [], []
        for _ in range(repeat):
            evict(path)
            cold.append(timed(action))
            warm.append(timed(action))
        times["cold"][name], times["warm"][name] = min(cold), min(warm)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,3.6", help="file sizes in GB, comma-separated (default 1,3.6)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement; the fastest is kept")
    parser.add_argument("--folder", help="scratch folder (default: a temporary one, removed afterwards)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder, prefix="bench-cache-") as scratch:
        print(
            f"{'file':>8} {'state':>5} {'verify s':>9} {'GB/s':>6} {'load s':>7} {'GB/s':>6} {'mmap pass s':>11} "
            f"{'verify/(verify+load)':>21} {'verify/(verify+mmap)':>21}"
        )
        for size in (float(s) for s in args.sizes.split(",")):
            path = Path(scratch) / f"vectors-{size}GB.npy"
            print(f"writing {path} …", file=sys.stderr, flush=True)
            nbytes = write_array(path, size)
            for state, row in measure(path, args.repeat).items():
                verify, load, mapped = row["verify"], row["load"], row["mmap pass"]
                print(
                    f"{nbytes / GB:>6.2f}GB {state:>5} {verify:>9.2f} {nbytes / GB / verify:>6.2f} {load:>7.2f} "
                    f"{nbytes / GB / load:>6.2f} {mapped:>11.2f} {verify / (verify + load):>21.0%} "
                    f"{verify / (verify + mapped):>21.0%}",
                    flush=True,
                )
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
