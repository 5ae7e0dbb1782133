"""Size and load time of a report.html in headless Chromium (Debian's chromium and chromium-driver, via Selenium).

    .venv/bin/python benchmarks/bench_report.py [out/demo/report.html] [--repeat 5]

For each of --repeat fresh page loads from file:// it measures, from the navigation's start: the time until the page's
script has run and the results table is on screen (the load event: the script runs inline, before it), then the time
to draw the GSR scatter view and the analyses view (every chart) when their buttons are clicked. Prints the best and
the median of each, the file's size, and their ratios to the targets (2 s to load, 20 MB).
Figures go to stdout; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

LOAD_TARGET_S = 2.0
SIZE_TARGET_MB = 20.0


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def drawn(driver, view: str, selector: str) -> float:
    """Seconds from clicking a view's button until `selector` matches as many Plotly charts as the view holds."""
    start = time.perf_counter()
    driver.find_element("css selector", f'nav button[data-view="{view}"]').click()
    expected = driver.execute_script(f"return document.querySelectorAll('#{view} .plot').length")
    while driver.execute_script(f"return document.querySelectorAll('{selector}').length") < expected:
        time.sleep(0.01)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", nargs="?", default="out/demo/report.html")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    parser.add_argument("--name", help="whose report, for the figures' names (default: its folder's name)")
    args = parser.parse_args()
    path = Path(args.report).resolve()
    size_mb = path.stat().st_size / 1e6
    figures: dict[str, list[float]] = {"load (table shown)": [], "scatter view drawn": [], "analyses view drawn": []}
    driver = browser()
    try:
        for _ in range(args.repeat):
            driver.get("about:blank")
            driver.get(path.as_uri())
            loaded = 0.0
            while not loaded:  # the load event ends after the page's script has drawn the results table
                loaded = driver.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd")
                time.sleep(0.01)
            figures["load (table shown)"].append(loaded / 1000)
            figures["scatter view drawn"].append(drawn(driver, "scatter", "#scatter .js-plotly-plot"))
            figures["analyses view drawn"].append(drawn(driver, "analyses", "#analyses .js-plotly-plot"))
    finally:
        driver.quit()
    print(f"{path}: {size_mb:.1f} MB ({size_mb / SIZE_TARGET_MB:.2f} × the {SIZE_TARGET_MB:g} MB target)")
    print(f"{'':<24} {'best':>8} {'median':>8}   ({args.repeat} loads, headless Chromium)")
    for name, values in figures.items():
        print(f"{name:<24} {min(values):7.2f}s {statistics.median(values):7.2f}s")
    load = statistics.median(figures["load (table shown)"])
    print(f"load: {load / LOAD_TARGET_S:.2f} × the {LOAD_TARGET_S:g} s target (median)")
    if args.json:
        from common import write_json

        whose = args.name or path.parent.name
        name = f"report.html ({whose}): load in headless Chromium, median of {args.repeat}"
        figures = {
            name: {"s": load, "target_s": LOAD_TARGET_S, "ratio": load / LOAD_TARGET_S},
            f"report.html ({whose}): size": {
                "MB": size_mb,
                "target_MB": SIZE_TARGET_MB,
                "ratio": size_mb / SIZE_TARGET_MB,
            },
        }
        write_json({"benchmark": "report", "figures": figures}, args.json)


if __name__ == "__main__":
    main()
