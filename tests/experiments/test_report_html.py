"""report.html: its numbers are results.json's, its lists are the ones GSR measured, and in headless Chromium (Debian's
chromium and chromium-driver, driven by Selenium) it opens from file:// with no console error and no network request,
lists every system, draws one point per measured query, opens a query's documents from a point, and orders the
contrast view by |Δ g_q(L)|. Screenshots are left in the test's folder (and $GSR_SCREENSHOTS, where set)."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from gsr.equations import rank_discounts
from tests.support.report_page import LAYOUT, embedded_data
from tests.support.report_page import browser as _browser
from tests.support.report_page import screenshot as _screenshot
from tests.support.report_page import severe_errors as _errors
from tests.support.report_page import text_of as _text
from tests.support.toy_collection import score_args, write_toy


@pytest.fixture(scope="module")
def toy_report(tmp_path_factory) -> Path:
    folder = write_toy(tmp_path_factory.mktemp("report") / "toy")
    config = (folder / "config.toml").read_text().replace("intrinsic_gender = false", "intrinsic_gender = true")
    config = config.replace("[plots]\nenabled = false", "[plots]\nenabled = true")  # the PNGs a chart replaces
    (folder / "config.toml").write_text(f"output = {json.dumps(str(folder / 'out'))}\n" + config)
    assert main(["-q", "run", str(folder / "config.toml")]) == 0
    return folder / "out"


def test_the_report_is_self_contained_and_holds_the_results(toy_report):
    page = (toy_report / "report.html").read_text(encoding="utf-8")
    assert "<script src" not in page and "<link" not in page  # plotly.js, styles and data inlined
    data = embedded_data(toy_report / "report.html")
    results = json.loads((toy_report / "results.json").read_text())
    assert [row["cells"][0] for row in data["table"]["rows"]] == [row["system"] for row in results["rows"]]
    for shown, row in zip(data["table"]["rows"], results["rows"]):
        expected = [row["system"]] + [m["mean"] for m in row["measures"].values()]
        for value in row["gsr"].values():
            expected += [value["gsr"], value["relative"]]
        assert shown["sort"] == expected  # the very numbers of results.json, unrounded
    assert data["table"]["notes"] == results["notes"]
    assert data["provenance"]["inputs"] == results["inputs"]
    assert data["provenance"]["environment"]["versions"]["gsr-bench"] == results["environment"]["versions"]["gsr-bench"]


def test_the_analyses_figures_are_charts_of_the_numbers_written(toy_report):
    """Fig. 12 is shown as a Plotly chart (not its PNG), in one section with its table: per system three stacked bar
    traces, male / neither / female, whose heights are fig12_intrinsic_gender.json's shares in %, one system visible
    at a time; its PNG, written beside, is not in the page."""
    data = embedded_data(toy_report / "report.html")
    (entry,) = [
        a for a in data["analyses"] if a["name"] == "fig12_intrinsic_gender"
    ]  # its table and chart: one section
    assert "table" in entry and "figure" in entry and (toy_report / "fig12_intrinsic_gender.png").is_file()
    assert not [a for a in data["analyses"] if "png" in a]  # no figure with a chart is shown again as its PNG
    rows = json.loads((toy_report / "fig12_intrinsic_gender.json").read_text())
    systems = list(dict.fromkeys(row["system"] for row in rows))
    traces = entry["figure"]["data"]
    assert len(traces) == 3 * len(systems)
    for i, system in enumerate(systems):
        bins = [row for row in rows if row["system"] == system]
        for trace, side in zip(traces[3 * i : 3 * i + 3], ("male", "neither", "female")):
            assert [html.unescape(x) for x in trace["x"]] == [row["label"] for row in bins]  # as Plotly shows them
            assert trace["y"] == pytest.approx([100 * (row[side] or 0) for row in bins])
            assert trace["visible"] is (i == 0)
    (menu,) = entry["figure"]["layout"]["updatemenus"]
    assert [b["label"] for b in menu["buttons"]] == systems


def test_scatter_points_and_lists_are_the_measured_ones(toy_report):
    """Each point is a (g(q), g_q(L)) of per_query.csv; each list's documents, weighted by Eq. 2's rank discounts,
    give that point's g_q(L) (the toy's lists are shorter than the page's limit)."""
    data = embedded_data(toy_report / "report.html")
    with open(toy_report / "per_query.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    label = data["labels"][0]
    for system in data["systems"]:
        points = data["scatter"][label][system]
        expected = {
            r["qid"]: (float(r[f"g(q) ({label})"]), float(r[f"g_q(L) ({label})"]))
            for r in rows
            if r["system"] == system and r[f"g_q(L) ({label})"]
        }
        assert sorted(points["q"]) == sorted(expected)  # one point per measured query
        for qid, x, y in zip(points["q"], points["x"], points["y"]):
            assert (x, y) == pytest.approx(expected[qid], abs=1e-4)
            values = np.array([np.nan if v is None else v for _, v, _ in data["lists"][label][system][qid]])
            weights = rank_discounts(len(values))
            known = ~np.isnan(values)
            assert float(np.sum(weights[known] * values[known]) / np.sum(weights[known])) == pytest.approx(y, abs=2e-4)
    words = data["words"][label]
    assert words["nurse"] > 0 > words["electrician"]  # the toy's content words, as its embedding gives them
    assert "electrician" in data["excluded"]["q1"]  # q1's own term, left out of g_q(d)


def test_score_html_writes_a_new_file_only(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    args = ["-q", *score_args(folder), "--json"]
    assert main([*args, "--html", str(tmp_path / "scored.html")]) == 0
    scored = json.loads(capsys.readouterr().out)
    data = embedded_data(tmp_path / "scored.html")
    assert data["systems"] == ["run.txt"] and data["table"]["rows"][0]["sort"][-2] == scored["gsr"]
    assert sorted(data["scatter"]["vectors.txt"]["run.txt"]["q"]) == sorted(
        q["qid"] for q in scored["per_query"] if q["g_list"] is not None
    )
    assert main([*args, "--html", str(tmp_path / "scored.html")]) == 2  # exists: refused before any work
    assert "exists; give a new file, or --overwrite to replace it" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ in a real browser
def test_the_report_in_headless_chromium(toy_report, tmp_path):
    from selenium.webdriver.common.by import By

    driver = _browser()
    try:
        driver.get((toy_report / "report.html").as_uri())
        data = embedded_data(toy_report / "report.html")
        # every system of results.json in the table
        names = [
            r.get_attribute("data-system") for r in driver.find_elements(By.CSS_SELECTOR, "#results-grid tbody tr")
        ]
        assert names == [row["system"] for row in json.loads((toy_report / "results.json").read_text())["rows"]]
        _screenshot(driver, tmp_path, "results")
        # sorting by GSR orders the rows by the number results.json holds
        header = driver.find_elements(By.CSS_SELECTOR, "#results-grid th")
        column = next(i for i, h in enumerate(header) if h.text.startswith("GSR"))
        header[column].click()
        sorted_values = [
            float(c.get_attribute("data-sort"))
            for c in driver.find_elements(By.CSS_SELECTOR, f"#results-grid tbody tr td:nth-child({column + 1})")
        ]
        assert sorted_values == sorted(sorted_values, reverse=True)
        # the scatter: one point per measured query of the first system
        first = data["systems"][0]
        driver.find_element(By.CSS_SELECTOR, f'#results-grid tr[data-system="{first}"]').click()
        shown = driver.execute_script(
            "return document.getElementById('scatter-plot').data.filter(t => t.mode === 'markers' && "
            "t.visible === true).map(t => [t.name, t.x.length])"
        )
        assert shown == [[first, len(data["scatter"][data["labels"][0]][first]["q"])]]
        _screenshot(driver, tmp_path, "scatter")
        # clicking a point opens that query's documents, words coloured by g(w)
        point = driver.find_element(By.CSS_SELECTOR, "#scatter-plot .scatterlayer .trace .points path")
        driver.execute_script("arguments[0].scrollIntoView()", point)
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(driver).move_to_element(point).click().perform()
        assert driver.find_element(By.ID, "query").is_displayed()
        qid = driver.find_element(By.ID, "query-select").get_attribute("value")
        docs = driver.find_elements(By.CSS_SELECTOR, f'#query-lists .list[data-system="{first}"] .doc')
        expected = [d for d, _, _ in data["lists"][data["labels"][0]][first][qid]]
        assert [d.get_attribute("data-doc") for d in docs] == expected
        coloured = driver.find_elements(By.CSS_SELECTOR, "#query-lists .w[style*='background']")
        assert coloured and all("g(w) = " in w.get_attribute("title") for w in coloured)
        _screenshot(driver, tmp_path, "query")
        # the contrast view lists queries by |Δ g_q(L)|, largest first
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="contrast"]').click()
        deltas = [
            float(c.get_attribute("data-sort"))
            for c in driver.find_elements(By.CSS_SELECTOR, "#contrast-table tbody tr td:last-child")
        ]
        assert deltas and deltas == sorted(deltas, reverse=True)
        assert len(driver.find_elements(By.CSS_SELECTOR, "#contrast-lists .list")) == 2
        _screenshot(driver, tmp_path, "contrast")
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="analyses"]').click()
        chart = driver.find_element(By.CSS_SELECTOR, '#analyses-list div[data-chart="fig12_intrinsic_gender"]')
        bars = chart.find_elements(By.CSS_SELECTOR, "g.trace.bars g.point")
        shown = [row for row in json.loads((toy_report / "fig12_intrinsic_gender.json").read_text())]
        first = [row for row in shown if row["system"] == shown[0]["system"]]
        assert len(bars) == 3 * len(first)  # the first system's stacked bars: male, neither, female per bin
        assert chart.find_elements(By.CSS_SELECTOR, ".updatemenu-container")  # the other systems from its menu
        _screenshot(driver, tmp_path, "analyses")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        requests = [json.loads(e["message"])["message"] for e in driver.get_log("performance")]
        fetched = [m["params"]["request"]["url"] for m in requests if m["method"] == "Network.requestWillBeSent"]
        assert all(url.startswith(("file://", "data:")) for url in fetched), fetched
    finally:
        driver.quit()


