"""The report's summary reads GSR as the paper does (summary.READINGS): each case of a system's GSR against the perfect
engine and against 0 gives its sentence, word for word, with its numbers as the tables round them and the family its
p-values were adjusted over; every system is listed once; a GSR that is undefined is said so and never ranked or
drawn; the forest plot shows each system's GSR and interval, sorted, variants below their regular system, with 0 and
the two engines marked. Numbers in charts and texts use the tables' one formatter (gsr.infra.numeric)."""

from __future__ import annotations

import re

import pytest

from experiments.report.summary import (
    ABOVE,
    AGAINST,
    BELOW,
    FOLLOWS,
    LEVEL,
    NO_INTERVAL,
    UNCLEAR,
    UNTESTED,
    adjusted,
    label_sentences,
    label_summary,
    plural,
    share,
    versus_perfect,
    versus_zero,
)
from gsr.infra.numeric import format_interval, format_p, p_clause

HOLM = {"method": "holm", "tests": 152, "scope": "this table"}
E_NOTATION = re.compile(r"\d\.?\d*e[+-]?\d", re.I)  # 4.6e-05, 1.17e+05: never in what the page shows


def _row(name: str, gsr, ci=None, p=None, relative=None, error=None) -> dict:
    entry = {"gsr": gsr, "ci": ci, "relative": relative, "relative_ci": None, "p_adjusted": p, "error": error}
    return {"system": name, "gsr": {"g": entry}}


def _engines(perfect=0.2, random=0.01) -> list[dict]:
    return [_row("perfect", perfect, [perfect - 0.05, perfect + 0.05]), _row("random", random, [-0.03, 0.05])]


def _text(parts: list) -> str:
    """A claim's parts as the page shows them (the links as their buttons' texts are left out)."""
    return "".join(p if isinstance(p, str) else p.get("strong") or p.get("number") or "" for p in parts)


def _claims(rows, correction=HOLM, level=0.95, pairs=None, variants=None) -> dict[str, dict]:
    facts = label_summary(rows, "g", {}, variants, pairs=pairs)
    claims = label_sentences(facts, level, correction)
    return {c["claim"]: {"text": _text(c["parts"]), "items": [_text(i["parts"]) for i in c["items"]]} for c in claims}


# ---------------------------------------------------------------------------------------------------- the cases
@pytest.mark.parametrize(
    ("gsr", "perfect", "p", "reading"),
    [
        (0.3, 0.2, 0.01, ABOVE),
        (0.1, 0.2, 0.01, BELOW),
        (-0.1, 0.2, 0.049, BELOW),
        (0.3, 0.2, 0.05, LEVEL),  # p = 0.05 is not under 0.05
        (0.1, 0.2, 0.5, LEVEL),
        (0.3, None, None, UNTESTED),
        (0.3, 0.2, None, UNTESTED),
        (None, 0.2, None, UNTESTED),
    ],
)
def test_a_gsr_against_the_perfect_engine(gsr, perfect, p, reading):
    assert versus_perfect(gsr, perfect, p) == reading


@pytest.mark.parametrize(
    ("gsr", "ci", "reading"),
    [
        (0.2, [0.01, 0.4], FOLLOWS),
        (-0.2, [-0.4, -0.01], AGAINST),
        (0.2, [-0.01, 0.4], UNCLEAR),
        (0.0, [0.0, 0.4], UNCLEAR),  # an interval touching 0 contains it
        (0.2, None, NO_INTERVAL),
        (0.2, [None, None], NO_INTERVAL),
        (None, [0.1, 0.2], NO_INTERVAL),
    ],
)
def test_a_gsr_against_zero(gsr, ci, reading):
    assert versus_zero(gsr, ci) == reading


def test_counts_agree_in_number():
    assert [share(0, 3), share(1, 1), share(2, 2), share(3, 3), share(1, 3), share(2, 31)] == [
        "No system",
        "The one system",
        "Both systems",
        "All 3 systems",
        "1 of 3 systems",
        "2 of 31 systems",
    ]
    assert [plural(1, "pair"), plural(2, "pair"), plural(1, "test")] == ["1 pair", "2 pairs", "1 test"]


