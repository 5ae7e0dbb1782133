"""`gsr score --bias-measures` and `--agreement` (issue 38): FaiRR/NFaiRR and RaB/ARaB beside GSR with the values
`gsr bias` gives the same files, tested between runs and Holm-adjusted per measure; the agreement of GSR and the bias
measures equal to gsr.fairness.agreement's on the same values; two runs; bad input in one line before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from gsr.effectiveness.evaluate import paired_t_test
from gsr.fairness.agreement import AgreementMeasure, measure_agreement
from gsr.fairness.named import parse_bias_measure
from tests.support.toy_collection import RUN, SHUFFLED_RUN, score_args, write_run, write_toy

REVERSED = {q: list(reversed(docs)) for q, docs in RUN.items()}
MEASURES = "NFaiRR@3,FaiRR@2,RaB@3,ARaB_bool@3"
# each name of gsr score's and the `gsr bias` options giving it under its own name
BIAS_RUNS = {"NFaiRR@3": ("tf", "NFaiRR@3"), "FaiRR@2": ("tf", "FaiRR@2"), "RaB@3": ("tf", "RaB@3")}
BIAS_RUNS["ARaB_bool@3"] = ("bool", "ARaB@3")


def _files(tmp_path: Path) -> Path:
    folder = write_toy(tmp_path / "toy")
    for name, run in (("first.run", RUN), ("second.run", REVERSED), ("third.run", SHUFFLED_RUN)):
        write_run(folder / name, run, name)
    return folder


def _score(folder: Path, runs=("first.run", "second.run", "third.run"), *extra: str) -> list[str]:
    return [*score_args(folder, tuple(runs)), "--resamples", "200", *extra]


def _json(capsys, argv) -> dict:
    assert main(["-q", *argv]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("background", [None, "second.run"])
def test_the_values_are_gsr_bias_values_on_the_same_files(tmp_path, capsys, background):
    folder = _files(tmp_path)
    extra = ["--background", str(folder / background)] if background else []
    scored = _json(capsys, _score(folder, ("first.run", "second.run", "third.run"), "--bias-measures", MEASURES,
                                  *extra, "--json"))  # fmt: skip
    for run in scored["runs"]:
        for rab in ("tf", "bool"):
            argv = ["bias", "--run", str(folder / run["run"]), "--docs", str(folder / "docs.jsonl")]
            argv += ["--qrels", str(folder / "qrels.txt"), "--topics", str(folder / "topics.tsv"), "--k", "3"]
            bias = _json(capsys, [*argv, "--cutoffs", "2,3", "--rab", rab, *extra, "--json"])
            for name, (magnitude, own) in BIAS_RUNS.items():
                if magnitude != rab:
                    continue
                assert run["bias_measures"][name]["mean"] == bias["measures"][own], (run["run"], name)
                assert run["bias_measures"][name]["queries"] == bias["queries"][own]
                assert [row[name] for row in run["bias_per_query"]] == [row[own] for row in bias["per_query"]]
        assert [row["qid"] for row in run["bias_per_query"]] == ["q1", "q2", "q3", "q4", "q5"]
    settings = scored["bias"]["settings"]
    assert scored["bias"]["topics"] == 5 and scored["bias"]["baseline"] == "first.run"
    assert settings["fairr"]["background"] == (str(folder / background) if background else "the run itself")
    assert settings["fairr"]["gender_words"] == "gender-representative"
    assert settings["rab"] == {"gender_words": "appendix-b", "magnitudes": ["bool", "tf"]}


def test_each_run_is_tested_against_the_baseline_and_holm_adjusted_per_measure(tmp_path, capsys):
    folder = _files(tmp_path)
    scored = _json(capsys, _score(folder, ("first.run", "second.run", "third.run"), "--bias-measures", MEASURES,
                                  "--measures", "AP", "--json"))  # fmt: skip
    runs = {run["run"]: run for run in scored["runs"]}
    for name in MEASURES.split(","):
        baseline = {row["qid"]: row[name] for row in runs["first.run"]["bias_per_query"] if row[name] is not None}
        raw = []
        for other in ("second.run", "third.run"):
            values = {row["qid"]: row[name] for row in runs[other]["bias_per_query"] if row[name] is not None}
            common = sorted(set(values) & set(baseline))
            expected = paired_t_test([values[q] for q in common], [baseline[q] for q in common])
            assert runs[other]["bias_measures"][name]["p_value"] == pytest.approx(expected, rel=1e-12)
            raw.append(runs[other]["bias_measures"][name]["p_value"])
        assert runs["first.run"]["bias_measures"][name]["p_value"] is None
        # Holm over this measure's two tests alone, written out: the smaller times 2, the larger not below it
        low, high = sorted(raw)
        adjusted = {low: min(1.0, 2 * low), high: max(min(1.0, 2 * low), high)}
        for other in ("second.run", "third.run"):
            entry = runs[other]["bias_measures"][name]
            assert entry["p_adjusted"] == pytest.approx(adjusted[entry["p_value"]])
            assert entry["mark"] == ("‡" if entry["p_adjusted"] < 0.01 else "†" if entry["p_adjusted"] < 0.05 else "")


def test_the_table_names_the_background_and_the_word_lists(tmp_path, capsys):
    folder = _files(tmp_path)
    assert main(["-q", *_score(folder, ("first.run", "second.run"), "--bias-measures", MEASURES)]) == 0
    out = capsys.readouterr().out
    assert "Bias measures over the 5 judged topics" in out
    assert "FaiRR/NFaiRR: background each run's own top 200 documents per query (no --background)" in out
    assert "RaB/ARaB: words appendix-b" in out
    header = next(line for line in out.splitlines() if "NFaiRR@3" in line and "run" in line)
    assert header.split() == ["run", "NFaiRR@3", "FaiRR@2", "RaB@3", "ARaB_bool@3"]


def _recomputed(scored: dict, names: list[str], resamples: int = 200) -> dict:
    """gsr.fairness.agreement on the values the JSON holds: GSR's (g(q), g_q(L)) pairs and the bias measures'
    per-query values."""
    runs = scored["runs"]
    table = {"GSR": {r["run"]: r["gsr"] for r in runs}}
    per_query: dict = {
        "GSR": {
            r["run"]: {p["qid"]: (p["g_query"], p["g_list"]) for p in r["per_query"] if p["g_query"] is not None}
            for r in runs
        }
    }
    for name in names:
        table[name] = {r["run"]: r["bias_measures"][name]["mean"] for r in runs}
        per_query[name] = {
            r["run"]: {row["qid"]: row[name] for row in r["bias_per_query"] if row[name] is not None} for r in runs
        }
    measures = [AgreementMeasure.gsr("GSR"), *names]
    return measure_agreement(table, per_query, measures, resamples=resamples, level=0.95, seed=0).to_dict()


def test_the_agreement_is_agreement_py_on_the_same_values(tmp_path, capsys):
    folder = _files(tmp_path)
    scored = _json(capsys, _score(folder, ("first.run", "second.run", "third.run"), "--bias-measures", MEASURES,
                                  "--agreement", "--json"))  # fmt: skip
    assert scored["agreement"] == _recomputed(scored, MEASURES.split(","))
    assert scored["agreement"]["measures"] == ["GSR", *MEASURES.split(",")]
    assert all(isinstance(t["interval"], list) for t in scored["agreement"]["taus"])  # three runs: intervals
    assert main(["-q", *_score(folder, ("first.run", "second.run", "third.run"), "--bias-measures", MEASURES,
                               "--agreement")]) == 0  # fmt: skip
    table = capsys.readouterr().out
    first = scored["agreement"]["taus"][0]
    line = next(line for line in table.splitlines() if line.strip().startswith("GSR / NFaiRR@3"))
    assert f"{first['tau']:+.4f}" in line and f"[{first['interval'][0]:+.4f}, {first['interval'][1]:+.4f}]" in line


def test_two_runs_give_tau_without_an_interval_and_name_the_driving_queries(tmp_path, capsys):
    folder = _files(tmp_path)
    scored = _json(capsys, _score(folder, ("second.run", "third.run"), "--bias-measures", "FaiRR@2",
                                  "--agreement", "--json"))  # fmt: skip
    (tau,) = scored["agreement"]["taus"]
    assert tau["tau"] == -1.0 and tau["systems"] == 2  # GSR finds third.run more biased, FaiRR@2 second.run
    assert tau["interval"].startswith("undefined: two systems: τ is +1")
    (disagreement,) = scored["agreement"]["disagreements"]
    assert disagreement["systems"] == ["second.run", "third.run"]
    assert disagreement["measures"] == ["FaiRR@2", "GSR"]
    assert scored["agreement"] == _recomputed(scored, ["FaiRR@2"])
    assert main(["-q", *_score(folder, ("second.run", "third.run"), "--bias-measures", "FaiRR@2", "--agreement")]) == 0
    table = capsys.readouterr().out.splitlines()
    assert next(line for line in table if line.strip().startswith("GSR / FaiRR@2")).split()[3:5] == ["-1.0000", "—"]
    assert "  no interval: two systems: τ is +1 (the measures order them alike) or −1 (oppositely)" in "\n".join(table)
    # each verdict's drivers push towards it, largest first
    for measure, sign in (("FaiRR@2", 1.0), ("GSR", -1.0)):
        contributions = [d["contribution"] for d in disagreement["drivers"][measure]]
        assert contributions and all(sign * c > 0 for c in contributions)
        assert contributions == sorted(contributions, key=lambda c: -sign * c)


def test_the_names(tmp_path):
    assert parse_bias_measure("RaB_tc@5").magnitude == "tc" and parse_bias_measure("RaB@5").magnitude is None
    assert parse_bias_measure("NFaiRR_agnostic@20").family == "fairr"
    assert parse_bias_measure("MAB_female@10").family == "labels"


BAD = {
    "no-cutoff": (["--bias-measures", "NFaiRR"], "argument --bias-measures: bias measure 'NFaiRR': give KIND@k"),
    "cutoff-zero": (["--bias-measures", "NFaiRR@0"], "the cut-off must be a positive integer, not '0'"),
    "unknown-kind": (["--bias-measures", "nfairr@10"], "unknown kind 'nfairr'"),
    "labels": (["--bias-measures", "NDKL@10"], "NDKL@10 reads document labels, which gsr score does not take"),
    "twice": (["--bias-measures", "RaB@3,RaB@3"], "bias measure RaB@3 is named twice"),
    "background-without-fairr": (
        ["--bias-measures", "RaB@3", "--background", "{dir}/first.run"],
        "--background is FaiRR's background run: name FaiRR or NFaiRR measures in --bias-measures",
    ),
    "words-without-measures": (
        ["--gender-words", "msmarco-gender"],
        "--gender-words is the word list of the --bias-measures: give them",
    ),
    "agreement-without-measures": (["--agreement"], "--agreement compares GSR with the --bias-measures"),
    "agreement-one-run": (
        ["--bias-measures", "RaB@3", "--agreement", "--run", "{dir}/first.run"],
        "--agreement compares how measures order the runs: give at least two runs",
    ),
    "word-list-line": (
        ["--bias-measures", "NFaiRR@3", "--gender-words", "{dir}/words.txt"],
        "{dir}/words.txt:2: expected 'word,GROUP' (e.g. 'she,f'), not 'nurse'",
    ),
    "background-misses-a-query": (
        ["--bias-measures", "NFaiRR@3", "--background", "{dir}/short.run"],
        "background run {dir}/short.run misses query q2 (and 3 more) of the run",
    ),
    "threshold": (["--bias-measures", "NFaiRR@3", "--neutrality-threshold", "-1"], "must be a number ≥ 0, not '-1'"),
}


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_before_any_work(case, tmp_path, capsys, own_cache):
    extra, message = case
    folder = _files(tmp_path)
    (folder / "words.txt").write_text("she,f\nnurse\nhe,m\n", encoding="utf-8")
    (folder / "short.run").write_text("q1 Q0 m1 1 2.0 bg\n", encoding="utf-8")
    argv = _score(folder, ("first.run", "second.run"), *(a.replace("{dir}", str(folder)) for a in extra))
    if "--run" in extra:  # one run instead of the two
        at = argv.index("--run")
        del argv[at : at + 3]
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    out, err = capsys.readouterr()
    assert status == 2, err
    assert "Traceback" not in err + out and not out
    errors = [line for line in err.splitlines() if "error: " in line]
    assert len(errors) == 1 and message.replace("{dir}", str(folder)) in errors[0], err
    assert not list(Path(own_cache).glob("*")), "work was done before the error"


def test_the_bad_input_cases_pass_without_their_mutation(tmp_path, capsys, own_cache):
    """Each case above fails for its mutation alone: the same files with good options score, and fill the cache."""
    folder = _files(tmp_path)
    extra = ["--bias-measures", "NFaiRR@3,RaB@3", "--background", str(folder / "first.run"), "--agreement"]
    assert main(["-q", *_score(folder, ("first.run", "second.run"), *extra)]) == 0, capsys.readouterr().err
    assert list(Path(own_cache).glob("*"))
