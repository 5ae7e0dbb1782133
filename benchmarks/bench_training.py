"""Benchmark of the embeddings trained on a collection: cost at Robust04's size, and quality on the demo, of the
settings before and after issue 13.

    .venv/bin/python benchmarks/bench_training.py speed [--docs 528155] [--old-docs 52816]   # train, time
    .venv/bin/python benchmarks/bench_training.py quality [--out DIR]                       # the demo twice

`speed` generates a collection (benchmarks/common.py) and times, for word2vec and fastText, the old way (one
tokenising process, gensim scanning the corpus again for each model, gensim's defaults: sample 1e-3, 2 M fastText
buckets) on the first --old-docs documents, extrapolated linearly to --docs (the old way takes about an hour at
full size), and the new way (embeddings.training: one parallel token pass whose counts both models reuse,
TrainingSettings' defaults) on all --docs.

`quality` runs the built-in demo (experiments/demo.toml) three times, each in a cache of its own: with the old
settings, with the old settings and another seed (how much training alone moves the figures), and with the new
ones (or --after KEY=VALUE ...); it compares MAP and GSR of every system retrieving with a trained embedding: a
seeded percentile bootstrap over queries (1,000 resamples) gives each value's 95% CI and the paired change's.
Figures go to stdout, progress to stderr; it measures, it asserts nothing. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
from common import Timer, collection_arguments, load_text, log, machine, vocabulary, write_collection, write_json

# gensim's defaults, which embeddings.training used before issue 13 (it set neither)
OLD_SETTINGS = {"sample": 1e-3, "buckets": 2_000_000}
# the yardstick of a change: the old settings with another seed (multi-threaded training is not reproducible)
RESEEDED = {**OLD_SETTINGS, "seed": 1}
RESAMPLES = 1_000


# ---------------------------------------------------------------------------------------------- speed


def old_training(corpus_path: Path, method: str, settings) -> float:
    """Training as before: gensim builds the vocabulary by scanning the corpus file itself, then trains."""
    from gensim.models import FastText, Word2Vec

    options = dict(
        corpus_file=str(corpus_path),
        vector_size=settings.dim,
        window=settings.window,
        min_count=settings.min_count,
        epochs=settings.epochs,
        sg=1,
        seed=settings.seed,
        workers=max(1, os.cpu_count() or 1),
    )
    started = time.perf_counter()
    (FastText if method == "fasttext" else Word2Vec)(**options)
    return time.perf_counter() - started


def speed(args) -> dict:
    from embeddings.training import METHODS, TrainingSettings, train_embedding, write_token_corpus
    from gsr.vectors import load_embedding

    fig: dict = {"docs": args.docs, "old_docs": args.old_docs}
    work = Path(tempfile.mkdtemp(prefix="gsr-bench-training-", dir=args.tmp_dir))
    try:
        words = vocabulary(load_embedding("glove-6b-50d"), args.vocab)
        documents, sample = work / "documents.jsonl", work / "sample.jsonl"
        with Timer(f"generate {args.docs:,} documents (~{args.words} words)"):
            write_collection(documents, words, args.docs, args.words, np.random.default_rng(args.seed), args.zipf)
        with open(documents, encoding="utf-8") as source, open(sample, "w", encoding="utf-8") as out:
            for _, line in zip(range(args.old_docs), source):
                out.write(line)
        scale = args.docs / args.old_docs
        (work / "old").mkdir()
        (work / "new").mkdir()
        fig["load_before"] = machine()["load"]
        with Timer(f"old: tokenise {args.old_docs:,} documents in one process") as t:
            old_corpus = write_token_corpus(sample, work / "old", n_jobs=1)
        fig["old_tokenise_s"] = t.seconds * scale
        with Timer(f"new: tokenise {args.docs:,} documents, {args.jobs} processes") as t:
            corpus = write_token_corpus(documents, work / "new", n_jobs=args.jobs)
        fig["new_tokenise_s"] = t.seconds
        fig["words"] = corpus.words
        for method in METHODS:
            settings = TrainingSettings(method=method, dim=args.dim, epochs=args.epochs)
            with Timer(f"old: {method} on {args.old_docs:,} documents, gensim's defaults, vocabulary scanned") as t:
                old_training(old_corpus.path, method, settings)
            fig[f"old_{method}_s"] = t.seconds * scale
            with Timer(f"new: {method} on {args.docs:,} documents ({settings})") as t:
                train_embedding(corpus, settings)
            fig[f"new_{method}_s"] = t.seconds
        fig["load_after"] = machine()["load"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    fig["old_total_s"] = fig["old_tokenise_s"] + sum(fig[f"old_{m}_s"] for m in METHODS)
    fig["new_total_s"] = fig["new_tokenise_s"] + sum(fig[f"new_{m}_s"] for m in METHODS)
    print()
    print(
        f"Training on {args.docs:,} generated documents ({fig['words']:,} words with stop words), {args.dim}d, "
        f"{args.epochs} epochs, {os.cpu_count()} CPUs; load average before {fig['load_before'][0]:.2f}, after "
        f"{fig['load_after'][0]:.2f}"
    )
    print(f"  {'step':<26} {'before (extrapolated)':>22} {'after':>10}")
    for step, key in (
        ("tokenising pass", "tokenise"),
        ("word2vec", "word2vec"),
        ("fastText", "fasttext"),
        ("total", "total"),
    ):
        print(f"  {step:<26} {fig[f'old_{key}_s']:20.0f} s {fig[f'new_{key}_s']:8.0f} s")
    print(
        f"  before: measured on {args.old_docs:,} documents, x {scale:.2f}; target (issue 13): both trainings <= 5 min"
    )
    return fig


# ---------------------------------------------------------------------------------------------- quality


def demo_config(label: str, settings: dict, out: Path) -> dict:
    """experiments/demo.toml with every trained embedding's settings updated by `settings`."""
    from embeddings.training import TrainingSettings
    from experiments.config.experiment import BUILTIN_CONFIGS

    raw = tomllib.loads(BUILTIN_CONFIGS["demo"].read_text())
    raw["output"] = str(out / label)
    for table in raw["embeddings"].values():
        if "train" in table:
            table.update({k: v for k, v in settings.items() if k != "buckets" or table["train"] == "fasttext"})
            TrainingSettings(method=table["train"], **{k: v for k, v in table.items() if k != "train"})
    return raw


