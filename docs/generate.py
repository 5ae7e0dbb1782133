"""Regenerate every number and table the docs include, so none is typed by hand.

    python docs/generate.py                       # the cheap ones: config reference tables, the toy scoring output
    python docs/generate.py --runs out            # also the tables and figures of gsr run demo and grepbiasir, run
                                                  # again into out/demo and out/grepbiasir in a fresh, empty cache
    python docs/generate.py --runs out --reuse    # the same from the outputs already there (no run)
    python docs/generate.py --check               # write nothing: run everything again (both configs in a fresh
                                                  # cache, in a temporary folder) and list every generated file
                                                  # that differs from what the docs hold; exit status 1 if any

The docs include the files of docs/generated/ (pymdownx.snippets) and hold the registry tables between
`<!-- gsr list WHAT -->` and `<!-- end -->`; tests/test_docs.py regenerates the cheap ones and fails when they differ.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
GENERATED = DOCS / "generated"
# output folder -> the files of its run the docs include (tables as docs/generated/NAME_FILE; figures beside the
# page that shows them, as docs/FILE_STEM_NAME.png)
RUN_FILES = {
    "demo": (
        "results.md",
        "label_bias.md",
        "label_bias_rerankers.md",
        "adversarial_probe.md",
        "label_bias_tradeoff.png",
    ),
    "grepbiasir": (
        "results.md",
        "label_bias.md",
        "label_bias_rerankers.md",
        "encoder_debiasing.md",
        "measure_agreement.md",
        "label_bias_tradeoff.png",
    ),
}


VERSION_COLUMNS = ("female above male", "rank female − male", "neutral above male", "neutral above female")


def gender_versions_overview(rows: list[dict]) -> str:
    """The all-queries rows of a run's gender_versions.json, four comparisons with their intervals (two decimals);
    † marks a female − male rank difference significant after the table's correction."""
    lines = ["| system | " + " | ".join(VERSION_COLUMNS) + " |", "|---|" + "---:|" * len(VERSION_COLUMNS)]
    for row in (r for r in rows if r["category"] == "all"):
        cells = []
        for column in VERSION_COLUMNS:
            low, high = row[f"{column} ci low"], row[f"{column} ci high"]
            mark = row.get(f"{column} mark", "") or ""
            value = "—" if row[column] is None else f"{row[column]:.2f}{mark}"
            cells.append(value if low is None else f"{value} [{low:.2f}, {high:.2f}]")
        lines.append(f"| {row['system']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def registry_tables() -> dict[str, str]:
    """`gsr list WHAT` for the systems, analyses and collection kinds, as Markdown tables."""
    from experiments.commands.listing import TABLES

    return {what: make() for what, make in TABLES.items()}


def with_registry_tables(text: str, tables: dict[str, str]) -> str:
    for what, table in tables.items():
        text = re.sub(
            rf"(<!-- gsr list {what} -->\n).*?(\n<!-- end -->)",
            lambda m, t=table: m.group(1) + t.strip() + m.group(2),
            text,
            flags=re.S,
        )
    return text


@contextlib.contextmanager
def exported(collection: str):
    """The working folder is, for the block, a temporary one holding the built-in `collection` as `gsr export`
    writes it, in the folder COLLECTION/."""
    from experiments.cli import main

    with tempfile.TemporaryDirectory() as folder:
        previous = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                main(["-q", "export", collection, "--out", collection])
            yield
        finally:
            os.chdir(previous)


def score_output(collection: str, runs: tuple[str, ...], measures: str = "nDCG@10,AP", extra: tuple = ()) -> str:
    """What the docs show `gsr score` printing on the exported built-in `collection` (gsr export), its `runs`, with
    `extra` options."""
    from experiments.cli import main

    with exported(collection):
        files = ["--topics", f"{collection}/topics.tsv", "--docs", f"{collection}/documents.jsonl"]
        files += ["--qrels", f"{collection}/qrels.txt", "--measures", measures]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["-q", "score", "--run", *(f"{collection}/{run}" for run in runs), *files, *extra])
    return out.getvalue()


def toy_score_output() -> str:
    """What docs/scoring.md shows `gsr score` printing on the exported toy 1 collection."""
    return score_output("toy1", ("stereotypical.run", "counter-stereotypical.run"))


