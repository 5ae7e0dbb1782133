"""Every example every `--help` shows runs: each command's examples, in the order `gsr --help` lists the commands,
in one folder that `gsr export toy1 --out toy` (the score example's first step) has filled. `gsr run` examples run
with --dry-run appended where they lack it (a full run of the demo is the README's first command, whose numbers
tests/experiments/test_demo.py checks): the config is read and checked, its collection loaded, its plan printed."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import COMMANDS

GSR = Path(sys.executable).parent / "gsr"


def examples() -> list:
    listed = [
        pytest.param(command, example, id=f"{command}-{i}")
        for command, entry in COMMANDS.items()
        for i, example in enumerate(entry.examples)
    ]
    listed += [
        pytest.param("gsr", line.strip(), id=f"gsr-{i}") for i, line in enumerate(["gsr run", "gsr list systems"])
    ]
    return listed


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("examples")
    assert subprocess.run([str(GSR), "-q", "export", "toy1", "--out", str(folder / "toy")], check=False).returncode == 0
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("command, example", examples())
def test_every_help_example_runs(command, example, folder):
    if not GSR.exists():
        pytest.skip(f"{GSR} is not installed (pip install -e .)")
    if example.startswith("gsr run") and "--dry-run" not in example:
        example += " --dry-run"
    script = " && ".join(
        part.strip() if not part.strip().startswith("gsr ") else f"{shlex.quote(str(GSR))} -q {part.strip()[4:]}"
        for part in example.split("&&")
    )
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "GSR_CACHE": os.environ.get("GSR_CACHE", str(folder / "cache"))},
    )
    assert done.returncode == 0, f"{example}\n{done.stderr[-2000:]}"