# ------------------------------------------------------------------------------------------ the answer first
REFERENCES = ("perfect", "random")


def _g_lists(out: Path, label: str) -> dict[str, dict[str, float]]:
    """system -> query -> g_q(L) under `label`, as per_query.csv holds them."""
    with open(out / "per_query.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    points: dict[str, dict[str, float]] = {}
    for row in rows:
        if row[f"g_q(L) ({label})"]:
            points.setdefault(row["system"], {})[row["qid"]] = float(row[f"g_q(L) ({label})"])
    return points


def _variants(results: dict) -> dict[str, dict[str, str]]:
    """regular system -> {variant: system}, "regular" included, from the config results.json records."""
    systems = results["config"]["settings"]["systems"]
    return {
        s["name"]: {v["variant"]: v["name"] for v in systems if v["name"] == s["name"] or v["base_system"] == s["name"]}
        for s in systems
        if s["variant"] == "regular"
    }


def _p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _start_query(out: Path, label: str) -> tuple[str, float]:
    """The judged query (a relevant document in the toy's qrels) of largest spread of g_q(L) between systems."""
    from tests.support.toy_collection import QRELS

    judged = {q for q, _, grade in QRELS if grade > 0}
    points = _g_lists(out, label)
    systems = [s for s in points if s not in REFERENCES]
    spread = {
        q: max(points[s][q] for s in systems) - min(points[s][q] for s in systems)
        for q in judged
        if all(q in points[s] for s in systems)
    }
    query = max(spread, key=spread.get)
    return query, spread[query]


def test_the_summary_facts_are_results_json(toy_report):
    """The summary's facts (summary.label_summary), checked against results.json and per_query.csv: each system's
    GSR, interval, relative GSR and adjusted p; which reinforce stereotypes (GSR > 0, interval above 0) and most;
    Table 2's before / after and p per debiased variant; each claim's query (largest |g_q(L)|, largest |Δ g_q(L)|);
    the query the query view opens on. The same function on results.json alone gives the same facts."""
    from experiments.report.summary import label_summary

    data = embedded_data(toy_report / "report.html")
    results = json.loads((toy_report / "results.json").read_text())
    label = data["labels"][0]
    facts = data["summary"]["labels"][label]
    gsr = {row["system"]: row["gsr"][label] for row in results["rows"] if row["system"] not in REFERENCES}
    assert [s["system"] for s in facts["systems"]] == list(gsr)
    for entry in facts["systems"]:
        row = gsr[entry["system"]]
        assert [entry[k] for k in ("gsr", "ci", "relative", "p_adjusted")] == [
            row[k] for k in ("gsr", "ci", "relative", "p_adjusted")
        ]
    assert facts["follows"] == [n for n, e in gsr.items() if e["gsr"] > 0 and e["ci"][0] > 0]
    assert facts["follows"]  # the toy's regular systems do: the sentence is checked, not vacuous
    perfect = next(row["gsr"][label]["gsr"] for row in results["rows"] if row["system"] == "perfect")
    significant = {n: e["p_adjusted"] < 0.05 for n, e in gsr.items()}
    assert facts["reinforcing"] == [n for n, e in gsr.items() if significant[n] and e["gsr"] > perfect]
    assert facts["below"] == [n for n, e in gsr.items() if significant[n] and e["gsr"] < perfect]
    assert facts["level"] == [n for n in gsr if not significant[n]] and facts["level"]
    top = max(e["gsr"] for e in gsr.values())
    assert facts["most"]["gsr"] == [n for n, e in gsr.items() if e["gsr"] == top]
    assert facts["tested"] == sum(1 for e in gsr.values() if e["p_adjusted"] is not None)
    variants = _variants(results)
    expected = [
        (
            row["system"],
            name,
            row[f"GSR ({label}) regular"],
            row[f"GSR ({label}) {v}"],
            row[f"GSR ({label}) {v} p adjusted"],
        )
        for row in results["table2"]
        for v, name in variants.get(row["system"], {}).items()
        if v != "regular"
    ]
    assert (
        expected
        and [(d["system"], d["name"], d["before"], d["after"], d["p_adjusted"]) for d in facts["debias"]] == expected
    )
    points = _g_lists(toy_report, label)
    for entry in facts["systems"]:
        mine = points[entry["system"]]
        assert abs(mine[entry["query"]]) == pytest.approx(max(map(abs, mine.values())), abs=2e-4)
        assert entry["partner"] in gsr
    for change in facts["debias"]:
        a, b = points[change["system"]], points[change["name"]]
        largest = max(abs(a[q] - b[q]) for q in a if q in b)
        assert abs(a[change["query"]] - b[change["query"]]) == pytest.approx(largest, abs=2e-4)
    query, spread = _start_query(toy_report, label)
    assert data["summary"]["start"]["query"] == query
    assert data["summary"]["start"]["delta"] == pytest.approx(spread, abs=2e-4)
    again = label_summary(results["rows"], label, data["scatter"][label], variants, results["table2"])
    assert again == {k: v for k, v in facts.items() if k not in ("claims", "chart")}  # those are made from the facts


def test_analysis_tables_show_rounded_numbers():
    """4 decimals, whole numbers whole, p-values as 0.003 or < 0.001: never 3.406e-07."""
    from experiments.report.html import table_entry
    from experiments.report.summary import cell_text

    assert cell_text("p", 3.406e-07) == "< 0.001" and cell_text("GSR (x) debiased p", 0.0031) == "0.003"
    assert cell_text("p adjusted", 1.0) == "1.000" and cell_text("pearson r", 3.406e-07) == "0.0000"
    assert cell_text("n", 5.0) == "5" and cell_text("GSR", -1.234567) == "-1.2346" and cell_text("x", None) == "—"
    entry = table_entry("t", "Table", [{"system": "a", "p": 3.406e-07, "r": 0.123456}])
    assert entry["table"]["cells"] == [["a", "< 0.001", "0.1235"]]
    assert entry["table"]["sort"] == [["a", 3.406e-07, 0.123456]]  # sorted by the value, not its text


SIZES = [(1400, 900), (1024, 768)]


@pytest.fixture(scope="module", params=SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def chromium(request):
    driver = _browser(request.param)
    driver.size = request.param
    yield driver
    driver.quit()


def _view(driver, page: Path, view: str, folder: Path | None = None):
    """`page` opened at `view` (by its nav button), checked for layout; a screenshot left in `folder`."""
    import time

    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    driver.find_element(By.CSS_SELECTOR, f'nav button[data-view="{view}"]').click()
    time.sleep(0.3)  # responsive charts settle
    assert driver.execute_script(LAYOUT) == []
    if folder is not None:
        _screenshot(driver, folder, f"{view}-{driver.size[0]}x{driver.size[1]}")
    return driver


def test_results_view_answers_first(chromium, toy_report, tmp_path):
    """The summary opens the Results view, in view without scrolling: the forest plot of every system's GSR, then
    sentences with results.json's numbers (each system read against the perfect engine and listed once, which
    reinforce most, the family the tests were adjusted over, what debiasing changed); its links open the scatter of
    the system and the contrast view of the claim's query."""
    from selenium.webdriver.common.by import By

    driver = _view(chromium, toy_report / "report.html", "results", tmp_path)
    assert driver.execute_script("return document.getElementById('results').firstElementChild.id") == "summary"
    assert driver.execute_script("return document.getElementById('summary').getBoundingClientRect().top") < 300
    results = json.loads((toy_report / "results.json").read_text())
    data = embedded_data(toy_report / "report.html")
    label = data["labels"][0]
    gsr = {row["system"]: row["gsr"][label] for row in results["rows"] if row["system"] not in REFERENCES}
    # the picture first: the forest plot, one point per system, then the sentences
    first = driver.execute_script("return document.querySelector('#summary h2').nextElementSibling.className")
    assert "forest" in first
    forest = "return document.querySelector('#summary .forest').data"
    drawn = driver.execute_script(forest + ".flatMap(t => t.customdata || [])")
    assert sorted(drawn) == sorted(gsr)
    level = [n for n, e in gsr.items() if e["p_adjusted"] >= 0.05]  # the toy's systems: none differs from perfect
    assert _text(driver, '#summary [data-claim="reinforcing"]').startswith("No system reinforces stereotypes")
    assert _text(driver, '#summary [data-claim="level"]').startswith(f"All {len(gsr)} systems have a GSR not")
    items = driver.find_elements(By.CSS_SELECTOR, '#summary [data-claim="level"] + ul > li')
    assert [i.get_attribute("data-system") for i in items] == level
    for item, name in zip(items, level):
        low, high = gsr[name]["ci"]
        assert f"GSR {gsr[name]['gsr']:+.4f} [{low:+.4f}, {high:+.4f}]" in item.text
        assert f"rel. GSR {gsr[name]['relative']:+.1f} %" in item.text
        assert f"adjusted p {_p_text(gsr[name]['p_adjusted'])}" in item.text
    listed = driver.find_elements(By.CSS_SELECTOR, "#summary li[data-system]")
    assert sorted(i.get_attribute("data-system") for i in listed) == sorted(gsr)  # each system listed once
    top = max(e["gsr"] for e in gsr.values())
    most = _text(driver, '#summary [data-claim="most"]')
    assert f"GSR {top:+.4f}" in most and all(n in most for n, e in gsr.items() if e["gsr"] == top)
    tests = sum(1 for row in results["rows"] for g in ("measures", "gsr") for v in row[g].values() if v["p_value"])
    assert f"over the {tests} tests of this table" in _text(driver, '#summary [data-claim="level"]')
    variants = _variants(results)
    for row in results["table2"]:
        for variant, name in variants.get(row["system"], {}).items():
            if variant == "regular":
                continue
            item = driver.find_element(By.CSS_SELECTOR, f'#summary li[data-variant="{name}"]')
            before, after = row[f"GSR ({label}) regular"], row[f"GSR ({label}) {variant}"]
            assert f"GSR {before:+.4f} → {after:+.4f}" in item.text
            assert f"adjusted p {_p_text(row[f'GSR ({label}) {variant} p adjusted'])}" in item.text
    # a claim's links: the system's scatter, then the contrast view of its query
    first = items[0]
    first.find_element(By.XPATH, ".//button[text()='scatter']").click()
    shown = driver.execute_script(
        "return document.getElementById('scatter-plot').data.filter(t => t.mode === 'markers' && t.visible === true)"
        ".map(t => t.name)"
    )
    assert shown == [html.escape(level[0], quote=False)]
    entry = next(s for s in data["summary"]["labels"][label]["systems"] if s["system"] == level[0])
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="results"]').click()
    first.find_element(By.XPATH, f".//button[text()='query {entry['query']}']").click()
    assert driver.find_element(By.ID, "contrast").is_displayed()
    assert driver.find_element(By.ID, "contrast-a").get_attribute("value") == level[0]
    assert driver.find_element(By.ID, "contrast-b").get_attribute("value") == entry["partner"]
    selected = driver.find_elements(By.CSS_SELECTOR, "#contrast-table tr.selected")
    assert [r.get_attribute("data-query") for r in selected] == [entry["query"]]
    assert [n.get_attribute("data-system") for n in driver.find_elements(By.CSS_SELECTOR, "#contrast-lists .list")] == [
        level[0],
        entry["partner"],
    ]
    assert driver.execute_script(LAYOUT) == [] and _errors(driver) == []


def test_scatter_view_tells_systems_apart(chromium, toy_report, tmp_path):
    """Every system its own marker symbol and line dash (the toy's add and si coincide); both axis titles in the
    window without scrolling."""
    driver = _view(chromium, toy_report / "report.html", "scatter", tmp_path)
    data = embedded_data(toy_report / "report.html")
    traces = driver.execute_script(
        "return document.getElementById('scatter-plot').data.map(t => [t.mode, t.fill || '', t.showlegend, "
        "t.marker ? t.marker.symbol : null, t.line ? t.line.dash || null : null])"
    )
    symbols = [t[3] for t in traces if t[0] == "markers"]
    dashes = [t[4] for t in traces if t[0] == "lines" and t[1] != "toself" and t[2] is False]
    assert len(symbols) == len(set(symbols)) == len(data["systems"])
    assert len(dashes) == len(set(dashes)) == len(data["systems"])
    for title in (".xtitle", ".ytitle"):
        box = driver.execute_script(
            "const r = document.querySelector('#scatter-plot ' + arguments[0]).getBoundingClientRect();"
            "return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth]",
            title,
        )
        assert 0 <= box[0] and box[1] <= box[4] and 0 <= box[2] and box[3] <= box[5], (title, box)
    assert _errors(driver) == []


def test_query_view_opens_on_the_most_contrasted_query(chromium, toy_report, tmp_path):
    """The query view opens on the judged query whose g_q(L) differs most between two systems, those two chosen, in
    a compact systems picker (a drop-down of checkboxes)."""
    from selenium.webdriver.common.by import By

    driver = _view(chromium, toy_report / "report.html", "query", tmp_path)
    data = embedded_data(toy_report / "report.html")
    label = data["labels"][0]
    query, _ = _start_query(toy_report, label)
    assert driver.find_element(By.ID, "query-select").get_attribute("value") == query
    points = _g_lists(toy_report, label)
    values = {s: points[s][query] for s in data["systems"]}
    chosen = [
        i.get_attribute("value")
        for i in driver.find_elements(By.CSS_SELECTOR, "#query-systems input")
        if i.is_selected()
    ]
    assert sorted(values[s] for s in chosen) == pytest.approx([min(values.values()), max(values.values())], abs=2e-4)
    lists = driver.find_elements(By.CSS_SELECTOR, "#query-lists .list")
    assert sorted(n.get_attribute("data-system") for n in lists) == sorted(chosen)
    picker = driver.find_element(By.ID, "query-picker")
    assert picker.size["height"] < 40 and f"(2 of {len(data['systems'])})" in picker.text
    driver.find_element(By.ID, "query-picked").click()
    boxes = driver.find_elements(By.CSS_SELECTOR, "#query-systems input")
    assert len(boxes) == len(data["systems"]) and all(b.is_displayed() for b in boxes)
    assert driver.execute_script(LAYOUT) == []
    boxes[0].click() if not boxes[0].is_selected() else boxes[1].click()
    assert len(driver.find_elements(By.CSS_SELECTOR, "#query-lists .list")) in (1, 3)
    driver.find_element(By.ID, "title").click()  # a click outside closes the picker
    assert not driver.find_element(By.ID, "query-systems").is_displayed()
    assert _errors(driver) == []


def test_contrast_view_keeps_queries_beside_whole_lists(chromium, toy_report, tmp_path):
    """The contrast view: queries by |Δ g_q(L)| beside the two lists, which are never cut (LAYOUT); the first query
    selected."""
    from selenium.webdriver.common.by import By

    driver = _view(chromium, toy_report / "report.html", "contrast", tmp_path)
    table = driver.find_element(By.ID, "contrast-queries").rect
    lists = driver.find_element(By.ID, "contrast-lists").rect
    assert table["x"] + table["width"] <= lists["x"] and abs(table["y"] - lists["y"]) < 5  # side by side
    assert driver.find_element(By.ID, "contrast-queries").value_of_css_property("position") == "sticky"
    rows = driver.find_elements(By.CSS_SELECTOR, "#contrast-table tbody tr")
    assert "selected" in rows[0].get_attribute("class")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#contrast-lists .list")) == 2
    assert _errors(driver) == []


def test_analyses_view_titles_rounds_and_folds(chromium, toy_report, tmp_path):
    """One section per analysis output, headed by its title (the table's `### Title`), never a file name nor twice
    (Fig. 12's table and chart are one section); numbers rounded; wide tables scroll in their own box."""
    from selenium.webdriver.common.by import By

    driver = _view(chromium, toy_report / "report.html", "analyses", tmp_path)
    data = embedded_data(toy_report / "report.html")
    headings = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#analyses-list details > summary h2")]
    assert headings == [a["caption"] for a in data["analyses"]] and len(set(headings)) == len(headings)
    for stem in ("table2_gsr_debiasing", "table3_effectiveness_debiasing", "fig12_intrinsic_gender"):
        title = (toy_report / f"{stem}.md").read_text(encoding="utf-8").splitlines()[0].removeprefix("### ")
        assert title in headings
    assert not [h for h in headings if "_" in h]
    section = driver.find_element(By.CSS_SELECTOR, '#analyses-list details[data-analysis="fig12_intrinsic_gender"]')
    assert section.find_elements(By.CSS_SELECTOR, "div[data-chart]") and section.find_elements(By.TAG_NAME, "table")
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('#analyses-list td')).map(td => td.textContent)"
    )
    assert cells and not [c for c in cells if re.search(r"\d[eE][-+]?\d", c)]
    numbers = [c for c in cells if re.fullmatch(r"-?\d+\.\d+", c)]
    assert numbers and all(len(c.split(".")[1]) in (3, 4) for c in numbers)  # p-values 3 decimals, others 4
    for table in driver.find_elements(By.CSS_SELECTOR, "#analyses-list table"):
        assert "scroll" in driver.execute_script("return arguments[0].parentElement.className", table)
    assert _errors(driver) == []