def grepbiasir_score_output() -> str:
    """What README.md and docs/index.md show `gsr score` printing on Grep-BiasIR's shipped BM25 and MiniLM runs."""
    return score_output("grepbiasir", ("bm25.run", "minilm.run"))


GREPBIASIR_BIAS = ("--cutoff", "10", "--bias-measures", "NFaiRR@10,RaB@10,ARaB@10,RaB_bool@10,ARaB_bool@10")
GREPBIASIR_BIAS += ("--background", "grepbiasir/bm25.run", "--agreement")  # docs/scoring.md's command, after its files


def grepbiasir_bias_output() -> str:
    """What docs/scoring.md shows `gsr score --bias-measures ... --agreement` printing on the shipped runs."""
    return score_output("grepbiasir", ("bm25.run", "minilm.run"), "nDCG@10", GREPBIASIR_BIAS)


# docs/planning.md's commands (as its bash blocks give them, after `gsr`) on the exported Grep-BiasIR, and the file
# of docs/generated/ each one's output goes to
PLAN_COMMANDS = {
    "grepbiasir_plan.txt": "plan --run grepbiasir/bm25.run grepbiasir/minilm.run --topics grepbiasir/topics.tsv "
    "--docs grepbiasir/documents.jsonl --qrels grepbiasir/qrels.txt --measures nDCG@10 --target-width 0.02 "
    "--difference 0.05 nDCG@10=0.02",
    "grepbiasir_plan_pool.txt": "plan --run grepbiasir/bm25.run --topics grepbiasir/topics.tsv "
    "--docs grepbiasir/documents.jsonl --qrels grepbiasir/qrels.txt --n 40 --pool msmarco-gender --select 40 "
    "--neutral-share 0.1",
}


def plan_outputs() -> dict[str, str]:
    """What docs/planning.md shows each of PLAN_COMMANDS printing: {file of docs/generated/: output}."""
    from experiments.cli import main

    outputs = {}
    with exported("grepbiasir"):
        for name, command in PLAN_COMMANDS.items():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main(["-q", *command.split()])
            outputs[name] = out.getvalue()
    return outputs


# the paper's published row (mean ± sd over 1,000 runs), quoted: ϵ = 0.2, 0.4, 0.6, then ρ = 0.2, 0.4, 0.6
FENG_SHAH_TABLE_1 = (
    "| Feng & Shah Table 1 | "
    + " | ".join(("0.426 ± 0.189", "0.203 ± 0.107", "0.105 ± 0.063", "0.553 ± 0.222", "0.316 ± 0.143", "0.198 ± 0.095"))
    + " |"
)


def feng_shah_table() -> str:
    """Feng & Shah's Table 1 setting (100 female then 100 male images, T = (.5, .5), Eq. 1 over all 200) over 1,000
    seeds of gsr-bench's epsilon-greedy and relevance-aware swapping, beside the paper's published row."""
    import statistics

    from gsr.fairness.equations import feng_shah_bias
    from retrievers.fair_ranking import Reranker

    images = [(f"i{i:03d}", float(200 - i)) for i in range(200)]
    labels = {d: "female" if i < 100 else "male" for i, (d, _) in enumerate(images)}
    cells = []
    for method, key in (("epsilon_greedy", "epsilon"), ("relevance_swap", "rho")):
        for value in (0.2, 0.4, 0.6):
            values = []
            for seed in range(1000):
                out = Reranker(method, {key: value, "seed": seed, "depth": "all"}).rerank_query("ceo", images)
                values.append(feng_shah_bias([labels[d] for d, _ in out], (0.5, 0.5), 200))
            cells.append(f"{statistics.fmean(values):.3f} ± {statistics.stdev(values):.3f}")
    head = (
        "| | ϵ = 0.2 | ϵ = 0.4 | ϵ = 0.6 | ρ = 0.2 | ρ = 0.4 | ρ = 0.6 |\n| --- | --- | --- | --- | --- | --- | --- |\n"
    )
    return head + f"| gsr-bench, 1,000 seeds | {' | '.join(cells)} |\n" + FENG_SHAH_TABLE_1 + "\n"


