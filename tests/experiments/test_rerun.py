"""A rerun of `gsr run` whose config, inputs, code and libraries are those the output folder's files were computed
from prints the results it finds and recomputes nothing; any change, an edited output file or --force recomputes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.report import provenance
from tests.support.toy_collection import write_toy


def _run(folder: Path, capsys, *extra: str) -> tuple[str, str]:
    status = main(["run", str(folder / "config.toml"), "--out", str(folder / "out"), *extra])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out, err


def _stamps(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (folder / "out").rglob("*") if p.is_file()}


@pytest.fixture
def computed(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    out, _ = _run(folder, capsys)
    return folder, out


def test_an_unchanged_rerun_prints_the_same_results_and_writes_nothing(computed, capsys):
    folder, first = computed
    before = _stamps(folder)
    out, err = _run(folder, capsys)
    assert out == first and "is up to date" in err and "run " not in err
    assert _stamps(folder) == before
    manifest = json.loads((folder / "out" / ".gsr-output.json").read_text(encoding="utf-8"))
    assert set(manifest["digests"]) == set(manifest["files"]) and len(manifest["fingerprint"]) > 8


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda folder: (folder / "out" / "results.md").write_text("edited\n"), id="an-edited-output"),
        pytest.param(lambda folder: (folder / "out" / "per_query.csv").unlink(), id="a-deleted-output"),
        pytest.param(
            lambda folder: (folder / "qrels.txt").write_text((folder / "qrels.txt").read_text() + "401 0 d9 0\n"),
            id="an-edited-input",
        ),  # fmt: skip
        pytest.param(
            lambda folder: (folder / "config.toml").write_text(
                (folder / "config.toml").read_text() + "\n# a comment\n"
            ),
            id="an-edited-config",
        ),  # fmt: skip
    ],
)
def test_a_change_recomputes(computed, capsys, change):
    folder, first = computed
    change(folder)
    out, err = _run(folder, capsys)
    assert "is up to date" not in err and out.splitlines()[0] == first.splitlines()[0]
    assert (folder / "out" / "results.md").read_text(encoding="utf-8") != "edited\n"
    assert (folder / "out" / "per_query.csv").is_file()


def test_changed_code_or_libraries_or_force_recompute(computed, capsys, monkeypatch):
    folder, _ = computed
    monkeypatch.setattr(provenance, "source_digest", lambda: "another version of the code")
    assert "is up to date" not in _run(folder, capsys)[1]
    monkeypatch.setattr(provenance, "installed_versions", lambda: [("numpy", "0.0")])
    assert "is up to date" not in _run(folder, capsys)[1]
    assert "is up to date" in _run(folder, capsys)[1]
    before = _stamps(folder)
    assert "is up to date" not in _run(folder, capsys, "--force")[1]
    assert _stamps(folder)["results.json"] != before["results.json"]


def test_other_nltk_word_lists_recompute(computed, capsys, monkeypatch, tmp_path):
    """The stop words and first names come from NLTK's corpora where they are found (else from fallbacks): another
    list found there is another input, whichever was found before."""
    folder, _ = computed
    other = tmp_path / "nltk" / "corpora" / "stopwords"
    other.mkdir(parents=True)
    (other / "english").write_text("the\nof\n", encoding="utf-8")
    monkeypatch.setattr("gsr.text.corpora.nltk_data_path", lambda: [tmp_path / "nltk"])
    assert "is up to date" not in _run(folder, capsys)[1]