def run_demo(label: str, settings: dict, out: Path) -> Path:
    """The demo with `settings`, in a cache of its own; the folder holding its per_query.csv."""
    from experiments.config.experiment import parse_config
    from experiments.report import write_report
    from experiments.runner import Experiment

    folder = out / label
    if (folder / "per_query.csv").is_file():
        log(f"demo '{label}': reusing {folder}")
        return folder
    os.environ["GSR_CACHE"] = str(out / f"cache-{label}")
    config = parse_config(demo_config(label, settings, out))
    with Timer(f"demo '{label}' ({load_text()})"):
        write_report(Experiment(config).run(), config.output)
    return folder


def per_query(folder: Path) -> dict[str, dict[str, dict[str, float]]]:
    """system -> qid -> column -> value, from per_query.csv (empty cells are NaN)."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    with open(folder / "per_query.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        system = reader.fieldnames[0]  # "System"
        for row in reader:
            name, qid = row.pop(system), row.pop("qid")
            table.setdefault(name, {})[qid] = {k: float(v) if v not in ("", None) else math.nan for k, v in row.items()}
    return table


def slope(x: np.ndarray, y: np.ndarray) -> float:
    """Eq. 3 over the queries where both values are defined (gsr.equations.gsr_slope); NaN where it is undefined."""
    from gsr.equations import gsr_slope
    from gsr.errors import UndefinedMeasureError

    try:
        return gsr_slope(x, y)
    except UndefinedMeasureError:
        return math.nan


def bootstrap(old: dict, new: dict, statistic, rng: np.random.Generator) -> dict:
    """Value before/after, each one's 95% percentile CI, and the paired change's, over resampled queries."""
    qids = sorted(set(old) & set(new))
    samples = rng.integers(0, len(qids), size=(RESAMPLES, len(qids)))
    a, b = statistic(old, qids), statistic(new, qids)
    draws = np.array([(statistic(old, qids, s), statistic(new, qids, s)) for s in samples])
    low, high = np.nanpercentile(draws, [2.5, 97.5], axis=0)
    change = np.nanpercentile(draws[:, 1] - draws[:, 0], [2.5, 97.5])
    return {
        "old": a,
        "new": b,
        "old_ci": [low[0], high[0]],
        "new_ci": [low[1], high[1]],
        "change": b - a,
        "change_ci": list(change),
        "half_width": (high[0] - low[0]) / 2,
    }


def mean_of(column: str):
    def statistic(values: dict, qids: list[str], sample=None) -> float:
        picked = [qids[i] for i in sample] if sample is not None else qids
        return float(np.nanmean([values[q][column] for q in picked]))

    return statistic


def gsr_of(embedding: str):
    def statistic(values: dict, qids: list[str], sample=None) -> float:
        picked = [qids[i] for i in sample] if sample is not None else qids
        return slope(
            np.array([values[q][f"g(q) ({embedding})"] for q in picked]),
            np.array([values[q][f"g_q(L) ({embedding})"] for q in picked]),
        )

    return statistic


def parse_overrides(pairs: list[str]) -> dict:
    """KEY=VALUE training settings (numbers as numbers) for the `after` run."""
    overrides = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        overrides[key] = float(value) if any(c in value for c in ".e") else int(value)
    return overrides


def quality(args) -> dict:
    from experiments.config.experiment import BUILTIN_CONFIGS

    out = Path(args.out or tempfile.mkdtemp(prefix="gsr-bench-training-demo-"))
    after = parse_overrides(args.after)
    after_label = "after" + "".join(f"-{k}={v}" for k, v in after.items())
    tables = {
        label: per_query(run_demo(label, settings, out))
        for label, settings in (("before", OLD_SETTINGS), ("before-seed-1", RESEEDED), (after_label, after))
    }
    demo = tomllib.loads(BUILTIN_CONFIGS["demo"].read_text())
    trained = {name for name, table in demo["embeddings"].items() if "train" in table}
    regular = {s["name"] for s in demo["systems"] if s.get("embedding") in trained}
    before = tables["before"]
    systems = [s for s in before if any(s == r or s.startswith(f"{r} (") for r in regular)]
    rng = np.random.default_rng(args.seed)
    fig: dict = {"out": str(out), "after": after, "systems": {}}
    print()
    print(
        f"The demo before (gensim's defaults: {OLD_SETTINGS}) and after (TrainingSettings' defaults"
        + (f" with {after}" if after else "")
        + "), every system retrieving with a trained embedding. "
        f"95% percentile bootstrap CIs over queries ({RESAMPLES:,} resamples, seed {args.seed}); 'seed 1' is the "
        "old settings trained again with another seed (the noise of training itself); a change is flagged when "
        "it exceeds the old value's CI half-width."
    )
    print(
        f"  {'system':<26} {'measure':<12} {'before [95% CI]':>26} {'seed 1':>8} {'after':>8} {'change [95% CI]':>28}"
    )
    for system in systems:
        rows = {"MAP": mean_of("MAP"), **{f"GSR ({m})": gsr_of(m) for m in demo["gsr"]["measuring"]}}
        fig["systems"][system] = {}
        for label, statistic in rows.items():
            r = bootstrap(before[system], tables[after_label][system], statistic, rng)
            r["reseeded"] = bootstrap(before[system], tables["before-seed-1"][system], statistic, rng)["new"]
            fig["systems"][system][label] = r
            flag = "  <-- beyond the CI" if abs(r["change"]) > r["half_width"] else ""
            print(
                f"  {system:<26} {label:<12} {r['old']:+.4f} [{r['old_ci'][0]:+.4f}, {r['old_ci'][1]:+.4f}] "
                f"{r['reseeded']:+8.4f} {r['new']:+8.4f} {r['change']:+.4f} [{r['change_ci'][0]:+.4f}, "
                f"{r['change_ci'][1]:+.4f}]{flag}"
            )
    flagged = [
        (s, m) for s, rows in fig["systems"].items() for m, r in rows.items() if abs(r["change"]) > r["half_width"]
    ]
    print(
        f"  {len(flagged)} of {sum(len(r) for r in fig['systems'].values())} values moved beyond their CI"
        + (f": {', '.join(f'{s} {m}' for s, m in flagged)}" if flagged else "")
    )
    return fig


# ---------------------------------------------------------------------------------------------- main


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("speed", "quality"))
    collection_arguments(parser, docs=528_155)
    parser.add_argument("--old-docs", type=int, default=52_816, help="speed: documents the old way is timed on")
    parser.add_argument("--dim", type=int, default=100, help="speed: dimensions (100, as the demo)")
    parser.add_argument("--epochs", type=int, default=5, help="speed: epochs (5, as the demo)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="speed: tokenising processes")
    parser.add_argument("--tmp-dir", help="speed: folder for the generated collection (system temp)")
    parser.add_argument("--out", help="quality: folder for the demo runs (each reused when it is there)")
    parser.add_argument(
        "--after",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="quality: settings of the 'after' run besides the defaults (e.g. sample=0.0001)",
    )
    args = parser.parse_args(argv)
    log(load_text())
    fig = {"args": vars(args), **machine(), **(speed(args) if args.what == "speed" else quality(args))}
    if args.json:
        write_json(fig, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