def test_a_correction_says_over_which_family():
    assert adjusted(HOLM) == "Holm-adjusted p < 0.05 over the 152 tests of this table"
    assert adjusted({"method": "bonferroni", "tests": 1, "scope": "Table 2"}, "≥") == (
        "Bonferroni-adjusted p ≥ 0.05 over the 1 test of Table 2"
    )
    assert adjusted({"method": "none", "tests": 4, "scope": "this table"}) == (
        "p < 0.05, unadjusted over the 4 tests of this table"
    )


# ------------------------------------------------------------------------------------------------ the sentences
def test_two_systems_below_the_perfect_engine_do_not_reinforce():
    """Grep-BiasIR's case (issue 37.3): both systems have GSR > 0 but significantly below the perfect engine's
    (relative GSR −41.3 % and −16.5 %): the summary says their lists follow the queries' gender less than the judged
    relevant documents do, and that no system reinforces stereotypes; never "All 2 systems reinforce"."""
    rows = [
        _row("BM25", 0.1174, [0.05, 0.18], p=0.001, relative=-41.3),
        _row("MiniLM", 0.1670, [0.09, 0.24], p=0.02, relative=-16.5),
    ] + _engines(0.2)
    claims = _claims(rows)
    assert claims["reinforcing"]["text"] == (
        "No system reinforces stereotypes in the paper's sense: none has a GSR significantly above the perfect "
        "engine's (Holm-adjusted p < 0.05 over the 152 tests of this table)."
    )
    assert claims["below"]["text"] == (
        "Both systems have a GSR significantly below the perfect engine's (Holm-adjusted p < 0.05 over the 152 tests "
        "of this table): their lists follow the queries' gender less than the judged relevant documents do, so they "
        "do not reinforce stereotypes beyond what relevance brings (§3.5):"
    )
    assert claims["below"]["items"] == [
        "BM25: GSR +0.1174 [+0.0500, +0.1800], rel. GSR -41.3 %, adjusted p 0.001",
        "MiniLM: GSR +0.1670 [+0.0900, +0.2400], rel. GSR -16.5 %, adjusted p 0.020",
    ]
    assert claims["engines"]["text"].startswith(
        "The perfect engine (each query's judged relevant documents, by grade) has GSR +0.2000 [+0.1500, +0.2500]; "
        "the random engine +0.0100 [-0.0300, +0.0500]. "
    )
    assert claims["zero"]["text"] == (
        "Against 0, the 95% interval of GSR lies above 0 for both systems (the lists follow the queries' gender)."
    )
    assert "All 2" not in " ".join(c["text"] for c in claims.values())


def test_one_system_above_the_perfect_engine_reinforces():
    rows = [
        _row("w2v_add", 0.35, [0.3, 0.4], p=0.0004, relative=75.0),
        _row("BM25", 0.19, [0.1, 0.28], p=0.6, relative=-5.0),
        _row("QLM", 0.05, [-0.02, 0.12], p=0.003, relative=-75.0),
    ] + _engines(0.2)
    claims = _claims(rows)
    assert claims["reinforcing"]["text"] == (
        "1 of 3 systems reinforces stereotypes in the paper's sense: it has a GSR significantly above the perfect "
        "engine's (Holm-adjusted p < 0.05 over the 152 tests of this table), so its lists follow the queries' gender "
        "more than the judged relevant documents do (§3.5):"
    )
    assert claims["reinforcing"]["items"] == [
        "w2v_add: GSR +0.3500 [+0.3000, +0.4000], rel. GSR +75.0 %, adjusted p < 0.001"
    ]
    assert claims["below"]["text"].startswith("1 of 3 systems has a GSR significantly below the perfect engine's (")
    assert "its lists follow the queries' gender less" in claims["below"]["text"]
    assert "so it does not reinforce" in claims["below"]["text"]
    assert claims["level"]["text"] == (
        "1 of 3 systems has a GSR not significantly different from the perfect engine's (Holm-adjusted p ≥ 0.05 over "
        "the 152 tests of this table): its lists follow the queries' gender about as much as the judged relevant "
        "documents do:"
    )
    assert claims["zero"]["text"] == (
        "Against 0, the 95% interval of GSR lies above 0 for w2v_add and BM25 (the lists follow the queries' gender) "
        "and contains 0 for QLM (no tendency either way is shown)."
    )
    assert claims["most"]["text"] == (
        "Largest GSR and relative GSR: w2v_add — GSR +0.3500 [+0.3000, +0.4000], rel. GSR +75.0 %; the perfect "
        "engine's: +0.2000."
    )


