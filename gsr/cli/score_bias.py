"""`gsr score --bias-measures`: FaiRR/NFaiRR and RaB/ARaB of every run beside GSR (gsr.fairness.named: the values
`gsr bias` gives the same run), each run tested against the baseline run as the effectiveness measures are; and
`--agreement`: how GSR and these measures agree about which run is more biased (gsr.fairness.agreement).

The bias measures are measured over the judged topics with --qrels (as the effectiveness measures), else over every
topic; a topic a run does not answer is undefined for it (left out of its mean, never 0), as in `gsr bias`.
FaiRR's background set is, without --background, each run's own top --background-depth documents: every output says
so."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gsr.cli.options import CommandError, fairr_settings_of
from gsr.infra.numeric import format_number

if TYPE_CHECKING:
    from gsr.fairness.agreement import AgreementReport
    from gsr.fairness.named import BiasMeasureName, BiasValues

EXAMPLE = "NFaiRR@10,RaB@10,ARaB@10,RaB_bool@10,ARaB_bool@10"


def bias_measure_list(text: str) -> list[BiasMeasureName]:
    """--bias-measures' text as named measures (gsr.fairness.named), checked as the option is read; the label-based
    measures are `gsr bias --labels`'s (gsr score reads no labels)."""
    from gsr.errors import InputError
    from gsr.fairness.named import LABELS, parse_bias_measures

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"give bias measures as e.g. {EXAMPLE}")
    try:
        measures = parse_bias_measures(names)
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    for measure in measures:
        if measure.family == LABELS:
            raise argparse.ArgumentTypeError(
                f"{measure.name} reads document labels, which gsr score does not take: use gsr bias --labels"
            )
    return measures


def check_bias_options(args) -> None:
    """The bias options checked before any work: what needs a bias measure, --agreement's runs, the word lists (a bad
    line stops here)."""
    from gsr.fairness.labels import gender_words
    from gsr.fairness.named import FAIRR, RAB
    from gsr.fairness.neutrality import group_words

    measures = args.bias_measures or []
    families = {m.family for m in measures}
    if args.background is not None and FAIRR not in families:
        raise CommandError("--background is FaiRR's background run: name FaiRR or NFaiRR measures in --bias-measures")
    if args.gender_words is not None and not families:
        raise CommandError(f"--gender-words is the word list of the --bias-measures: give them (e.g. {EXAMPLE})")
    if args.agreement:
        if not measures:
            raise CommandError(f"--agreement compares GSR with the --bias-measures: give them (e.g. {EXAMPLE})")
        if len(args.run) < 2:
            raise CommandError("--agreement compares how measures order the runs: give at least two runs")
    if FAIRR in families:
        group_words(args.gender_words, tuple(args.group_shares))
    if RAB in families:
        gender_words(args.gender_words)


def bias_queries(queries: dict, qrels: dict | None) -> list[str]:
    """The topics the bias measures average over: the judged ones with qrels, else every topic."""
    if qrels is None:
        return sorted(queries)
    return sorted(q for q in queries if any(g > 0 for g in qrels.get(q, {}).values()))


def read_background(args, runs: list, query_ids: list[str]):
    """--background's run (None without), checked to answer every measured query each run answers."""
    from gsr.fairness.fairr_runs import check_background, run_arrays_of

    if args.background is None:
        return None
    background = run_arrays_of(args.background)
    measured = set(query_ids)
    for run in runs:
        check_background([q for q in run if q in measured], background.qids, args.background)
    return background


def score_bias(args, names: list[str], runs: list, query_ids: list[str], background) -> BiasValues:
    """Every --bias-measures measure of every run."""
    from gsr.documents.opening import open_documents
    from gsr.fairness.named import FAIRR, bias_values

    measures = args.bias_measures
    cutoffs = sorted({m.k for m in measures if m.family == FAIRR}) or [1]
    return bias_values(
        measures,
        dict(zip(names, runs)),
        open_documents(args.docs),  # one source: listed once for RaB's counts and FaiRR's
        query_ids,
        gender_words=args.gender_words,
        fairr=fairr_settings_of(args, cutoffs),
        fairr_words=args.gender_words,
        background=background,
        background_name=args.background,
        n_jobs=args.jobs,
    )


