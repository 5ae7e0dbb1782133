"""Measure agreement in report.html (`gsr score --agreement --html`): one analysis section with its table and chart,
the table's numbers those of gsr.fairness.agreement, one summary sentence when measures disagree (word for word from
the facts) and none when they agree; every name is text, never markup, in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.report.summary import agreement_sentence
from tests.support.report_page import LAYOUT, browser, embedded_data, screenshot, severe_errors
from tests.support.toy_collection import RUN, SHUFFLED_RUN, score_args, write_run, write_toy

HOSTILE = "<img src=x onerror=alert(1)>&%{x}.run"  # markup, an entity's start, Plotly's template syntax


def _args(folder: Path, *extra: str) -> list[str]:
    return ["-q", *score_args(folder, ("reversed.run", HOSTILE)), "--resamples", "200", *extra]


@pytest.fixture(scope="module")
def agreement_page(tmp_path_factory) -> tuple[Path, dict]:
    """Two runs GSR and FaiRR@2 order oppositely (a hostile name on one), with --agreement: the page and --json."""
    folder = write_toy(tmp_path_factory.mktemp("agreement") / "toy")
    for name, run in (("reversed.run", {q: list(reversed(d)) for q, d in RUN.items()}), (HOSTILE, SHUFFLED_RUN)):
        write_run(folder / name, run)
    page = folder / "agreement.html"
    extra = ("--bias-measures", "FaiRR@2,NFaiRR@3", "--agreement")
    assert main(_args(folder, *extra, "--html", str(page))) == 0
    return page, _json(folder, *extra)


def _json(folder: Path, *extra: str) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(_args(folder, *extra, "--json")) == 0
    return json.loads(out.getvalue())


def test_one_section_whose_numbers_are_agreement_py_s(agreement_page):
    page, scored = agreement_page
    data = embedded_data(page)
    (section,) = data["analyses"]
    assert section["name"] == "measure_agreement" and section["figure"]["data"]
    columns = section["table"]["columns"]
    rows = [dict(zip(columns, sort)) for sort in section["table"]["sort"]]
    taus = scored["agreement"]["taus"]
    assert [(r["measure"], r["compared with"]) for r in rows] == [tuple(t["measures"]) for t in taus]
    for row, tau in zip(rows, taus):
        assert row["τ"] == tau["tau"] and row["systems"] == tau["systems"] == 2
        assert row["τ ci low"] == "—" and row["note"].startswith("no interval: two systems")  # the reason, no number
    opposite = {tuple(d["measures"]) for d in scored["agreement"]["disagreements"]}
    assert [r["opposite pairs"] for r in rows] == [int(tuple(sorted(t["measures"])) in {tuple(sorted(o)) for o in
                                                   opposite}) for t in taus]  # fmt: skip


def test_the_summary_says_the_measures_disagree_in_one_sentence(agreement_page):
    page, scored = agreement_page
    claim = embedded_data(page)["summary"]["agreement"]
    assert claim == agreement_sentence(scored["agreement"])
    (sentence,) = claim["parts"]
    assert sentence.startswith("The bias measures disagree about which systems are more biased: ")
    assert "order the two systems oppositely (Kendall τ < 0), most of all GSR and FaiRR@2 (τ = -1.0000" in sentence


def test_the_sentence_is_made_from_the_facts():
    def tau(measures, value, interval):
        return {"measures": measures, "tau": value, "interval": interval, "systems": 4}

    facts = {
        "systems": ["a", "b", "c", "d"],
        "taus": [
            tau(["GSR", "NFaiRR@10"], -0.3333, [-1.0, 0.6667]),
            tau(["GSR", "RaB@10"], 0.6667, [0.0, 1.0]),
            tau(["NFaiRR@10", "RaB@10"], "undefined: the second measure gives all 4 systems the same value", None),
        ],
    }
    assert agreement_sentence(facts) == {
        "claim": "agreement",
        "parts": [
            "The bias measures disagree about which systems are more biased: 1 of the 2 pairs of measures order the "
            "systems more often oppositely than alike (Kendall τ < 0), most of all GSR and NFaiRR@10 (τ = -0.3333, "
            "[-1.0000, +0.6667]); the measure agreement section names the queries behind each disagreement."
        ],
        "items": [],
    }
    facts["taus"][0]["tau"] = 0.0
    assert agreement_sentence(facts) is None and agreement_sentence(None) is None


def test_the_page_in_headless_chromium_shows_names_as_text(agreement_page, tmp_path):
    from selenium.webdriver.common.by import By

    page, scored = agreement_page
    driver = browser()
    try:
        driver.get(page.as_uri())
        claim = driver.find_element(By.CSS_SELECTOR, '[data-claim="agreement"]')
        assert claim.text == agreement_sentence(scored["agreement"])["parts"][0]
        driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="analyses"]').click()
        section = driver.find_element(By.CSS_SELECTOR, '[data-analysis="measure_agreement"]')
        assert section.find_elements(By.CSS_SELECTOR, '[data-chart="measure_agreement"] .main-svg')
        assert HOSTILE in section.text and not driver.find_elements(By.CSS_SELECTOR, "img[src=x]")
        legend = [t.text for t in section.find_elements(By.CSS_SELECTOR, ".legendtext")]
        assert HOSTILE in legend  # Plotly shows the name as it is: no tag read, no %{x} substituted
        screenshot(driver, tmp_path, "agreement")
        assert driver.execute_script(LAYOUT) == [] and not severe_errors(driver)
    finally:
        driver.quit()


def test_agreeing_measures_add_no_sentence(tmp_path):
    folder = write_toy(tmp_path / "toy")
    for name, run in (("reversed.run", {q: list(reversed(d)) for q, d in RUN.items()}), (HOSTILE, RUN)):
        write_run(folder / name, run)
    page = folder / "page.html"
    assert main(_args(folder, "--bias-measures", "NFaiRR@3", "--agreement", "--html", str(page))) == 0
    data = embedded_data(page)
    assert data["summary"]["agreement"] is None and data["analyses"][0]["name"] == "measure_agreement"
