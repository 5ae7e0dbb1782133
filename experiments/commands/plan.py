"""`gsr plan`: plan a study from a pilot (gsr.plan, docs/planning.md) — the half-width of GSR's interval for n
topics, the differences between two runs n topics can detect (in GSR, in effectiveness measures, in RaB/ARaB), and
which topics of a pool to study.

The pilot is one or more TREC runs with their topics and documents (qrels optional: they give the §4.2.2 cut-off
and the effectiveness measures), measured here as `gsr score` measures them, or the output folder of a finished
`gsr run`, whose per_query.csv holds every system's g(q), g_q(L) and measures per topic. Every option is checked,
the --json target and the pool too, before the pilot is measured; `gsr plan` writes nothing but --json.

Exit status: 0; 2 on bad input."""

from __future__ import annotations

import argparse
import csv
import math
import re
from pathlib import Path

from gsr.cli.options import CommandError, add_lexicon_options, add_list_options, analyzer_of, lexicon_of, positive_int
from gsr.infra import logs
from gsr.infra.params import ParamError, argparse_type
from gsr.planning.options import (
    ALPHA,
    DEFAULT_TOPICS,
    DIFFERENCE,
    NEUTRAL_SHARE,
    POWER,
    SELECT,
    STRATA,
    STUDIES,
    TARGET_WIDTH,
    TOPICS,
)
from gsr.settings import LEVEL, SEED

log = logs.get("cli")
PER_QUERY_FILE = "per_query.csv"  # what a `gsr run` output folder holds per topic (experiments.report.writer)
GSR_COLUMN = re.compile(r"g\(q\) \((?P<label>.+)\)")
LABEL_MEASURE = re.compile(r"(?P<name>A?RaB)@(?P<k>[1-9][0-9]*)")  # Rekabsaz & Schedl's, computed from --docs
REFERENCE_ENGINES = ("perfect", "random")
GSR_NAME = "GSR"


def difference_entry(text: str) -> tuple[str, float]:
    """One --difference entry: 'D' (a GSR difference) or 'MEASURE=D'."""
    name, _, value = text.rpartition("=")
    name = name.strip() or GSR_NAME
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"give a difference as a number (GSR's) or MEASURE=NUMBER (e.g. nDCG@10=0.02), not {text!r}"
        ) from None
    try:
        return name, DIFFERENCE.check(number)
    except ParamError as err:
        raise argparse.ArgumentTypeError(f"{name}: {err}") from None


def json_target(text: str) -> Path:
    """--json's file: a path in an existing folder (whether it may exist already is --overwrite's to say)."""
    from gsr.cli.score import html_file

    return html_file(text)


def check_options(args) -> None:
    """Every combination of options, before any file is read."""
    if (args.pilot is None) == (args.run is None):
        raise CommandError("give the pilot as --run RUN... with --topics and --docs, or as --pilot DIR (not both)")
    if args.run is not None and (args.topics is None or args.docs is None):
        raise CommandError("--run needs --topics and --docs: the pilot's runs are measured on them")
    if args.pilot is not None:
        ignored = [f"--{o}" for o in ("topics", "docs", "qrels") if getattr(args, o) is not None]
        if ignored:
            raise CommandError(f"--pilot DIR reads the measured topics from the folder: drop {', '.join(ignored)}")
    if args.select is not None and args.pool is None:
        raise CommandError("--select chooses topics from a pool: give --pool TOPICS")
    if args.pool is not None and args.select is None:
        raise CommandError("--pool needs --select N: how many of its topics to choose")
    if args.pool is None and (args.neutral_share or args.strata is not None):
        raise CommandError("--neutral-share and --strata shape the topics chosen from --pool: give --pool and --select")
    measures = args.measures or []
    if args.run is not None:
        effectiveness = [m for m in measures if not LABEL_MEASURE.fullmatch(m)]
        if effectiveness and args.qrels is None:
            raise CommandError(
                f"--measures {','.join(effectiveness)} needs --qrels: effectiveness is measured against judgments"
            )
        from gsr.cli.score import check_measures

        check_measures(effectiveness)
    for name, _ in args.difference or []:
        if name != GSR_NAME and name not in measures:
            raise CommandError(
                f"--difference {name}=…: {name} is not one of --measures ({', '.join(measures) or 'none'})"
            )
    if len({name for name, _ in args.difference or []}) < len(args.difference or []):
        raise CommandError("--difference names a measure (or GSR) twice")
    check_json_target(args)


