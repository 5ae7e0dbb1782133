"""report.html's "How sure" view (docs/report.md, "How sure"): how precise each system's GSR is with the topics the
report measured, how many topics a study would need for a half-width of ±0.02 and ±0.01, and the smallest GSR
difference between the two leading systems these topics can detect; with a chart of the half-width against the
number of topics.

Every number but today's half-width is gsr.planning's (`gsr plan`, docs/planning.md) on the run's own (g(q), g_q(L))
pairs as the pilot, with gsr plan's defaults (the study sizes of DEFAULT_TOPICS and the pilot's own, α = 0.05, power
0.8) but STUDIES simulated studies per study size rather than 2,000, seeded with the report's seed: the analytic
answer where the planner finds it agrees with the resampled one, the resampled one where it does not
(precision.judged, power.detection). Today's half-width is half the width of the interval the report shows (its
bootstrap, with the report's resamples).

`how_sure` computes the facts of one measuring embedding, a pure function of its GSR results and settings (so it can be
cached by them); `rendered` makes the table, the sentences and the chart the page shows from those facts, when the page
is written (as summary.rendered does). Where a quantity does not exist (GSR undefined, no interval, fewer than two
systems, a target out of reach) its cell or sentence says "undefined: " and why, never a number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gsr.errors import InputError
from gsr.infra.numeric import finite, format_interval, format_number
from gsr.planning.options import DEFAULT_ALPHA, DEFAULT_POWER, DEFAULT_STUDIES, DEFAULT_TOPICS
from gsr.planning.planner import GSR_MEASURE, pilot_run, slope_pair
from gsr.planning.power import detection
from gsr.planning.precision import monte_carlo_error, precision, topics_for_width
from gsr.planning.studies import StudyDraws

TARGET_WIDTHS = (0.02, 0.01)  # the half-widths the view gives the topics for
# Simulated studies per study size: a quarter of gsr plan's default keeps the view a small part of writing the report
# (docs/report.md, "How sure": its cost); their Monte Carlo error (4.3% of a half-width at 95%) is about the one a
# pilot's own σ̂ brings (√(1/(2m)): 4.5% at 250 topics), and precision.agreement_tolerance counts it
STUDIES = 500
UNDEFINED = "undefined: "


def _interval_why(result) -> str | None:
    """Why `result` has no interval to take today's half-width from; None where it has one."""
    ci = result.ci
    if ci is None:
        return "no interval (the report was made without bootstrap resamples)"
    if finite(ci.low) is None or finite(ci.high) is None:
        return ci.reason or "fewer than two bootstrap resamples had a slope"
    return None


def _precision_facts(name: str, result, level: float, draws) -> tuple[dict, Any]:
    """One system's facts (its row of the table and its half-width curve), and its pilot (None where it has none:
    then `why` says why)."""
    gsr = finite(result.gsr)
    entry: dict = {
        "system": name,
        "gsr": gsr,
        "ci": result.ci.to_list() if result.ci is not None else None,
        "gsr_why": None if gsr is not None else result.error or "it could not be computed",
        "n": None,
        "half_width": None,
        "half_width_why": "GSR is undefined" if gsr is None else _interval_why(result),
        "needed": [[None, None] for _ in TARGET_WIDTHS],  # [topics, why there are none] per target
        "why": "GSR is undefined" if gsr is None else None,  # why there is no pilot to plan from
        "method": None,
        "method_why": None,
        "curve": None,
    }
    if gsr is not None and entry["half_width_why"] is None:
        entry["half_width"] = (result.ci.high - result.ci.low) / 2
    if gsr is None:
        return entry, None
    try:
        pilot = pilot_run(name, result)
    except InputError as err:  # fewer than three topics with both values, or no spread of g(q)
        entry["why"] = str(err)
        return entry, None
    planned = precision(pilot.x, pilot.y, DEFAULT_TOPICS, level, None, draws)
    entry.update(n=planned.n_pilot, method=planned.method, method_why=planned.method_why)
    entry["needed"] = [list(topics_for_width(pilot.x, pilot.y, w, level, planned.method, draws)) for w in TARGET_WIDTHS]
    sizes = sorted(planned.half_width_analytic)
    entry["curve"] = {
        "n": sizes,
        "resampled": [finite(planned.half_width[n]) for n in sizes],
        "analytic": [finite(planned.half_width_analytic[n]) for n in sizes],
    }
    return entry, pilot


def leading_pair(systems: list[dict]) -> list[str]:
    """The two systems of largest GSR (the first listed where GSRs tie); fewer where fewer have a defined GSR."""
    defined = [s for s in systems if s["gsr"] is not None]
    ranked = sorted(range(len(defined)), key=lambda i: (-defined[i]["gsr"], i))
    return [defined[i]["system"] for i in ranked[:2]]


