"""`gsr score --html`'s page says what it did: its Provenance lists every file scored (path, size, SHA-256) and the
settings that change its numbers; a view with nothing to show (Analyses: `gsr score` runs none) has no tab; its
summary opens with the forest plot and states the family its tests were adjusted over."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from experiments.cli import main
from tests.support.report_page import LAYOUT, browser, embedded_data, screenshot, severe_errors, text_of
from tests.support.toy_collection import score_args, write_toy

FILES = ("run.txt", "reversed.txt", "topics.tsv", "docs.jsonl", "qrels.txt", "vectors.txt")


@pytest.fixture(scope="module")
def scored_page(tmp_path_factory) -> tuple[Path, Path]:
    """The toy's run and the same run in reverse order, scored with qrels into report.html."""
    folder = write_toy(tmp_path_factory.mktemp("scored") / "toy")
    lines = (folder / "run.txt").read_text().splitlines()
    by_query: dict[str, list[str]] = {}
    for line in lines:
        by_query.setdefault(line.split()[0], []).append(line.split()[2])
    reversed_run = [
        f"{q} Q0 {d} {rank} {len(ids) - rank} reversed\n"
        for q, ids in by_query.items()
        for rank, d in enumerate(reversed(ids), 1)
    ]
    (folder / "reversed.txt").write_text("".join(reversed_run))
    page = folder / "scored.html"
    args = [*score_args(folder, ("run.txt", "reversed.txt")), "--resamples", "200", "--seed", "3", "--html", str(page)]
    assert main(["-q", *args]) == 0
    return folder, page


def test_the_provenance_lists_the_files_scored_and_the_settings(scored_page):
    folder, page = scored_page
    provenance = embedded_data(page)["provenance"]
    assert [i["role"] for i in provenance["inputs"]] == ["run 1", "run 2", "topics", "documents", "qrels", "embedding"]
    for entry, name in zip(provenance["inputs"], FILES):
        path = folder / name
        assert entry["path"] == str(path) and entry["bytes"] == path.stat().st_size
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    settings = provenance["settings"]
    assert settings["embedding"] == str(folder / "vectors.txt")
    assert (settings["resamples"], settings["seed"], settings["interval level"]) == (200, 3, 0.95)
    assert (settings["cut-off"], settings["correction"], settings["correction family"]) == (
        "relevant",
        "holm",
        "measure",
    )
    assert settings["measures"] == "AP, P@10, nDCG@100" and settings["query terms excluded by"] == "lemma"
    assert settings["definitional pairs"].startswith("Bolukbasi") and settings["stop words"].startswith("nltk")
    assert provenance["environment"]["versions"]["gsr-bench"] == provenance["version"]


def test_the_summary_names_the_family_its_tests_were_adjusted_over(scored_page):
    _, page = scored_page
    summary = embedded_data(page)["summary"]
    # GSR's family (--correction-family measure): each run against the perfect engine, and the one pair
    assert summary["correction"] == {
        "method": "holm",
        "tests": 3,
        "scope": "GSR, each run against the perfect engine and every pair of runs",
    }
    (facts,) = summary["labels"].values()
    claims = {c["claim"]: c for c in facts["claims"]}
    said = "".join(p if isinstance(p, str) else "" for p in claims["reinforcing"]["parts"])
    assert "over the 3 tests of GSR, each run against the perfect engine and every pair of runs)" in said
    assert sorted(facts["chart"]["layout"]["yaxis"]["categoryarray"]) == ["reversed.txt", "run.txt"]


def test_the_page_in_headless_chromium_shows_no_empty_tab(scored_page, tmp_path):
    """No Analyses tab (`gsr score` runs no analysis); the Provenance tab shows the settings and each file's SHA-256;
    the summary's forest plot is drawn before its sentences."""
    from selenium.webdriver.common.by import By

    folder, page = scored_page
    driver = browser((1400, 900))
    try:
        driver.get(page.as_uri())
        tabs = [b.get_attribute("data-view") for b in driver.find_elements(By.CSS_SELECTOR, "nav button")]
        shown = [
            b.get_attribute("data-view")
            for b in driver.find_elements(By.CSS_SELECTOR, "nav button")
            if b.is_displayed()
        ]
        assert "analyses" in tabs and shown == ["results", "scatter", "query", "contrast", "howsure", "provenance"]
        order = driver.execute_script(
            "return Array.from(document.getElementById('summary').children).map(n => n.dataset.forest ? 'chart' "
            ": n.dataset.claim || n.tagName)"
        )
        assert order[:3] == ["H2", "chart", "engines"]
        assert driver.execute_script("return document.querySelector('#summary .forest .main-svg') !== null")
        screenshot(driver, tmp_path, "scored-results")
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="provenance"]').click()
        assert driver.execute_script(LAYOUT) == []
        inputs = text_of(driver, "#provenance-inputs")
        for name in FILES:
            assert hashlib.sha256((folder / name).read_bytes()).hexdigest() in inputs
        assert "resamples200" in text_of(driver, "#provenance-settings").replace(" ", "")
        screenshot(driver, tmp_path, "scored-provenance")
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="howsure"]').click()
        assert driver.execute_script(LAYOUT) == []
        assert driver.execute_script("return document.querySelector('#howsure .main-svg') !== null")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#howsure table tbody tr")) == 2
        screenshot(driver, tmp_path, "scored-howsure")
        assert severe_errors(driver) == []
    finally:
        driver.quit()


def test_how_sure_is_what_gsr_plan_prints_for_the_same_runs(scored_page, tmp_path):
    """`gsr score --html`'s "How sure" view: each run's topics for ±0.02 and ±0.01, its half-width curve and the
    pair's minimal detectable difference are those `gsr plan` gives for the same runs, topics, documents, qrels and
    embedding, at the same level and seed and with the page's simulated studies; today's half-width is half the
    interval the page's table shows."""
    folder, page = scored_page
    data = embedded_data(page)
    (facts,) = data["how_sure"].values()
    assert [s["system"] for s in facts["systems"]] == ["run.txt", "reversed.txt"] and facts["seed"] == 3
    for entry in facts["systems"]:
        low, high = data["scatter"][data["labels"][0]][entry["system"]]["ci"]
        assert entry["half_width"] == pytest.approx((high - low) / 2, rel=1e-12)
    for i, target in enumerate(facts["targets"]):
        out = tmp_path / f"plan-{i}.json"
        args = [*score_args(folder, ("run.txt", "reversed.txt"))[1:], "--seed", "3", "--target-width", str(target)]
        args += ["--resamples", str(facts["studies"])]
        assert main(["-q", "plan", *args, "--json", str(out)]) == 0
        plan = json.loads(out.read_text())
        planned = list(plan["runs"].values())
        assert [entry["needed"][i][0] for entry in facts["systems"]] == [p["n_for_target_width"] for p in planned]
        for entry, run in zip(facts["systems"], planned):
            assert entry["curve"]["analytic"] == [run["half_width_analytic"][str(n)] for n in entry["curve"]["n"]]
    (pair,) = plan["pairs"]
    assert facts["pair"]["mdd"] == pair["minimal_detectable_difference"]
    assert facts["pair"]["why"] == (pair["why"].get("minimal_detectable_difference") if pair["why"] else None)
