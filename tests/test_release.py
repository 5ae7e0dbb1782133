"""A release a user can cite: one version (gsr.__version__, which pyproject.toml reads; CITATION.cff and CHANGELOG.md
repeat it), and an sdist and wheel that build, pass `twine check` and carry the data sets shipped with gsr."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import gsr

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_DATA = ("gsr/data/grepbiasir", "gsr/data/msmarco_gender", "gsr/data/fairness_sensitive")


def _citation(key: str) -> str:
    """A top-level scalar of CITATION.cff (`key: value`, maybe quoted)."""
    found = re.search(rf"^{re.escape(key)}:\s*[\"']?([^\"'\s]+)[\"']?\s*$", (ROOT / "CITATION.cff").read_text(), re.M)
    assert found, f"CITATION.cff has no top-level {key}"
    return found.group(1)


def test_one_version_in_gsr_pyproject_citation_and_changelog():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gsr.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", gsr.__version__)
    assert _citation("version") == gsr.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{gsr.__version__}] - {_citation('date-released')}" in changelog  # the newest section first
    assert re.findall(r"^## \[([^\]]+)\]", changelog, re.M)[0] == gsr.__version__


def test_the_version_is_a_literal_setuptools_reads_without_importing_gsr():
    """setuptools reads `attr = "gsr.__version__"` from the module's syntax tree when it is a plain string assigned at
    the top level; anything else (a call, a try block) makes it import gsr and whatever gsr imports."""
    tree = ast.parse((ROOT / "gsr" / "__init__.py").read_text(encoding="utf-8"))
    values = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets)
    ]
    assert len(values) == 1 and isinstance(values[0], ast.Constant) and values[0].value == gsr.__version__


def test_what_prints_the_version_prints_gsr_version(capsys):
    from experiments.cli import build_parser
    from experiments.report.provenance import project_version

    assert project_version() == gsr.__version__  # results.json's provenance
    with pytest.raises(SystemExit) as done:
        build_parser(["--version"]).parse_args(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"gsr-bench {gsr.__version__}"


def _source_copy(target: Path) -> Path:
    """The files of this checkout a release is built from (tracked, and new files git does not ignore), copied to
    `target`: the build writes its egg-info and build/ folders there, never into the checkout."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the files of the release are unknown")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the work tree is not part of it
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _build_leftovers() -> set[str]:
    """What a build in the checkout would leave there (an editable install's egg-info may already be there)."""
    return {path.name for pattern in ("build", "dist", "*.egg-info") for path in ROOT.glob(pattern)}


@pytest.mark.slow
def test_the_sdist_and_wheel_build_pass_twine_and_carry_the_data(tmp_path):
    for module in ("build", "twine"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (pip install -e '.[test]')")
    before = _build_leftovers()
    source = _source_copy(tmp_path / "source")
    dist = tmp_path / "dist"
    # no flags: the sdist, then the wheel built from the unpacked sdist (what pip does with it), so a file the sdist
    # misses is missing from the wheel too. --no-isolation: the build runs offline with this environment's setuptools.
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout[-5000:] + built.stderr[-5000:]
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    assert sdist.name == f"gsr_bench-{gsr.__version__}.tar.gz"
    assert wheel.name.startswith(f"gsr_bench-{gsr.__version__}-")

    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = Parser().parsestr(archive.read(f"gsr_bench-{gsr.__version__}.dist-info/METADATA").decode())
    assert metadata["Name"] == "gsr-bench"
    assert metadata["Version"] == gsr.__version__ == _citation("version")
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for folder in SHIPPED_DATA:
        files = {f"{folder}/{path.name}" for path in (ROOT / folder).iterdir() if path.is_file()}
        assert {"LICENSE", "README.md"} <= {name.rsplit("/", 1)[1] for name in files}, folder
        assert files <= names, f"the wheel lacks {sorted(files - names)}"
        assert files <= in_sdist, f"the sdist lacks {sorted(files - in_sdist)}"
    assert "gsr/data/grepbiasir/queries-documents_Sex & Relationship.csv" in names
    assert _build_leftovers() == before  # the checkout is left as it was
