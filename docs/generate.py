"""Regenerate every number and table the docs include, so none is typed by hand.

    python docs/generate.py                       # the cheap ones: config reference tables, the toy scoring output
    python docs/generate.py --runs out            # also the tables and figures of out/demo and out/grepbiasir

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
    "grepbiasir": ("results.md", "label_bias.md", "label_bias_rerankers.md", "label_bias_tradeoff.png"),
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


def toy_score_output() -> str:
    """What docs/index.md shows `gsr score` printing on the exported toy 1 collection."""
    from experiments.cli import main

    with tempfile.TemporaryDirectory() as folder:
        previous = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                main(["-q", "export", "toy1", "--out", "toy"])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main(
                    [
                        "-q",
                        "score",
                        "--run",
                        "toy/stereotypical.run",
                        "toy/counter-stereotypical.run",
                        "--topics",
                        "toy/topics.tsv",
                        "--docs",
                        "toy/documents.jsonl",
                        "--qrels",
                        "toy/qrels.txt",
                        "--measures",
                        "nDCG@10,AP",
                    ]
                )
        finally:
            os.chdir(previous)
    return out.getvalue()


def cheap_outputs() -> dict[Path, str]:
    """Each generated file (or page with generated tables) and the text it must hold."""
    tables = registry_tables()
    experiments = DOCS / "experiments.md"
    return {
        GENERATED / "toy1_score.txt": toy_score_output(),
        experiments: with_registry_tables(experiments.read_text(encoding="utf-8"), tables),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, help="folder holding the outputs of gsr run demo / grepbiasir")
    args = parser.parse_args(argv)
    GENERATED.mkdir(exist_ok=True)
    for path, text in cheap_outputs().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(DOCS.parent)}")
    if args.runs:
        for name, files in RUN_FILES.items():
            for file in files:
                source = args.runs / name / file
                target = DOCS / f"{source.stem}_{name}.png" if file.endswith(".png") else GENERATED / f"{name}_{file}"
                if source.is_file():
                    shutil.copyfile(source, target)
                    print(f"copied {source} -> {target.relative_to(DOCS.parent)}")
                else:
                    print(f"no {source}: run gsr run {name} --out {args.runs / name} first", file=sys.stderr)
        versions = args.runs / "grepbiasir" / "gender_versions.json"
        if versions.is_file():
            overview = gender_versions_overview(json.loads(versions.read_text(encoding="utf-8")))
            (GENERATED / "grepbiasir_gender_versions.md").write_text(overview, encoding="utf-8")
            print("wrote docs/generated/grepbiasir_gender_versions.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
