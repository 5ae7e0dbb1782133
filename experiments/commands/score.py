"""`gsr score`: GSR of one or more TREC runs against documents and topics, with bootstrap intervals and standard
errors; with qrels, the perfect and random engines, relative GSR and each run tested against the perfect engine;
with several runs, every pair of runs tested (paired randomisation over queries); with qrels also effectiveness
(--measures, ir_measures strings; default the configs' AP, P@10, nDCG@100) over the judged topics, each run tested
against the baseline run as `gsr run` does. p-values are corrected per measure (each effectiveness measure's tests
one family, GSR's tests another; --correction-family all: every p-value of the call one family).

Exit status: 0; 1 when GSR is undefined for a run (the output is still printed); 2 on bad input, including a run
that shares no query with the topics (or, with qrels, with the judged topics), a bad --measures entry (checked
before any work), a run named perfect or random, or one run file given twice."""

from __future__ import annotations

import argparse
import json
import os
from itertools import combinations
from pathlib import Path

from experiments.commands.common import CommandError, add_embedding_options, analyzer_of, lexicon_of, positive_int
from experiments.commands.score_output import baseline_name, latex_table, print_effectiveness, print_table, write_page
from experiments.effectiveness import DEFAULT_MEASURES, TESTS
from gsr.infra import logs
from gsr.infra.params import argparse_type
from gsr.settings import CORRECTIONS, CUTOFF, EXCLUSION, LEVEL, NO_CUTOFF, RELEVANT, RESAMPLES, SEED

log = logs.get("cli")
REFERENCE_ENGINES = ("perfect", "random")  # the rows --qrels adds, by these names
CORRECTION_FAMILIES = ("measure", "all")


def cutoff_text(text: str):
    """--cutoff's text as the cut-off value gsr.settings.CUTOFF checks: 'relevant', 'none' or an integer."""
    return text if text in (RELEVANT, NO_CUTOFF) else int(text)


def run_names(paths: list[str]) -> list[str]:
    """Each run's file name, or its whole path where two runs share a file name. The same run given twice, or a
    run named like a reference engine (perfect, random), is refused: its row would be another's."""
    check_distinct_runs(paths)
    names = [Path(p).name for p in paths]
    names = [name if names.count(name) == 1 else str(path) for name, path in zip(names, paths)]
    for name, path in zip(names, paths):
        if name.casefold() in REFERENCE_ENGINES:
            raise CommandError(
                f"--run {path}: a run named {name!r} would be taken for the {name.casefold()} reference engine "
                "that --qrels adds; rename the file"
            )
    if len(set(names)) < len(names):  # cannot happen after check_distinct_runs; a guard for the rows' keys
        raise CommandError(f"--run: two runs would both be named {next(n for n in names if names.count(n) > 1)}")
    return names


def _identity(path: str):
    """What makes two --run arguments the same run: the file itself (device and inode, so a link or another
    spelling of the path is the same file), else the resolved path (irds:ID)."""
    try:
        status = os.stat(path)
    except OSError:
        return str(Path(path).expanduser().resolve())
    return (status.st_dev, status.st_ino)


def check_distinct_runs(paths: list[str]) -> None:
    """The same run file given twice (by the same or another path, or a link to it) would be two identical rows."""
    seen: dict = {}
    for path in paths:
        key = _identity(path)
        if key in seen:
            same = f"{path} twice" if seen[key] == path else f"{seen[key]} and {path}, which are one file"
            raise CommandError(f"--run names {same}; give each run once")
        seen[key] = path


