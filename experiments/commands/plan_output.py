"""What `gsr plan` prints (the precision, detectable-difference and chosen-topics tables) and writes (--json)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from gsr.infra import logs
from gsr.infra.numeric import format_number

log = logs.get("cli")
CELL = 10  # width of a number column
LINE = 118  # notes are wrapped to this width


def note(text: str) -> None:
    """A note under a table, wrapped, its continuation lines indented."""
    print(textwrap.fill(text, LINE, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False))


def _sizes_header(sizes: list[int], pilot: set[int]) -> str:
    return "".join(f"{str(n) + ('*' if n in pilot else ''):>{CELL}}" for n in sizes)


def _cells(values: dict | None, sizes: list[int], digits: int = 4) -> str:
    """Each size's value; 'undefined' where it has none, '—' where it was not asked for (another pilot's n)."""
    values = values or {}
    return "".join(
        f"{format_number(values[n], digits, missing='undefined') if n in values else '—':>{CELL}}" for n in sizes
    )


def _width(names) -> int:
    return max(12, *(len(name) for name in names))


def print_plan(result, args) -> None:
    """The plan as tables on stdout: precision per run, detectable differences per pair, the chosen topics."""
    settings = result.settings
    source = (
        f"the output folder {args.pilot} (GSR under {args.label or 'its first embedding'})"
        if args.pilot
        else (f"{len(result.runs)} run{'s' if len(result.runs) > 1 else ''} under {args.embedding}")
    )
    print(
        f"Study plan from {source}: {settings['resamples']:,} simulated studies per study size (seed "
        f"{settings['seed']}); a run's pilot n: its topics with both g(q) and g_q(L)"
    )
    print()
    print_precision(result)
    if result.pairs or result.measures:
        print()
        print_detection(result)
    if result.selection is not None:
        print()
        print_selection(result, args)


def print_precision(result) -> None:
    level = result.settings["level"]
    sizes = sorted({n for p in result.runs.values() for n in p.half_width})
    pilot = {p.n_pilot for p in result.runs.values()}
    width = _width(result.runs)
    print(f"Half-width of GSR's {level:.0%} interval for a study of n topics")
    print(f"  {'run':<{width}} {'how':<10}{_sizes_header(sizes, pilot)}")
    for name, p in result.runs.items():
        print(f"  {name:<{width}} {'resampled':<10}{_cells(p.half_width, sizes)}")
        print(f"  {'':<{width}} {'analytic':<10}{_cells(p.half_width_analytic, sizes)}")
    note(
        f"* the pilot's own n. resampled: half the central {level:.0%} of GSR over {result.settings['resamples']:,} "
        "studies of n topics drawn with replacement from the pilot's (at the pilot's n: gsr score's bootstrap); "
        "analytic: t(n − 2) × the slope's standard error, scaled to n"
    )
    target = result.settings["target_width"]
    for name, p in result.runs.items():
        note(f"{name}: {p.method} used: {p.method_why}")
        for n, lost in p.undefined_studies.items():
            note(f"{name}: {lost:,} of the studies of {n} topics had no slope (one distinct g(q)); left out")
            if p.half_width[n] is None:
                note(f"{name}: the resampled half-width at n = {n} is undefined: fewer than two studies had a slope")
        if target is not None and p.n_for_target_width is None:  # p.why names the half-width already
            note(f"{name}: the topics a half-width of ±{target:g} needs are undefined: {p.why} ({p.method})")
        elif target is not None:
            note(f"{name}: a half-width of ±{target:g} needs {p.n_for_target_width:,} topics ({p.method})")


def print_detection(result) -> None:
    settings = result.settings
    detections = [*result.pairs, *(d for found in result.measures.values() for d in found)]
    width = _width([name for d in detections for name in (d.a, d.b)])
    measure_width = _width([d.measure for d in detections])
    differences = settings["difference"] or {}
    print(
        f"Differences between two runs, paired over topics (two-sided α = {settings['alpha']:g}, "
        f"power {settings['power']:g})"
    )
    print(
        f"  {'measure':<{measure_width}} {'a':<{width}} {'b':<{width}} {'a − b':>9} {'MDD':>9} {'D':>9} "
        f"{'n for D':>9}  {'method':<10} test"
    )
    for d in detections:
        difference = differences.get(d.measure)
        mdd = format_number(d.minimal_detectable_difference, 4, missing="undefined")
        needed = "—" if difference is None else "undefined" if d.n_for_difference is None else f"{d.n_for_difference:,}"
        print(
            f"  {d.measure:<{measure_width}} {d.a:<{width}} {d.b:<{width}} {format_number(d.observed, 4, sign=True):>9}"
            f" {mdd:>9} {format_number(difference, 4, missing='—'):>9} {needed:>9}  {d.method or '—':<10} {d.test}"
        )
    note(
        "a − b: the pilot's difference; MDD: the smallest difference (either way) detected with the power asked at "
        "the pilot's n; D: the difference asked for (--difference), n for D: the topics it needs"
    )
    for d in detections:
        for field, why in d.why.items():
            if field != "power" and (field != "n_for_difference" or d.difference is not None):
                note(f"{d.measure} {d.a} − {d.b}: {field.replace('_', ' ')} undefined: {why}")
        if d.method == "resampled":
            note(f"{d.measure} {d.a} − {d.b}: resampled used: {d.method_why}")
    powered = [d for d in detections if d.power is not None]
    if powered:
        sizes = sorted({n for d in powered for n in d.power or {}})
        print()
        print("Power to detect D for a study of n topics")
        print(f"  {'pair':<{measure_width + 2 * width + 5}} {'how':<10}{_sizes_header(sizes, set())}")
        for d in powered:
            label = f"{d.measure} {d.a} − {d.b}"
            print(f"  {label:<{measure_width + 2 * width + 5}} {'resampled':<10}{_cells(d.power, sizes, 3)}")
            print(f"  {'':<{measure_width + 2 * width + 5}} {'analytic':<10}{_cells(d.power_analytic, sizes, 3)}")


def print_selection(result, args) -> None:
    s = result.selection
    n = len(s.queries)
    neutral = (
        f"{s.neutral} neutral (|g(q)| ≤ {s.neutral_bound:.4f})" if s.neutral_bound is not None else "no neutral share"
    )
    strata = f"{s.strata} equal-count strata of g(q)" if s.strata else "no strata"
    print(
        textwrap.fill(
            f"Topics chosen from {args.pool}: {n:,} of {s.pool_size:,} queries ({s.measurable:,} with a g(q)); "
            f"{neutral}; {strata}; the widest spread of g(q) these allow",
            LINE,
            subsequent_indent="  ",
        )
    )
    width = _width(result.runs)
    print(f"  {'design':<20} {'Σ(x − x̄)²':>10}  half-width of GSR's {result.settings['level']:.0%} interval")
    print(f"  {'':<20} {'':>10}  " + " ".join(f"{name:>{width}}" for name in s.half_width))
    for design, label, spread in (("chosen", "chosen", s.spread), ("random", "random (expected)", s.random_spread)):
        cells = " ".join(f"{format_number(w[design], 4, missing='undefined'):>{width}}" for w in s.half_width.values())
        print(f"  {label:<20} {spread:>10.4f}  {cells}")
    note(
        "half-width: t(n − 2) × the pilot's residual σ / √Σ(x − x̄)² (analytic); random: a simple random sample of "
        "the pool's measurable queries. The chosen set estimates the slope over this design (docs/planning.md)"
    )
    texts = getattr(args, "pool_queries", {})
    qid_width = max(6, *(len(q) for q, _ in s.queries))
    print(f"  {'qid':<{qid_width}} {'g(q)':>8}  text")
    for qid, g in s.queries:
        print(f"  {qid:<{qid_width}} {g:>+8.4f}  {' '.join(texts.get(qid, '').split())}")


def write_json(result, args) -> None:
    """--json: the plan (gsr.planning.planner.Plan.to_dict) with what the pilot was, created only where no file is,
    unless --overwrite."""
    from gsr.infra.outputs import place_file

    document = {
        "pilot": {
            "runs": args.run,
            "topics": args.topics,
            "docs": args.docs,
            "qrels": args.qrels,
            "folder": args.pilot,
            "label": args.label,
            "embedding": args.embedding,
            "pool": args.pool,
        },
        **result.to_dict(),
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    def write(path: Path) -> None:
        path.write_text(text, encoding="utf-8")

    place_file(write, args.json, args.overwrite, "--json", "planning")
    log.info("wrote %s", args.json)