def check_json_target(args) -> None:
    """--json through the shared output check (gsr.infra.outputs): a new file, or --overwrite lets it replace one;
    never one of the inputs (--pool and the --pilot folder's per-query file included), even with --overwrite."""
    from gsr.cli.options import INPUT_OPTIONS
    from gsr.infra.outputs import Target, check_output_targets, option_inputs

    inputs = option_inputs(args, *INPUT_OPTIONS, "pool")
    if args.pilot is not None:
        inputs.append(("--pilot", Path(args.pilot) / PER_QUERY_FILE))
    check_output_targets([Target("--json", args.json)] if args.json is not None else [], inputs, args.overwrite)


def read_pool(args) -> dict[str, float]:
    """--pool's g(q) under --embedding, checked against --select, --neutral-share and --strata; the pool's queries are
    kept on `args` for printing."""
    from gsr.io.convert import as_queries
    from gsr.planning.selection import check_selection, measurable_pool, pool_genderedness

    queries = as_queries(args.pool, args.field)
    pool = pool_genderedness(queries, lexicon_of(args), analyzer_of(args))
    qids, _ = measurable_pool(pool)
    check_selection(len(qids), args.select, args.neutral_share, args.strata)
    args.pool_queries = queries
    return pool


# ------------------------------------------------------------------------------------------------ the pilot: runs
def measured_runs(args) -> tuple[dict, dict]:
    """--run files measured as `gsr score` measures them (no bootstrap: the plan resamples): ({run: GSRResult},
    {measure: {run: {qid: value}}})."""
    from gsr.cli.score import check_shared_queries, read_run, run_names
    from gsr.evaluate import GSR
    from gsr.io.convert import as_qrels, as_queries

    names = run_names(args.run)
    queries = as_queries(args.topics, args.field)
    qrels = as_qrels(args.qrels) if args.qrels else None
    runs = {}
    for name, path in zip(names, args.run):
        run = read_run(path)
        check_shared_queries(name, run, queries, qrels)
        runs[name] = run
    log.info("measuring the pilot: %d run(s) on %d topics", len(runs), len(queries))
    measure = GSR(lexicon_of(args), analyzer_of(args), cutoff=args.cutoff, resamples=0)
    reports = measure.evaluate_many(runs, queries, args.docs, qrels, strict=args.strict, n_jobs=args.jobs)
    measured = {name: reports[name].system for name in names}
    values = per_query_measures(args, runs, queries, qrels)
    return measured, values


def per_query_measures(args, runs: dict, queries: dict, qrels: dict | None) -> dict:
    """{measure: {run: {qid: value}}} of --measures: ir_measures ones over the judged topics (a topic a run does not
    answer scores 0, as `gsr score`), RaB@k / ARaB@k over the judged topics (every topic without qrels) the run
    answers."""
    measures = args.measures or []
    judged = sorted(q for q in queries if any(g > 0 for g in qrels.get(q, {}).values())) if qrels else sorted(queries)
    values: dict[str, dict[str, dict[str, float]]] = {}
    effectiveness = [m for m in measures if not LABEL_MEASURE.fullmatch(m)]
    if effectiveness:
        from gsr.effectiveness.evaluate import evaluate_run, parse_measures

        assert qrels is not None  # check_options
        parsed = parse_measures(effectiveness)
        for name, run in runs.items():
            evaluated = evaluate_run(run, qrels, parsed, judged)
            for asked, measure in zip(effectiveness, parsed):
                values.setdefault(asked, {})[name] = evaluated.per_query[str(measure)]
    label_measures = [m for m in measures if LABEL_MEASURE.fullmatch(m)]
    if label_measures:
        values.update(rank_bias_values(args, runs, judged, label_measures))
    return {m: values[m] for m in measures}


def rank_bias_values(args, runs: dict, topics: list[str], names: list[str]) -> dict:
    """RaB@k and ARaB@k per topic as `gsr bias` computes them by default (tf magnitudes, ln(1 + count), of the
    Appendix B entity words in each retrieved document), over the topics each run answers."""
    from gsr.fairness.equations import average_rank_bias, gender_magnitude, rank_bias
    from gsr.fairness.labels import gendered_word_counts
    from gsr.io.types import rank_order

    depth = max(int(LABEL_MEASURE.fullmatch(m)["k"]) for m in names)  # type: ignore[index]
    ranked = {
        name: {q: [d for d, _ in rank_order(run[q])][:depth] for q in topics if run.get(q)}
        for name, run in runs.items()
    }
    wanted = {d for lists in ranked.values() for docs in lists.values() for d in docs}
    mentions = gendered_word_counts(args.docs, wanted=wanted)
    values: dict[str, dict[str, dict[str, float]]] = {}
    for measure in names:
        match = LABEL_MEASURE.fullmatch(measure)
        assert match is not None
        k, equation = int(match["k"]), rank_bias if match["name"] == "RaB" else average_rank_bias
        for name, lists in ranked.items():
            per_topic = {}
            for qid, docs in lists.items():
                missing = [d for d in docs[:k] if d not in mentions]
                if missing:
                    raise CommandError(f"{measure}: document {missing[0]} (run {name}, topic {qid}) is not in --docs")
                female = [gender_magnitude(mentions[d][0]) for d in docs[:k]]
                male = [gender_magnitude(mentions[d][1]) for d in docs[:k]]
                result = equation(female, male, k)
                if result is not None:
                    per_topic[qid] = result[0]
            values.setdefault(measure, {})[name] = per_topic
    return values