def _pair_facts(systems: list[dict], pilots: dict, draws) -> dict:
    """The minimal detectable GSR difference between the two leading systems at their common topics, or why there is
    none."""
    leading = leading_pair(systems)
    facts: dict = {"a": None, "b": None, "n": None, "observed": None, "mdd": None, "method": None, "method_why": None}
    if len(systems) < 2:
        return {**facts, "why": "the report has one system: there is no pair of systems to compare"}
    if len(leading) < 2:
        who = "no system has" if not leading else "only one system has"
        return {**facts, "why": f"{who} a defined GSR: there is no pair of systems to compare"}
    a, b = leading
    facts.update(a=a, b=b)
    without = [s for s in systems if s["system"] in leading and pilots[s["system"]] is None]
    if without:
        return {**facts, "why": without[0]["why"]}
    try:
        design = slope_pair(a, pilots[a], b, pilots[b])
    except InputError as err:  # fewer than three common topics, or no spread of their g(q)
        return {**facts, "why": str(err)}
    found = detection(design, (a, b, GSR_MEASURE), DEFAULT_TOPICS, None, DEFAULT_ALPHA, DEFAULT_POWER, draws)
    facts.update(n=found.n_pilot, observed=finite(found.observed), mdd=finite(found.minimal_detectable_difference))
    facts.update(method=found.method or None, method_why=found.method_why or None)
    facts["why"] = found.why.get("minimal_detectable_difference") if facts["mdd"] is None else None
    return facts


def how_sure(results: Mapping[str, object], level: float, seed: int, studies: int = STUDIES) -> dict:
    """The "How sure" facts of one measuring embedding: for each system (`results`: {name: GSRResult}, the systems in
    the page's order, no engine), today's half-width, the topics for each of TARGET_WIDTHS ([n, why] each, n None
    where out of reach) and its half-width curve; for the two leading systems by GSR, the minimal detectable
    difference at their common topics.

    Args:
        results: {system: its GSRResult}.
        level: The interval's confidence level (the report's).
        seed: The seed of the simulated studies (the report's).
        studies: Simulated studies per study size.

    Returns:
        {"level", "studies", "seed", "alpha", "power", "targets", "systems": [...], "leading", "pair"}.
    """
    draws = StudyDraws(studies, seed)  # one set of studies for every system: common random numbers
    systems, pilots = [], {}
    for name, result in results.items():
        entry, pilots[name] = _precision_facts(name, result, level, draws)
        systems.append(entry)
    return {
        "level": level,
        "studies": studies,
        "seed": seed,
        "alpha": DEFAULT_ALPHA,
        "power": DEFAULT_POWER,
        "targets": list(TARGET_WIDTHS),
        "systems": systems,
        "leading": leading_pair(systems),
        "pair": _pair_facts(systems, pilots, draws),
    }


# ----------------------------------------------------------------------------------------------- what the page shows
def _said(value: str | None, why: str | None) -> str:
    """A cell: the value, or "undefined: why"."""
    return value if value is not None else UNDEFINED + (why or "not computed")


def _half_width(width: float | None, why: str | None) -> str:
    return _said(None if width is None else f"±{format_number(width)}", why)


def _sort(value, text: str):
    return value if isinstance(value, (int, float)) and math.isfinite(value) else text


def table(facts: dict) -> dict:
    """The view's table (the shape html.table_entry gives report.js): a row per system, its GSR and interval, the
    topics it was measured on, today's half-width, the topics for each target and which answer gave them."""
    conf = f"{round(facts['level'] * 100)}%"
    columns = ["system", f"GSR [{conf} interval]", "topics", f"half-width of its {conf} interval"]
    columns += [f"topics for ±{width:g}" for width in facts["targets"]] + ["answer"]
    cells, sort = [], []
    for s in facts["systems"]:
        gsr = None if s["gsr"] is None else f"{format_number(s['gsr'], sign=True)} {format_interval(s['ci'])}".strip()
        line = [s["system"], _said(gsr, s["gsr_why"]), _said(None if s["n"] is None else f"{s['n']:,}", s["why"])]
        line.append(_half_width(s["half_width"], s["half_width_why"]))
        line += [_said(None if n is None else f"{n:,}", why or s["why"]) for n, why in s["needed"]]
        line.append(_said(s["method"], s["why"]))
        cells.append(line)
        keys = [s["system"], s["gsr"], s["n"], s["half_width"], *(n for n, _ in s["needed"]), s["method"]]
        sort.append([_sort(key, text) for key, text in zip(keys, line)])
    return {"columns": columns, "cells": cells, "sort": sort}