def test_how_sure_is_gsr_plans_on_the_runs_own_pairs(toy_report, tmp_path):
    """`gsr run`'s "How sure" view: each system's half-width is half its interval in results.json; its topics for
    ±0.02 and ±0.01 and the leading pair's minimal detectable difference are what `gsr plan --pilot` prints from the
    same output folder, with the config's level and seed and the page's simulated studies."""
    data = embedded_data(toy_report / "report.html")
    results = json.loads((toy_report / "results.json").read_text())
    settings, label = results["statistics"], data["labels"][0]
    facts = data["how_sure"][label]
    rows = {row["system"]: row["gsr"][label] for row in results["rows"]}
    assert [s["system"] for s in facts["systems"]] == data["systems"]
    for entry in facts["systems"]:
        low, high = rows[entry["system"]]["ci"]
        assert entry["half_width"] == pytest.approx((high - low) / 2, rel=1e-12)
    for i, target in enumerate(facts["targets"]):
        out = tmp_path / f"plan-{i}.json"
        args = ["--label", label, "--level", str(settings["level"]), "--seed", str(settings["seed"])]
        args += ["--resamples", str(facts["studies"])]
        assert (
            main(["-q", "plan", "--pilot", str(toy_report), *args, "--target-width", str(target), "--json", str(out)])
            == 0
        )
        plan = json.loads(out.read_text())
        for entry in facts["systems"]:
            assert entry["needed"][i][0] == plan["runs"][entry["system"]]["n_for_target_width"]
            shown = entry["curve"]
            assert shown["resampled"] == [plan["runs"][entry["system"]]["half_width"][str(n)] for n in shown["n"]]
    (pair,) = [p for p in plan["pairs"] if {p["a"], p["b"]} == set(facts["leading"])]
    assert facts["pair"]["mdd"] == pair["minimal_detectable_difference"] and facts["pair"]["n"] == pair["n_pilot"]


