"""report.html in tests: the data a page embeds, and the page in Debian's headless Chromium (driven by Selenium):
opening a browser, a screenshot kept where $GSR_SCREENSHOTS says, the console's errors, an element's text, and the
layout check every view must pass. Helpers only: no test lives here."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def embedded_data(path: Path) -> dict:
    page = path.read_text(encoding="utf-8")
    match = re.search(r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(match.group(1))  # <, > and & are \u escapes, which JSON reads as the characters


def browser(size: tuple[int, int] = (1400, 1000)):
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
        f"--window-size={size[0]},{size[1]}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    from selenium.webdriver.chrome.service import Service

    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def screenshot(driver, folder: Path, name: str) -> None:
    driver.save_screenshot(str(folder / f"{name}.png"))
    extra = os.environ.get("GSR_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(extra) / f"{name}.png"))


def severe_errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def text_of(driver, selector: str) -> str:
    return driver.execute_script("return document.querySelector(arguments[0]).textContent", selector)


# what the page must never do at a window size: scroll sideways, or cut a box's content without a scroll bar. An
# element marked .scroll is meant to scroll (a wide table, the contrast view's queries, the systems picker): it must
# scroll (overflow auto) rather than clip. Plotly lays out its own charts: their insides are its business.
LAYOUT = """
const problems = [], root = document.documentElement, scrolls = (o) => o === "auto" || o === "scroll";
if (root.scrollWidth > innerWidth) problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${innerWidth}`);
for (const node of document.querySelectorAll("body *")) {
  if (!(node instanceof HTMLElement) || !node.getClientRects().length) continue;
  const plot = node.closest(".js-plotly-plot");
  if (plot && plot !== node) continue;
  const style = getComputedStyle(node), name = `${node.tagName}#${node.id}.${node.className}`;
  if (node.classList.contains("scroll")) {
    if (!scrolls(style.overflowX) || !scrolls(style.overflowY)) problems.push(`${name} should scroll`);
  } else if (style.overflowX !== "visible" || style.overflowY !== "visible") {
    if (node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1) {
      const [w, h] = [node.scrollWidth, node.scrollHeight];
      problems.push(`${name} clips ${w}x${h} to ${node.clientWidth}x${node.clientHeight}`);
    }
  }
}
return problems;
"""
