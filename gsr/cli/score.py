"""`gsr score`: GSR of one or more TREC runs against documents and topics, with bootstrap intervals and standard
errors; with qrels, the perfect and random engines, relative GSR and each run tested against the perfect engine;
with several runs, every pair of runs tested (paired randomisation over queries); with qrels also effectiveness
(--measures, ir_measures strings; default the configs' AP, P@10, nDCG@100) over the judged topics, each run tested
against the baseline run as `gsr run` does; --bias-measures adds FaiRR/NFaiRR and RaB/ARaB (gsr.cli.score_bias),
tested alike, and --agreement how GSR and they order the runs. p-values are corrected per measure (each
effectiveness or bias measure's tests one family, GSR's tests another; --correction-family all: every p-value of the
call one family).

The results print as tables (this module) or JSON; in `gsr run`'s layout, as a LaTeX table (--latex) and as
report.html (--html), they are written by the harness's report, which experiments.commands.score passes in
(ReportOutputs): gsr imports nothing of the harness.

Exit status: 0; 1 when GSR is undefined for a run (the output is still printed); 2 on bad input, including a run
that shares no query with the topics (or, with qrels, with the judged topics), a bad --measures or --bias-measures
entry (checked before any work), a run named perfect or random, or one run file given twice."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsr.cli import score_bias
from gsr.cli.options import (
    CommandError,
    add_embedding_options,
    add_fairr_options,
    add_gender_words_option,
    add_list_options,
    add_overwrite_option,
    analyzer_of,
    check_outputs,
    lexicon_of,
    positive_int,
)
from gsr.effectiveness.evaluate import DEFAULT_MEASURES, TESTS
from gsr.infra import logs
from gsr.infra.names import first_clash, folded, name_problem
from gsr.infra.numeric import format_number, format_p
from gsr.infra.outputs import Target
from gsr.infra.params import argparse_type
from gsr.results import relative_to_perfect
from gsr.settings import CORRECTIONS, LEVEL, RESAMPLES, SEED

if TYPE_CHECKING:
    from gsr.evaluate import GSR
    from gsr.fairness.agreement import AgreementReport
    from gsr.fairness.named import BiasValues
    from gsr.io.types import Qrels, Run
    from gsr.results import GSRReport

log = logs.get("cli")
REFERENCE_ENGINES = ("perfect", "random")  # the rows --qrels adds, by these names
CORRECTION_FAMILIES = ("measure", "all")


@dataclass
class ScoredRuns:
    """What one `gsr score` call measured, as its outputs read it: the runs (by name, in the order given), their
    reports, the corrected GSR tests (each run against the perfect engine, every pair of runs), the effectiveness
    entries (None without --qrels or measures) over the judged topics, the inputs and the configured measure."""

    names: list[str]
    runs: list[Run]
    reports: list[GSRReport]
    against_perfect: list[dict | None]
    pairs: list[dict]
    measures: dict[str, dict[str, dict[str, Any]]] | None
    judged: list[str]
    queries: dict[str, str]
    qrels: Qrels | None
    measure: GSR
    bias: BiasValues | None = None  # --bias-measures' values (gsr.cli.score_bias)
    bias_entries: dict[str, dict[str, dict[str, Any]]] | None = None  # {run: {measure: {"mean", "p_value", ...}}}
    agreement: AgreementReport | None = None  # --agreement

    def tested_measures(self) -> dict[str, dict[str, dict[str, Any]]] | None:
        """The effectiveness and bias measures' entries together, {run or 'perfect': {measure: entry}} (None without
        either): what the per-measure corrections and the tables' measure columns read."""
        if self.measures is None and self.bias_entries is None:
            return None
        merged: dict[str, dict[str, dict[str, Any]]] = {}
        for entries in (self.measures or {}, self.bias_entries or {}):
            for run, per_measure in entries.items():
                merged.setdefault(run, {}).update(per_measure)
        return merged