def test_how_sure_view_shows_its_table_and_chart(chromium, toy_report, tmp_path):
    """The "How sure" tab: its lead sentence, the chart of the two leading systems' half-width curves (drawn, with
    today's topics marked) and the table of every system, as the embedded facts say."""
    from selenium.webdriver.common.by import By

    driver = _view(chromium, toy_report / "report.html", "howsure", tmp_path)
    data = embedded_data(toy_report / "report.html")
    label = data["labels"][0]
    view = data["how_sure"][label]
    assert driver.find_element(By.CSS_SELECTOR, "#howsure p.claim").text == view["lead"]
    chart = driver.find_element(By.CSS_SELECTOR, "#howsure div[data-precision]")
    assert chart.find_elements(By.CSS_SELECTOR, ".main-svg")
    names = driver.execute_script("return arguments[0].data.map(t => t.name)", chart)
    assert names == [t["name"] for t in view["chart"]["data"]] and len(names) == 6  # 2 systems: 2 curves and today
    rows = [
        [td.get_attribute("textContent") for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in driver.find_elements(By.CSS_SELECTOR, "#howsure table tbody tr")
    ]
    assert rows == view["table"]["cells"] and [r[0] for r in rows] == data["systems"]
    assert _errors(driver) == []


def test_provenance_view_shows_the_config_and_inputs(chromium, toy_report, tmp_path):
    """The config as its TOML text, the inputs as a table of role, path, bytes and SHA-256."""
    from selenium.webdriver.common.by import By

    driver = _view(chromium, toy_report / "report.html", "provenance", tmp_path)
    results = json.loads((toy_report / "results.json").read_text())
    assert driver.find_element(By.ID, "provenance-config").get_attribute("textContent") == results["config"]["text"]
    rows = [
        [td.get_attribute("textContent") for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in driver.find_elements(By.CSS_SELECTOR, "#provenance-inputs tbody tr")
    ]
    assert rows == [[i["role"], i["path"], f"{i['bytes']:,}", i["sha256"]] for i in results["inputs"]]
    assert _errors(driver) == []


@pytest.fixture(scope="module")
def large_report(toy_report, tmp_path_factory) -> Path:
    """The toy report grown to a real one's size: 31 systems (copies of the toy's), documents 40 times as long, an
    analysis table of 55 columns and 40 rows with numbers as small as 3.406e-07, and tests of pairs of systems (as
    `gsr score` makes them) in its summary."""
    from experiments.report.html import ReportData, table_entry, write_html
    from experiments.report.summary import label_summary

    data = ReportData(**embedded_data(toy_report / "report.html"))
    label = data.labels[0]
    toy = list(data.systems)
    for i in range(31 - len(toy)):
        name, source = f"{toy[i % len(toy)]} copy {i}", toy[i % len(toy)]
        data.systems.append(name)
        data.scatter[label][name] = data.scatter[label][source]
        data.lists[label][name] = data.lists[label][source]
        data.table["rows"].append({"cells": [name, *data.table["rows"][0]["cells"][1:]], "sort": [name]})
        sure = data.how_sure[label]["systems"]
        sure.append({**next(s for s in sure if s["system"] == source), "system": name})
    data.documents = {d: " ".join([text] * 40) for d, text in data.documents.items()}
    rows = [{"system": f"system {r}", **{f"column {c} p": 3.406e-07 * (r + c) for c in range(54)}} for r in range(40)]
    data.analyses.append(table_entry("wide", "Table 9: a wide table", rows))
    pairs = [{"a": toy[0], "b": toy[2], "difference": 1.0158, "p_adjusted": 0.0004}]
    pairs.append({"a": toy[1], "b": toy[3], "difference": 1.0158, "p_adjusted": 0.2})
    data.summary["labels"][label]["pairs"] = label_summary([], label, data.scatter[label], pairs=pairs)["pairs"]
    path = tmp_path_factory.mktemp("large") / "report.html"
    write_html(data, path)
    return path


def test_a_large_report_fits_the_window(chromium, large_report, tmp_path):
    """31 systems and a 55-column table: no view scrolls sideways or cuts a box; the systems picker stays one line;
    a 40-row table shows its first 10 rows until asked; the contrast view's queries stay in view below long lists;
    the summary names the pair of systems that differ significantly, linked to their largest |Δ g_q(L)|."""
    from selenium.webdriver.common.by import By

    for view in ("results", "scatter", "query", "contrast", "howsure", "analyses", "provenance"):
        _view(chromium, large_report, view, tmp_path)
    driver = _view(chromium, large_report, "results")
    data = embedded_data(large_report)
    (pair,) = [p for p in data["summary"]["labels"][data["labels"][0]]["pairs"] if p["significant"]]
    assert _text(driver, '#summary [data-claim="pairs"]').startswith("1 of the 2 pairs of systems tested differs")
    item = driver.find_element(By.CSS_SELECTOR, '#summary [data-claim="pairs"] + ul > li')
    assert f"{pair['a']} − {pair['b']}: GSR difference +1.0158, adjusted p < 0.001" in item.text
    item.find_element(By.XPATH, f".//button[text()='query {pair['query']}']").click()
    assert (
        driver.find_element(By.CSS_SELECTOR, "#contrast-table tr.selected").get_attribute("data-query") == pair["query"]
    )
    points = data["scatter"][data["labels"][0]]
    a, b = (dict(zip(points[s]["q"], points[s]["y"])) for s in (pair["a"], pair["b"]))
    assert abs(a[pair["query"]] - b[pair["query"]]) == max(abs(a[q] - b[q]) for q in a if q in b)
    driver = _view(chromium, large_report, "query")
    assert driver.find_element(By.ID, "query-picker").size["height"] < 40
    driver.find_element(By.ID, "query-picked").click()
    assert len(driver.find_elements(By.CSS_SELECTOR, "#query-systems input")) == 31
    assert driver.execute_script(LAYOUT) == []
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="contrast"]').click()
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert driver.execute_script("return scrollY") > 0  # the lists are longer than the window
    top = driver.execute_script("return document.getElementById('contrast-queries').getBoundingClientRect().top")
    assert 0 <= top < 50  # the queries stuck at the top
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="analyses"]').click()
    section = driver.find_element(By.CSS_SELECTOR, '#analyses-list details[data-analysis="wide"]')
    shown = lambda: [r for r in section.find_elements(By.CSS_SELECTOR, "tbody tr") if r.is_displayed()]  # noqa: E731
    assert len(shown()) == 10
    section.find_element(By.CSS_SELECTOR, "button.more").click()
    assert len(shown()) == 40
    assert driver.execute_script(LAYOUT) == [] and _errors(driver) == []


