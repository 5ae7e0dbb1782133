"""Time of the uncertainty of one GSR: the bootstrap fit with its percentile interval and the paired randomisation
test of two systems, over 250 queries with 1,000 resamples each (the configs' defaults), best of --repeat.

    .venv/bin/python benchmarks/bench_statistics.py [--queries 250] [--resamples 1000] [--repeat 5]

Prints each step's time and the total's ratio to the 1 s budget a `gsr score` call can spend on it (under 1: within).
Figures go to stdout; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import best_of, write_json

from gsr.uncertainty import bootstrap_fit, paired_gsr_test, percentile_interval

BUDGET_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x, y_a, y_b = (rng.normal(size=args.queries) for _ in range(3))
    ids = [str(i) for i in range(args.queries)]
    fit = bootstrap_fit(ids, x, y_a, resamples=args.resamples)
    steps = {
        "bootstrap fit": lambda: bootstrap_fit(ids, x, y_a, resamples=args.resamples),
        "percentile interval": lambda: percentile_interval(fit.slopes),
        "paired randomisation test": lambda: paired_gsr_test(x, y_a, y_b, resamples=args.resamples),
    }
    total = 0.0
    print(f"{args.queries} queries, {args.resamples} resamples, best of {args.repeat}")
    for name, step in steps.items():
        seconds, _ = best_of(args.repeat, step)
        total += seconds
        print(f"  {name:<28} {seconds * 1000:8.1f} ms")
    print(f"  {'total':<28} {total * 1000:8.1f} ms  ({total / BUDGET_S:.3f} × the {BUDGET_S:g} s budget)")
    if args.json:
        figure = {"s": total, "target_s": BUDGET_S, "ratio": total / BUDGET_S}
        name = f"bootstrap fit + interval + paired test, {args.queries} queries × {args.resamples} resamples"
        write_json({"benchmark": "statistics", "figures": {name: figure}}, args.json)


if __name__ == "__main__":
    main()