def validate_output() -> str:
    """What `gsr validate` prints on the built-in embedding (docs/scoring.md)."""
    from experiments.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["-q", "validate"])
    return out.getvalue()


def cheap_outputs() -> dict[Path, str]:
    """Each generated file (or page with generated tables) and the text it must hold."""
    tables = registry_tables()
    experiments = DOCS / "experiments.md"
    return {
        GENERATED / "toy1_score.txt": toy_score_output(),
        GENERATED / "grepbiasir_score.txt": grepbiasir_score_output(),
        GENERATED / "grepbiasir_score_bias.txt": grepbiasir_bias_output(),
        GENERATED / "feng_shah_table1.md": feng_shah_table(),
        GENERATED / "validate.txt": validate_output(),
        **{GENERATED / name: text for name, text in plan_outputs().items()},
        experiments: with_registry_tables(experiments.read_text(encoding="utf-8"), tables),
    }


SHIPPED_RUNS = {"BM25": "bm25", "MiniLM": "minilm"}  # systems of gsr run grepbiasir whose runs ship with gsr
SHIPPED_DEPTH = 20


def shipped_runs(runs: Path) -> dict[Path, bytes]:
    """The top SHIPPED_DEPTH of BM25's and MiniLM's Grep-BiasIR runs (in `runs`, the run's runs/ folder), as the
    contents of gsr/data/grepbiasir/runs/*.run, which `gsr export grepbiasir` writes beside the collection: real runs
    the docs' first example scores."""
    sys.path.insert(0, str(DOCS.parent))
    from gsr.io.runs import read_trec_run, write_trec_run

    target = DOCS.parent / "gsr" / "data" / "grepbiasir" / "runs"
    contents = {}
    with tempfile.TemporaryDirectory() as folder:
        for system, name in SHIPPED_RUNS.items():
            source = runs / f"{system}.run"
            if not source.is_file():
                print(f"no {source}: the shipped {name}.run is left as it is", file=sys.stderr)
                continue
            run = {qid: ranked[:SHIPPED_DEPTH] for qid, ranked in read_trec_run(source).items()}
            write_trec_run(run, Path(folder, f"{name}.run"), tag=name)
            contents[target / f"{name}.run"] = Path(folder, f"{name}.run").read_bytes()
    return contents


def run_outputs(runs: Path) -> tuple[dict[Path, bytes], list[str]]:
    """The files the docs take from the outputs of gsr run demo / grepbiasir in `runs` ({path in the docs: content}:
    tables as docs/generated/NAME_FILE, figures as docs/FILE_STEM_NAME.png, Grep-BiasIR's gender-versions overview),
    and the outputs that are missing."""
    contents: dict[Path, bytes] = {}
    missing = []
    for name, files in RUN_FILES.items():
        for file in files:
            source = runs / name / file
            target = DOCS / f"{source.stem}_{name}.png" if file.endswith(".png") else GENERATED / f"{name}_{file}"
            if source.is_file():
                contents[target] = source.read_bytes()
            else:
                missing.append(f"no {source}: run gsr run {name} --out {runs / name} first")
    versions = runs / "grepbiasir" / "gender_versions.json"
    if versions.is_file():
        overview = gender_versions_overview(json.loads(versions.read_text(encoding="utf-8")))
        contents[GENERATED / "grepbiasir_gender_versions.md"] = overview.encode("utf-8")
    else:
        missing.append(f"no {versions}: run gsr run grepbiasir --out {runs / 'grepbiasir'} first")
    return contents, missing


def differing(contents: dict[Path, bytes]) -> list[Path]:
    """The files whose content on disk is not `contents`' (missing ones included), in name order."""
    return sorted(path for path, data in contents.items() if not path.is_file() or path.read_bytes() != data)


def fresh_runs(folder: Path) -> None:
    """`gsr run NAME --out FOLDER/NAME` for every config the docs show, in a new empty cache (GSR_CACHE) and without
    $NLTK_DATA: the docs show what a new machine prints (no NLTK corpora: census first names, the stop list's copy)."""
    import subprocess

    env = {name: value for name, value in os.environ.items() if name != "NLTK_DATA"}
    with tempfile.TemporaryDirectory(prefix="gsr-docs-cache-") as cache:
        for name in RUN_FILES:
            command = [sys.executable, "-m", "experiments.cli", "run", name, "--out", str(folder / name), "--force"]
            print("running", " ".join(command[2:]), "in a fresh cache", flush=True)
            subprocess.run(command, check=True, cwd=DOCS.parent, env={**env, "GSR_CACHE": cache})