# ------------------------------------------------------------------------------------------ data is never markup
SPAN = '<span style="mask-image:url(http://127.0.0.1:9/x)">S</span>'  # Plotly's <span style>: a CSS fetch
LINK = '<a href="http://127.0.0.1:9/">q</a> %{x}'  # Plotly's <a href> and a hovertemplate substitution
MARKUP = "<!--<script </script> <!--TITLE--> /*DATA*/ /*STYLE*/ /*PLOTLY*/ /*SCRIPT*/ \u2028 \u2029 &amp; \\ end"
OBJECT_WORDS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]
QID = "q<b>\"&'%{y}</b>"
DOC = "d<i>\"&'</i>"
DOC_TEXT = f"he is an electrician {MARKUP} {LINK} {SPAN} {' '.join(OBJECT_WORDS)} café naïve nurse \\"
QUERY_TEXT = f"electrician {LINK} {MARKUP}"
NON_ASCII = {"café": 0.5, "naïve": -0.5}
LONG_DOC_WORDS = 1_000_000


def _hostile_collection(folder: Path) -> tuple[list[str], Path]:
    """The toy collection plus a query, a document and an embedding word list full of markup, and two runs whose
    names (their paths: the two share a file name) are markup: (`gsr score`'s arguments, the documents file)."""
    from tests.support import toy_collection as toy

    write_toy(folder)
    docs = folder / "docs.jsonl"
    docs.write_text(docs.read_text(encoding="utf-8") + json.dumps({"id": DOC, "contents": DOC_TEXT}) + "\n", "utf-8")
    topics = folder / "topics.tsv"
    topics.write_text(topics.read_text(encoding="utf-8") + f"{QID}\t{QUERY_TEXT}\n", "utf-8")
    qrels = folder / "qrels.txt"
    qrels.write_text(qrels.read_text(encoding="utf-8") + f"{QID} 0 {DOC} 2\n", "utf-8")
    vectors = toy.vectors_text().splitlines()
    count, dim = vectors[0].split()
    rows = vectors[1:] + [f"{w} {g} 0.4 0.5" for w, g in NON_ASCII.items()]
    embedding = folder / "v<b>%{x}&.txt"  # its file name is the page's label
    embedding.write_text(f"{len(rows)} {dim}\n" + "\n".join(rows) + "\n", encoding="utf-8")
    runs = []
    for name, order in ((SPAN, [DOC, "m1", "f1"]), ("p%{x}", ["f1", DOC, "m1"])):
        path = f"{folder}/{name}/run.txt"
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        ranked = {**toy.RUN, QID: order}
        toy.write_run(Path(path), ranked)
        runs.append(path)
    args = ["score", "--run", *runs, "--topics", str(topics), "--docs", str(docs), "--qrels", str(qrels)]
    return [*args, "--embedding", str(embedding), "--jobs", "1"], docs


