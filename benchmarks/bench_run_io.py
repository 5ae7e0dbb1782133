"""Time of TREC run file handling (gsr.io.runs): write_trec_run, as_written and read_trec_run (plain and .gz) on a
synthetic run of --queries × --depth documents, beside the row-by-row implementations they replaced (`before`:
tests/support/run_reference.py, as they were), best of --repeat.

    .venv/bin/python benchmarks/bench_run_io.py [--queries 250] [--depth 1000] [--repeat 5] [--seed 0]

The run is seeded: document ids drawn from a 500,000-document collection, scores normal with a fifth of them rounded
to one decimal (ties), each list best first with its ties in the order a system leaves them (not trec_eval's), one
query in ten with float32 scores as the dense and neural systems give them. Prints each function's time before and
after (the fastest of --repeat calls, the two made alternately so that both meet the machine's load alike), their
ratio, and whether both give the same bytes and values. Figures go to stdout; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import math
import tempfile
from pathlib import Path

import numpy as np
from common import best_of, load_text, machine, write_json

from gsr.io.runs import as_written, read_trec_run, write_trec_run
from tests.support import run_reference as row_by_row  # the functions these replaced, as they were

# ---------------------------------------------------------------------------------------------- the measurement


def synthetic_run(queries: int, depth: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    run = {}
    for q in range(queries):
        docs = rng.choice(500_000, size=depth, replace=False)
        scores = rng.normal(10.0, 3.0, size=depth)
        tied = rng.random(depth) < 0.2
        scores[tied] = scores[tied].round(1)
        if q % 10 == 9:
            scores = scores.astype(np.float32)
        order = np.argsort(-scores, kind="stable")  # best first; ties in the order the documents were drawn
        run[f"{301 + q}"] = [(f"FBIS{docs[i]}", float(scores[i])) for i in order]
    return run


def shown(run: dict) -> list:
    """A run with each float's repr: equal only where the values are the same floats."""
    return [(q, [(d, repr(s)) for d, s in ranked]) for q, ranked in run.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json")
    args = parser.parse_args()
    run = synthetic_run(args.queries, args.depth, args.seed)
    print(f"{args.queries} queries × {args.depth} documents, best of {args.repeat}; {load_text()}")
    old_value = new_value = None
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        old_file, new_file = Path(folder, "before.run"), Path(folder, "after.run")
        steps = {
            "write_trec_run": (
                lambda: row_by_row.write_trec_run(run, old_file, tag="bench"),
                lambda: write_trec_run(run, new_file, tag="bench"),
                lambda old, new: old_file.read_bytes() == new_file.read_bytes(),
            ),
            "as_written": (
                lambda: row_by_row.as_written(run, new_file),
                lambda: as_written(run, new_file),
                lambda old, new: shown(old) == shown(new) and type(old) is type(new),
            ),
        }
        best_of(1, lambda: write_trec_run(run, new_file, tag="bench"))
        gz_file = Path(folder, "after.run.gz")
        gz_file.write_bytes(gzip.compress(new_file.read_bytes(), compresslevel=6))
        for name, path in (("read_trec_run", new_file), ("read_trec_run .gz", gz_file)):
            steps[name] = (
                lambda path=path: row_by_row.read_trec_run(path),
                lambda path=path: read_trec_run(path),
                lambda old, new: shown(old) == shown(new) and type(old) is type(new),
            )
        print(f"  {'':<20} {'before':>10} {'after':>10} {'ratio':>7}  same output")
        for name, (before, after, same) in steps.items():
            old_s = new_s = math.inf
            for _ in range(args.repeat):  # alternately, so that both see the machine's load alike
                seconds, old_value = best_of(1, before)
                old_s = min(old_s, seconds)
                seconds, new_value = best_of(1, after)
                new_s = min(new_s, seconds)
            identical = same(old_value, new_value)
            print(
                f"  {name:<20} {old_s * 1000:8.0f} ms {new_s * 1000:7.0f} ms {old_s / new_s:6.1f}×  "
                f"{'yes' if identical else 'NO'}"
            )
            figures[name] = {"before_s": old_s, "after_s": new_s, "ratio": old_s / new_s, "identical": identical}
        values = [[float(score) for _, score in ranked] for ranked in run.values()]
        floor_s, _ = best_of(args.repeat, lambda: [list(map(float.__repr__, scores)) for scores in values])
        print(f"  {'repr() of the scores':<20} {floor_s * 1000:19.0f} ms  (alone: what writing a run cannot go below)")
        figures["score repr alone"] = {"s": floor_s}
        print(
            f"  file: {new_file.stat().st_size / 1e6:.1f} MB, .gz {gz_file.stat().st_size / 1e6:.1f} MB; {load_text()}"
        )
    if args.json:
        write_json({"benchmark": "run_io", "machine": machine(), "figures": figures}, args.json)


if __name__ == "__main__":
    main()