def report_screenshot(target: Path = DOCS / "img" / "report-query.png", size: tuple[int, int] = (1400, 900)) -> None:
    """The README's picture: the query view of `gsr score --html` on Grep-BiasIR's shipped BM25 and MiniLM runs, in
    Debian's headless Chromium at `size` (the viewport), as the report opens it (on its most contrasted query)."""
    import time

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    from experiments.cli import main as gsr

    with tempfile.TemporaryDirectory() as folder:
        previous = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                gsr(["-q", "export", "grepbiasir", "--out", "grepbiasir"])
                files = ["--topics", "grepbiasir/topics.tsv", "--docs", "grepbiasir/documents.jsonl"]
                runs = ["--run", "grepbiasir/bm25.run", "grepbiasir/minilm.run"]
                gsr(["-q", "score", *runs, *files, "--qrels", "grepbiasir/qrels.txt", "--html", "report.html"])
            options = webdriver.ChromeOptions()
            options.binary_location = shutil.which("chromium") or "chromium"
            for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
                options.add_argument(flag)
            driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
            try:
                driver.set_window_size(*size)
                inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
                driver.set_window_size(2 * size[0] - inner[0], 2 * size[1] - inner[1])  # the viewport is `size`
                driver.get((Path(folder) / "report.html").as_uri())
                driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="query"]').click()
                time.sleep(1)
                driver.save_screenshot(str(target))
            finally:
                driver.quit()
        finally:
            os.chdir(previous)
    print(f"wrote {target.relative_to(DOCS.parent)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, help="folder for the outputs of gsr run demo / grepbiasir")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="copy the outputs already in --runs (by default both are run again first, in a fresh empty cache, so no "
        "stale cache entry reaches the docs)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing into the docs: generate every file again (with both runs, into a temporary folder unless "
        "--runs is given) and list each one that differs from the docs' copy; exit status 1 if any does",
    )
    parser.add_argument("--screenshot", action="store_true", help="also the README's picture (headless Chromium)")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.runs, args.reuse)
    if args.runs and not args.reuse:
        fresh_runs(args.runs)
    if args.runs:  # first: the cheap outputs score the shipped runs
        for path, data in shipped_runs(args.runs / "grepbiasir" / "runs").items():
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path.relative_to(DOCS.parent)} (top {SHIPPED_DEPTH})")
    GENERATED.mkdir(exist_ok=True)
    for path, text in cheap_outputs().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(DOCS.parent)}")
    if args.runs:
        contents, missing = run_outputs(args.runs)
        for path, data in contents.items():
            path.write_bytes(data)
            print(f"wrote {path.relative_to(DOCS.parent)}")
        for line in missing:
            print(line, file=sys.stderr)
    if args.screenshot:
        report_screenshot()
    return 0


def check(runs: Path | None, reuse: bool) -> int:
    """--check: every generated file made again, none written; each one that differs from the docs' copy listed.
    Without `runs`, both configs run in a temporary folder (and a fresh cache, as always); the README's screenshot
    is not checked (a browser's rendering differs between machines)."""
    with tempfile.TemporaryDirectory(prefix="gsr-docs-check-") as folder:
        if runs is None:
            runs, reuse = Path(folder), False
        if not reuse:
            fresh_runs(runs)
        contents = shipped_runs(runs / "grepbiasir" / "runs")
        contents.update({path: text.encode("utf-8") for path, text in cheap_outputs().items()})
        from_runs, missing = run_outputs(runs)
        contents.update(from_runs)
    stale = differing(contents)
    for line in missing:
        print(line)
    for path in stale:
        print(f"differs from a fresh run: {path.relative_to(DOCS.parent)}")
    if stale or missing:
        print(
            f"{len(stale)} of {len(contents)} generated files differ; `python docs/generate.py --runs out` renews them"
        )
        return 1
    print(f"all {len(contents)} generated files are those a fresh run makes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
