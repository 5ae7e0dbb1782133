"""The command line starts at once: `import gsr` and the parser of every subcommand load none of the heavy libraries
(they are imported by the command that uses them). Timings are in benchmarks/bench_cli.py; here, the modules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import COMMANDS

HEAVY = (
    "sklearn",
    "scipy",
    "matplotlib",
    "torch",
    "gensim",
    "pandas",
    "jnius",
    "pyserini",
    "sentence_transformers",
    "transformers",
    "ir_datasets",
    "ir_measures",
    "plotly",
)
ROOT = Path(__file__).resolve().parents[2]


def _heavy_modules(code: str) -> list[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return sorted(set(json.loads(out.stdout.strip().splitlines()[-1])) & set(HEAVY))


def test_import_gsr_loads_no_heavy_library():
    assert _heavy_modules("import gsr; gsr.__version__") == []


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_the_parser_of_every_subcommand_loads_no_heavy_library(command):
    argv = [] if command is None else [command]
    assert _heavy_modules(f"from experiments.cli import build_parser; build_parser({argv!r})") == []


def test_every_subcommand_has_examples_in_its_help():
    for name in COMMANDS:
        out = subprocess.run(
            [sys.executable, "-m", "experiments.cli", name, "--help"], capture_output=True, text=True, cwd=ROOT
        )
        assert out.returncode == 0 and "examples:\n  gsr " in out.stdout, (name, out.stdout[-300:])