def check_shared_queries(name: str, run: dict, queries: dict, qrels: dict | None) -> None:
    """A run that answers none of the topics (or none of the judged ones) was made for other topics."""
    if not set(run) & set(queries):
        raise CommandError(
            f"run {name} and the topics share no query id (run e.g. {', '.join(sorted(run)[:3])}; "
            f"topics e.g. {', '.join(sorted(queries)[:3])})"
        )
    if qrels is not None:
        if not set(qrels) & set(queries):
            raise CommandError(
                f"qrels: none of the {len(qrels)} judged query ids is a topic id (qrels e.g. "
                f"{', '.join(sorted(qrels)[:3])}; topics e.g. {', '.join(sorted(queries)[:3])}); "
                "do they belong together?"
            )
        judged = {q for q, docs in qrels.items() if any(g > 0 for g in docs.values())} & set(queries)
        if not set(run) & judged:
            raise CommandError(
                f"run {name} answers none of the {len(judged)} topics with relevant judgments "
                f"(qrels e.g. {', '.join(sorted(judged)[:3])})"
            )


def _test_record(test, a: str | None = None, b: str | None = None) -> dict:
    record = {"a": a, "b": b} if a is not None else {}
    record.update({"difference": test.statistic if test else None, "p_value": test.p_value if test else None})
    return record


def compare(names: list[str], reports: list, args) -> tuple[list[dict | None], list[dict]]:
    """(each run's test against the perfect engine, every pair's test), p-values corrected as one family."""
    from gsr.errors import UndefinedMeasureError
    from gsr.evaluate import gsr_difference_test

    def test(a, b):
        if a.gsr is None or b.gsr is None or not args.resamples:
            return None
        try:
            return gsr_difference_test(a, b, args.resamples, args.seed)
        except UndefinedMeasureError:
            return None

    against_perfect = [_test_record(test(r.system, r.perfect)) if r.perfect is not None else None for r in reports]
    pairs = [
        _test_record(test(reports[i].system, reports[j].system), names[i], names[j])
        for i, j in combinations(range(len(reports)), 2)
    ]
    return against_perfect, pairs


def correct_all(against_perfect: list, pairs: list[dict], measures: dict | None, correction: str, family: str) -> None:
    """Adjust every p-value of the call (each record gets "p_adjusted" and the paper's "mark"). family "measure" (the
    default, as ranx and PyTerrier correct): each effectiveness measure's tests against the baseline are one family,
    GSR's tests (each run against the perfect engine, every pair of runs) another, so a measure's adjusted p-values do
    not depend on which other measures were asked for; "all": every p-value of the call is one family (as every
    p-value of `gsr run`'s results table is)."""
    from experiments.effectiveness import correct_family

    gsr_tests = [t for t in against_perfect if t is not None] + pairs
    per_measure: dict[str, list[dict]] = {}
    for per_run in (measures or {}).values():
        for measure, entry in per_run.items():
            per_measure.setdefault(measure, []).append(entry)
    if family == "all":
        correct_family(gsr_tests + [entry for entries in per_measure.values() for entry in entries], correction)
        return
    correct_family(gsr_tests, correction)
    for entries in per_measure.values():
        correct_family(entries, correction)


def effectiveness(names: list[str], runs: list, queries: dict, qrels: dict, args) -> tuple[dict, list[str]]:
    """({run name or 'perfect': {measure: {"mean", "p_value"}}}, the judged topics averaged over): each run's mean of
    every --measures measure, a topic it does not answer scoring 0, tested against the --baseline run by --test."""
    from experiments.effectiveness import evaluate_run, measure_entries, parse_measures
    from gsr.baselines import perfect_run

    measures = parse_measures(args.measures)
    judged = sorted(q for q in queries if any(g > 0 for g in qrels.get(q, {}).values()))
    evaluated = {name: evaluate_run(run, qrels, measures, judged) for name, run in zip(names, runs)}
    evaluated["perfect"] = evaluate_run(perfect_run(qrels), qrels, measures, judged)
    baseline = baseline_name(names, args.run, args.baseline) if args.resamples else None  # 0: no tests
    return measure_entries(evaluated, measures, baseline, set(names), args.test, args.resamples or 1, args.seed), judged


def check_measures(names: list[str] | None) -> None:
    """--measures checked before any work (ir_measures or its C extension would fail, or abort, late)."""
    from experiments.effectiveness import parse_measures
    from gsr.errors import InputError

    try:
        parse_measures(names or [])
    except InputError as err:
        raise CommandError(f"--measures: {err}") from None


