"""report.html: its numbers are results.json's, its lists are the ones GSR measured, and in headless Chromium (Debian's
chromium and chromium-driver, driven by Selenium) it opens from file:// with no console error and no network request,
lists every system, draws one point per measured query, opens a query's documents from a point, and orders the
contrast view by |Δ g_q(L)|. Screenshots are left in the test's folder (and $GSR_SCREENSHOTS, where set)."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from gsr.measure import rank_discounts
from tests.support.toy_collection import score_args, write_toy

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def embedded_data(path: Path) -> dict:
    page = path.read_text(encoding="utf-8")
    match = re.search(r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(match.group(1).replace("<\\/", "</"))


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
    """Fig. 12 is shown as a Plotly chart (not its PNG): per system three stacked bar traces, male / neither /
    female, whose heights are fig12_intrinsic_gender.json's shares in %, one system visible at a time; its PNG,
    written beside, is not in the page."""
    data = embedded_data(toy_report / "report.html")
    table, entry = [a for a in data["analyses"] if a["name"] == "fig12_intrinsic_gender"]
    assert "html" in table and "figure" in entry and (toy_report / "fig12_intrinsic_gender.png").is_file()
    assert not [a for a in data["analyses"] if "png" in a]  # no figure with a chart is shown again as its PNG
    rows = json.loads((toy_report / "fig12_intrinsic_gender.json").read_text())
    systems = list(dict.fromkeys(row["system"] for row in rows))
    traces = entry["figure"]["data"]
    assert len(traces) == 3 * len(systems)
    for i, system in enumerate(systems):
        bins = [row for row in rows if row["system"] == system]
        for trace, side in zip(traces[3 * i : 3 * i + 3], ("male", "neither", "female")):
            assert trace["x"] == [row["label"] for row in bins]
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
    with pytest.raises(SystemExit):
        main([*args, "--html", str(tmp_path / "scored.html")])  # exists: refused, nothing overwritten
    assert "exists; give a new file" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ in a real browser
def _browser():
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip(
            "headless Chromium not installed (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
        )
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    from selenium.webdriver.chrome.service import Service

    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def _screenshot(driver, folder: Path, name: str) -> None:
    driver.save_screenshot(str(folder / f"{name}.png"))
    extra = os.environ.get("GSR_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(extra) / f"{name}.png"))


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
