"""Benchmark of the researcher's loop on the demo (issues 28 and 37): `gsr run` of a copy of the demo's config from an
empty cache (the fresh demo, target at most 180 s on a quiet 2-core machine), then again with nothing changed (target
2 s), then with one system's parameter changed in place (QLM's `mu`: target 20 s), then with a parameter that 20
systems depend on changed (BM25's `b`: every re-ranker of BM25's run follows it). Each step prints its wall time, the
load average and the machine's speed (a fixed Python loop, common.cpu_loop_seconds) before and after, the CPU time
of the run's whole process tree (which a busy machine changes far less than the wall time) and the stages results.json's
timings_s records; with --against REF, the same steps of the code at a git ref (checked out into a
temporary worktree, run by this venv's Python) for the ratio.

    .venv/bin/python benchmarks/bench_demo.py                          # this code, once
    .venv/bin/python benchmarks/bench_demo.py --against a3cd00e        # and the code at a3cd00e, alternately
    .venv/bin/python benchmarks/bench_demo.py --repeat 2 --json /tmp/demo.json
    .venv/bin/python benchmarks/bench_demo.py --steps fresh unchanged  # the first steps only

Each side runs its steps one after the other in its own empty cache (GSR_CACHE) and output folder, its config edited
in place as a researcher edits theirs; the sides alternate step by step, so a change of the machine's load reaches
both. It measures, it asserts nothing (see benchmarks/README.md: timings are noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PROJECT_ROOT, cpu_loop_seconds, load_text, log, write_json

TARGETS_S = {"fresh": 180.0, "unchanged": 2.0, "one system": 20.0, "upstream": None}
DEMO_CONFIG = PROJECT_ROOT / "experiments" / "demo.toml"
# the in-place edits of the steps after the first: (what the config says, what it says after the edit)
EDITS = {
    "one system": ("mu = 1000", "mu = 1500"),  # QLM: no other system reads its run
    "upstream": ("k1 = 0.9\nb = 0.4", "k1 = 0.9\nb = 0.5"),  # BM25: DRMM, MatchPyramid and the re-rankers read its run
}
STEPS = ("fresh", "unchanged", "one system", "upstream")
DESCRIPTIONS = {
    "fresh": "fresh demo (empty cache)",
    "unchanged": "nothing changed",
    "one system": "one system changed (QLM mu 1000 -> 1500)",
    "upstream": "an upstream system changed (BM25 b 0.4 -> 0.5)",
}


def run_step(code: Path, folder: Path, step: str) -> dict:
    """One `gsr run` of the config in `folder` by the code in `code` (after the step's edit): wall time, load and
    machine speed before and after, and the stage timings results.json records."""
    config, cache, out = folder / "demo.toml", folder / "cache", folder / "out"
    if step == "fresh":
        config.write_text(DEMO_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    elif step in EDITS:
        before, after = EDITS[step]
        text = config.read_text(encoding="utf-8")
        if before not in text:
            raise SystemExit(f"{DEMO_CONFIG}: no {before!r} to change; update bench_demo.EDITS")
        config.write_text(text.replace(before, after, 1), encoding="utf-8")
    environment = {**os.environ, "GSR_CACHE": str(cache), "PYTHONPATH": str(code)}
    load_before, speed = load_text(), cpu_loop_seconds()
    used_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(folder / f"log-{step.replace(' ', '-')}.txt", "w") as log_file:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "experiments.cli", "run", str(config), "--out", str(out)],
            cwd=code,
            env=environment,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
        seconds = time.perf_counter() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the CPU time of the run and every process it waited for (its workers, the Lucene JVM): what a busy machine
    # stretches the wall time of, but hardly changes itself
    cpu = used.ru_utime + used.ru_stime - used_before.ru_utime - used_before.ru_stime
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "load_before": load_before,
        "load_after": load_text(),
        "cpu_loop_s_before": speed,
        "cpu_loop_s_after": cpu_loop_seconds(),
        "timings_s": results.get("timings_s", {}),
        "log": (folder / f"log-{step.replace(' ', '-')}.txt").read_text(encoding="utf-8").splitlines()[-3:],
    }


def worktree(ref: str, folder: Path) -> Path:
    """The code at `ref`, checked out (detached) into `folder`."""
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=PROJECT_ROOT, check=True)
    return folder


def report(figures: dict, steps: list[str]) -> None:
    for name, repeats in figures["runs"].items():
        print(f"{name}:")
        for step in steps:
            runs = [repeat[step] for repeat in repeats if step in repeat]
            if not runs:
                continue
            best = min(r["seconds"] for r in runs)
            times = ", ".join(f"{r['seconds']:.1f} s (CPU {r['cpu_s']:.1f} s)" for r in runs)
            target = TARGETS_S[step]
            versus = f", {best / target:.2f}× the {target:g} s target" if target else ""
            print(f"  {DESCRIPTIONS[step]}: {times} (best {best:.1f} s{versus})")
            for r in runs:
                print(
                    f"    {r['load_before']}; after: {r['load_after']}; machine speed (common.cpu_loop_seconds): "
                    f"{r['cpu_loop_s_before']:.2f} s before, {r['cpu_loop_s_after']:.2f} s after"
                )
            slowest = sorted(runs[0]["timings_s"].items(), key=lambda item: -item[1])[:6]
            if slowest and step != "unchanged":  # an unchanged rerun prints what it found: no steps of its own
                print("    longest recorded steps: " + ", ".join(f"{s} {seconds:.1f} s" for s, seconds in slowest))
    if len(figures["runs"]) == 2:
        (mine, theirs), names = figures["runs"].values(), list(figures["runs"])
        for step in steps:
            a = [r[step]["seconds"] for r in mine if step in r]
            b = [r[step]["seconds"] for r in theirs if step in r]
            if a and b:
                print(f"{DESCRIPTIONS[step]}: {names[0]} / {names[1]} = {min(a) / min(b):.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REF", help="also run the code at this git ref, alternately")
    parser.add_argument("--repeat", type=int, default=1, help="sequences of steps per side (default 1)")
    parser.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS), help="the first steps to run")
    parser.add_argument("--json", metavar="PATH", help="write every figure as JSON")
    args = parser.parse_args()
    steps = list(STEPS[: max(STEPS.index(s) for s in args.steps) + 1])  # each step edits what the one before left

    figures: dict = {"targets_s": TARGETS_S, "runs": {"this code": []}}
    with tempfile.TemporaryDirectory(prefix="gsr-bench-demo-") as scratch:
        sides = {"this code": PROJECT_ROOT}
        if args.against:
            sides[args.against] = worktree(args.against, Path(scratch) / "reference")
            figures["runs"][args.against] = []
        try:
            for repeat in range(args.repeat):
                folders = {}
                for name in sides:
                    folders[name] = Path(scratch) / f"{name.replace(' ', '-')}-{repeat}"
                    folders[name].mkdir()
                    figures["runs"][name].append({})
                for step in steps:
                    for name, code in sides.items():
                        log(f"{DESCRIPTIONS[step]}, {name} ({repeat + 1}/{args.repeat}) …")
                        done = run_step(code, folders[name], step)
                        log(f"{DESCRIPTIONS[step]}, {name}: {done['seconds']:.1f} s ({done['load_before']})")
                        figures["runs"][name][-1][step] = done
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(sides[args.against])], cwd=PROJECT_ROOT)
    report(figures, steps)
    if args.json:
        write_json(figures, args.json)


if __name__ == "__main__":
    main()
