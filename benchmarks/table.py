"""The benchmark table of docs/benchmarks.md, from the figures the benchmarks wrote with --json: each figure, its
target or anchor, and their ratio. Nothing in the table is typed by hand.

    .venv/bin/python benchmarks/bench_cli.py --json out/bench/cli.json [--score-dir DIR]
    .venv/bin/python benchmarks/bench_statistics.py --json out/bench/statistics.json
    .venv/bin/python benchmarks/bench_gsr.py --docs 100000 --json out/bench/gsr.json
    .venv/bin/python benchmarks/bench_report.py out/demo/report.html --json out/bench/report.json
    .venv/bin/python benchmarks/bench_plan.py --json out/bench/plan.json
    .venv/bin/python benchmarks/table.py out/bench/*.json --out docs/generated/benchmarks.md
"""

from __future__ import annotations

import argparse
import json
import platform
from datetime import date
from pathlib import Path

FIRST_CALL_TARGET = 500.0  # × the naive method, for a run given as ids


def rows_of(figures: dict) -> list[tuple[str, str, str, str]]:
    """(figure, measured, target or anchor, ratio) rows of one benchmark's JSON."""
    if "figures" not in figures:  # bench_gsr.py's own layout
        return gsr_rows(figures)
    rows = []
    for name, f in figures["figures"].items():
        if "MB" in f:
            rows.append((name, f"{f['MB']:.1f} MB", f"≤ {f['target_MB']:g} MB", f"{f['ratio']:.2f}×"))
            continue
        rows.append((name, seconds(f["s"]), f"≤ {seconds(f['target_s'])}", f"{f['ratio']:.2f}×"))
        if "anchor" in f:
            rows.append(("  the same, against its anchor", seconds(f["s"]), f["anchor"], f"{f['anchor_ratio']:.1f}×"))
    return rows


def gsr_rows(f: dict) -> list[tuple[str, str, str, str]]:
    size = f"{f['queries']} × {f['depth']} on {f['n_docs']:,} documents"
    naive = f"naive method {f['naive_extrapolated_s']:.1f} s"
    return [
        (f"measure_run, first call, run as ids ({size})", seconds(f["score_s"]), f"≥ {FIRST_CALL_TARGET:g}× the "
         f"{naive}", f"{f['speedup_score']:.0f}× the naive"),
        ("measure_run, warm", seconds(f["score_warm_s"]), naive, f"{f['speedup_score_warm']:.0f}× the naive"),
        ("measure_run, run already placed", seconds(f["score_placed_s"]), naive,
         f"{f['speedup_score_placed']:.0f}× the naive"),
        ("placing the run's ids (RankedRows.place)", seconds(f["place_s"]),
         f"limit: one C hash look-up per id, {seconds(f['limit_place_s'])}",
         f"{f['place_s'] / f['limit_place_s']:.2f}×"),
        ("Eq. 2 and 3 over the placed run", seconds(f["score_placed_s"]),
         f"limit: one multiply-add pass, {seconds(f['limit_eq2_s'])}",
         f"{f['score_placed_s'] / f['limit_eq2_s']:.0f}×"),
    ]  # fmt: skip


def seconds(value: float) -> str:
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("figures", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rows = []
    for path in args.figures:
        rows += rows_of(json.loads(path.read_text(encoding="utf-8")))
    lines = [
        f"Measured {date.today().isoformat()} on {platform.machine()}, Python {platform.python_version()} "
        f"(`benchmarks/table.py` from {', '.join(p.name for p in args.figures)}).",
        "",
        "| figure | measured | target or anchor | ratio |",
        "| --- | --- | --- | --- |",
        *(f"| {' | '.join(row)} |" for row in rows),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
