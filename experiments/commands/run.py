"""`gsr run`: execute an experiment config and write its results; `gsr export`: a built-in collection as files."""

from __future__ import annotations

from pathlib import Path

from experiments.commands.common import CommandError, positive_int
from gsr.infra import logs

log = logs.get("cli")


def cmd_run(args) -> int:
    from experiments.config.experiment import load_config
    from experiments.report import write_report
    from experiments.runner import Experiment
    from gsr.infra.store import clean_stale_staging, unwritable

    config = load_config(args.config)
    if args.out:
        config.output = Path(args.out)
    if args.threads:
        config.threads = args.threads
    if args.no_plots:
        config.plots = False
    problem = unwritable(config.output)
    if problem:  # found now, not after hours of indexing and training
        where = "--out" if args.out else f"{config.path or 'config'}: output"
        raise CommandError(f"{where} {config.output} {problem}")
    for folder in (config.output, config.output / "runs"):  # half-written files of a killed earlier run
        clean_stale_staging(folder)
    result = Experiment(config).run()
    written = write_report(result, config.output)
    # the table write_report just made: building it again would redo every paired test and bootstrap
    print(written["markdown"].read_text(encoding="utf-8"))
    log.info("wrote %d files under %s/ (results.md, results.csv, results.json, per_query.csv, runs/, plots)",
             len(written), config.output)
    return 0


def cmd_export(args) -> int:
    from experiments.collections import export_collection

    paths = export_collection(args.collection, Path(args.out))
    for what, path in paths.items():
        print(f"{what}: {path}")
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("run", help="run an experiment config: runs, MAP/P@10/nDCG@100, GSR table and plots")
    parser.add_argument("config", nargs="?", default="demo",
                        help="TOML config file, or a built-in config: demo (default), robust04, grepbiasir, demo-dense")
    parser.add_argument("--out", help="output folder (default: the config's 'output')")
    parser.add_argument("--threads", type=positive_int, help="threads/processes for indexing, search and statistics")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG scatter plots")
    parser.set_defaults(func=cmd_run)
    export = subparsers.add_parser("export", help="write a built-in collection as JSONL documents, TSV topics, "
                                   "TREC qrels")
    export.add_argument("collection", help="demo, toy1 or toy2")
    export.add_argument("--out", required=True, help="output folder")
    export.set_defaults(func=cmd_export)
