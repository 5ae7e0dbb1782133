"""The docs run: README ≤ 250 lines, the site builds strictly offline, every Python and shell block of README.md and
docs/ runs (on the exported toy collection where it names a user's files; a block that cannot run is marked
`<!-- not run: why -->`), the generated tables and outputs are current, and the README's Python example from
before the docs moved still runs unchanged (warning that `embeddings.load_embedding` is deprecated)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
PAGES = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!-- not run: (?P<why>[^>]*?) -->\n)?```(?P<lang>python|bash)\n(?P<code>.*?)```", re.S)

# README.md's Python example before the docs moved (verbatim), with its inputs defined by the test
OLD_README_EXAMPLE = """\
from embeddings import load_embedding
from gsr import GSR, GenderLexicon

lexicon = GenderLexicon.from_embedding(load_embedding("glove-6b-50d"))   # Eq. 1 for every word
measure = GSR(lexicon, cutoff="relevant", resamples=1000, level=0.95, seed=0)   # §4.2.2 protocol
report = measure.evaluate(run, queries, documents, qrels)                 # files, dicts, DataFrames, records
report.system.gsr, report.system.ci, report.system.se                     # GSR, bootstrap interval, SE
report.perfect.gsr, report.relative, report.relative_ci_of(report.system)
report.to_dict()                                                           # the `gsr score --json` object
"""


def blocks(pages: list[Path] = PAGES) -> list:
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text[: match.start("code")].count("\n") + 1
            found.append(
                pytest.param(match["lang"], match["code"], match["why"], id=f"{page.relative_to(PROJECT)}:{line}")
            )
    return found


@pytest.fixture
def toy_folder(tmp_path, monkeypatch):
    """A working folder holding toy/ (gsr export toy1: documents, topics, qrels and the toy engines' runs) and
    grepbiasir/ (gsr export grepbiasir: the collection and its shipped BM25 and MiniLM runs)."""
    from experiments.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["-q", "export", "toy1", "--out", "toy"]) == 0
    assert main(["-q", "export", "grepbiasir", "--out", "grepbiasir"]) == 0
    return tmp_path


def test_readme_is_short():
    assert len((PROJECT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize(("lang", "code", "why"), blocks())
def test_every_code_block_runs(lang, code, why, toy_folder, capsys):
    if why is not None:
        assert why.strip(), "a block that is not run says why"
        pytest.skip(f"marked not run: {why}")
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    if lang == "python":  # in its own process: a block may register things (docs/extending.md does)
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=toy_folder, capture_output=True, text=True, timeout=300, env=env
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return
    for command in re.sub(r"\\\n\s*", " ", code).splitlines():
        words = shlex.split(command.split("#", 1)[0]) if command.strip() else []
        if not words:
            continue
        if words[0] == "bash" and words[1:2] == ["setup.sh"]:
            continue  # the README's two commands: CI runs the second; the first is `gsr run` on the demo
        assert words[0] in (".venv/bin/gsr", "gsr"), f"a shell block runs gsr commands only: {command}"
        done = subprocess.run(
            [sys.executable, "-m", "experiments.cli", *words[1:]],
            cwd=toy_folder,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"


# the measure's examples: they import gsr alone, so a user's own folders named like the harness's packages (research
# projects often hold experiments/, embeddings/, retrievers/, debias/) must not matter to them
MEASURE_PAGES = [PROJECT / "README.md", PROJECT / "docs" / "python-api.md", PROJECT / "docs" / "msmarco.md"]
DECOYS = ("experiments", "embeddings", "retrievers", "debias")


@pytest.mark.parametrize(
    ("lang", "code", "why"), [block for block in blocks(MEASURE_PAGES) if block.values[0] == "python"]
)
def test_the_measure_examples_run_in_a_project_holding_folders_named_like_the_harness(lang, code, why, toy_folder):
    """Each example runs as a user's script in their project: the folder holding it is the working directory and
    sys.path[0], beside decoy packages that note being imported and raise ImportError."""
    for name in DECOYS:
        (toy_folder / name).mkdir()
        (toy_folder / name / "__init__.py").write_text(
            f"open({str(toy_folder / f'imported-{name}')!r}, 'w').close()\n"
            f"raise ImportError('the user project\\'s own {name}/ was imported')\n",
            encoding="utf-8",
        )
    (toy_folder / "example.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    done = subprocess.run(
        [sys.executable, "example.py"], cwd=toy_folder, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in toy_folder.glob("imported-*")) == []


def test_the_old_readme_python_example_still_runs(toy_folder):
    inputs = {
        "run": "toy/stereotypical.run",
        "queries": "toy/topics.tsv",
        "documents": "toy/documents.jsonl",
        "qrels": "toy/qrels.txt",
    }
    namespace = dict(inputs)
    with pytest.warns(DeprecationWarning, match="embeddings.load_embedding is deprecated"):
        exec(compile(OLD_README_EXAMPLE, "<old README>", "exec"), namespace)
    assert namespace["report"].system.gsr > 0  # the stereotypical engine reinforces


def test_generated_docs_are_current():
    sys.path.insert(0, str(PROJECT / "docs"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    for path, text in generate.cheap_outputs().items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python docs/generate.py"


def test_the_site_builds_strictly_offline(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