def read_run(path: str):
    """A --run: a TREC run file read into arrays (gsr.io.run_arrays: one parse serves the effectiveness measures and
    GSR, its ranked lists views of the arrays), irds:ID by gsr.io.convert.as_run."""
    from gsr.io.convert import as_run
    from gsr.io.records import is_irds
    from gsr.io.run_arrays import read_run_arrays

    return as_run(path) if is_irds(path) else read_run_arrays(path).as_run()


def cmd_score(args) -> int:
    from gsr.evaluate import GSR
    from gsr.io.convert import as_qrels, as_queries

    if args.measures and not args.qrels:
        raise CommandError("--measures needs --qrels: effectiveness is measured against relevance judgments")
    check_measures(args.measures)
    if args.html and args.html.exists() and not args.overwrite:  # found now, not after the scoring
        raise CommandError(f"--html {args.html} exists; give a new file, or --overwrite to replace it")
    names = run_names(args.run)
    queries = as_queries(args.topics, args.field)
    qrels = as_qrels(args.qrels) if args.qrels else None
    if args.measures is None:
        args.measures = list(DEFAULT_MEASURES) if qrels is not None else []
    runs = []
    for name, path in zip(names, args.run):
        run = read_run(path)
        check_shared_queries(name, run, queries, qrels)
        runs.append(run)
    measures, judged = (
        effectiveness(names, runs, queries, qrels, args) if qrels is not None and args.measures else (None, [])
    )
    lexicon = lexicon_of(args)
    measure = GSR(
        lexicon,
        analyzer_of(args),
        cutoff=args.cutoff,
        random_seed=args.seed,
        resamples=args.resamples,
        level=args.level,
        seed=args.seed,
    )
    # one read of the documents for every run: only those the runs and the engines need (gsr.documents)
    evaluated = measure.evaluate_many(
        dict(enumerate(runs)), queries, args.docs, qrels, strict=args.strict, n_jobs=args.jobs
    )
    reports = [evaluated[i] for i in range(len(runs))]
    against_perfect, pairs = compare(names, reports, args)
    correct_all(against_perfect, pairs, measures, args.correction, args.correction_family)
    if args.json:
        objects = []
        for name, report, test in zip(names, reports, against_perfect):
            out = {"run": name, **report.to_dict()}
            if test is not None:
                out["perfect_test"] = test
            if measures is not None:
                out["measures"] = measures[name]
            objects.append(out)
        document = objects[0] if len(objects) == 1 else {"runs": objects, "comparisons": pairs}
        # every "p_adjusted" is adjusted by this correction over this family ("measure": per measure and GSR)
        document.update({"correction": args.correction, "correction_family": args.correction_family})
        if measures is not None:
            document["effectiveness"] = {
                "judged_topics": len(judged),
                "perfect": measures["perfect"],
                "test": args.test,
                "baseline": baseline_name(names, args.run, args.baseline) if len(names) > 1 else None,
            }
        print(json.dumps(document, indent=2))
    elif args.latex:
        print(latex_table(names, reports, against_perfect, measures, args), end="")
    else:
        if measures is not None:
            print_effectiveness(measures, judged, args, names)
        print_table(names, reports, against_perfect, pairs, args)
    if args.html:
        write_page(args, names, runs, reports, against_perfect, pairs, measures, queries, qrels, measure)
    for name, report in zip(names, reports):
        if report.system.gsr is not None and report.system.coverage_warning:
            log.warning("%s: %s", name, report.system.coverage_warning)
    undefined = [name for name, report in zip(names, reports) if report.system.gsr is None]
    if undefined:
        log.warning("GSR is undefined for %s", ", ".join(undefined))
        return 1
    return 0