def bias_entries(values: BiasValues, names: list[str], baseline: str | None, args) -> dict[str, dict[str, dict]]:
    """{run: {measure: {"mean", "p_value", "queries"}}}: each run tested against `baseline` (None: no tests) by
    --test over the queries both define, as the effectiveness measures are."""
    from gsr.effectiveness.evaluate import paired_test

    entries: dict[str, dict[str, dict]] = {}
    for name in names:
        entries[name] = {}
        for measure in values.names:
            mine = values.per_query[measure][name]
            p = None
            if baseline is not None and name != baseline:
                p = paired_test(mine, values.per_query[measure][baseline], args.test, args.resamples, args.seed)
            entries[name][measure] = {"mean": values.means[measure][name], "p_value": p, "queries": len(mine)}
    return entries


def agreement_of(names: list[str], reports: list, values: BiasValues, args) -> AgreementReport:
    """How GSR and the bias measures agree about the runs (gsr.fairness.named.agreement_of)."""
    from gsr.fairness.named import agreement_of as agreement

    gsr = {"GSR": {name: report.system for name, report in zip(names, reports)}}
    return agreement(gsr, values, names, args.resamples, args.level, args.seed)


def background_text(settings: dict) -> str:
    """How an output names FaiRR's background: 'each run's own top 200 documents per query', or the run's."""
    from gsr.fairness.fairr_runs import RUN_ITSELF

    depth = settings["background_depth"]
    if settings["background"] == RUN_ITSELF:
        return f"each run's own top {depth} documents per query (no --background)"
    return f"{settings['background']}, its top {depth} documents per query"


def settings_lines(values: BiasValues) -> list[str]:
    """What the bias measures were computed with, one line per family."""
    lines = []
    fairr = values.settings.get("fairr")
    if fairr is not None:
        shares = ", ".join(f"{g} {s:g}" for g, s in fairr["shares"].items())
        lines.append(
            f"FaiRR/NFaiRR: background {background_text(fairr)}; words {fairr['gender_words']} ({fairr['tokens']} "
            f"tokens), threshold {fairr['threshold']:g}, shares {shares}"
        )
        missing = {run: n for run, n in fairr["missing_documents"].items() if n}
        if missing:
            lines += [f"{run}: {n} ranked documents are not in --docs (neutral, ω = 1)" for run, n in missing.items()]
    rab = values.settings.get("rab")
    if rab is not None:
        lines.append(
            f"RaB/ARaB: words {rab['gender_words']}; magnitudes: RaB, ARaB ln(1 + count) (tf), _tc the count, _bool "
            "count > 0"
        )
    return lines


def print_bias(values: BiasValues, entries: dict, names: list[str], args, note: str, baseline: str) -> None:
    """The bias measures' table: each run's means (with the marks of its test against `baseline`), how many
    queries each is defined on, the settings and the skipped queries; `note` says how the p-values were adjusted."""
    from gsr.effectiveness.evaluate import CORRECTED, TEST_NAMES

    width = max(24, *(len(name) for name in names))
    listed = values.names
    print(
        f"Bias measures over the {len(values.queries)} {'judged ' if args.qrels else ''}topics (each a mean over the "
        "topics where it is defined; a topic a run does not answer is left out)"
    )
    print(f"  {'run':<{width}}" + "".join(f" {m:>14}" for m in listed))
    for name in names:
        cells = [format_number(e["mean"]) + e.get("mark", "") for e in entries[name].values()]
        print(f"  {name:<{width}}" + "".join(f" {c:>14}" for c in cells))
    counts = {n: [e["queries"] for e in entries[n].values()] for n in names}
    print(f"  {'(queries defined)':<{width}}" + "".join(f" {_range(counts, i):>14}" for i in range(len(listed))))
    for line in settings_lines(values):
        print(f"  {line}")
    if len(names) > 1 and args.resamples:
        print(
            f"  † / ‡: {TEST_NAMES[args.test]} against {baseline} over the "
            f"topics both define, {CORRECTED[args.correction]} p < 0.05 / p < 0.01 ({note})"
        )
    for name in names:
        for reason, qids in sorted(values.settings["skipped"].get(name, {}).items()):
            shown = ", ".join(qids[:10]) + (" …" if len(qids) > 10 else "")
            print(f"  {name}: skipped ({reason}): {len(qids)} — {shown}")
    print()