# ------------------------------------------------------------------------------------------ the pilot: a gsr run
def folder_pilot(args) -> tuple[dict, dict]:
    """The pilot from a `gsr run` output folder's per_query.csv: ({system: {qid: (g(q), g_q(L))}}, {measure:
    {system: {qid: value}}}) for --label's GSR columns and --measures."""
    path = Path(args.pilot) / PER_QUERY_FILE
    if not path.is_file():
        raise CommandError(
            f"--pilot {args.pilot}: no {PER_QUERY_FILE} there; give the output folder of a finished `gsr run` (it "
            "writes every topic's g(q) and g_q(L) per system to per_query.csv), or the pilot's runs with --run, "
            "--topics and --docs"
        )
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        rows = list(reader)
    labels = [match["label"] for column in header if (match := GSR_COLUMN.fullmatch(column))]
    if not labels or "system" not in header or "qid" not in header:
        raise CommandError(f"{path}: no 'system', 'qid' and 'g(q) (EMBEDDING)' columns: not a gsr run's per_query.csv")
    label = args.label or labels[0]
    if label not in labels:
        raise CommandError(f"--label {label}: {path} measures GSR under {', '.join(labels)}")
    available = [c for c in header[2 : header.index(f"g(q) ({labels[0]})")]]
    unknown = [m for m in args.measures or [] if m not in available]
    if unknown:
        raise CommandError(
            f"--measures {','.join(unknown)}: {path} holds {', '.join(available) or 'no measure'} per topic"
        )
    systems = list(dict.fromkeys(row["system"] for row in rows))
    chosen = args.systems or [s for s in systems if s not in REFERENCE_ENGINES]
    missing = [s for s in chosen if s not in systems]
    if missing:
        raise CommandError(f"--systems {', '.join(map(repr, missing))}: {path} holds {', '.join(map(repr, systems))}")
    pilot: dict[str, dict] = {s: {} for s in chosen}
    values: dict[str, dict[str, dict[str, float]]] = {m: {s: {} for s in chosen} for m in args.measures or []}
    for line, row in enumerate(rows, start=2):
        system = row["system"]
        if system not in pilot:
            continue
        where = f"{path}:{line}"
        if row["qid"] in pilot[system]:  # a hand-edited or concatenated file: one of the two would be dropped unsaid
            raise CommandError(f"{where}: system {system!r} has topic {row['qid']!r} again (one row per topic)")
        pilot[system][row["qid"]] = (_number(row[f"g(q) ({label})"], where), _number(row[f"g_q(L) ({label})"], where))
        for measure in values:
            value = _number(row[measure], where)
            if value is not None:
                values[measure][system][row["qid"]] = value
    return pilot, values


def _number(text: str, where: str) -> float | None:
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):  # gsr run writes an undefined value as an empty cell, never as nan or inf
        raise CommandError(f"{where}: {text!r} is not a finite number (an undefined value is an empty cell)")
    return value


def cmd_plan(args) -> int:
    from experiments.commands.plan_output import print_plan, write_json
    from gsr.planning.planner import plan

    check_options(args)
    pool = read_pool(args) if args.pool is not None else None
    pilot, values = measured_runs(args) if args.run is not None else folder_pilot(args)
    log.info("planning: %d run(s), %d resampled studies per study size", len(pilot), args.resamples)
    result = plan(
        pilot,
        level=args.level,
        topics=args.n,
        target_width=args.target_width,
        difference=dict(args.difference) if args.difference else None,
        alpha=args.alpha,
        power=args.power,
        measures=values,
        pool=pool,
        select=args.select,
        neutral_share=args.neutral_share,
        strata=args.strata,
        resamples=args.resamples,
        seed=args.seed,
    )
    print_plan(result, args)
    if args.json is not None:
        write_json(result, args)
    return 0


