"""The code base's own checks, run with the tests: the import layering and no-cycle contracts (import-linter)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def test_imports_follow_the_layers_and_form_no_cycle():
    result = subprocess.run([_tool("lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_data_file_of_the_packages_is_installed_with_them():
    """A wheel carries only what [tool.setuptools.package-data] names: a file the code reads but the globs miss
    works in this editable checkout and fails after pip install."""
    import fnmatch
    import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    missing = []
    for package in ("gsr", "retrievers", "embeddings", "debias", "experiments"):
        for path in (ROOT / package).rglob("*"):
            if path.is_dir() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
                continue
            relative = path.relative_to(ROOT / package).as_posix()
            if not any(fnmatch.fnmatch(relative, pattern) for pattern in globs.get(package, [])):
                missing.append(f"{package}/{relative}")
    assert not missing, f"not in pyproject.toml's package-data: {missing}"


SOURCES = ["gsr", "retrievers", "embeddings", "debias", "experiments", "tests", "benchmarks", "docs"]


def test_ruff_finds_nothing_to_lint():
    result = subprocess.run([_tool("ruff"), "check", "-q", *SOURCES], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted_as_ruff_formats_it():
    result = subprocess.run(
        [_tool("ruff"), "format", "--check", "-q", *SOURCES], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, "run `ruff format` on:\n" + result.stdout + result.stderr


def test_mypy_finds_no_type_error():
    """mypy over the five packages as pyproject.toml's [tool.mypy] configures it (check_untyped_defs)."""
    result = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr


def test_no_test_module_imports_another_or_conftest():
    """Shared helpers live in tests/support/ and fixtures in conftest.py: a test module importing another test module
    (or conftest) runs that module's import-time code and couples two files that look independent."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if name.startswith("tests") and (last.startswith("test_") or last == "conftest"):
                    found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert found == []