@dataclass(frozen=True)
class ReportOutputs:
    """The outputs of `gsr score` in `gsr run`'s layout, which the harness's report writes: `latex(scored, args)`
    gives the results as a booktabs table (--latex), `page(scored, args)` writes report.html to args.html (--html).
    Without them (a parser built from gsr alone) the command has neither option."""

    latex: Callable[[ScoredRuns, argparse.Namespace], str]
    page: Callable[[ScoredRuns, argparse.Namespace], None]


def run_names(paths: list[str]) -> list[str]:
    """Each run's file name, or its whole path where two runs' file names fold to one name (gsr.infra.names.folded:
    'RUN' is 'run', fullwidth 'ｒｕｎ' too). Refused: the same run given twice; a name holding a control, bidi or
    zero-width character, which would hide or reorder what its row shows; a run whose name folds to a reference
    engine's (perfect, random) or, whole paths and all, to another run's: its row would be another's."""
    check_distinct_runs(paths)
    names = [Path(p).name for p in paths]
    keys = [folded(name) for name in names]
    names = [name if keys.count(key) == 1 else str(path) for name, key, path in zip(names, keys, paths)]
    for name, path in zip(names, paths):
        problem = name_problem(name)
        if problem:
            raise CommandError(f"--run {path!r}: its name {problem}; rename the file")  # repr: one line, shown
    clash = first_clash(names, REFERENCE_ENGINES)
    if clash is not None:
        name, other = clash
        path = paths[names.index(name)]
        if other in REFERENCE_ENGINES:
            raise CommandError(
                f"--run {path}: a run named {name!r} would be taken for the {other} reference engine that --qrels "
                "adds; rename the file"
            )
        raise CommandError(
            f"--run: {other!r} and {name!r} would name one row (names are compared ignoring case, width and "
            "invisible characters); rename one of the files"
        )
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
    from gsr.effectiveness.evaluate import correct_family

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
    from gsr.baselines import perfect_run
    from gsr.effectiveness.evaluate import evaluate_run, measure_entries, parse_measures

    measures = parse_measures(args.measures)
    judged = sorted(q for q in queries if any(g > 0 for g in qrels.get(q, {}).values()))
    evaluated = {name: evaluate_run(run, qrels, measures, judged) for name, run in zip(names, runs)}
    evaluated["perfect"] = evaluate_run(perfect_run(qrels), qrels, measures, judged)
    baseline = baseline_name(names, args.run, args.baseline) if args.resamples else None  # 0: no tests
    return measure_entries(evaluated, measures, baseline, set(names), args.test, args.resamples or 1, args.seed), judged


def check_measures(names: list[str] | None) -> None:
    """--measures checked before any work (ir_measures or its C extension would fail, or abort, late)."""
    from gsr.effectiveness.evaluate import parse_measures
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


def baseline_name(names: list[str], paths: list[str], chosen: str | None) -> str:
    """The run the others are tested against: --baseline (a run's name as printed, or its path), else the first."""
    if chosen is None:
        return names[0]
    for name, path in zip(names, paths):
        if chosen in (name, path):
            return name
    raise CommandError(f"--baseline {chosen!r} is not one of the runs ({', '.join(names)})")


def name_width(names: list[str]) -> int:
    """The name column's width: the longest run name, at least 24, so long names keep the columns aligned."""
    return max(24, *(len(name) for name in names))


def _bounds(interval, digits: int = 4) -> str:
    if interval is None or interval.low is None:
        return "—"
    return f"[{interval.low:+.{digits}f}, {interval.high:+.{digits}f}]"


def _p(value) -> str:
    return format_p(value)  # as the report and every table: 0.444, 1.000, < 0.001


def correction_note(args) -> str:
    """Which p-values were adjusted together, and how: the line every output of `gsr score` carries beside its
    adjusted p-values and marks."""
    family = getattr(args, "correction_family", "measure")
    if args.correction == "none":
        return "p-values unadjusted (correction none)"
    method = {"holm": "Holm", "bonferroni": "Bonferroni"}[args.correction]
    if family == "all":
        return f"p-values {method}-adjusted together: every test of this output one family"
    return f"p-values {method}-adjusted per measure: each measure's tests one family, GSR's tests another"


