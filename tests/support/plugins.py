"""A plugin distribution as pip leaves one in site-packages (a package, and a dist-info folder with METADATA,
entry_points.txt and a RECORD of every file with its SHA-256 and size), written into a folder a subprocess puts on
its path. Data and helpers only: no test lives here."""

from __future__ import annotations

import base64
import hashlib
import os
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def _record_line(site: Path, path: Path) -> str:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path.relative_to(site).as_posix()},sha256={digest},{len(data)}"


def plugin_distribution(
    site: Path, name: str, modules: dict[str, str], entry_points: dict[str, dict[str, str]], version: str = "0.1"
) -> Path:
    """Install distribution `name` into `site`: `modules` ({file path under site: source}) and its `entry_points`
    ({group: {entry point name: module[:attribute]}}); returns its dist-info folder."""
    files = []
    for relative, source in modules.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        files.append(path)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    declared = "".join(
        f"[{group}]\n" + "".join(f"{entry} = {value}\n" for entry, value in entries.items()) + "\n"
        for group, entries in entry_points.items()
    )
    (info / "entry_points.txt").write_text(declared, encoding="utf-8")
    files += [info / "METADATA", info / "entry_points.txt"]
    record = [_record_line(site, path) for path in files] + [f"{(info / 'RECORD').relative_to(site).as_posix()},,"]
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
    return info


def plugin_environment(site: Path, cache: Path) -> dict[str, str]:
    """The environment of a `python -m experiments.cli` that sees the plugins in `site` (and this checkout's code)
    and caches in `cache`."""
    path = os.pathsep.join([str(site), str(REPOSITORY)])
    return {**os.environ, "PYTHONPATH": path, "GSR_CACHE": str(cache)}


GSR = [sys.executable, "-m", "experiments.cli"]
