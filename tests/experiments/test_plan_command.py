"""`gsr plan` on the toy collection: its tables, its JSON (the schema other tools read), its numbers against `gsr
score` (the half-width at the pilot's n is that of the interval gsr score prints with the same resamples and seed),
a `gsr run` folder as the pilot, the measures and the pool."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from experiments.cli import main
from tests.support.toy_collection import score_args, write_run, write_toy

RUNS = ("run.txt", "other.run")
# a second engine: each query's list reversed (so its GSR differs from run.txt's)
OTHER = {
    "q1": ["f1", "m3", "x2", "m1"],
    "q2": ["f3", "m1", "x3", "f1"],
    "q3": ["n3", "n2", "n1"],
    "q4": ["n1", "f2", "x1"],
    "q5": ["x1", "m1", "m2"],
}


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    folder = write_toy(tmp_path_factory.mktemp("plan") / "toy")
    write_run(folder / "other.run", OTHER, "other")
    return folder


def plan_args(folder: Path, *extra: str) -> list[str]:
    args = score_args(folder, RUNS)
    return ["plan", *args[1:], "--resamples", "500", *extra]


def test_the_tables_and_the_json(toy, tmp_path, capsys):
    target = tmp_path / "plan.json"
    extra = ("--n", "10", "40", "--target-width", "0.3", "--difference", "0.5", "--json", str(target))
    assert main(plan_args(toy, *extra)) == 0
    out = capsys.readouterr().out
    assert "Half-width of GSR's 95% interval for a study of n topics" in out
    assert "Differences between two runs, paired over topics" in out and "Power to detect D" in out
    document = json.loads(target.read_text())
    assert set(document["runs"]) == set(RUNS)
    for run in document["runs"].values():
        assert run["n_pilot"] == 5
        assert set(run["half_width"]) == set(run["half_width_analytic"]) == {"5", "10", "40"}
        assert isinstance(run["n_for_target_width"], int) and run["method"] in ("analytic", "resampled")
    (pair,) = document["pairs"]
    assert (pair["a"], pair["b"], pair["measure"], pair["difference"]) == ("run.txt", "other.run", "GSR", 0.5)
    assert set(pair["power"]) == {"5", "10", "40"} and pair["power"]["40"] > pair["power"]["10"]
    # the sign-flip test of 5 topics cannot reject at 0.05 (its smallest p-value is 2/2^5): nothing is detectable
    assert pair["power"]["5"] == pair["power_analytic"]["5"] == 0
    assert pair["minimal_detectable_difference"] is None and "5 topics" in pair["why"]["minimal_detectable_difference"]
    assert document["pilot"]["runs"] == [str(toy / r) for r in RUNS] and document["settings"]["resamples"] == 500


def test_the_half_width_at_the_pilots_n_is_that_of_gsr_scores_interval(toy, tmp_path, capsys):
    assert main([*score_args(toy), "--resamples", "500", "--seed", "3", "--json"]) == 0
    low, high = json.loads(capsys.readouterr().out)["ci"]
    target = tmp_path / "plan.json"
    assert main([*plan_args(toy, "--seed", "3", "--json", str(target))]) == 0
    planned = json.loads(target.read_text())["runs"]["run.txt"]
    assert planned["half_width"]["5"] == pytest.approx((high - low) / 2, rel=1e-12)


def test_a_gsr_run_folder_is_the_same_pilot(toy, tmp_path, capsys):
    """per_query.csv as `gsr run` writes it (system, qid, measures, g(q) and g_q(L) per embedding label), built here
    from gsr score's points: the plan from the folder is the plan from the runs."""
    assert main([*score_args(toy, RUNS), "--measures", "AP", "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    folder = tmp_path / "out"
    folder.mkdir()
    with open(folder / "per_query.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "qid", "AP", "g(q) (tiny)", "g_q(L) (tiny)"])
        for run in scored["runs"]:
            for q in run["per_query"]:
                writer.writerow([run["run"], q["qid"], 0.1 * len(q["qid"]) + q["n_docs"], q["g_query"], q["g_list"]])
        writer.writerow(["perfect", "q1", "1.0", "0.1", "0.2"])  # the engines are left out by default
    from_runs, from_folder = tmp_path / "runs.json", tmp_path / "folder.json"
    assert main(plan_args(toy, "--difference", "0.5", "--json", str(from_runs))) == 0
    folder_args = ["plan", "--pilot", str(folder), "--resamples", "500", "--difference", "0.5", "AP=0.2"]
    assert main([*folder_args, "--measures", "AP", "--json", str(from_folder)]) == 0
    runs, pilot = json.loads(from_runs.read_text()), json.loads(from_folder.read_text())
    assert pilot["runs"] == runs["runs"] and pilot["pairs"] == runs["pairs"]
    assert [(p["a"], p["b"]) for p in pilot["measures"]["AP"]] == [("run.txt", "other.run")]
    capsys.readouterr()
    assert main(["plan", "--pilot", str(folder), "--label", "glove"]) == 2
    assert "--label glove: " in capsys.readouterr().err


def test_measures_rank_bias_and_a_pool(toy, tmp_path, capsys):
    target = tmp_path / "plan.json"
    extra = ("--measures", "AP,RaB@3", "--difference", "AP=0.1", "--pool", str(toy / "topics.tsv"), "--select", "3")
    assert main(plan_args(toy, *extra, "--neutral-share", "0.3", "--json", str(target))) == 0
    out = capsys.readouterr().out
    document = json.loads(target.read_text())
    assert set(document["measures"]) == {"AP", "RaB@3"}
    (ap,) = document["measures"]["AP"]
    assert ap["test"] == "paired t-test" and ap["difference"] == 0.1 and set(ap["power"]) >= {"5", "25"}
    selection = document["selection"]
    assert selection["neutral"] == 1 and len(selection["queries"]) == 3 and selection["pool_size"] == 5
    # the neutral topic is the pool's most neutral (budget report, g ≈ 0.025); the others the two extremes
    assert {q["qid"] for q in selection["queries"]} == {"q3", "q2", "q1"}
    assert "Topics chosen from" in out and "budget report" in out