def _hostile_charts() -> list[dict]:
    """Every analysis chart, each name, query id, measure, word and category in it markup."""
    from types import SimpleNamespace as Object

    from experiments.report import plotly_charts as charts
    from experiments.report.html import chart_entry

    systems = [SPAN, LINK]
    point = Object(abs_g=0.3, distance=0.2, qid=QID, g_query=0.3)
    change = Object(
        r=0.5, p_value=0.01, points=[point, Object(abs_g=0.1, distance=0.4, qid="q2", g_query=-0.1)], depth=10
    )
    agreement = Object(coefficient=0.9, p_value=0.001, names=(SPAN, LINK), points=[(QID, 0.1, 0.2), ("q2", 0.3, 0.1)])
    bins = [{"label": LINK, "male": 0.2, "neither": 0.5, "female": 0.3, "n": 4}]
    bins.append({"label": "[0, 1)", "male": 0.1, "neither": 0.6, "female": 0.3, "n": 3})
    probe_rows = [{"system": s, "appended": w, "Δ" + LINK: 0.1 * i} for i, s in enumerate(systems) for w in systems]
    versions = {s: {SPAN: {"female>male": {"share": 0.6, "share_ci": [0.5, 0.7]}}} for s in systems}
    figures = {
        'rank"change': charts.rank_change_chart(Object(systems={s: change for s in systems})),
        "reliability": charts.reliability_chart(Object(query_genderedness=agreement, system_ranking=agreement)),
        "gaps": charts.gap_shares_chart({s: bins for s in systems}),
        "tradeoff": charts.tradeoff_chart(
            Object(points={LINK: [(SPAN, 0.1, 0.2, None), (LINK, 0.2, 0.3, 1)]}, effectiveness=SPAN)
        ),
        "probe": charts.probe_chart(Object(rows=probe_rows, words=systems)),
        "versions": charts.gender_versions_chart(Object(comparisons=versions)),
    }
    return [chart_entry(name, f"{name} {SPAN}", figure) for name, figure in figures.items()]


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory) -> dict[str, Path]:
    """`gsr score --html` of the hostile collection ("scored"), and the same data written again with a title ending
    in a backslash and every analysis chart, all names markup ("full")."""
    from experiments.report.html import ReportData, write_html

    folder = tmp_path_factory.mktemp("hostile")
    args, _ = _hostile_collection(folder / "toy")
    assert main(["-q", *args, "--html", str(folder / "scored.html")]) == 0
    data = ReportData(**embedded_data(folder / "scored.html"))
    data.title = f"gsr-bench: {MARKUP} {SPAN} \\"
    data.analyses = _hostile_charts()
    write_html(data, folder / "full.html")
    return {"scored": folder / "scored.html", "full": folder / "full.html"}