def print_effectiveness(measures: dict, judged: list[str], args, names: list[str]) -> None:
    from gsr.effectiveness.evaluate import CORRECTED, TEST_NAMES, display_name

    listed = list(next(iter(measures.values())))
    width = name_width(names)
    print(f"Effectiveness (ir_measures) over the {len(judged)} judged topics (a topic a run does not answer scores 0)")
    print(f"  {'run':<{width}}" + "".join(f" {display_name(m):>10}" for m in listed))
    for name, entries in measures.items():
        print(f"  {name:<{width}}" + "".join(f" {format_number(e['mean']) + e['mark']:>10}" for e in entries.values()))
    if len(names) > 1 and args.resamples:
        print(
            f"  † / ‡: {TEST_NAMES[args.test]} against {baseline_name(names, args.run, args.baseline)}, "
            f"{CORRECTED[args.correction]} p < 0.05 / p < 0.01 ({correction_note(args)})"
        )
    print()


def print_table(names, reports, against_perfect, pairs, args) -> None:
    first = reports[0]
    width = name_width(names)
    cutoff = args.cutoff if args.cutoff else "none"
    if args.cutoff == "relevant" and args.qrels is None:
        cutoff = "none (no --qrels: the relevant-documents cut-off needs judgments)"
    print(
        f"GSR (Eq. 3) under {args.embedding}, cut-off {cutoff}, query terms excluded by {args.exclusion}; "
        f"{args.level:.0%} percentile bootstrap intervals over queries ({args.resamples} resamples, seed {args.seed})"
    )
    print(
        f"  {'run':<{width}} {'GSR':>9} {'interval':>20} {'SE':>7} {'relative':>9} {'interval':>16} {'queries':>7} "
        f"{'adj. p vs perfect':>17}"
    )
    rows = [(n, r.system, r.relative_ci_of(r.system), t) for n, r, t in zip(names, reports, against_perfect)]
    if first.perfect is not None:
        rows += [
            ("perfect", first.perfect, None, None),
            ("random", first.random, first.relative_ci_of(first.random), None),
        ]
    for name, result, relative_ci, test in rows:
        relative = first.relative_of(result)
        rel = "—" if relative is None else f"{relative:+.1f}%"
        se = "—" if result.se is None else f"{result.se:.4f}"
        p = "—" if test is None else f"{_p(test['p_adjusted'])}"
        print(
            f"  {name:<{width}} {format_number(result.gsr, sign=True):>9} {_bounds(result.ci):>20} {se:>7} {rel:>9} "
            f"{_bounds(relative_ci, 1):>16} {result.n_queries:>7} {p:>17}"
        )
    if pairs:
        print(f"\n  paired randomisation tests of GSR differences ({correction_note(args)})")
        print(f"  {'a':<{width}} {'b':<{width}} {'GSR a − b':>10} {'p':>8} {'p adjusted':>10}")
        for pair in pairs:
            print(
                f"  {pair['a']:<{width}} {pair['b']:<{width}} {format_number(pair['difference'], sign=True):>10} "
                f"{_p(pair['p_value']):>8} {_p(pair['p_adjusted']):>10}"
            )
    elif first.perfect is not None:
        print(
            f"  adj. p vs perfect: paired randomisation test of the run's GSR against the perfect engine's "
            f"({correction_note(args)})"
        )
    if first.perfect is not None:  # every '—' says why: an engine's undefined GSR here, a run's below
        for why in dict.fromkeys(relative_to_perfect(r, first.perfect)[1] for _, r, _, _ in rows if r.gsr is not None):
            if why is not None:
                print(f"  relative: {why}")
        for name, result, _, _ in rows[len(names) :]:
            if result.gsr is None:
                print(f"  {name}: {undefined_line(result.error or '')}")
    for name, _, relative_ci, _ in rows:
        if relative_ci is not None and relative_ci.reason:
            print(f"  {name}: no interval of relative GSR: {relative_ci.reason}")
    for name, report in zip(names, reports):
        system = report.system
        for reason, qids in sorted(system.skipped.items()):
            print(f"  {name}: skipped ({reason}): {len(qids)} — {', '.join(qids[:10])}{' …' if len(qids) > 10 else ''}")
        if system.unknown_docids:
            print(
                f"  {name}: {system.unknown_docids} retrieved document ids are not in {args.docs} "
                "(use --strict to fail)"
            )
        if system.unmeasurable_docs:
            print(
                f"  {name}: {system.unmeasurable_docs} retrieved documents have no in-vocabulary word besides the "
                "query's"
            )
        if system.error:
            print(f"  {name}: {undefined_line(system.error)}")
        elif system.coverage_warning:
            print(f"  {name}: warning: {system.coverage_warning}")


