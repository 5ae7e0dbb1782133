"""End-to-end benchmark: the paper's setup (experiments/robust04.toml's systems, every registered system type,
both debiasing variants, two measuring embeddings, every analysis) run by `gsr run`'s Experiment on a generated
collection of Robust04's size, once with pretrained-format embedding files and once with embeddings trained on
the collection, each from an empty cache.

    GSR_CACHE=unused .venv/bin/python benchmarks/bench_pipeline.py                     # both pipelines, defaults
    .venv/bin/python benchmarks/bench_pipeline.py --docs 20000 --embedding-words 200000   # quick check
    .venv/bin/python benchmarks/bench_pipeline.py --pipelines pretrained --json /tmp/pipeline.json

Prints every stage's time, what dominates, and the peak memory of the whole process tree (the harness, its Lucene
worker, its pool workers) to stdout; progress to stderr. Each pipeline runs in a fresh process with its own cache.
It measures, it asserts nothing. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from common import (
    PROJECT_ROOT,
    Timer,
    collection_arguments,
    descendants,
    dir_bytes,
    generate_queries,
    gib,
    load_text,
    log,
    machine,
    mib,
    planted_judgments,
    status_kib,
    vocabulary,
    write_collection,
    write_json,
    write_topics_and_qrels,
    write_word2vec_binary,
)

PIPELINES = ("pretrained", "trained")
# the paper's embeddings: GoogleNews word2vec (3,000,000 × 300) and fastText crawl vectors (2,000,000 × 300)
PRETRAINED_ROWS = {"w2v": 1.0, "ftt": 2 / 3}  # rows of each file as a share of --embedding-words
TRAINED = {"w2v": "word2vec", "ftt": "fasttext"}
# stages of the table: a step of Experiment.timings goes to the first stage whose prefix it starts with
STAGES = (
    ("collection", "collection: canonical JSONL, hash"),
    ("Lucene index", "Lucene index"),
    ("document statistics", "document statistics"),
    ("embedding", "embeddings: load / convert / train / debias"),
    ("run", "runs (retrieval and re-ranking)"),
    ("effectiveness", "effectiveness (ir_measures)"),
    ("GSR", "GSR (every system, perfect, random)"),
    ("analyses", "analyses (Figs. 10-12)"),
    ("report", "report: tables and figures"),
)


# ---------------------------------------------------------------------------------------------- the config


def systems_of_the_paper(embedding: str, dense: bool = False) -> list[dict]:
    """experiments/robust04.toml's [[systems]], then one system for every registered type it lacks that runs on its
    defaults (a re-ranker re-ranks the first BM25 system with `embedding`), so the benchmark follows the registry,
    not a list of its own. Types that need a setting to run at all (a run file's path, a label-based re-ranker's
    method) are not the paper's and are left out, and so are today's dense rankers unless `dense` (robust04.toml
    has them commented out: encoding Robust04's size takes hours on a CPU)."""
    from experiments.config.experiment import BUILTIN_CONFIGS
    from experiments.registry import SYSTEMS

    systems = [dict(s) for s in tomllib.loads(BUILTIN_CONFIGS["robust04"].read_text())["systems"]]
    present = {s["model"] for s in systems}
    for system_type in SYSTEMS:
        needs_settings = system_type.params_of is not None or any(
            p.required or p.default is None for p in system_type.params
        )
        if system_type.extra == "dense" and not dense:
            continue
        if system_type.name not in present and not needs_settings:
            name = system_type.name if system_type.name not in {s["name"] for s in systems} else f"{system_type.name}_"
            added = {"name": name, "model": system_type.name}
            if system_type.needs_embedding:
                added["embedding"] = embedding
            systems.append(added)
    return systems


def pipeline_config(kind: str, data: dict, out: Path, threads: int, dim: int, dense: bool = False) -> dict:
    """The raw config (as TOML would give it) of one pipeline."""
    from experiments.config.experiment import BUILTIN_CONFIGS
    from experiments.config.systems import DEBIAS_VARIANTS

    paper = tomllib.loads(BUILTIN_CONFIGS["robust04"].read_text())
    if kind == "pretrained":
        embeddings = {name: {"source": data[f"{name}_file"]} for name in PRETRAINED_ROWS}
    else:
        embeddings = {name: {"train": method, "dim": dim} for name, method in TRAINED.items()}
    names = list(embeddings)
    return {
        "name": f"bench-{kind}",
        "output": str(out),
        "depth": paper.get("depth", 1000),
        "threads": threads,
        "collection": {
            "kind": "files",
            "documents": data["documents"],
            "topics": data["topics"],
            "qrels": data["qrels"],
        },
        "embeddings": embeddings,
        "systems": systems_of_the_paper(names[0], dense),
        "debias": {"variants": list(DEBIAS_VARIANTS)},  # every registered variant
        "evaluation": paper.get("evaluation", {}),
        "gsr": {**paper.get("gsr", {}), "measuring": names},
    }


# ---------------------------------------------------------------------------------------------- setup


def generate(args, folder: Path) -> dict:
    """The collection (JSONL), topics (TSV), qrels (TREC) and the pretrained-format embedding files."""
    from gsr import default_analyzer
    from gsr.vectors import load_embedding

    rng = np.random.default_rng(args.seed)
    kv = load_embedding("glove-6b-50d")
    words = vocabulary(kv, args.vocab)
    analyzer = default_analyzer()
    queries = generate_queries(words, args.queries, rng, analyzer)
    qrels, planted = planted_judgments(queries, args.docs, rng, analyzer)
    from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS

    definitional = [w for pair in DEFAULT_DEFINITIONAL_PAIRS for w in pair]
    for number in rng.choice(args.docs, size=min(args.docs, 20), replace=False).tolist():
        planted.setdefault(number, []).extend(definitional)  # trained embeddings need them for Eq. 1
    topics, judgments = write_topics_and_qrels(folder, queries, qrels)
    documents = folder / "documents.jsonl"
    with Timer(f"generate {args.docs:,} documents (~{args.words} words), {args.queries} topics and qrels"):
        write_collection(documents, words, args.docs, args.words, rng, args.zipf, planted=planted)
    data = {
        "documents": str(documents),
        "topics": str(topics),
        "qrels": str(judgments),
        "relevant_per_topic": [sum(g > 0 for g in judged.values()) for judged in qrels.values()],
    }
    if "pretrained" in args.pipelines:
        # every collection word has a vector, as in the real files; the rest are fillers
        known = list(dict.fromkeys(words + definitional))
        for seed, (name, share) in enumerate(PRETRAINED_ROWS.items()):
            path = folder / f"{name}.bin"
            rows = max(len(known), int(args.embedding_words * share))
            with Timer(f"write {name}: {rows:,} x {args.embedding_dim} word2vec binary file"):
                data[f"{name}_bytes"] = write_word2vec_binary(path, rows, args.embedding_dim, seed, words=known)
            data[f"{name}_file"], data[f"{name}_rows"] = str(path), rows
    return data


# ---------------------------------------------------------------------------------------------- one pipeline


def run_pipeline(config_path: str) -> int:
    """In a fresh process: run the experiment of a config written by the parent, print its figures as JSON."""
    from experiments.config.experiment import parse_config
    from experiments.report import write_report
    from experiments.runner import Experiment
    from gsr.infra import logs

    logs.configure(logs.NORMAL)  # what `gsr run` shows on stderr: every step, and progress lines (a pipe: no bars)

    class TimedExperiment(Experiment):
        """Experiment whose steps are also timed without the steps run inside them (a run that first builds the
        index or loads its embedding), so that the stages add up to the total."""

        exclusive: dict[str, float] = {}
        inner: list[float] = []
        spans: list[tuple[str, float, float]] = []  # (step, start, end) in wall-clock time, for memory peaks

        @contextmanager
        def step(self, name: str):
            started, wall = time.perf_counter(), time.time()
            self.inner.append(0.0)
            try:
                with super().step(name):
                    yield
            finally:
                elapsed, nested = time.perf_counter() - started, self.inner.pop()
                self.exclusive[name] = self.exclusive.get(name, 0.0) + elapsed - nested
                self.spans.append((name, wall, time.time()))
                if self.inner:
                    self.inner[-1] += elapsed

    raw = json.loads(Path(config_path).read_text())
    started = time.perf_counter()
    config = parse_config(raw, Path(config_path))
    result = TimedExperiment(config).run()
    report_started, wall = time.perf_counter(), time.time()
    write_report(result, config.output)
    timings = dict(TimedExperiment.exclusive)
    timings["report"] = time.perf_counter() - report_started
    TimedExperiment.spans.append(("report", wall, time.time()))
    figures = {
        "timings": timings,
        "spans": TimedExperiment.spans,
        "total_s": time.perf_counter() - started,
        "systems": [s.name for s in config.systems],
        "reused": result.reused,
        "gsr": {m: {s: r.gsr for s, r in per.items()} for m, per in result.system_gsr.items()},
        "map": {s: e.mean("AP") for s, e in result.effectiveness.items()},
        "analyses": sorted(result.analyses),
        "analysis_errors": result.analysis_errors,
    }
    print("PIPELINE-FIGURES " + json.dumps(figures, default=str), flush=True)
    return 0


class TreeMemory:
    """Peak memory of a process and its descendants, sampled every `interval` s: the sum of their RSS (and of its
    anonymous and file-backed parts) at one moment, and each process's own peak."""

    def __init__(self, pid: int, interval: float = 0.25):
        self.pid, self.interval = pid, interval
        self.peak = {"VmRSS": 0, "RssAnon": 0, "RssFile": 0}
        self.peak_time = {field: 0.0 for field in self.peak}
        self.own_peaks: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            pids = [self.pid, *descendants(self.pid)]
            for field in self.peak:
                total = sum(status_kib(field, p) or 0 for p in pids)
                if total > self.peak[field]:
                    self.peak[field], self.peak_time[field] = total, time.time()
            for p in pids:
                self.own_peaks[p] = max(self.own_peaks.get(p, 0), status_kib("VmHWM", p) or 0)

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        return {
            "tree_peak_kib": self.peak["VmRSS"],
            "tree_peak_anon_kib": self.peak["RssAnon"],
            "tree_peak_time": self.peak_time["VmRSS"],
            "tree_peak_anon_time": self.peak_time["RssAnon"],
            "tree_peak_file_kib": self.peak["RssFile"],
            "largest_process_peak_kib": max(self.own_peaks.values(), default=0),
        }


def measure_pipeline(kind: str, data: dict, args, work: Path) -> dict:
    """Runs one pipeline in a child process with an empty cache; its figures, wall time and memory peaks."""
    cache, out = work / f"cache-{kind}", work / f"out-{kind}"
    config_path = work / f"{kind}.json"
    config = pipeline_config(kind, data, out, args.threads, args.trained_dim, args.dense)
    config_path.write_text(json.dumps(config, indent=1))
    env = dict(os.environ, GSR_CACHE=str(cache))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
    log(f"pipeline '{kind}' ({load_text()}); its progress follows")
    load_before = machine()["load"]
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--pipeline-child", str(config_path)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    memory = TreeMemory(child.pid)
    figures = None
    for line in child.stdout:
        if line.startswith("PIPELINE-FIGURES "):
            figures = json.loads(line[len("PIPELINE-FIGURES ") :])
    returncode = child.wait()
    wall = time.perf_counter() - started
    peaks = memory.stop()
    if returncode != 0 or figures is None:
        raise RuntimeError(f"pipeline '{kind}' failed (exit status {returncode}); see its output above")
    figures.update(
        peaks, wall_s=wall, load_before=load_before, load_after=machine()["load"], cache_bytes=dir_bytes(cache)
    )
    log(f"pipeline '{kind}': {wall:.0f} s, peak RSS of the process tree {mib(peaks['tree_peak_kib'])}")
    if not args.keep:
        shutil.rmtree(cache, ignore_errors=True)
    return figures


# ---------------------------------------------------------------------------------------------- report


def step_at(spans: list, moment: float) -> str:
    """The innermost step running at `moment` (the shortest span holding it)."""
    holding = [(end - start, name) for name, start, end in spans if start <= moment <= end]
    return min(holding)[1] if holding else "between steps"


def stage_of(step: str) -> str:
    for prefix, _ in STAGES:
        if step.startswith(prefix):
            return prefix
    return "other"


def report(fig: dict, args) -> None:
    print()
    print(
        f"gsr-bench pipeline benchmark: {fig['n_docs']:,} generated documents (~{args.words} words), "
        f"{args.queries} topics ({np.median(fig['relevant_per_topic']):.0f} relevant per topic in the median, "
        f"{np.mean(fig['relevant_per_topic']):.0f} in the mean), depth {fig['depth']}, threads={args.threads}, "
        f"{fig['cpus']} CPUs, Python {fig['python']}"
    )
    if "w2v_rows" in fig:
        print(
            f"pretrained files: w2v {fig['w2v_rows']:,} x {args.embedding_dim} ({gib(fig['w2v_bytes'])}), "
            f"ftt {fig['ftt_rows']:,} x {args.embedding_dim} ({gib(fig['ftt_bytes'])}); trained: "
            f"{args.trained_dim}d; setup (not measured) {fig['setup_s']:.0f} s"
        )
    for kind in args.pipelines:
        f = fig[kind]
        total = f["wall_s"]
        print()
        print(f"{kind} embeddings: {len(f['systems'])} systems ({', '.join(f['systems'])})")
        print(f"  load average before {f['load_before'][0]:.2f}, after {f['load_after'][0]:.2f}")
        stages: dict[str, float] = {}
        for step, seconds in f["timings"].items():
            stages[stage_of(step)] = stages.get(stage_of(step), 0.0) + seconds
        stages["other"] = stages.get("other", 0.0) + max(0.0, total - sum(stages.values()))
        print(f"  {'stage':<46} {'seconds':>8} {'share':>6}")
        for prefix, label in (*STAGES, ("other", "other (imports, config, process start)")):
            if prefix in stages:
                print(f"  {label:<46} {stages[prefix]:8.1f} {stages[prefix] / total:6.1%}")
        print(f"  {'total (wall)':<46} {total:8.1f}   ({total / 60:.1f} min)")
        print(
            "  slowest steps: "
            + ", ".join(
                f"{step} {seconds:.0f} s" for step, seconds in sorted(f["timings"].items(), key=lambda x: -x[1])[:8]
            )
        )
        print(
            f"  peak RSS of the process tree {mib(f['tree_peak_kib'])} "
            f"(during {step_at(f['spans'], f['tree_peak_time'])})"
            f"; its anonymous part's peak {mib(f['tree_peak_anon_kib'])} (during "
            f"{step_at(f['spans'], f['tree_peak_anon_time'])}), file-backed peak {mib(f['tree_peak_file_kib'])}"
        )
        print(f"  largest single process {mib(f['largest_process_peak_kib'])}; cache written {gib(f['cache_bytes'])}")
        if f["analysis_errors"]:
            print(f"  analyses not computed: {f['analysis_errors']}")
    print()
    print(
        "Every step of gsr run is listed under its stage by the name it reports (Experiment.timings). Peak RSS is "
        "sampled every 0.25 s over the whole process tree; file-backed RSS is memory-mapped embedding and cache "
        "pages (page cache, reclaimable). Targets (issue 13): pretrained pipeline <= 15 min, peak RSS < 8 GiB."
    )


# ---------------------------------------------------------------------------------------------- main


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--pipeline-child"]:
        return run_pipeline(argv[1])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    collection_arguments(parser, docs=528_155)
    parser.add_argument(
        "--embedding-words",
        type=int,
        default=3_000_000,
        help="rows of the w2v file (3,000,000; the ftt file has two thirds of them)",
    )
    parser.add_argument("--embedding-dim", type=int, default=300, help="dimensions of the pretrained files (300)")
    parser.add_argument("--trained-dim", type=int, default=100, help="dimensions of the trained embeddings (100)")
    parser.add_argument("--pipelines", nargs="+", choices=PIPELINES, default=list(PIPELINES))
    parser.add_argument("--threads", type=int, default=2, help="the config's threads (2)")
    parser.add_argument(
        "--dense",
        action="store_true",
        help="also today's dense rankers (MiniLM and its variants): hours of encoding on a CPU at Robust04's size",
    )
    parser.add_argument("--tmp-dir", help="folder for the data, caches and outputs (system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data and caches")
    args = parser.parse_args(argv)

    fig: dict = {"args": vars(args), **machine(), "n_docs": args.docs}
    work = Path(tempfile.mkdtemp(prefix="gsr-bench-pipeline-", dir=args.tmp_dir))
    log(f"working in {work}; {load_text()}")
    try:
        with Timer("setup: generate the collection, topics, qrels and embedding files") as t:
            data = generate(args, work)
        fig.update(data, setup_s=t.seconds)
        fig["depth"] = pipeline_config("trained", data, work, args.threads, args.trained_dim)["depth"]
        for kind in args.pipelines:
            fig[kind] = measure_pipeline(kind, data, args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(fig, args)
    if args.json:
        write_json(fig, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