def _fetched(driver) -> list[str]:
    """Every URL the page asked for that is not file: or data: (Chrome's performance log and the page's own)."""
    requests = [json.loads(e["message"])["message"] for e in driver.get_log("performance")]
    urls = [m["params"]["request"]["url"] for m in requests if m["method"] == "Network.requestWillBeSent"]
    urls += driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [url for url in urls if not url.startswith(("file://", "data:", "blob:"))]  # blob: is the page's memory


def _open_query(driver, qid: str) -> None:
    driver.execute_script("openQuery(arguments[0], DATA.systems, DATA.labels[0])", qid)


def _document_node(driver, docid: str):
    from selenium.webdriver.common.by import By

    nodes = [
        n for n in driver.find_elements(By.CSS_SELECTOR, "#query-lists .doc") if n.get_attribute("data-doc") == docid
    ]
    assert nodes, f"{docid} not shown"
    return nodes[0]


def test_markup_in_the_data_is_embedded_as_data(hostile_report):
    """`<!--<script`, `</script>`, the template's placeholders and a trailing backslash in documents, query texts,
    names and the title: the embedded JSON holds no <, > nor & and gives back every string exactly; the page renders
    them as text with no console error."""
    from selenium.webdriver.common.by import By

    for path in hostile_report.values():
        page = path.read_text(encoding="utf-8")
        block = re.search(r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S).group(1)
        assert not set("<>&\u2028\u2029") & set(block)
        data = embedded_data(path)
        assert data["documents"][DOC] == DOC_TEXT and data["queries"][QID] == QUERY_TEXT
        assert [s for s in data["systems"] if s.endswith(f"/{SPAN}/run.txt")]
    full = embedded_data(hostile_report["full"])
    assert full["title"] == f"gsr-bench: {MARKUP} {SPAN} \\"
    page = hostile_report["full"].read_text(encoding="utf-8")
    assert re.search(r"<title>(.*?)</title>", page, re.S).group(1) == html.escape(full["title"])
    driver = _browser()
    try:
        for path in hostile_report.values():
            driver.get(path.as_uri())
            data = embedded_data(path)
            assert driver.execute_script("return document.title") == data["title"]
            assert driver.find_element(By.ID, "title").get_attribute("textContent") == data["title"]
            _open_query(driver, QID)
            summary = driver.find_element(By.ID, "query-summary").get_attribute("textContent")
            assert QUERY_TEXT in summary and QID in summary
            text = _document_node(driver, DOC).find_element(By.CSS_SELECTOR, ".text").get_attribute("textContent")
            assert text == DOC_TEXT
            assert _errors(driver) == []
    finally:
        driver.quit()


HOVER_ALL = """
const [selector, done] = arguments, texts = [];
const plots = Array.from(document.querySelectorAll(selector)).filter((gd) => gd.data);
const pause = () => new Promise((resolve) => setTimeout(resolve, 60));  // Plotly throttles hover events
(async () => {
  for (const gd of plots) {
    for (const [i, trace] of gd._fullData.entries()) {
      if (trace.visible !== true || trace.hoverinfo === "skip") continue;
      const subplot = (trace.xaxis || "x") + (trace.yaxis || "y");
      for (let p = 0; p < (trace.x || trace.y || []).length; p++) {
        Plotly.Fx.hover(gd, [{ curveNumber: i, pointNumber: p }], [subplot]);
        await pause();
        texts.push(gd.querySelector(".hoverlayer").textContent);
      }
    }
    Plotly.Fx.unhover(gd);
  }
})().then(() => done(texts), (error) => done(["hover failed: " + error]));
"""


def _shown_text(driver, selector: str) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(n => n.textContent)", selector
    )


def test_names_and_texts_are_never_plotly_markup(hostile_report):
    """Runs named `<span style=...url(http...)>`, a query text with `<a href>` and `%{x}`, charts whose systems,
    queries, measures and words are the same: opening every view (the "How sure" view's table, sentence and chart
    included) and hovering every point fetches nothing, makes no link, shows `%{x}` as typed and the names as their
    characters, with no console error."""
    from selenium.webdriver.common.by import By

    driver = _browser()
    driver.set_script_timeout(120)
    try:
        driver.get(hostile_report["full"].as_uri())
        data = embedded_data(hostile_report["full"])
        span_run = next(s for s in data["systems"] if SPAN in s)
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="scatter"]').click()
        hovers = driver.execute_async_script(HOVER_ALL, "#scatter-plot")
        assert any(LINK in text and QID in text for text in hovers)  # the query's text, as typed
        assert any("p%{x}/run.txt" in text for text in hovers)  # a run's name in the hover's box, as typed
        assert span_run in _shown_text(driver, "#scatter-plot .legendtext")
        _screenshot(driver, hostile_report["full"].parent, "hostile-scatter")
        image = driver.execute_async_script(  # the modebar's "download plot as a png", under the page's CSP
            "const done = arguments[0]; Plotly.toImage('scatter-plot', { format: 'png' })"
            ".then((url) => done(url.slice(0, 22)), (error) => done(String(error)))"
        )
        assert image == "data:image/png;base64,"
        _open_query(driver, QID)
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="contrast"]').click()
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="analyses"]').click()
        hovers = driver.execute_async_script(HOVER_ALL, "#analyses-list div[data-chart]")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#analyses-list div[data-chart] .main-svg")) >= 6
        assert any(LINK in text for text in hovers) and any(SPAN in text for text in hovers)
        assert any(QID in text for text in hovers)
        shown = " ".join(_shown_text(driver, "#analyses-list .legendtext, #analyses-list .updatemenu-item-text"))
        shown += " ".join(_shown_text(driver, "#analyses-list .xtick, #analyses-list .ytick, #analyses-list .gtitle"))
        shown += " ".join(_shown_text(driver, "#analyses-list .xtitle, #analyses-list .ytitle"))
        assert SPAN in shown and LINK in shown  # legends, menus, ticks and titles show the characters
        _screenshot(driver, hostile_report["full"].parent, "hostile-analyses")
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="howsure"]').click()
        hovers = driver.execute_async_script(HOVER_ALL, "#howsure div[data-precision]")
        assert any(f"{span_run}, resampled" in text for text in hovers)  # the run's name in the hover, as typed
        assert f"{span_run}, resampled" in _shown_text(driver, "#howsure .legendtext")
        assert span_run in _shown_text(driver, "#howsure td") and span_run in _text(driver, "#howsure p.claim")
        _screenshot(driver, hostile_report["full"].parent, "hostile-howsure")
        links = driver.execute_script(
            "return Array.from(document.querySelectorAll('a')).map(a => a.getAttribute('href') || "
            "a.getAttributeNS('http://www.w3.org/1999/xlink', 'href') || '')"
        )
        assert not [link for link in links if re.match(r"\s*https?:", link, re.I)]
        assert driver.execute_script("return document.querySelectorAll('[style*=\"mask-image\"]').length") == 0
        assert _fetched(driver) == []
        assert _errors(driver) == []
    finally:
        driver.quit()