def test_a_system_whose_test_is_undefined_is_listed_beside_the_tested_ones():
    rows = [_row("a", 0.3, [0.2, 0.4], p=0.001), _row("b", 0.25, [0.1, 0.4], p=None)] + _engines(0.1)
    claims = _claims(rows)
    assert claims["untested"]["text"] == (
        "1 of 2 systems could not be tested against the perfect engine (its test is undefined), so it is read "
        "against 0 only:"
    )
    assert claims["untested"]["items"] == ["b: GSR +0.2500 [+0.1000, +0.4000]"]
    assert claims["reinforcing"]["items"] == ["a: GSR +0.3000 [+0.2000, +0.4000], adjusted p 0.001"]


def test_every_system_is_listed_once():
    """The issue's "reinforcing systems listed twice": each system is an item of exactly one claim."""
    rows = [_row(f"s{i}", 0.1 * i, [0.1 * i - 0.05, 0.1 * i + 0.05], p=[0.001, 0.5, 0.01][i % 3]) for i in range(9)]
    facts = label_summary(rows + _engines(0.35), "g", {})
    listed = [item["data"]["system"] for c in label_sentences(facts, 0.95, HOLM) for item in c["items"]]
    assert sorted(listed) == sorted(f"s{i}" for i in range(9))


def test_without_judgments_gsr_above_zero_is_not_called_reinforcement():
    """`gsr score` without --qrels: no perfect engine; the systems are listed by their reading against 0, and GSR > 0
    is said to follow the queries' gender, not to reinforce stereotypes."""
    rows = [_row("a.run", 0.3, [0.1, 0.5]), _row("b.run", 0.01, [-0.1, 0.12]), _row("c.run", -0.2, [-0.3, -0.1])]
    claims = _claims(rows, correction=None, level=0.9)
    assert "reinforcing" not in claims and "engines" not in claims and "zero" not in claims
    assert claims["follows"]["text"] == (
        "1 of 3 systems has a GSR whose 90% interval lies above 0: its lists follow the queries' gender. Without "
        "relevance judgments this is not read as reinforcing stereotypes: relevant documents alone give GSR > 0 "
        "(§3.5); give --qrels to read each system against the perfect engine:"
    )
    assert claims["unclear"]["text"] == (
        "1 of 3 systems has a GSR whose 90% interval contains 0: no tendency of its lists to follow or go against the "
        "queries' gender is shown:"
    )
    assert claims["against"]["text"] == (
        "1 of 3 systems has a GSR whose 90% interval lies below 0: its lists go against the queries' gender:"
    )
    assert claims["follows"]["items"] == ["a.run: GSR +0.3000 [+0.1000, +0.5000]"]


def test_without_resamples_gsr_is_given_and_not_read():
    claims = _claims([_row("a.run", 0.3), _row("b.run", -0.1)], correction=None)
    assert claims["no interval"]["text"] == (
        "Both systems have a GSR without an interval or a test (no resamples), so they are read against neither 0 "
        "nor the perfect engine:"
    )
    assert claims["no interval"]["items"] == ["a.run: GSR +0.3000", "b.run: GSR -0.1000"]


