"""`gsr run`: execute an experiment config and write its results; `gsr export`: a built-in collection as files."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from experiments.config.params import THREADS
from gsr.infra import logs
from gsr.infra.params import argparse_type

log = logs.get("cli")


def cmd_run(args) -> int:
    from experiments.config.experiment import check_output_names, load_config
    from experiments.report.output import writer_lock
    from experiments.report.provenance import check_inputs_exist, input_paths
    from gsr.infra.extras import install_command, installed
    from gsr.infra.outputs import Target, check_output_targets

    config = load_config(args.config)
    check_inputs_exist(config)
    if args.out:
        config.output = Path(args.out).expanduser()
        check_output_names(config)  # the names of the files it will hold fit the file system of --out's folder too
    if args.threads:
        config.threads = args.threads
    if args.no_plots:
        config.plots = False
    if config.plots and not installed("plots"):  # report.html has the charts; the PNGs need matplotlib
        log.warning("no PNG figures: they need the 'plots' extra (%s)", install_command(["plots"]))
        config.plots = False
    where = "--out" if args.out else f"{config.path or 'config'}: output"
    # found now, not after hours of indexing and training (and again by OutputFolder.check once the folder is held)
    target = Target(where, config.output, folder=True, holds_no_inputs=True)
    check_output_targets([target], input_paths(config), args.overwrite)
    identity = {"name": config.name, "config": str(config.path.resolve()) if config.path else None}
    if args.dry_run:
        return _plan(args, config, identity, where)
    with writer_lock(config.output, where):  # one run writes a folder at a time: no run prints another's numbers
        return _run_into(args, config, identity, where)


def _run_into(args, config, identity: dict, where: str) -> int:
    from experiments.parts import COUNTS
    from experiments.report.output import OutputFolder
    from experiments.report.png_kit import figures_ahead
    from experiments.report.provenance import Provenance, environment, input_paths
    from experiments.report.writer import draw_ahead, write_report
    from experiments.runner import Experiment
    from gsr.infra.store import clean_stale_staging, recomputing

    output = OutputFolder.check(config.output, identity, input_paths(config), args.overwrite, option=where)
    for folder in (config.output, config.output / "runs"):  # half-written files of a killed earlier run
        clean_stale_staging(folder)
    # what the experiment starts from, checked again before writing (the environment once there is work to do)
    provenance = Provenance.record(config, with_environment=False)
    fingerprint = provenance.fingerprint()
    if not args.force and output.up_to_date(fingerprint):
        print((config.output / "results.md").read_text(encoding="utf-8"))
        log.info(
            "%s/ is up to date: config, inputs, code and libraries are those its files were computed from, and "
            "every file is as written (digests checked); nothing recomputed (--force recomputes)",
            config.output,
        )
        return 0
    provenance.environment = environment()
    # --force: no cache entry written before now is reused (gsr.infra.store.recomputing), from the collection's
    # conversion to the report's figures
    COUNTS.reset()
    # the figures are drawn ahead, on the second core, as soon as their data exist (png_kit.figures_ahead)
    ahead = figures_ahead(config.threads) if config.plots and config.threads > 1 else contextlib.nullcontext()
    with recomputing() if args.force else contextlib.nullcontext(), ahead:
        experiment = Experiment(config)
        experiment.measured = draw_ahead
        result = experiment.run()
        provenance.check_unchanged()
        staging = output.staging()
        try:
            written = output.commit(staging, write_report(result, staging, provenance, experiment), fingerprint)
        finally:  # a failed write (a full disk) leaves nothing half-written behind
            shutil.rmtree(staging, ignore_errors=True)
    log.info("parts computed (the rest reused from the cache): %s", COUNTS.summary())
    # the table write_report just made: building it again would redo every paired test and bootstrap
    print(written["markdown"].read_text(encoding="utf-8"))
    log.info(
        "wrote %d files under %s/ (report.html, results.md, results.csv, results.json, per_query.csv, runs/, plots)",
        len(written),
        config.output,
    )
    return 0


def _plan(args, config, identity: dict, where: str) -> int:
    """--dry-run: what a run would compute, each step's estimated time and what it would reuse, on stdout, and
    whether another run holds the output folder now. The cache is only looked at (gsr.infra.store.cache_read_only):
    what the keys need (the collection's content, the inputs' digests) is made in a temporary folder, and nothing
    there is cleaned."""
    from experiments.estimates import HOURS, duration, slowdown
    from experiments.plan import dry_run, report_seconds
    from experiments.report.output import OutputFolder
    from experiments.report.provenance import Provenance, input_paths
    from experiments.runner import Experiment
    from gsr.infra.store import cache_read_only, recomputing

    with cache_read_only():
        output = OutputFolder.check(config.output, identity, input_paths(config), args.overwrite, option=where)
        holder = _holder(config.output, where)
        if holder:
            print(f"note: {holder}")
        if not args.force and output.up_to_date(Provenance.record(config, with_environment=False).fingerprint()):
            print(f"{config.output}/ is up to date: `gsr run` would compute nothing and print its results")
            return 0
        experiment = Experiment(config)
        with recomputing() if args.force else contextlib.nullcontext():  # --force: every cached step is computed
            experiment.preflight(dry_run=True)
            steps = dry_run(experiment)
            report = report_seconds(experiment, steps)
    computed = [step for step in steps if not step.reused]
    reused = len(steps) - len(computed)
    total = sum(step.seconds or 0.0 for step in computed) + report
    unknown = sum(1 for step in computed if step.seconds is None)
    unestimated = f" and {unknown} step{'s' * (unknown != 1)} without a measured rate" if unknown else ""
    print(
        f"{config.name}: {len(computed)} of {len(steps)} cached steps to compute, {reused} reused; "
        f"{duration(total)} on this machine{unestimated}"
    )
    for step in steps:
        estimate = "" if step.reused else f"  {'no estimate' if step.seconds is None else duration(step.seconds)}"
        print(f"  {'reuse  ' if step.reused else 'compute'}  {step.what}{estimate}  {step.entry}")
        if step.advice and (step.seconds or 0.0) >= HOURS:
            print(f"           ! {duration(step.seconds or 0.0)} here: {step.advice}")
    print(f"then effectiveness, GSR, the analyses and the report ({duration(report)}), written to {config.output}/")
    print(
        f"(estimates: the rates measured on the project's 2-core machine, docs/benchmarks.md, times "
        f"{slowdown(experiment):.2f} for how fast this machine runs a fixed loop now)"
    )
    return 0


def _holder(output: Path, where: str) -> str | None:
    """Why `gsr run` could not write `output` now (another run holds it), asked of the lock a run takes
    (experiments.report.output.writer_lock); None when it is free. A folder that does not exist is free."""
    from experiments.report.output import writer_lock
    from gsr.errors import InputError

    if not output.is_dir():
        return None
    try:
        with writer_lock(output, where):
            return None
    except InputError as held:
        return str(held)


def cmd_export(args) -> int:
    from experiments.collections import export_collection

    paths = export_collection(args.collection, Path(args.out).expanduser(), args.overwrite)
    for what, path in paths.items():
        print(f"{what}: {path}")
    return 0


def configure_run(parser) -> None:
    """The options of `gsr run`."""
    parser.add_argument(
        "config",
        nargs="?",
        default="demo",
        help="TOML config file, or a built-in config: demo (default), robust04, grepbiasir, demo-dense",
    )
    parser.add_argument("--out", help="output folder (default: the config's 'output')")
    parser.add_argument(
        "--threads", type=argparse_type(THREADS), help="threads/processes for indexing, search and statistics"
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG scatter plots")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="write into an output folder that holds files this experiment did not write (another "
        "experiment's results are replaced; an input of this experiment is never overwritten)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="recompute everything, reusing no cache entry: the collection's conversion, the index, trained and "
        "debiased embeddings, every run, measure, analysis and figure (each entry is replaced by the one computed "
        "now). Without it a run reuses every cached step whose inputs and code are unchanged, and a rerun with the "
        "same config, inputs, code and libraries prints the results it finds (digests checked)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="list what the run would compute and what it would reuse from the cache (document statistics, trained "
        "and debiased embeddings, each system's run), each step to compute with its estimated time on this machine "
        "(a step that would take hours says what to do instead), then stop: a batch scheduler can split a grid of "
        "configs by it",
    )
    parser.set_defaults(func=cmd_run)


def configure_export(export) -> None:
    """The options of `gsr export`."""
    export.add_argument("collection", help="demo, toy1, toy2 or grepbiasir (with BM25 and MiniLM runs)")
    export.add_argument("--out", required=True, help="output folder (its files new, unless --overwrite)")
    export.add_argument(
        "--overwrite", action="store_true", help="replace the collection's files where they exist in --out"
    )
    export.set_defaults(func=cmd_export)
