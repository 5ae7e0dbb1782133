"""Benchmark of the fresh demo: `gsr run demo` from an empty cache (issue 28's target: at most 180 s on a quiet
2-core machine), its stages as results.json's timings_s records them, and, with --against REF, the same run of the
code at a git ref (checked out into a temporary worktree, run by this venv's Python) for the ratio.

    .venv/bin/python benchmarks/bench_demo.py                          # this code, once
    .venv/bin/python benchmarks/bench_demo.py --against a3cd00e        # and the code at a3cd00e, alternately
    .venv/bin/python benchmarks/bench_demo.py --repeat 2 --json /tmp/demo.json

Each run is a new process with its own empty cache (GSR_CACHE) and output folder; both sides run one after the
other, alternately, so a change of the machine's load reaches both. It measures, it asserts nothing; the load
average and the machine's speed (a fixed Python loop, common.cpu_loop_seconds) are printed before and after each run
(see benchmarks/README.md: timings are noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PROJECT_ROOT, cpu_loop_seconds, load_text, log, write_json

TARGET_S = 180.0


def fresh_demo(code: Path, folder: Path) -> dict:
    """One `gsr run demo` of the code in `code` from an empty cache under `folder`: wall time and stage timings."""
    cache, out = folder / "cache", folder / "out"
    environment = {**os.environ, "GSR_CACHE": str(cache), "PYTHONPATH": str(code)}
    before, speed = load_text(), cpu_loop_seconds()
    with open(folder / "log.txt", "w") as log_file:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "experiments.cli", "run", "demo", "--out", str(out)],
            cwd=code,
            env=environment,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
        seconds = time.perf_counter() - started
    timings = json.loads((out / "results.json").read_text(encoding="utf-8")).get("timings_s", {})
    return {
        "seconds": seconds,
        "load_before": before,
        "load_after": load_text(),
        "cpu_loop_s_before": speed,
        "cpu_loop_s_after": cpu_loop_seconds(),
        "timings_s": timings,
    }


def worktree(ref: str, folder: Path) -> Path:
    """The code at `ref`, checked out (detached) into `folder`."""
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=PROJECT_ROOT, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REF", help="also run the code at this git ref, alternately")
    parser.add_argument("--repeat", type=int, default=1, help="runs per side (default 1)")
    parser.add_argument("--json", metavar="PATH", help="write every figure as JSON")
    args = parser.parse_args()

    figures: dict = {"target_s": TARGET_S, "runs": {"this code": []}}
    with tempfile.TemporaryDirectory(prefix="gsr-bench-demo-") as scratch:
        sides = {"this code": PROJECT_ROOT}
        if args.against:
            sides[args.against] = worktree(args.against, Path(scratch) / "reference")
            figures["runs"][args.against] = []
        try:
            for repeat in range(args.repeat):
                for name, code in sides.items():
                    folder = Path(scratch) / f"{name.replace(' ', '-')}-{repeat}"
                    folder.mkdir()
                    log(f"fresh demo, {name} ({repeat + 1}/{args.repeat}) …")
                    run = fresh_demo(code, folder)
                    log(f"fresh demo, {name}: {run['seconds']:.0f} s")
                    figures["runs"][name].append(run)
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(sides[args.against])], cwd=PROJECT_ROOT)

    for name, runs in figures["runs"].items():
        best = min(r["seconds"] for r in runs)
        times = ", ".join(f"{r['seconds']:.0f} s" for r in runs)
        print(f"{name}: fresh demo {times} (best {best:.0f} s, {best / TARGET_S:.2f}× the {TARGET_S:.0f} s target)")
        for r in runs:
            print(f"  load before {r['load_before']}; after {r['load_after']}")
            print(
                f"  machine speed (common.cpu_loop_seconds): {r['cpu_loop_s_before']:.2f} s before, "
                f"{r['cpu_loop_s_after']:.2f} s after"
            )
        slowest = sorted(runs[0]["timings_s"].items(), key=lambda item: -item[1])[:8]
        print("  longest recorded steps: " + ", ".join(f"{step} {s:.0f} s" for step, s in slowest))
    if args.against:
        mine = min(r["seconds"] for r in figures["runs"]["this code"])
        theirs = min(r["seconds"] for r in figures["runs"][args.against])
        print(f"this code / {args.against}: {mine / theirs:.2f}×")
    if args.json:
        write_json(figures, args.json)


if __name__ == "__main__":
    main()
