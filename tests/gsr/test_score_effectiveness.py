"""`gsr score --measures`: an external run's effectiveness beside its GSR in one call, with the numbers and tests
`gsr run` gives the same run as a `model = "run"` system; the t-test written out equals scipy's to the bit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments.cli import main
from gsr.effectiveness.evaluate import paired_t_test
from tests.support.toy_collection import RUN, score_args, write_run, write_toy

# a second run: the first one's lists reversed, so the two differ on every query
REVERSED = {q: list(reversed(docs)) for q, docs in RUN.items()}
MEASURES = ("AP", "nDCG@3", "P@2", "RR")


def _write_runs(folder) -> None:
    for name, run in (("first.run", RUN), ("second.run", REVERSED)):
        write_run(folder / name, run, name)
    (folder / "runs.toml").write_text(f"""threads = 1
output = {json.dumps(str(folder / "out"))}
[collection]
kind = "files"
documents = "docs.jsonl"
topics = "topics.tsv"
qrels = "qrels.txt"
[embeddings.tiny]
source = "vectors.txt"
[[systems]]
name = "first"
model = "run"
path = "first.run"
[[systems]]
name = "second"
model = "run"
path = "second.run"
[gsr]
measuring = "tiny"
[evaluation]
measures = {json.dumps(list(MEASURES))}
test = "t"
resamples = 200
[plots]
enabled = false
[analyses]
intrinsic_gender = false
rank_change = false
""")


def test_score_measures_equal_gsr_run_on_the_same_runs(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    _write_runs(folder)
    assert main(["-q", "run", str(folder / "runs.toml")]) == 0
    rows = {row["system"]: row for row in json.loads((folder / "out" / "results.json").read_text())["rows"]}
    capsys.readouterr()
    scored_args = ["-q", *score_args(folder, ("first.run", "second.run")), "--resamples", "200", "--json"]
    assert main([*scored_args, "--measures", ",".join(MEASURES)]) == 0
    scored = {entry["run"]: entry for entry in json.loads(capsys.readouterr().out)["runs"]}
    for system, run in (("first", "first.run"), ("second", "second.run")):
        for measure in MEASURES:
            assert scored[run]["measures"][measure]["mean"] == rows[system]["measures"][measure]["mean"]
            assert scored[run]["measures"][measure]["p_value"] == rows[system]["measures"][measure]["p_value"]
        assert scored[run]["gsr"] == rows[system]["gsr"]["tiny"]["gsr"]
        assert scored[run]["ci"] == rows[system]["gsr"]["tiny"]["ci"]
    assert scored["first.run"]["measures"]["AP"]["p_value"] is None  # the baseline is not tested against itself
    assert scored["second.run"]["measures"]["AP"]["p_value"] is not None


def test_score_measures_table_latex_and_refusals(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    _write_runs(folder)
    base = ["-q", *score_args(folder, ("first.run", "second.run"), qrels=False)]
    assert main([*base, "--qrels", str(folder / "qrels.txt"), "--baseline", "second.run"]) == 0
    text = capsys.readouterr().out
    assert "Effectiveness (ir_measures) over the 5 judged topics" in text
    assert "MAP" in text and "nDCG@100" in text and "against second.run" in text  # the configs' default measures
    assert main([*base, "--qrels", str(folder / "qrels.txt"), "--latex", "--measures", "nDCG@10"]) == 0
    latex = capsys.readouterr().out
    assert r"\toprule" in latex and "nDCG@10" in latex and "first.run" in latex and "perfect" in latex
    assert main([*base, "--qrels", str(folder / "qrels.txt"), "--measures", "none", "--json"]) == 0
    assert "measures" not in json.loads(capsys.readouterr().out)["runs"][0]
    assert main([*base, "--measures", "AP"]) == 2
    assert "--measures needs --qrels" in capsys.readouterr().err
    assert main([*base, "--qrels", str(folder / "qrels.txt"), "--measures", "nDCG@x"]) == 2
    assert "'nDCG@x' is not an ir_measures measure" in capsys.readouterr().err
    assert main([*base, "--qrels", str(folder / "qrels.txt"), "--baseline", "third.run"]) == 2
    assert "--baseline 'third.run' is not one of the runs" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(5))
def test_paired_t_test_is_scipys_to_the_bit(seed):
    from scipy import stats

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    a = np.round(rng.random(n), 4)
    for b in (np.round(rng.random(n), 4), a + 0.25, np.round(a + rng.normal(0, 0.01, n), 4)):
        assert paired_t_test(a.tolist(), b.tolist()) == stats.ttest_rel(a, b).pvalue


BAD_MEASURES = {
    "nDCG@0": "the cut-off must be a positive integer",  # pytrec_eval aborts the process (SIGABRT) on it
    "P@10.5": "the cut-off must be a positive integer",
    "P@1e1": "the cut-off must be a positive integer",
    "P@-1": "the cut-off must be a positive integer",
    "nDCG(cutoff=0)": "the cut-off must be a positive integer",
    "AP(rel=0)": "rel (the lowest grade counted relevant) must be a positive integer",
    "alpha_nDCG@10": "no ir_measures provider installed here computes it",
    "ERR@10": "fails on it here",  # gdeval's perl script rejects its input
    "P": "needs the parameter cutoff",
    "MAPP": "is not an ir_measures measure",
}


@pytest.mark.parametrize("measure", list(BAD_MEASURES))
def test_bad_measures_are_refused_before_any_work(tmp_path, capsys, measure):
    folder = write_toy(tmp_path / "toy")
    args = score_args(folder)
    args[args.index("--docs") + 1] = str(folder / "missing.jsonl")  # never read: the measures are checked first
    assert main(["-q", *args, "--measures", f"AP,{measure}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(f"gsr: error: --measures: measure {measure!r}") and BAD_MEASURES[measure] in line


@pytest.mark.parametrize("measure", ["nDCG@0", "P@1e1", "AP(rel=0)", "ERR@10"])
def test_bad_config_measures_are_refused_naming_the_key(tmp_path, capsys, measure):
    folder = write_toy(tmp_path / "toy")
    config = folder / "config.toml"
    config.write_text(config.read_text() + f"[evaluation]\nmeasures = {json.dumps(['AP', measure])}\n")
    assert main(["-q", "run", str(config), "--out", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith(f"gsr: error: {config}: evaluation.measures: measure {measure!r}")
    assert BAD_MEASURES[measure] in line and not (tmp_path / "out").exists()


def test_gsr_score_from_gsr_alone_scores_and_leaves_the_report_outputs_to_the_harness(tmp_path, capsys):
    """gsr.cli.score configured without the harness's report (ReportOutputs) measures and prints JSON as `gsr score`
    does, and offers neither --latex nor --html, which only the report writes."""
    import argparse

    from gsr.cli import score

    write_toy(tmp_path)
    parser = argparse.ArgumentParser(prog="gsr score")
    score.configure(parser)
    with pytest.raises(SystemExit):
        parser.parse_args([*score_args(tmp_path)[1:], "--html", str(tmp_path / "page.html")])
    assert "unrecognized arguments: --html" in capsys.readouterr().err
    args = parser.parse_args([*score_args(tmp_path)[1:], "--json"])
    assert args.func(args) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*score_args(tmp_path), "--json"]) == 0
    assert alone == json.loads(capsys.readouterr().out)