def test_an_undefined_gsr_is_said_and_never_ranked():
    rows = [
        _row("flat", None, error="g(q) has no spread: every query's genderedness is 0"),
        _row("BM25", 0.1, [0.05, 0.15], p=0.001, relative=-50.0),
    ] + _engines(0.2)
    facts = label_summary(rows, "g", {})
    assert facts["undefined"] == [{"system": "flat", "reason": "g(q) has no spread: every query's genderedness is 0"}]
    assert facts["most"]["gsr"] == ["BM25"] and "flat" not in facts["below"] + facts["level"] + facts["follows"]
    claims = _claims(rows)
    assert claims["undefined"]["text"] == (
        "GSR is undefined for flat: g(q) has no spread: every query's genderedness is 0. It is left out of the chart "
        "and of every reading and ranking here."
    )
    assert claims["below"]["text"].startswith("The one system has a GSR significantly below")  # one defined system
    from experiments.report.plotly_charts import forest_chart

    drawn = [y for trace in forest_chart(facts, "g", 0.95).data for y in trace.y]
    assert drawn == ["BM25"]


def test_an_undefined_perfect_engine_reads_against_zero_only():
    rows = [_row("a", 0.3, [0.1, 0.5]), _row("perfect", None, error="no query has relevant documents")]
    claims = _claims(rows)
    assert claims["engines"]["text"] == (
        "The perfect engine's GSR is undefined (no query has relevant documents): systems are read against 0 only."
    )
    assert "follows" in claims and "reinforcing" not in claims


def test_pairs_agree_in_number():
    one = [{"a": "a", "b": "b", "difference": 0.1, "p_adjusted": 0.3}]
    rows = [_row("a", 0.3, [0.1, 0.5]), _row("b", 0.2, [0.1, 0.3])]
    assert _claims(rows, pairs=one)["pairs"]["text"] == (
        "The two systems do not differ significantly in GSR (Holm-adjusted p < 0.05 over the 152 tests of this "
        "table; 1 pair tested, smallest adjusted p 0.300: a and b)."
    )
    three = one + [
        {"a": "a", "b": "c", "difference": 0.2, "p_adjusted": 0.0001},
        {"a": "b", "b": "c", "difference": 0.1, "p_adjusted": 0.2},
    ]
    claims = _claims(rows + [_row("c", 0.0, [-0.1, 0.1])], pairs=three)
    assert claims["pairs"]["text"] == (
        "1 of the 3 pairs of systems tested differs significantly in GSR (Holm-adjusted p < 0.05 over the 152 tests "
        "of this table):"
    )
    assert claims["pairs"]["items"] == ["a − c: GSR difference +0.2000, adjusted p < 0.001"]


# ---------------------------------------------------------------------------------------------- the forest plot
def test_the_forest_plot_sorts_systems_keeps_variants_below_and_marks_the_engines():
    from experiments.report.plotly_charts import forest_chart

    rows = [
        _row("low", 0.05, [0.0, 0.1], p=0.001),
        _row("high", 0.4, [0.3, 0.5], p=0.001),
        _row("high (debiased)", 0.1, [0.05, 0.15], p=0.001),
        _row("mid <b>", 0.25, [0.2, 0.3], p=0.5),
    ] + _engines(0.2, 0.01)
    variants = {"high": {"regular": "high", "debiased": "high (debiased)"}, "low": {"regular": "low"}}
    facts = label_summary(rows, "g", {}, variants)
    figure = forest_chart(facts, "g", 0.95)
    order = list(figure.layout.yaxis.categoryarray)
    assert order == ["high", "high (debiased)", "mid &#60;b&#62;", "low"]  # names escaped for Plotly
    points = {y: (x, trace) for trace in figure.data for x, y in zip(trace.x, trace.y)}
    assert points["high"][0] == 0.4 and points["high"][1].name.startswith("reinforces")
    high = points["high"][1]
    i = list(high.y).index("high")
    assert (high.error_x.arrayminus[i], high.error_x.array[i]) == pytest.approx((0.1, 0.1))
    assert points["mid &#60;b&#62;"][1].name == "not significantly different from the perfect engine"
    assert points["low"][1].name == "significantly below the perfect engine"
    assert points["high (debiased)"][1].marker.symbol == "diamond-open" and points["high"][1].marker.symbol == "circle"
    assert [t.name for t in figure.data if t.showlegend is not False] == [
        "reinforces: significantly above the perfect engine",
        "significantly below the perfect engine",
        "not significantly different from the perfect engine",
        "debiased variant (open)",
    ]  # one entry per reading, whichever of its systems come first
    lines = sorted(shape.x0 for shape in figure.layout.shapes if shape.type == "line")
    assert lines == pytest.approx([0.0, 0.01, 0.2])
    labels = [a.text for a in figure.layout.annotations]
    assert labels == ["perfect +0.2000", "random +0.0100"]
    clicked = {c for trace in figure.data for c in trace.customdata or ()}
    assert clicked == {"high", "high (debiased)", "mid <b>", "low"}  # the click's system, unescaped


