"""gsr is typed for its users (it ships py.typed): the names its packages load lazily are visible to type checkers
through `if TYPE_CHECKING:` imports of the same modules, and a user's file that calls the public API is checked by
mypy against the package: the right calls pass, a wrong one is reported."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
LAZY_PACKAGES = ["gsr", "gsr.vectors", "gsr.integrations", "gsr.fairness"]

USER_FILE = """\
from gsr import GSR, GenderLexicon, gsr_slope
from gsr.integrations import ir_measures_measures
from gsr.vectors import load_embedding

lexicon = GenderLexicon.from_mapping({"she": 0.5, "he": -0.5, "nurse": 0.25})
slope: float = gsr_slope([0.1, -0.2, 0.3], [0.05, -0.1, 0.2])
measure = GSR(lexicon, cutoff=10, resamples=0)
report = measure.evaluate({"q1": {"d1": 1.0}}, {"q1": "nurse"}, {"d1": "she"})
value: float | None = report.system.gsr
reports = measure.evaluate_many({"bm25": "bm25.run"}, "topics.tsv", "documents.jsonl", "qrels.txt")
relative: float | None = reports["bm25"].relative
glove = GenderLexicon.from_embedding("glove-6b-50d")
again = GenderLexicon.from_embedding(load_embedding("glove-6b-50d"), [("she", "he"), ("her", "his")])
measures = ir_measures_measures(measure, {"q1": "nurse"}, {"d1": "she"})
"""

WRONG_CALLS = {  # line: what mypy reports
    "text: str = gsr_slope([0.1, -0.2], [0.05, -0.1])": 'expression has type "float", variable has type "str"',
    'GSR(lexicon, resamples="many")': 'Argument "resamples" to "GSR" has incompatible type "str"',
    "GenderLexicon.from_embedding(50)": 'Argument 1 to "from_embedding" of "GenderLexicon"',
    'measure.evaluate({"q1": {"d1": 1.0}}, {"q1": "nurse"}, 3)': 'Argument 3 to "evaluate" of "GSR"',
}


def _type_checking_imports(package: str) -> dict[str, str]:
    """{name: module} of the `if TYPE_CHECKING:` block of a package's __init__.py."""
    source = Path(importlib.import_module(package).__file__).read_text(encoding="utf-8")
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                for alias in statement.names:
                    assert alias.asname == alias.name, f"{package}: import {alias.name} as itself (a re-export)"
                    found[alias.name] = statement.module
    return found


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checkers_see_every_lazy_name_from_its_module(package):
    assert _type_checking_imports(package) == importlib.import_module(package)._LAZY


def _mypy(folder: Path, code: str) -> subprocess.CompletedProcess:
    """mypy on a user's file `code` in `folder`, against this checkout's gsr, as against an installed typed package:
    gsr's own modules followed silently (their errors are not the user's), missing stubs of other libraries ignored."""
    (folder / "user.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(PROJECT)}
    options = ["--follow-imports=silent", "--ignore-missing-imports", "--cache-dir", str(folder / ".mypy_cache")]
    command = [sys.executable, "-m", "mypy", *options, "--no-error-summary", "user.py"]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_a_users_file_type_checks_against_gsr_and_a_wrong_call_is_reported(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    done = _mypy(tmp_path, USER_FILE)
    assert done.returncode == 0, done.stdout + done.stderr
    for wrong, reported in WRONG_CALLS.items():
        done = _mypy(tmp_path, USER_FILE + wrong + "\n")
        assert done.returncode == 1, (wrong, done.stdout + done.stderr)
        last = len(USER_FILE.splitlines()) + 1
        assert f"user.py:{last}: error: " in done.stdout and reported in done.stdout, (wrong, done.stdout)