def configure(parser) -> None:
    """The options of `gsr plan`, and the function that runs it."""
    pilot = parser.add_argument_group("the pilot: runs with their topics and documents, or a gsr run folder")
    pilot.add_argument("--run", nargs="+", action="extend", help="the pilot's TREC run file(s) (or irds:ID)")
    pilot.add_argument("--topics", help="the pilot's topics: TREC topics, TSV or JSONL queries, or irds:ID")
    pilot.add_argument(
        "--docs", help="the pilot's documents: JSONL, TSV, TREC SGML, a Lucene index or irds:NAME (as gsr score)"
    )
    pilot.add_argument("--qrels", help="TREC qrels or irds:ID: the §4.2.2 cut-off and the effectiveness measures")
    pilot.add_argument(
        "--pilot", metavar="DIR", help=f"instead: the output folder of a finished `gsr run` (its {PER_QUERY_FILE})"
    )
    pilot.add_argument("--label", help="with --pilot: the GSR columns' embedding label (default the first)")
    pilot.add_argument(
        "--systems",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="with --pilot: the systems planned for (default every one but perfect and random)",
    )
    pilot.add_argument("--field", default="title", help="topic field of --topics and --pool: title, desc, narr, …")
    add_list_options(pilot)
    pilot.add_argument(
        "--jobs", type=positive_int, default=None, help="processes for document statistics (default: cores)"
    )
    pilot.add_argument(
        "--measures",
        type=name_list,
        help="also plan paired differences of these per-topic measures, comma-separated: ir_measures strings "
        "(nDCG@10, AP; need --qrels) and RaB@k / ARaB@k (gsr bias's defaults); with --pilot, columns of "
        f"{PER_QUERY_FILE}",
    )
    goals = parser.add_argument_group("what the study should reach")
    for param in (LEVEL, ALPHA, POWER):
        goals.add_argument(
            f"--{param.name}",
            type=argparse_type(param, float),
            default=param.default,
            help=f"{param.help}, {param.range_text()} (default {param.default})",
        )
    goals.add_argument(
        "--n",
        type=argparse_type(TOPICS),
        nargs="+",
        default=list(DEFAULT_TOPICS),
        metavar="N",
        help=f"study sizes to report, each {TOPICS.range_text()} (default {' '.join(map(str, DEFAULT_TOPICS))}; "
        "the pilot's own is added)",
    )
    goals.add_argument(
        "--target-width",
        type=argparse_type(TARGET_WIDTH, float),
        metavar="W",
        help="the half-width of GSR's interval to reach: the topics it needs (> 0)",
    )
    goals.add_argument(
        "--difference",
        type=difference_entry,
        nargs="+",
        action="extend",
        metavar="D|MEASURE=D",
        help="differences between two runs to detect: a number for GSR, MEASURE=D for a --measures one "
        "(e.g. 0.05 nDCG@10=0.02): their power at each n and the topics they need",
    )
    pool = parser.add_argument_group("choosing topics from a pool (g(q) needs no retrieval)")
    pool.add_argument("--pool", metavar="TOPICS", help="candidate topics: a topics file, msmarco-gender[:…], irds:ID")
    pool.add_argument(
        "--select", type=argparse_type(SELECT), metavar="N", help="how many topics of the pool to choose (≥ 3)"
    )
    pool.add_argument(
        "--neutral-share",
        type=argparse_type(NEUTRAL_SHARE, float),
        default=NEUTRAL_SHARE.default,
        metavar="SHARE",
        help=f"{NEUTRAL_SHARE.help}, {NEUTRAL_SHARE.range_text()} (default 0)",
    )
    pool.add_argument(
        "--strata",
        type=argparse_type(STRATA),
        metavar="K",
        help="choose equally from K equal-count quantile strata of the pool's g(q) (K ≥ 2)",
    )
    parser.add_argument(
        "--resamples",
        type=argparse_type(STUDIES),
        default=STUDIES.default,
        help=f"{STUDIES.help}, {STUDIES.range_text()} (default {STUDIES.default:,})",
    )
    parser.add_argument(
        "--seed", type=argparse_type(SEED), default=SEED.default, help="seed of the simulated studies (default 0)"
    )
    parser.add_argument(
        "--json",
        type=json_target,
        metavar="FILE",
        help="also write the plan as JSON to FILE (a new file, unless --overwrite)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="--json may replace an existing file (never one of the inputs)"
    )
    add_lexicon_options(parser)
    parser.set_defaults(func=cmd_plan)


def name_list(text: str) -> list[str]:
    """A comma-separated list of names."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"give names separated by commas, not {text!r}")
    return names