def undefined_line(error: str) -> str:
    """Why a GSR is undefined, as one line that says "GSR is undefined" once (the measure's reasons mostly do)."""
    return error if error.startswith("GSR is undefined") else f"GSR is undefined: {error}"


def cmd_score(args) -> int:
    scored = score_runs(args)
    reports, outputs = scored.reports, args.report_outputs
    if args.json:
        print(json.dumps(json_document(scored, args), indent=2))
    elif getattr(args, "latex", False):
        print(outputs.latex(scored, args), end="")
    else:
        if scored.measures is not None:
            print_effectiveness(scored.measures, scored.judged, args, scored.names)
        if scored.bias is not None and scored.bias_entries is not None:
            baseline = baseline_name(scored.names, args.run, args.baseline)
            score_bias.print_bias(scored.bias, scored.bias_entries, scored.names, args, correction_note(args), baseline)
        print_table(scored.names, reports, scored.against_perfect, scored.pairs, args)
        if scored.agreement is not None:
            print()
            score_bias.print_agreement(scored.agreement, scored.names)
    if getattr(args, "html", None):
        outputs.page(scored, args)
    for name, report in zip(scored.names, reports):
        if report.system.gsr is not None and report.system.coverage_warning:
            log.warning("%s: %s", name, report.system.coverage_warning)
    undefined = [name for name, report in zip(scored.names, reports) if report.system.gsr is None]
    if undefined:
        log.warning("GSR is undefined for %s", ", ".join(undefined))
        return 1
    return 0


def score_runs(args) -> ScoredRuns:
    """Every check of the options and inputs first, then the effectiveness measures, GSR and the tests of `args`."""
    from gsr.evaluate import GSR
    from gsr.io.convert import as_qrels, as_queries

    if args.measures and not args.qrels:
        raise CommandError("--measures needs --qrels: effectiveness is measured against relevance judgments")
    check_measures(args.measures)
    score_bias.check_bias_options(args)
    html = getattr(args, "html", None)
    names = run_names(args.run)
    check_outputs(args, [Target("--html", html)] if html else [], getattr(args, "overwrite", False))  # before scoring
    queries = as_queries(args.topics, args.field)
    qrels = as_qrels(args.qrels) if args.qrels else None
    if args.measures is None:
        args.measures = list(DEFAULT_MEASURES) if qrels is not None else []
    runs = []
    for name, path in zip(names, args.run):
        run = read_run(path)
        check_shared_queries(name, run, queries, qrels)
        runs.append(run)
    bias_queries = score_bias.bias_queries(queries, qrels) if args.bias_measures else []
    background = score_bias.read_background(args, runs, bias_queries)  # a query it misses stops here
    measures, judged = (
        effectiveness(names, runs, queries, qrels, args) if qrels is not None and args.measures else (None, [])
    )
    bias = bias_entries = None
    if args.bias_measures:
        bias = score_bias.score_bias(args, names, runs, bias_queries, background)
        tested = baseline_name(names, args.run, args.baseline) if args.resamples and len(names) > 1 else None
        bias_entries = score_bias.bias_entries(bias, names, tested, args)
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
    scored = ScoredRuns(
        names, runs, reports, against_perfect, pairs, measures, judged, queries, qrels, measure, bias, bias_entries
    )
    correct_all(against_perfect, pairs, scored.tested_measures(), args.correction, args.correction_family)
    if args.agreement and bias is not None:
        scored.agreement = score_bias.agreement_of(names, reports, bias, args)
    return scored