def _range(counts: dict, i: int) -> str:
    values = [per_run[i] for per_run in counts.values()]
    return str(min(values)) if min(values) == max(values) else f"{min(values)}-{max(values)}"


def tau_text(tau: dict) -> str:
    """τ of a to_dict()ed Tau as the table shows it: a number, or 'undefined' (the reason follows the table)."""
    value = tau["tau"]
    return "undefined" if isinstance(value, str) else format_number(value, sign=True)


def interval_text(tau: dict) -> str:
    """τ's interval: '[low, high]', or '—' where it or τ is undefined (the reason follows the table)."""
    interval = tau["interval"]
    if interval is None or isinstance(interval, str):
        return "—"
    return f"[{format_number(interval[0], sign=True)}, {format_number(interval[1], sign=True)}]"


def undefined_notes(taus: list[dict]) -> list[str]:
    """Why a τ or its interval is undefined, each reason once with how many pairs of measures it concerns."""
    reasons: dict[str, int] = {}
    for tau in taus:
        for key, what in (("tau", "τ"), ("interval", "no interval")):
            value = tau[key]
            if isinstance(value, str):
                reason = f"{what}: {value.removeprefix('undefined: ')}" if key == "interval" else f"τ {value}"
                reasons[reason] = reasons.get(reason, 0) + 1
                break
    return [f"{reason} ({n} pair{'s' if n > 1 else ''} of measures)" for reason, n in reasons.items()]


def median_rho_text(report: AgreementReport, measures: tuple) -> str:
    """The median per-query Spearman ρ of two measures over the runs: '0.4123 (3 runs)', or 'undefined: why'."""
    rho, runs, why = report.median_correlation(measures)
    return f"undefined: {why}" if rho is None else f"{format_number(rho, sign=True)} ({runs} runs)"


def print_agreement(report: AgreementReport, names: list[str]) -> None:
    """The agreement: τ (with its interval) for every pair of measures, the per-query correlations' median, and each
    pair of runs two measures order oppositely with the queries that drive each verdict."""
    data = report.to_dict()
    settings = data["settings"]
    level = round(settings["level"] * 100)
    print(
        f"Measure agreement over the {len(names)} runs: Kendall τ-b between the orders from least to most biased "
        f"each measure gives (FaiRR/NFaiRR: lower is more biased; RaB/ARaB: farther from 0), {level}% percentile "
        f"bootstrap intervals over the {settings['queries']} queries ({settings['resamples']} resamples, seed "
        f"{settings['seed']})"
    )
    width = max(len(" / ".join(t["measures"])) for t in data["taus"])
    print(f"  {'measures':<{width}} {'τ':>8} {'interval':>20} {'per-query ρ':>14}")
    for tau in data["taus"]:
        pair = " / ".join(tau["measures"])
        rho = median_rho_text(report, tuple(tau["measures"]))
        print(f"  {pair:<{width}} {tau_text(tau):>8} {interval_text(tau):>20} {rho:>14}")
    for note in undefined_notes(data["taus"]):
        print(f"  {note}")
    print("  per-query ρ: Spearman's ρ across queries between the two measures' per-query terms, median over the runs")
    for tau in report.taus:
        found = report.disagreements_of(tau.measures)
        if not found:
            continue
        d = found[0]  # the clearest; --json lists every one
        first, second = d.measures
        drivers = "; ".join(
            f"{m}: " + ", ".join(f"{x.qid} ({format_number(x.contribution, sign=True)})" for x in d.drivers[m])
            for m in d.measures
            if d.drivers.get(m)
        )
        more = (
            f" (clearest of {len(found)} pairs of runs ordered oppositely; --json lists all)" if len(found) > 1 else ""
        )
        print(
            f"  {first} finds {d.systems[0]} more biased than {d.systems[1]}, {second} the opposite{more}"
            + (f"; queries driving each: {drivers}" if drivers else "")
        )
    print()