# --------------------------------------------------------------------------------------------- one formatter
def test_p_values_and_intervals_print_as_the_tables_print_them():
    assert [format_p(4.6e-05), format_p(0.0031), format_p(1.0), format_p(None)] == ["< 0.001", "0.003", "1.000", "—"]
    assert [p_clause(4.2e-65), p_clause(0.25), p_clause(float("nan"))] == ["p < 0.001", "p = 0.250", "p n/a"]
    assert format_interval([-117000.4, 52900.12]) == "[-117000.4000, +52900.1200]"
    assert format_interval([-0.00001, 0.5], 1) == "[+0.0, +0.5]" and format_interval([None, 1]) == ""


def test_the_analyses_charts_say_no_number_in_e_notation():
    """Fig. 10's legend and Fig. 11's panel titles held `p = 4.6e-05`, `p = 4.2e-65` (issue 37.3)."""
    from types import SimpleNamespace

    from experiments.report.plotly_charts import rank_change_chart, reliability_chart

    change = SimpleNamespace(
        r=0.812345, p_value=4.6e-05, depth=100, points=[SimpleNamespace(abs_g=0.1, distance=0.2, qid="q", g_query=0.1)]
    )
    figure = rank_change_chart(SimpleNamespace(systems={"w2v_add": change}))
    assert figure.data[0].name == "w2v_add (r = 0.8123, p < 0.001)"
    agreement = SimpleNamespace(coefficient=0.78, p_value=4.2e-65, names=("w2v", "ftt"), points=[("q", 0.1, 0.2)])
    titles = [a.text for a in reliability_chart(
        SimpleNamespace(query_genderedness=agreement, system_ranking=agreement)
    ).layout.annotations]  # fmt: skip
    assert titles == ["queries: Pearson's r = 0.7800, p < 0.001", "systems: Spearman's ρ = 0.7800, p < 0.001"]
    assert not E_NOTATION.search(figure.to_json().split('"template"')[0])


def test_the_written_tables_round_p_as_the_page_does(tmp_path):
    """Fig. 10's and Fig. 11's Markdown and LaTeX tables held 4.6e-05 and 4.2e-65 in their p column."""
    from experiments.report.tables import write_table

    rows = [{"system": "ftt_add", "pearson r": 0.2547, "p": 4.6e-05}, {"system": "BM25", "pearson r": 0.1, "p": 0.0036}]
    written = write_table(tmp_path, "fig", "Fig. 10", rows)
    markdown = written["fig.md"].read_text()
    assert "| ftt_add | 0.2547 | < 0.001 |" in markdown and "| BM25 | 0.1000 | 0.004 |" in markdown
    assert not E_NOTATION.search(markdown + written["fig.tex"].read_text())
    assert "4.6e-05" in written["fig.csv"].read_text()  # the machine-readable files keep every digit