def test_charts_escape_every_name():
    """Each user string in a chart's figure (trace names, hover texts and templates, categories, menus, titles)
    reaches plotly.js as HTML entities: no tag, no `%{` Plotly would read."""
    strings = []

    def walk(value):
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for entry in _hostile_charts():
        walk(entry["figure"])
    entities = {"&": "&#38;", "<": "&#60;", ">": "&#62;", '"': "&#34;", "'": "&#39;", "%": "&#37;"}
    escaped = ["".join(entities.get(c, c) for c in text) for text in (SPAN, LINK, QID)]
    for text in strings:
        for piece in escaped:
            text = text.replace(piece, "")
        assert "127.0.0.1" not in text and "q<b>" not in text and "q&#60;b" not in text, text  # none left unescaped
    assert all(any(piece in text for text in strings) for piece in escaped)


def test_words_named_like_object_properties_are_plain_words(hostile_report):
    """`__proto__`, `constructor`, `toString`, `hasOwnProperty` in a document: not in the lexicon, so shown
    uncoloured, with no console error."""
    from selenium.webdriver.common.by import By

    driver = _browser()
    try:
        driver.get(hostile_report["scored"].as_uri())
        _open_query(driver, QID)
        node = _document_node(driver, DOC)
        coloured = [w.get_attribute("textContent") for w in node.find_elements(By.CSS_SELECTOR, ".w")]
        assert "nurse" in coloured and not set(OBJECT_WORDS) & set(coloured)
        text = node.find_element(By.CSS_SELECTOR, ".text").get_attribute("textContent")
        assert all(word in text for word in OBJECT_WORDS)
        assert _errors(driver) == []
    finally:
        driver.quit()


def test_non_ascii_words_are_coloured(hostile_report):
    """`café` and `naïve` are split and keyed alike by html.word_values and the page: both coloured by g(w)."""
    from selenium.webdriver.common.by import By

    data = embedded_data(hostile_report["scored"])
    words = data["words"][data["labels"][0]]
    assert set(NON_ASCII) <= set(words)
    driver = _browser()
    try:
        driver.get(hostile_report["scored"].as_uri())
        _open_query(driver, QID)
        node = _document_node(driver, DOC)
        spans = {w.get_attribute("textContent"): w for w in node.find_elements(By.CSS_SELECTOR, ".w")}
        for word in NON_ASCII:
            assert "background" in spans[word].get_attribute("style")
            assert spans[word].get_attribute("title") == f"g(w) = {words[word]:+.4f}"
        assert _errors(driver) == []
    finally:
        driver.quit()


def test_long_documents_are_cut_in_the_page(tmp_path, capsys):
    """A 10⁶-word document: its text is embedded up to MAX_TEXT_CHARACTERS, cut at a word boundary, with a note
    the query view shows; its g_q(d) and the scatter are the whole document's. Everything beside plotly.js (inlined
    in every page, 4.9 MB) stays under 3 MB."""
    from plotly.offline import get_plotlyjs
    from selenium.webdriver.common.by import By

    from experiments.report.html import MAX_TEXT_CHARACTERS

    folder = write_toy(tmp_path / "toy")
    words = "she is a nurse at the hospital and gives kind care".split()
    long_text = " ".join(words[i % len(words)] for i in range(LONG_DOC_WORDS))
    lines = [json.loads(line) for line in (folder / "docs.jsonl").read_text().splitlines()]
    docs = [{"id": d["id"], "contents": long_text if d["id"] == "f1" else d["contents"]} for d in lines]
    (folder / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    page_path = tmp_path / "long.html"
    assert main(["-q", *score_args(folder), "--json", "--html", str(page_path)]) == 0
    scored = json.loads(capsys.readouterr().out)
    size = page_path.stat().st_size
    assert size - len(get_plotlyjs().encode("utf-8")) < 3_000_000, size
    data = embedded_data(page_path)
    shown = data["documents"]["f1"]
    assert len(shown) <= MAX_TEXT_CHARACTERS < len(long_text)
    assert long_text.startswith(shown) and long_text[len(shown)] == " "  # at a word boundary
    note = f"text cut at {MAX_TEXT_CHARACTERS:,} of {len(long_text):,} characters"
    assert note in data["cut"]["f1"] and set(data["cut"]) == {"f1"}
    points = data["scatter"]["vectors.txt"]["run.txt"]
    g_list = {q["qid"]: q["g_list"] for q in scored["per_query"]}
    assert points["y"] == pytest.approx([g_list[q] for q in points["q"]], abs=1e-4)  # numbers of the whole text
    driver = _browser()
    try:
        driver.get(page_path.as_uri())
        _open_query(driver, "q2")  # f1 is q2's first document
        node = _document_node(driver, "f1")
        cut = node.find_element(By.CSS_SELECTOR, ".cut")
        assert cut.is_displayed() and note in cut.text
        assert _errors(driver) == []
    finally:
        driver.quit()


def test_the_query_view_shows_a_tie_crossing_k_whole(tiny_lexicon):
    """GSR weighs every document of a tie crossing the cut-off K (gsr.equations.cut_with_ties); the page lists them
    all, not the first K by document id."""
    from experiments.report.html import query_lists
    from gsr import DocumentStats

    docs = {"a": "care", "b": "man", "c": "woman", "d": "she"}
    gendered = DocumentStats.build(docs.items(), n_jobs=1).gendered(tiny_lexicon)
    run = {"q": [("a", 3.0), ("d", 2.0), ("c", 2.0), ("b", 1.0)]}
    lists, shown = query_lists({"S": run}, {"q": "nurse"}, gendered, {"q": 2}, None)
    assert [row[0] for row in lists["S"]["q"]] == ["a", "d", "c"] and shown == {"a", "c", "d"}
