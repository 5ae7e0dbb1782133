"""What a user of the command line waits for: `gsr --help`, every `gsr SUBCOMMAND --help` and `import gsr` (best of
--repeat fresh processes each), and `gsr score` of runs with effectiveness beside ir_measures' own command-line
evaluation of the same runs.

    .venv/bin/python benchmarks/bench_cli.py [--score-dir DIR] [--repeat 5] [--json PATH]

--score-dir: a folder with topics.tsv, documents.jsonl, qrels.txt and *.run files (e.g. the Grep-BiasIR runs of
`gsr run experiments/grepbiasir.toml` beside its collection's files); default: the toy collection of §3.4 as
`gsr export toy1` writes it. Prints each time, its ratio to the target (0.3 s to start; 1.0 s for `gsr score`) and
`gsr score`'s ratio to `python -m ir_measures` (the anchor: an evaluation with nothing else). Figures go to stdout;
the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from common import PROJECT_ROOT, best_of, write_json

START_TARGET_S = 0.3
SCORE_TARGET_S = 1.0
MEASURES = "AP,P@10,nDCG@100"


def process_time(repeat: int, command: list[str]) -> float:
    """The fastest of `repeat` runs of `command`, each a fresh process."""
    return best_of(repeat, lambda: subprocess.run(command, check=True, capture_output=True, cwd=PROJECT_ROOT))[0]


def subcommands() -> list[str]:
    from experiments.cli import COMMANDS  # the project folder is first on sys.path (common)

    return list(COMMANDS)


def score_inputs(folder: Path | None, staging: Path) -> Path:
    if folder is not None:
        return folder
    subprocess.run([sys.executable, "-m", "experiments.cli", "export", "toy1", "--out", str(staging)], check=True,
                   capture_output=True, cwd=PROJECT_ROOT)  # fmt: skip
    return staging


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--score-dir", type=Path)
    parser.add_argument("--name", help="what the scored runs are, for the printed figure (default: the folder's name)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    python, gsr = sys.executable, [sys.executable, "-m", "experiments.cli"]
    figures: dict[str, dict] = {}
    figures["python -c 'import gsr'"] = {"s": process_time(args.repeat, [python, "-c", "import gsr"])}
    figures["gsr --help"] = {"s": process_time(args.repeat, [*gsr, "--help"])}
    helps = {name: process_time(args.repeat, [*gsr, name, "--help"]) for name in subcommands()}
    slowest = max(helps, key=lambda name: helps[name])
    figures[f"gsr SUBCOMMAND --help (slowest: {slowest})"] = {"s": helps[slowest]}
    for figure in figures.values():
        figure.update(target_s=START_TARGET_S, ratio=figure["s"] / START_TARGET_S)
    with tempfile.TemporaryDirectory() as staging:
        folder = score_inputs(args.score_dir, Path(staging))
        runs = sorted(str(p) for p in folder.glob("*.run"))
        files = ["--topics", str(folder / "topics.tsv"), "--docs", str(folder / "documents.jsonl")]
        score = [*gsr, "score", "--run", *runs, *files, "--qrels", str(folder / "qrels.txt"), "--measures", MEASURES]
        scored = process_time(args.repeat, score)
        anchor = sum(
            process_time(
                args.repeat, [python, "-m", "ir_measures", str(folder / "qrels.txt"), run, MEASURES.replace(",", " ")]
            )
            for run in runs
        )
    what = args.name or (args.score_dir.name if args.score_dir else "the toy collection")
    figures[f"gsr score of {len(runs)} runs ({what}), GSR + {MEASURES}"] = {
        "s": scored,
        "target_s": SCORE_TARGET_S,
        "ratio": scored / SCORE_TARGET_S,
        "anchor": f"python -m ir_measures, {len(runs)} runs: {anchor:.2f} s",
        "anchor_ratio": scored / anchor,
    }
    print(f"best of {args.repeat} fresh processes; score inputs: {folder if args.score_dir else 'the toy collection'}")
    for name, figure in figures.items():
        extra = f"; {figure['anchor_ratio']:.1f} × {figure['anchor']}" if "anchor" in figure else ""
        print(
            f"  {name:<58} {figure['s']:6.3f} s  ({figure['ratio']:.2f} × the {figure['target_s']:g} s target{extra})"
        )
    if args.json:
        write_json({"benchmark": "cli", "figures": figures}, args.json)


if __name__ == "__main__":
    main()