def configure(parser) -> None:
    """The options of `gsr score`, and the function that runs it."""
    parser.add_argument(
        "--run",
        required=True,
        nargs="+",
        action="extend",
        help="TREC run file(s) (or irds:ID for a dataset's scored documents); several runs are compared pairwise",
    )
    parser.add_argument("--topics", required=True, help="TREC topics, TSV or JSONL queries, or irds:ID")
    parser.add_argument(
        "--docs",
        required=True,
        help="documents: JSONL ({id, contents}) or TSV (docid<TAB>text), maybe .gz; TREC SGML files "
        "or folders; a Lucene index with stored raw text or contents; irds:NAME (ir_datasets); "
        "only the documents the runs and the engines need are read",
    )
    parser.add_argument("--qrels", help="TREC qrels or irds:ID: adds the perfect and random engines and relative GSR")
    parser.add_argument("--field", default="title", help="topic field: title, desc, narr or e.g. title+desc")
    parser.add_argument(
        "--cutoff",
        type=argparse_type(CUTOFF, cutoff_text),
        default=CUTOFF.default,
        help=f"{CUTOFF.help}; default {CUTOFF.default}",
    )
    parser.add_argument(
        "--exclusion",
        choices=EXCLUSION.choices,
        default=EXCLUSION.default,
        help=f"{EXCLUSION.help}; default {EXCLUSION.default}",
    )
    parser.add_argument("--strict", action="store_true", help="fail on retrieved ids missing from --docs")
    parser.add_argument(
        "--seed",
        type=argparse_type(SEED),
        default=SEED.default,
        help="seed of the random engine, the bootstrap and the randomisation tests (default 0)",
    )
    parser.add_argument(
        "--resamples",
        type=argparse_type(RESAMPLES),
        default=RESAMPLES.default,
        help=f"{RESAMPLES.help} (default {RESAMPLES.default}; 0: no intervals nor tests)",
    )
    parser.add_argument(
        "--level",
        type=argparse_type(LEVEL, float),
        default=LEVEL.default,
        help=f"{LEVEL.help}, {LEVEL.range_text()} (default {LEVEL.default})",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction of the tests (default holm)",
    )
    parser.add_argument(
        "--correction-family",
        choices=CORRECTION_FAMILIES,
        default="measure",
        help="the p-values corrected together: 'measure' (default), each effectiveness measure's tests one family "
        "and GSR's tests (against the perfect engine, between runs) another; 'all', every p-value of the call",
    )
    parser.add_argument(
        "--measures",
        type=measure_list,
        default=None,
        help="effectiveness measures beside GSR, comma-separated ir_measures strings (e.g. "
        f"nDCG@10,AP,P@10); default with --qrels: {','.join(DEFAULT_MEASURES)}; 'none': GSR only",
    )
    parser.add_argument(
        "--baseline",
        help="the run each other run is tested against on every measure (its name or path; default the first)",
    )
    parser.add_argument(
        "--test",
        choices=TESTS,
        default="t",
        help="paired test of the measures against the baseline (default t, as in configs)",
    )
    parser.add_argument("--latex", action="store_true", help="print the results as a LaTeX (booktabs) table")
    parser.add_argument(
        "--html",
        type=html_file,
        metavar="FILE",
        help="also write report.html to FILE: the table, each run's GSR scatter, each query's "
        "documents with their words coloured by g(w), two runs contrasted (a new file, unless --overwrite)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="--html may replace an existing file (by default it is never touched)"
    )
    parser.add_argument(
        "--jobs", type=positive_int, default=None, help="processes for document statistics (default: cores)"
    )
    add_embedding_options(parser)
    parser.set_defaults(func=cmd_score)


def measure_list(text: str) -> list[str]:
    """--measures' text as measure names; 'none' as no measure. Checked against ir_measures when the command runs."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give measures as e.g. nDCG@10,AP,P@10, or 'none'")
    return [] if names == ["none"] else names


def html_file(text: str) -> Path:
    """--html's file: a path in an existing folder (whether it may exist already is --overwrite's to say)."""
    path = Path(text).expanduser()
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder; give the path of the file to write")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{path.parent} is not a folder")
    return path
