"""Issue 37.1: a rerun after a change to one system recomputes that system's parts (its effectiveness, GSR, rows of
the analyses, the figures that show it) and reuses every other part from the cache, and what it writes equals, byte
for byte, what a fresh run of the changed config writes; `--force` recomputes everything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from experiments import parts
from experiments.cli import main
from experiments.report import writer
from gsr.infra.store import cache_dir
from tests.support.toy_collection import CONFIG as TOY_CONFIG
from tests.support.toy_collection import RUN, write_run, write_toy

# the toy collection with two systems read from run files, one re-ranking the first, the embedding systems with
# their debiased variants, every analysis the toy allows and the figures
RUN_SYSTEMS = """[[systems]]
name = "first"
model = "run"
path = "first.run"
[[systems]]
name = "second"
model = "run"
path = "second.run"
[[systems]]
name = "first+FG"
model = "rerank"
rerank = "first"
method = "fairness_greedy"
"""
ANALYSES = "[analyses]\nrank_change = true\nintrinsic_gender = true\nlabel_bias = true\nbias_k = 3\n"
CONFIG = (
    TOY_CONFIG.replace("[[systems]]", RUN_SYSTEMS + "[[systems]]", 1)
    .replace("[plots]\nenabled = false\n", "")
    .replace("[analyses]\nintrinsic_gender = false\nrank_change = false\n", ANALYSES)
    + '[evaluation]\nbaseline = "first"\nresamples = 200\n'
)


@pytest.fixture
def toy(tmp_path, own_cache) -> Path:
    folder = write_toy(tmp_path / "toy")
    (folder / "config.toml").write_text(CONFIG, encoding="utf-8")
    write_run(folder / "first.run", RUN)
    write_run(folder / "second.run", {q: ds[::-1] for q, ds in RUN.items()})
    return folder


def _run(folder: Path, capsys, *extra: str) -> str:
    status = main(["run", str(folder / "config.toml"), "--out", str(folder / "out"), *extra])
    _, err = capsys.readouterr()
    assert status == 0, err
    return err


def _files(folder: Path) -> dict[str, bytes]:
    """Every output file's bytes; results.json without what records how the run went (its timings, the caches it
    reused), which two fresh runs do not share either."""
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    files.pop(".gsr-output.json")  # the manifest: the output files' digests, results.json's among them
    results = json.loads(files.pop("results.json"))
    for how_it_went in ("timings_s", "reused"):
        results.pop(how_it_went)
    files["results.json (without timings_s, reused)"] = json.dumps(results, sort_keys=True).encode()
    return files


def test_a_change_to_one_system_recomputes_its_parts_alone_and_writes_what_a_fresh_run_writes(toy, capsys, tmp_path):
    _run(toy, capsys)
    assert sum(parts.COUNTS.computed.values()) > 0 and not parts.COUNTS.reused.get("effectiveness")

    changed = dict(RUN, q1=["m3", "m1", "x2", "f1"])  # the first system ranks q1 otherwise
    write_run(toy / "first.run", changed)
    _run(toy, capsys)
    computed, reused = parts.COUNTS.computed, parts.COUNTS.reused
    # the first system and the re-ranker of its run: 2 of the 7 systems' runs (and the 2 engines') measured
    assert computed["effectiveness"] == 2 and reused["effectiveness"] == 7
    assert computed["gsr"] == 2 and reused["gsr"] == 5
    assert computed["label bias"] == 2 and computed["intrinsic gender"] == 2
    assert "rank change" not in computed and reused["rank change"] == 2  # the debiased variants' runs did not change
    assert computed["figure"] < computed["figure"] + reused["figure"]  # Fig. 10 (rank change) is a copy
    rerun = _files(toy / "out")

    # the changed config, run afresh: another cache, the same config file and output folder (both are recorded)
    shutil.rmtree(toy / "out")
    fresh_cache = tmp_path / "fresh-cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GSR_CACHE", str(fresh_cache))
        _run(toy, capsys)
        assert cache_dir() == fresh_cache and not parts.COUNTS.reused.get("gsr")
    fresh = _files(toy / "out")
    assert sorted(rerun) == sorted(fresh)
    assert [name for name in fresh if rerun[name] != fresh[name]] == []


def test_nothing_changed_is_up_to_date_and_force_recomputes_every_part(toy, capsys):
    _run(toy, capsys)
    first = _files(toy / "out")
    assert "is up to date" in _run(toy, capsys)
    entries = {p: p.stat().st_mtime_ns for p in cache_dir().rglob("*") if p.is_file() and ".lock" not in p.name}
    err = _run(toy, capsys, "--force")
    # (a test asked for twice in one run, by the results table and Table 2, is computed once)
    assert "is up to date" not in err and set(parts.COUNTS.reused) <= {"gsr test"}
    assert parts.COUNTS.computed["gsr"] == 7
    assert "] reused " not in err  # no run, embedding or index either
    kept = [p for p, stamp in entries.items() if p.is_file() and p.stat().st_mtime_ns == stamp]
    # every entry was written again, but the hashes of the input files (a memo of a digest, not a step)
    assert [p for p in kept if p.parent.name != "sha256"] == []
    assert _files(toy / "out") == first


def test_changed_code_recomputes_every_part(toy, capsys, monkeypatch):
    _run(toy, capsys)
    (toy / "config.toml").write_text(CONFIG + "\n# a comment: the output is out of date, no part is\n")
    _run(toy, capsys)
    assert not parts.COUNTS.computed.get("gsr") and parts.COUNTS.reused["gsr"] == 7
    monkeypatch.setattr(parts, "code_key", lambda: "another version of the code")
    (toy / "config.toml").write_text(CONFIG)
    _run(toy, capsys)
    assert parts.COUNTS.computed["gsr"] == 7 and not parts.COUNTS.reused.get("gsr")


def test_figures_drawn_ahead_on_a_second_core_are_those_drawn_in_the_report(toy, capsys, tmp_path):
    """With threads = 2 the figures are drawn into the cache while the analyses run (png_kit.figures_ahead); the
    report copies them. What it writes equals what one thread writes, from caches of their own (but results.json
    and report.html, which record the config's settings, threads among them)."""
    _run(toy, capsys)
    one_thread = _files(toy / "out")
    shutil.rmtree(toy / "out")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GSR_CACHE", str(tmp_path / "another-cache"))
        asked: list = []

        def drawn_ahead(result, analysis=None):
            asked.append(analysis)
            real(result, analysis)

        real = writer.draw_ahead
        patch.setattr(writer, "draw_ahead", drawn_ahead)
        _run(toy, capsys, "--threads", "2")
        # the scatter plots once the measures are in, then each analysis's figures once it is computed
        assert asked == [None, "rank_change", "intrinsic_gender", "label_bias"]
        figures = parts.COUNTS.reused.get("figure", 0) + parts.COUNTS.computed.get("figure", 0)
        # every figure of the report was asked for, and the report found those drawn ahead already in the cache
        assert figures == 4 and sorted(p.name for p in (tmp_path / "another-cache" / "parts" / "figures").glob("*.png"))
    two_threads = _files(toy / "out")
    recording_the_settings = {"results.json (without timings_s, reused)", "report.html"}
    assert sorted(two_threads) == sorted(one_thread) and any(name.endswith(".png") for name in one_thread)
    assert [n for n in one_thread if n not in recording_the_settings and two_threads[n] != one_thread[n]] == []