def lead(facts: dict) -> str:
    """The view's first sentence: the smallest GSR difference between the two leading systems that these topics can
    detect, or why there is none."""
    pair = facts["pair"]
    alpha, power = format_number(facts["alpha"], 2), format_number(facts["power"], 1)
    what = (
        "The smallest GSR difference between the two leading systems that these topics can detect (paired "
        f"randomisation test over topics, two-sided α = {alpha}, power {power})"
    )
    if pair["a"] is None:
        return f"{what} is {UNDEFINED}{pair['why']}."
    gsr = {s["system"]: s["gsr"] for s in facts["systems"]}
    who = ", ".join(f"{name} (GSR {format_number(gsr[name], sign=True)})" for name in (pair["a"], pair["b"]))
    if pair["mdd"] is None:
        return f"{what}, {who}, is {UNDEFINED}{pair['why']}."
    answer = "analytic" if pair["method"] == "analytic" else f"resampled, since {pair['method_why']}"
    return (
        f"{what}, {who}, on their {pair['n']:,} common topics: {format_number(pair['mdd'])} ({answer}). Their own "
        f"difference is {format_number(pair['observed'], sign=True)}."
    )


def notes(facts: dict) -> list[str]:
    """Where the numbers come from, and each system whose answer is the resampled one, with why."""
    conf = f"{round(facts['level'] * 100)}%"
    targets = " and ".join(f"±{width:g}" for width in facts["targets"])
    error = format_number(100 * monte_carlo_error(facts["level"], facts["studies"]), 1)
    source = (
        f"Today's half-width is half the width of each system's {conf} bootstrap interval, the one the results table "
        f"shows. The topics for {targets} are gsr plan's (docs/planning.md), each system's own (g(q), g_q(L)) pairs "
        f"the pilot, with {facts['studies']:,} simulated studies per study size (seed {facts['seed']}; gsr plan's "
        f"default is {DEFAULT_STUDIES:,}: fewer keep this page quick to write; their Monte Carlo error is about "
        f"{error} % of a half-width): the analytic answer (Student's t times the slope's standard error, scaled to n "
        "topics) where it agrees with the resampled one, else the resampled one (answer: resampled)."
    )
    return [source] + [f"{s['system']}: {s['method_why']}." for s in facts["systems"] if s["method"] == "resampled"]


CURVES = ("#1b9e77", "#d95f02")  # the two leading systems' colours (the first two of report.js's scatter palette)


def precision_chart(facts: dict, label: str) -> Any:
    """The half-width of GSR's interval against the number of topics for the two leading systems: resampled (solid,
    points) and analytic (dashed), each system's today's half-width at its topics marked (a ring), the targets as
    dotted lines; n on a log scale. Every string from the data goes through plotly_text."""
    import plotly.graph_objects as go

    from experiments.report.plotly_charts import plotly_text

    by = {s["system"]: s for s in facts["systems"]}
    fig = go.Figure()
    for colour, name in zip(CURVES, facts["leading"]):
        s, shown = by[name], plotly_text(name)
        if not s["curve"]:
            continue
        for how, dash, mode in (("resampled", "solid", "lines+markers"), ("analytic", "dash", "lines")):
            fig.add_trace(
                go.Scatter(
                    x=s["curve"]["n"],
                    y=s["curve"][how],
                    mode=mode,
                    name=f"{shown}, {how}",
                    line={"color": colour, "dash": dash, "width": 2},
                    marker={"size": 6},
                    text=[_half_width(w, "fewer than two simulated studies had a slope") for w in s["curve"][how]],
                    hovertemplate=f"{shown}, {how}<br>%{{x:,}} topics: half-width %{{text}}<extra></extra>",
                )
            )
        if s["half_width"] is not None:
            fig.add_trace(
                go.Scatter(
                    x=[s["n"]],
                    y=[s["half_width"]],
                    mode="markers",
                    name=f"{shown}: today, {s['n']:,} topics",
                    marker={"color": colour, "size": 15, "symbol": "circle-open", "line": {"width": 3}},
                    text=[_half_width(s["half_width"], None)],
                    hovertemplate=f"{shown}: today's %{{x:,}} topics<br>half-width %{{text}}<extra></extra>",
                )
            )
    for width in facts["targets"]:  # the wider target's label above its line, the narrower's below: never on each other
        fig.add_hline(
            y=width,
            line_dash="dot",
            line_color="#555555",
            line_width=1,
            annotation_text=f"±{width:g}",
            annotation_position="top right" if width == max(facts["targets"]) else "bottom right",
            annotation_font_size=11,
        )
    conf = f"{round(facts['level'] * 100)}%"
    fig.update_layout(
        title={"text": plotly_text(f"GSR's {conf} interval against the number of topics, under {label}"), "x": 0},
        xaxis={"type": "log", "title": {"text": "topics (n), log scale"}},
        yaxis={"title": {"text": f"half-width of GSR's {conf} interval"}, "rangemode": "tozero"},
        height=460,
        template="plotly_white",
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"font": {"size": 11}},
        hovermode="closest",
    )
    return fig


def rendered(facts_by_label: dict) -> dict:
    """{label: facts} with what the page shows of each (made when the page is written, from the facts as they are
    then): its lead sentence, chart (as plotly.js draws it), table and notes."""
    import json

    return {
        label: {
            **facts,
            "lead": lead(facts),
            "chart": json.loads(precision_chart(facts, label).to_json()),
            "table": table(facts),
            "notes": notes(facts),
        }
        for label, facts in facts_by_label.items()
    }
