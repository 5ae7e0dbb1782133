"""The docs' pages generated from runs are those a fresh run makes (issue 35.12): `docs/generate.py --check` runs
`gsr run demo` and `gsr run grepbiasir` again in a fresh cache, writes nothing into the docs, and lists every
generated file that differs (exit status 1). The fast test checks what it compares and lists; the slow one runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]


@pytest.fixture
def generate():
    sys.path.insert(0, str(PROJECT / "docs"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    return generate


def test_check_lists_every_generated_file_that_differs_and_writes_nothing(generate, monkeypatch, tmp_path, capsys):
    kept, stale, gone = tmp_path / "kept.md", tmp_path / "stale.md", tmp_path / "gone.png"
    kept.write_text("| a | 1 |\n", encoding="utf-8")
    stale.write_text("| b | 0.0521 |\n", encoding="utf-8")
    before = {path: path.read_bytes() for path in (kept, stale)}
    ran = []
    monkeypatch.setattr(generate, "fresh_runs", ran.append)
    monkeypatch.setattr(generate, "shipped_runs", lambda runs: {})
    monkeypatch.setattr(generate, "cheap_outputs", lambda: {kept: "| a | 1 |\n"})
    monkeypatch.setattr(
        generate, "run_outputs", lambda runs: ({stale: b"| b | 0.0519 |\n", gone: b"\x89PNG"}, ["no demo/x.md"])
    )
    monkeypatch.setattr(generate, "DOCS", tmp_path / "docs")  # files are named relative to its parent
    assert generate.main(["--check"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert len(ran) == 1 and ran[0] != tmp_path  # both configs ran again, in a temporary folder
    assert [line for line in printed if line.startswith("differs")] == [
        f"differs from a fresh run: {gone.name}",
        f"differs from a fresh run: {stale.name}",
    ]
    assert "no demo/x.md" in printed and printed[-1].startswith("2 of 3 generated files differ")
    assert {path: path.read_bytes() for path in (kept, stale)} == before and not gone.exists()


def test_check_passes_when_nothing_differs(generate, monkeypatch, tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("same\n", encoding="utf-8")
    monkeypatch.setattr(generate, "shipped_runs", lambda runs: {})
    monkeypatch.setattr(generate, "cheap_outputs", lambda: {page: "same\n"})
    monkeypatch.setattr(generate, "run_outputs", lambda runs: ({}, []))
    assert generate.main(["--check", "--runs", str(tmp_path), "--reuse"]) == 0
    assert capsys.readouterr().out.strip() == "all 1 generated files are those a fresh run makes"


@pytest.mark.slow
def test_the_generated_docs_are_those_a_fresh_run_makes():
    """Both configs run in a fresh cache (several minutes); every generated table, figure and shipped run must be
    the docs' copy, to the byte."""
    env = {name: value for name, value in os.environ.items() if name != "GSR_CACHE"}
    done = subprocess.run(
        [sys.executable, "docs/generate.py", "--check"], cwd=PROJECT, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
