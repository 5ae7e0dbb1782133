"""Quiet unless something is wrong (issue 36.5): NLTK's missing stop list, for which gsr ships the same list, is
said once per cache where nltk is installed (its downloader installs the corpus), never in the light install."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCORE = "import sys\nif sys.argv[1] == 'hidden':\n    sys.modules['nltk'] = None\nfrom experiments.cli import main\n"
SCORE += "sys.exit(main(sys.argv[2:]))"
HINT = "python -m nltk.downloader stopwords"


def _score_three_times(tmp_path: Path, monkeypatch, nltk: str) -> list[str]:
    """stderr of `gsr score` twice, then once with -v, in three processes sharing one cache, NLTK_DATA empty."""
    from gsr.text.corpora import nltk_words

    empty = tmp_path / "nltk_data"
    empty.mkdir()
    monkeypatch.setenv("NLTK_DATA", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/nltk_data
    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "cache"))
    if nltk_words("stopwords", "english") is not None:
        pytest.skip("NLTK's stop list is installed in a system folder of this machine")
    assert main(["-q", "export", "toy1", "--out", str(tmp_path / "toy")]) == 0
    toy = tmp_path / "toy"
    score = ["score", "--run", str(toy / "neutral.run"), "--topics", str(toy / "topics.tsv")]
    score += ["--docs", str(toy / "documents.jsonl"), "--qrels", str(toy / "qrels.txt")]
    errors = []
    for extra in ([], [], ["-v"]):
        done = subprocess.run(
            [sys.executable, "-c", SCORE, nltk, *extra, *score],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=dict(os.environ),
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        errors.append(done.stderr)
    return errors


def test_a_missing_nltk_stop_list_is_said_once_per_cache(tmp_path, monkeypatch):
    if importlib.util.find_spec("nltk") is None:
        pytest.skip("nltk is not installed: the light install, tested below")
    first, second, verbose = _score_three_times(tmp_path, monkeypatch, "installed")
    assert [first.count(HINT), second.count(HINT)] == [1, 0], second
    assert "gsr: warning: NLTK's 'stopwords' corpus is not installed" in first
    assert verbose.count(HINT) == 1  # still there under --verbose


def test_the_light_install_never_says_it(tmp_path, monkeypatch):
    first, second, verbose = _score_three_times(tmp_path, monkeypatch, "hidden")
    assert [first.count(HINT), second.count(HINT)] == [0, 0], first
    assert verbose.count(HINT) == 1