def json_document(scored: ScoredRuns, args) -> dict:
    """The --json object: one run's report (with its test against the perfect engine and its measures), or every
    run's and the tests between them; the correction and, with measures, what they were averaged over."""
    objects = []
    for name, report, test in zip(scored.names, scored.reports, scored.against_perfect):
        out = {"run": name, **report.to_dict()}
        if test is not None:
            out["perfect_test"] = test
        if scored.measures is not None:
            out["measures"] = scored.measures[name]
        if scored.bias is not None and scored.bias_entries is not None:
            out["bias_measures"] = scored.bias_entries[name]
            out["bias_per_query"] = scored.bias.query_rows(name)
        objects.append(out)
    document = objects[0] if len(objects) == 1 else {"runs": objects, "comparisons": scored.pairs}
    # every "p_adjusted" is adjusted by this correction over this family ("measure": per measure and GSR)
    document.update({"correction": args.correction, "correction_family": args.correction_family})
    if scored.measures is not None:
        names = scored.names
        document["effectiveness"] = {
            "judged_topics": len(scored.judged),
            "perfect": scored.measures["perfect"],
            "test": args.test,
            "baseline": baseline_name(names, args.run, args.baseline) if len(names) > 1 else None,
        }
    if scored.bias is not None:
        names = scored.names
        document["bias"] = {
            "topics": len(scored.bias.queries),
            "settings": scored.bias.settings,
            "test": args.test,
            "baseline": baseline_name(names, args.run, args.baseline) if len(names) > 1 else None,
        }
    if scored.agreement is not None:
        document["agreement"] = scored.agreement.to_dict()
    return document


def configure(parser, outputs: ReportOutputs | None = None) -> None:
    """The options of `gsr score`, and the function that runs it; --latex and --html where `outputs` writes them."""
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
    add_list_options(parser)
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
    parser.add_argument(
        "--bias-measures",
        type=score_bias.bias_measure_list,
        default=None,
        metavar="MEASURES",
        help="gender-bias measures beside GSR, comma-separated KIND@k: FaiRR, NFaiRR, FaiRR_agnostic, "
        "NFaiRR_agnostic (Rekabsaz, Kopeinik & Schedl), RaB, ARaB (Rekabsaz & Schedl, tf magnitudes), RaB_bool, "
        f"ARaB_bool, RaB_tc, ARaB_tc; e.g. {score_bias.EXAMPLE}; over the judged topics (all topics without "
        "--qrels), each run tested against the baseline as the effectiveness measures are",
    )
    add_gender_words_option(parser)
    add_fairr_options(parser)
    parser.add_argument(
        "--agreement",
        action="store_true",
        help="with several runs and --bias-measures: how GSR and the bias measures agree about which run is more "
        "biased (Kendall τ-b between their orders with a bootstrap interval, per-query correlations, and the "
        "queries behind each pair of runs two measures order oppositely)",
    )
    if outputs is not None:
        parser.add_argument("--latex", action="store_true", help="print the results as a LaTeX (booktabs) table")
        parser.add_argument(
            "--html",
            type=html_file,
            metavar="FILE",
            help="also write report.html to FILE: the table, each run's GSR scatter, each query's "
            "documents with their words coloured by g(w), two runs contrasted (a new file, unless --overwrite)",
        )
        add_overwrite_option(parser, "--html's file")
    parser.add_argument(
        "--jobs", type=positive_int, default=None, help="processes for document statistics (default: cores)"
    )
    add_embedding_options(parser)
    parser.set_defaults(func=cmd_score, report_outputs=outputs)


def measure_list(text: str) -> list[str]:
    """--measures' text as measure names; 'none' as no measure. Checked against ir_measures when the command runs."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give measures as e.g. nDCG@10,AP,P@10, or 'none'")
    return [] if names == ["none"] else names


def html_file(text: str) -> Path:
    """--html's file (what may be written there is gsr.infra.outputs.check_output_targets' to say, before any work)."""
    return Path(text).expanduser()
