"""report.html's "How sure" view (experiments.report.how_sure): every number is gsr.planning's on the same pairs
(gsr.plan, called here independently) or the shown interval's; each quantity that does not exist says "undefined: "
and why; names with markup reach Plotly escaped. The page in Chromium: tests/experiments/test_report_html.py and
test_report_scored.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gsr
from experiments.report.how_sure import STUDIES, TARGET_WIDTHS, how_sure, leading_pair, rendered
from gsr.planning.options import MAX_TOPICS
from gsr.planning.precision import monte_carlo_error
from gsr.results import GSRResult, QueryResult, add_uncertainty
from gsr.uncertainty import bootstrap_fit, percentile_interval
from gsr.validation.planning import SimulatedTopics

LEVEL, SEED, RESAMPLES = 0.9, 3, 500


def measured(points: dict[str, tuple[float, float]], resamples: int = RESAMPLES) -> GSRResult:
    """A GSRResult of these (g(q), g_q(L)) points with its bootstrap interval, as a report holds one."""
    x, y = np.array([g for g, _ in points.values()]), np.array([l for _, l in points.values()])
    slope = float(np.polyfit(x, y, 1)[0])
    result = GSRResult(slope, [QueryResult(q, g, l) for q, (g, l) in points.items()])
    add_uncertainty([result], resamples=resamples, level=LEVEL, seed=SEED)
    return result


@pytest.fixture(scope="module")
def pilots() -> dict[str, dict]:
    """Three systems on 117 topics (slopes 0.2, 0.15, 0.3: "s2" and "s0" lead), and one whose noise grows with |g(q)|
    (the planner answers it by resampling)."""
    found = SimulatedTopics(slopes=(0.2, 0.15, 0.3)).pilot(117, 0)
    found["wide"] = SimulatedTopics(slopes=(0.1,), heteroscedastic=True).pilot(117, 1)["s0"]
    return found


@pytest.fixture(scope="module")
def facts(pilots) -> dict:
    return how_sure({name: measured(p) for name, p in pilots.items()}, LEVEL, SEED)


def test_todays_half_width_is_half_the_shown_interval(pilots, facts):
    for entry in facts["systems"]:
        points = pilots[entry["system"]]
        x, y = np.array([g for g, _ in points.values()]), np.array([l for _, l in points.values()])
        interval = percentile_interval(bootstrap_fit(list(points), x, y, RESAMPLES, SEED).slopes, LEVEL)
        low, high = interval.low, interval.high
        assert low is not None and high is not None and entry["ci"] == [low, high]
        assert entry["half_width"] == pytest.approx((high - low) / 2, rel=1e-12)
        assert entry["n"] == 117


@pytest.mark.parametrize("target", TARGET_WIDTHS)
def test_the_topics_for_a_target_are_gsr_plans(pilots, facts, target):
    """Each system's topics for ±0.02 and ±0.01, its curves and its answer are gsr.plan's with the same pilot,
    studies, seed and level (the wide system's the resampled ones)."""
    for entry in facts["systems"]:
        name = entry["system"]
        planned = gsr.plan({name: pilots[name]}, level=LEVEL, target_width=target, resamples=STUDIES, seed=SEED)
        run = planned.runs[name]
        assert entry["needed"][TARGET_WIDTHS.index(target)] == [run.n_for_target_width, None]
        assert (entry["method"], entry["method_why"]) == (run.method, run.method_why)
        assert entry["curve"]["n"] == sorted(run.half_width)
        assert entry["curve"]["resampled"] == [run.half_width[n] for n in entry["curve"]["n"]]
        assert entry["curve"]["analytic"] == [run.half_width_analytic[n] for n in entry["curve"]["n"]]
    assert {s["system"]: s["method"] for s in facts["systems"]}["wide"] == "resampled"


def test_the_minimal_detectable_difference_is_gsr_plans_for_the_leading_pair(pilots, facts):
    assert facts["leading"] == ["s2", "s0"]
    planned = gsr.plan({"s2": pilots["s2"], "s0": pilots["s0"]}, level=LEVEL, resamples=STUDIES, seed=SEED)
    (pair,) = planned.pairs
    found = facts["pair"]
    assert (found["a"], found["b"], found["n"]) == ("s2", "s0", 117)
    assert found["mdd"] == pair.minimal_detectable_difference and found["why"] is None
    assert found["observed"] == pytest.approx(pair.observed) and found["method"] == pair.method


def test_the_page_shows_the_facts_with_the_tables_formatter(facts):
    (view,) = rendered({"glove": facts}).values()
    table = view["table"]
    assert table["columns"] == [
        "system",
        "GSR [90% interval]",
        "topics",
        "half-width of its 90% interval",
        "topics for ±0.02",
        "topics for ±0.01",
        "answer",
    ]
    for line, keys, entry in zip(table["cells"], table["sort"], facts["systems"]):
        low, high = entry["ci"]
        assert line[1] == f"{entry['gsr']:+.4f} [{low:+.4f}, {high:+.4f}]"
        assert line[2:4] == ["117", f"±{entry['half_width']:.4f}"]
        assert line[4:6] == [f"{n:,}" for n, _ in entry["needed"]] and line[6] == entry["method"]
        assert keys[3:6] == [entry["half_width"], *(n for n, _ in entry["needed"])]  # sorted by the numbers
    mdd = facts["pair"]["mdd"]
    assert f"s2 (GSR {facts['systems'][2]['gsr']:+.4f}), s0 (GSR {facts['systems'][0]['gsr']:+.4f})" in view["lead"]
    assert f"on their 117 common topics: {mdd:.4f} (" in view["lead"]
    assert f"with {STUDIES} simulated studies per study size (seed 3; gsr plan's default is 2,000" in view["notes"][0]
    assert f"about {100 * monte_carlo_error(LEVEL, STUDIES):.1f} % of a half-width" in view["notes"][0]
    assert view["notes"][1].startswith("wide: at the pilot's 117 topics the resampled half-width is")
    traces = view["chart"]["data"]
    assert [t["name"] for t in traces] == [
        f"{name}, {how}" if how else f"{name}: today, 117 topics"
        for name in ("s2", "s0")
        for how in ("resampled", "analytic", None)
    ]
    s2 = facts["systems"][2]
    assert traces[0]["y"] == s2["curve"]["resampled"] and traces[2]["y"] == [s2["half_width"]]


# ------------------------------------------------------------------------------------------------ undefined
def _cells(facts: dict) -> dict[str, list[str]]:
    view = rendered({"e": facts})["e"]
    return {line[0]: line for line in view["table"]["cells"]}


def _number_free(text: str) -> bool:
    return text.startswith("undefined: ")


def test_an_undefined_gsr_is_said_and_never_ranked(pilots):
    undefined = GSRResult(None, [QueryResult("q1", 0.1, 0.2)], error="fewer than two queries with a g(q)")
    facts = how_sure({"s0": measured(pilots["s0"]), "none": undefined, "s1": measured(pilots["s1"])}, LEVEL, SEED)
    assert facts["leading"] == ["s0", "s1"]
    line = _cells(facts)["none"]
    assert line[1] == "undefined: fewer than two queries with a g(q)"
    assert all(_number_free(cell) for cell in line[2:])
    assert line[3] == "undefined: GSR is undefined"


def test_one_system_has_no_pair_and_no_defined_system_neither(pilots):
    alone = how_sure({"s0": measured(pilots["s0"])}, LEVEL, SEED)
    assert alone["pair"]["why"] == "the report has one system: there is no pair of systems to compare"
    view = rendered({"e": alone})["e"]
    assert view["lead"].endswith("is undefined: the report has one system: there is no pair of systems to compare.")
    assert [t["name"] for t in view["chart"]["data"]] == ["s0, resampled", "s0, analytic", "s0: today, 117 topics"]
    undefined = GSRResult(None, [], error="no query measured")
    one = how_sure({"s0": measured(pilots["s0"]), "x": undefined}, LEVEL, SEED)
    assert one["pair"]["why"] == "only one system has a defined GSR: there is no pair of systems to compare"
    none = how_sure({"x": undefined, "y": undefined}, LEVEL, SEED)
    assert none["pair"]["why"] == "no system has a defined GSR: there is no pair of systems to compare"
    assert rendered({"e": none})["e"]["chart"]["data"] == []


def test_a_target_out_of_reach_is_undefined():
    """g(q) spread ±0.01 and noise of 1: ±0.01 would need ~10⁹ topics, beyond MAX_TOPICS."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-0.01, 0.01, 30)
    points = {f"q{i}": (float(g), float(rng.normal(0, 1))) for i, g in enumerate(x)}
    facts = how_sure({"noisy": measured(points)}, LEVEL, SEED)
    (entry,) = facts["systems"]
    assert all(n is None for n, _ in entry["needed"])
    line = _cells(facts)["noisy"]
    assert line[5] == f"undefined: a half-width of 0.01 needs more than {MAX_TOPICS:,} topics"


def test_no_interval_and_too_few_topics_are_undefined(pilots):
    """Without resamples there is no interval to take today's half-width from (the plan still answers); a GSR of two
    topics has no pilot (the planner needs three), and the pair with it has no detectable difference."""
    unsure = how_sure({"s0": measured(pilots["s0"], resamples=0)}, LEVEL, SEED)
    line = _cells(unsure)["s0"]
    assert line[3] == "undefined: no interval (the report was made without bootstrap resamples)"
    assert line[4].replace(",", "").isdigit()
    two = GSRResult(1.0, [QueryResult("q0", -0.1, -0.1), QueryResult("q1", 0.1, 0.1)])
    facts = how_sure({"two": two, "s0": measured(pilots["s0"])}, LEVEL, SEED)
    line = _cells(facts)["two"]
    why = "pilot run two: 2 topics with both g(q) and g_q(L); a plan needs at least 3"
    assert line[2] == line[4] == line[5] == f"undefined: {why}" and facts["pair"]["why"] == why
    assert facts["pair"]["mdd"] is None


def test_identical_leading_systems_have_no_detectable_difference(pilots):
    same = measured(pilots["s0"])
    facts = how_sure({"a": same, "b": same}, LEVEL, SEED)
    assert facts["pair"]["mdd"] is None and "no noise to plan from" in facts["pair"]["why"]
    assert "is undefined: the two runs' g_q(L) differ by exactly" in rendered({"e": facts})["e"]["lead"]


def test_leading_pair_ties_keep_the_listed_order():
    systems = [{"system": s, "gsr": g} for s, g in (("a", 0.1), ("b", None), ("c", 0.3), ("d", 0.3))]
    assert leading_pair(systems) == ["c", "d"]
    assert leading_pair(systems[:2]) == ["a"] and leading_pair([]) == []


def test_names_with_markup_reach_plotly_as_entities(pilots):
    name = "<b>x</b> %{y}"
    facts = how_sure({name: measured(pilots["s0"]), "s1": measured(pilots["s1"])}, LEVEL, SEED)
    view = rendered({"<i>e</i>": facts})["<i>e</i>"]
    assert view["table"]["cells"][0][0] == name  # the page puts it in a text node
    strings = [t["name"] for t in view["chart"]["data"]] + [t["hovertemplate"] for t in view["chart"]["data"]]
    strings.append(view["chart"]["layout"]["title"]["text"])
    assert not [s for s in strings if "<b>" in s or "<i>" in s or "%{y}" in s]
    assert any("&#60;b&#62;x&#60;/b&#62; &#37;{y}" in s for s in strings)
    assert "&#60;i&#62;e&#60;/i&#62;" in view["chart"]["layout"]["title"]["text"]
    assert math.isfinite(facts["pair"]["mdd"])
