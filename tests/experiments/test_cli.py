"""The `gsr` command line: JSON contract, tables, error messages."""

from __future__ import annotations

import json

import pytest

from experiments.cli import main
from tests.support.shared_data import ROBUST04_TOPICS

# g(w) by hand: the definitional words lie on the first axis (female +1, male −1), so the gender direction is that
# axis, and a word at (g, √(1 − g²), 0) has cosine g with it (Eq. 1); float32 vectors hold g to about 1e-7
FEMALE_WORDS = ("she", "her", "woman", "Mary", "herself", "daughter", "mother", "gal", "girl", "female")
MALE_WORDS = ("he", "his", "man", "John", "himself", "son", "father", "guy", "boy", "male")
G = {
    "women": 0.4,
    "labor": 0.1,
    "electrician": -0.5,
    "tools": -0.3,
    "wire": -0.2,
    "strong": -0.1,
    "nurse": 0.5,
    "hospital": 0.2,
    "care": 0.3,
    "kind": 0.2,
    "budget": 0.0,
    "report": 0.05,
    "annual": -0.05,
    "weather": 0.02,
}


def _write_embedding(folder):
    rows = [f"{w} 1 0 0" for w in FEMALE_WORDS] + [f"{w} -1 0 0" for w in MALE_WORDS]
    rows += [f"{w} {g!r} {(1 - g * g) ** 0.5!r} 0" for w, g in G.items()]
    (folder / "vectors.txt").write_text("\n".join(rows) + "\n")
    return folder / "vectors.txt"


def _write_collection(folder):
    docs = {
        "m1": "The man fixed the wire with his tools.",
        "m2": "He is a strong electrician.",
        "f1": "The woman gave care at the hospital.",
        "f2": "She is a nurse, and her care is kind.",
        "n1": "Report on the annual budget.",
        "n2": "Weather today: rain.",
    }
    (folder / "docs.jsonl").write_text("".join(json.dumps({"id": k, "contents": v}) + "\n" for k, v in docs.items()))
    (folder / "topics.tsv").write_text("q1\telectrician tools\nq2\tnurse hospital\nq3\tbudget\n")
    (folder / "qrels.txt").write_text("q1 0 m1 1\nq1 0 m2 1\nq2 0 f1 2\nq2 0 f2 1\nq3 0 n1 1\nq3 0 m1 0\n")
    (folder / "run.txt").write_text(
        "q1 Q0 m1 1 3.0 t\nq1 Q0 f1 2 2.0 t\nq1 Q0 m2 3 1.0 t\n"
        "q2 Q0 f2 1 3.0 t\nq2 Q0 m1 2 2.0 t\nq2 Q0 ghost 3 1.0 t\n"
        "q3 Q0 n1 1 1.0 t\n"
    )
    _write_embedding(folder)


def _score(folder, *extra):
    """`gsr score` on the collection in `folder`, with the hand-made embedding."""
    return [
        "score",
        "--topics",
        str(folder / "topics.tsv"),
        "--docs",
        str(folder / "docs.jsonl"),
        "--jobs",
        "1",
        "--embedding",
        str(folder / "vectors.txt"),
        *extra,
    ]


def test_validate_json_contract(glove_lexicon, capsys):
    assert main(["validate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["direction"]["explained_variance"] == pytest.approx(0.494, abs=0.01)
    names = [t["name"] for t in out["stereotype_tests"]]
    assert names == ["agency_communion", "science_arts", "career_family", "jobs"]
    for test in out["stereotype_tests"]:
        assert set(test) >= {"name", "male_mean", "female_mean", "p_value"}
        assert test["female_mean"] > test["male_mean"] and test["p_value"] < 0.05
    for toy in ("toy1", "toy2"):
        assert out[toy]["S"] > 0 and out[toy]["CS"] == pytest.approx(-out[toy]["S"])
        assert out[toy]["N"] == pytest.approx(0, abs=1e-12)
    assert out["toy1"]["parity_r"] == pytest.approx(0.856, abs=0.001) and out["toy1"]["parity_stereotype"] == "polarity"
    assert sorted(out["toy1"]["parity_disagreeing"]) == ["firefighter", "roofer", "secretary", "welder"]
    assert main(["validate", "--json", "--stereotype", "census"]) == 0
    census = json.loads(capsys.readouterr().out)["toy1"]
    assert census["parity_stereotype"] == "census" and census["parity_r"] == pytest.approx(0.650, abs=0.001)


def test_validate_table_and_plots(glove_lexicon, tmp_path, capsys):
    assert main(["validate", "--plots", str(tmp_path / "figs")]) == 0
    text = capsys.readouterr().out
    assert "agency_communion" in text and "toy1: S=+" in text and "Pearson r" in text
    for name in ("fig1_stereotypes", "fig4_toy1", "fig5_parity", "fig6_toy2"):
        assert (tmp_path / "figs" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_queries_lists_all_robust04_topics(glove_lexicon, tmp_path, capsys):
    if not ROBUST04_TOPICS.exists():
        pytest.skip(f"Robust04 topics not found at {ROBUST04_TOPICS} (shared reference data)")
    assert main(["queries", "--topics", str(ROBUST04_TOPICS), "--json", "--plots", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 250
    values = [r["genderedness"] for r in rows if r["genderedness"] is not None]
    assert values == sorted(values, reverse=True)
    assert set(rows[0]) == {"qid", "text", "genderedness", "terms"}
    by_qid = {r["qid"]: r for r in rows}
    assert by_qid["301"]["text"] == "International Organized Crime"
    assert [t["term"] for t in by_qid["301"]["terms"]] == ["international", "organized", "crime"]
    assert (tmp_path / "fig7_queries.png").exists()


def test_score_json_with_qrels(tmp_path, capsys):
    _write_collection(tmp_path)
    assert (
        main(_score(tmp_path, "--run", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt"), "--json"))
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"gsr", "n_queries", "n_skipped", "per_query", "perfect", "random", "relative"}
    assert out["n_queries"] == 3 and out["unknown_docids"] == 0  # 'ghost' lies below q2's top-2
    for key in ("perfect", "random"):
        assert set(out[key]) >= {"gsr", "n_queries", "n_skipped", "per_query"}
    assert {q["qid"] for q in out["per_query"]} == {"q1", "q2", "q3"}
    assert all(set(q) >= {"qid", "g_query", "g_list"} for q in out["per_query"])


def test_score_table_reports_unknown_documents(tmp_path, capsys):
    _write_collection(tmp_path)
    args = _score(tmp_path, "--run", str(tmp_path / "run.txt"), "--cutoff", "none")
    assert main(args) == 0
    assert "1 retrieved document ids are not in" in capsys.readouterr().out
    assert main(args + ["--strict"]) == 2
    assert "ghost retrieved for query q2 is not in the collection" in capsys.readouterr().err


@pytest.mark.parametrize(
    "exclusion, expected",
    [
        ("lemma", 0.1),  # the default: women is the query's word, woman its lemma's other form: labor left
        ("stem", (1.0 + 0.1) / 2),  # Snowball stems women and woman apart: woman (g = 1) and labor
        ("exact", (1.0 + 0.1) / 2),
    ],
)
def test_score_exclusion_modes(tmp_path, capsys, exclusion, expected):
    """q1 = "women" on the one document "The woman and the women: labor.": g_q(d) over the words left (Eq. 2)."""
    (tmp_path / "docs.jsonl").write_text(json.dumps({"id": "d", "contents": "The woman and the women: labor."}) + "\n")
    (tmp_path / "topics.tsv").write_text("q1\twomen\nq2\tlabor\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d 1 1.0 t\nq2 Q0 d 1 1.0 t\n")
    _write_embedding(tmp_path)
    assert (
        main(
            _score(tmp_path, "--run", str(tmp_path / "run.txt"), "--cutoff", "none", "--json", "--exclusion", exclusion)
        )
        == 0
    )
    per_query = {q["qid"]: q for q in json.loads(capsys.readouterr().out)["per_query"]}
    assert per_query["q1"]["g_list"] == pytest.approx(expected, abs=1e-6)


def _missing_definitional_word(folder):
    (folder / "v.txt").write_text("she 1 0\nhe -1 0\nwoman 1 1\n")
    return ["validate", "--embedding", str(folder / "v.txt")]


def _malformed_run(content):
    def args(folder):
        _write_collection(folder)
        (folder / "run.txt").write_text(content)
        return _score(folder, "--run", str(folder / "run.txt"))

    return args


# (the command's arguments in a folder, what stderr must say); exit status 2
REFUSED = {
    "unknown-embedding": (
        lambda folder: ["validate", "--embedding", str(folder / "nope.bin")],
        "no such embedding file, nor a built-in name (glove-6b-50d)",
    ),
    "missing-definitional-word": (
        _missing_definitional_word,
        "definitional word(s) missing from the embedding: her, his, man",
    ),
    "bad-cutoff": (
        lambda folder: ["score", "--run", "r", "--topics", "t", "--docs", "d", "--cutoff", "zero"],
        "cutoff must be",
    ),
    "run-with-five-columns": (_malformed_run("q1 Q0 m1 1 3.0\n"), "run.txt:1: expected 6 columns"),
    "run-rank-not-an-integer": (
        _malformed_run("q1 Q0 m1 1 3.0 t\nq1 Q0 m2 x 2.0 t\n"),
        "run.txt:2: rank must be an integer",
    ),
}


@pytest.mark.parametrize("args, message", REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_a_clear_error(args, message, tmp_path, capsys):
    try:
        status = main(args(tmp_path))
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    assert status == 2 and message in capsys.readouterr().err


def test_score_json_has_intervals_beside_every_gsr(tmp_path, capsys):
    _write_collection(tmp_path)
    assert (
        main(
            _score(
                tmp_path,
                "--run",
                str(tmp_path / "run.txt"),
                "--qrels",
                str(tmp_path / "qrels.txt"),
                "--json",
                "--resamples",
                "300",
                "--level",
                "0.9",
            )
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["run"] == "run.txt"
    for engine in (out, out["perfect"], out["random"]):
        keys = [k for k in engine if k != "run"]
        assert keys[:3] == ["gsr", "ci", "se"] and len(engine["ci"]) == 2  # beside "gsr"
    assert out["ci"][0] <= out["gsr"] <= out["ci"][1]
    assert len(out["relative_ci"]) == 2 and "relative_ci" in out["random"]
    assert set(out["perfect_test"]) == {"difference", "p_value", "p_adjusted", "mark"}
    # 3 topics: every sign vector enumerated; the difference is the run's GSR minus the perfect engine's
    assert out["perfect_test"]["difference"] == pytest.approx(out["gsr"] - out["perfect"]["gsr"])
    assert out["perfect_test"]["p_value"] * 8 == pytest.approx(round(out["perfect_test"]["p_value"] * 8))


def test_score_several_runs_compares_every_pair(tmp_path, capsys):
    _write_collection(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text("q1 Q0 f1 1 3.0 t\nq1 Q0 m2 2 2.0 t\nq2 Q0 m1 1 3.0 t\nq2 Q0 f1 2 2.0 t\nq3 Q0 m2 1 1.0 t\n")
    runs = [str(tmp_path / "run.txt"), str(other)]

    def holm_by_hand(tests):  # step-down over the m tests, monotone, capped at 1
        running = 0.0
        for rank, test in enumerate(sorted(tests, key=lambda t: t["p_value"])):
            running = max(running, min(1.0, (len(tests) - rank) * test["p_value"]))
            assert test["p_adjusted"] == pytest.approx(running)

    assert (
        main(_score(tmp_path, "--run", *runs, "--qrels", str(tmp_path / "qrels.txt"), "--json", "--measures", "none"))
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert [r["run"] for r in out["runs"]] == ["run.txt", "other.txt"] and out["correction"] == "holm"
    (pair,) = out["comparisons"]
    assert (pair["a"], pair["b"]) == ("run.txt", "other.txt")
    assert pair["difference"] == pytest.approx(out["runs"][0]["gsr"] - out["runs"][1]["gsr"])
    holm_by_hand([r["perfect_test"] for r in out["runs"]] + [pair])
    # with --correction-family all, the effectiveness tests against the baseline join the one family
    args = _score(tmp_path, "--run", *runs, "--qrels", str(tmp_path / "qrels.txt"), "--json", "--measures", "AP,P@1")
    assert main([*args, "--correction-family", "all"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["correction"], out["correction_family"]) == ("holm", "all")
    measured = [m for m in out["runs"][1]["measures"].values() if m["p_value"] is not None]
    assert len(measured) == 2 and all(m["p_value"] is None for m in out["runs"][0]["measures"].values())
    holm_by_hand([r["perfect_test"] for r in out["runs"]] + out["comparisons"] + measured)
    assert main(_score(tmp_path, "--run", *runs, "--qrels", str(tmp_path / "qrels.txt"))) == 0
    table = capsys.readouterr().out
    assert "paired randomisation tests of GSR differences" in table and "other.txt" in table and "perfect" in table


def test_score_exit_status_and_cutoff_claim(tmp_path, capsys):
    _write_collection(tmp_path)
    single = tmp_path / "single.txt"
    single.write_text("q1 Q0 m1 1 3.0 t\n")
    assert main(_score(tmp_path, "--run", str(single), "--json")) == 1  # one query: GSR undefined
    captured = capsys.readouterr()
    assert json.loads(captured.out)["gsr"] is None and "GSR is undefined for single.txt" in captured.err
    foreign = tmp_path / "foreign.txt"
    foreign.write_text("301 Q0 m1 1 3.0 t\n")
    assert main(_score(tmp_path, "--run", str(foreign))) == 2
    assert "run foreign.txt and the topics share no query id" in capsys.readouterr().err
    assert main(_score(tmp_path, "--run", str(tmp_path / "run.txt"))) == 0
    assert "cut-off none (no --qrels" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["perfect", "random", "Random"])
def test_score_refuses_a_run_named_like_a_reference_engine(tmp_path, capsys, name):
    _write_collection(tmp_path)
    clash = tmp_path / name
    clash.write_text((tmp_path / "run.txt").read_text())
    args = _score(tmp_path, "--run", str(tmp_path / "run.txt"), str(clash), "--qrels", str(tmp_path / "qrels.txt"))
    assert main([*args, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert str(clash) in line and "reference engine" in line and "rename the file" in line


def test_score_refuses_the_same_run_given_twice(tmp_path, capsys, monkeypatch):
    _write_collection(tmp_path)
    run = tmp_path / "run.txt"
    (tmp_path / "link.txt").symlink_to(run)
    monkeypatch.chdir(tmp_path)
    for twice in (
        [str(run), str(run)],
        [str(run), "./run.txt"],
        ["run.txt", f"{tmp_path}/./run.txt"],
        ["link.txt", "run.txt"],
    ):
        assert main(_score(tmp_path, "--run", *twice, "--json")) == 2, twice
        captured = capsys.readouterr()
        assert captured.out == ""
        (line,) = captured.err.splitlines()
        assert twice[0] in line and twice[1] in line and "give each run once" in line
    # two files of one name in two folders are two runs, named by their paths
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "run.txt").write_text(run.read_text())
    assert main(_score(tmp_path, "--run", str(run), str(tmp_path / "other" / "run.txt"), "--json")) == 0
    names = [r["run"] for r in json.loads(capsys.readouterr().out)["runs"]]
    assert names == [str(run), str(tmp_path / "other" / "run.txt")]


def test_results_markdown_escapes_names(monkeypatch):
    from types import SimpleNamespace
    from typing import Any

    from experiments.report import results_table

    monkeypatch.setattr(results_table, "table_notes", lambda result, rows, text: ["note"])
    result: Any = SimpleNamespace(config=SimpleNamespace(measures=[]), system_gsr={})  # what the table reads of it
    names = ("a | b", "two\nlines | injected |", "c\\|d")
    rows: list[dict] = [{"system": name, "measures": {}, "gsr": {}} for name in names]
    table = results_table.markdown_table(result, rows).splitlines()
    assert table[:5] == ["| system |", "|---|", r"| a \| b |", r"| two lines \| injected \| |", r"| c\\\|d |"]


def _closed_stdout_run(tmp_path, how: str):
    """`python -m experiments.cli score` whose stdout is a pipe closed before it prints, or closed from the start."""
    import subprocess
    import sys
    from pathlib import Path

    args = ["-q", *_score(tmp_path, "--run", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt"))]
    command = [sys.executable, "-m", "experiments.cli", *args]
    root = Path(__file__).resolve().parents[2]
    if how == "pipe":
        with subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
            assert process.stdout is not None and process.stderr is not None
            process.stdout.close()  # as `| head -0` does
            err = process.stderr.read()
            return process.wait(timeout=300), err
    import shlex

    done = subprocess.run(
        ["bash", "-c", shlex.join(command) + " >&-"], cwd=root, capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stderr


@pytest.mark.parametrize("how", ["pipe", "closed"])
def test_score_output_lost_to_a_closed_stdout_is_an_error(tmp_path, how):
    _write_collection(tmp_path)
    status, err = _closed_stdout_run(tmp_path, how)
    assert status == 1, err
    (line,) = [line for line in err.splitlines() if not line.startswith("gsr: warning:")]  # e.g. NLTK's stop list
    assert line.startswith("gsr: error: ") and "standard output" in line
    assert "Traceback" not in err and "Exception ignored" not in err


def _holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment written out: the i-th smallest p times (m − i), made monotone, capped at 1."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def test_score_corrects_each_measure_as_its_own_family(tmp_path, capsys):
    from tests.support.toy_collection import RUN, score_args, write_run, write_toy

    folder = write_toy(tmp_path / "toy")  # five judged topics: randomisation p-values down to 2/32
    others = {
        "second.run": {q: d[::-1] for q, d in RUN.items()},
        "third.run": {q: d[1:] + d[:1] for q, d in RUN.items()},
    }
    for name, run in others.items():
        write_run(folder / name, run, "x")
    common = ["-q", *score_args(folder, ("run.txt", *others)), "--resamples", "1000"]
    base = [*common, "--json"]

    def scored(*extra):
        assert main([*base, *extra]) == 0
        return json.loads(capsys.readouterr().out)

    def gsr_tests(out):
        return [r["perfect_test"] for r in out["runs"]] + out["comparisons"]

    measured = scored("--measures", "nDCG@10,AP")
    assert (measured["correction"], measured["correction_family"]) == ("holm", "measure")
    for measure in ("nDCG@10", "AP"):  # each measure's tests against the baseline: one family of two
        tests = [r["measures"][measure] for r in measured["runs"][1:]]
        assert all(t["p_value"] is not None for t in tests)
        assert [t["p_adjusted"] for t in tests] == pytest.approx(_holm([t["p_value"] for t in tests]))
    tests = gsr_tests(measured)  # GSR's: three runs against the perfect engine and three pairs
    assert len(tests) == 6 and all(t["p_value"] is not None for t in tests)
    adjusted = [t["p_adjusted"] for t in tests]
    assert min(adjusted) < 1 and adjusted == pytest.approx(_holm([t["p_value"] for t in tests]))
    for other in (scored(), scored("--measures", "none"), scored("--measures", "P@1")):
        assert [t["p_adjusted"] for t in gsr_tests(other)] == adjusted  # the measures asked for change nothing
    # --correction-family all: every p-value of the call one family, as before
    together = scored("--measures", "nDCG@10,AP", "--correction-family", "all")
    family = gsr_tests(together) + [r["measures"][m] for r in together["runs"][1:] for m in ("nDCG@10", "AP")]
    assert [t["p_adjusted"] for t in family] == pytest.approx(_holm([t["p_value"] for t in family]))
    assert [t["p_adjusted"] for t in gsr_tests(together)] != adjusted
    # the text says which p-values are adjusted, and how
    assert main([*common, "--measures", "nDCG@10,AP"]) == 0
    text = capsys.readouterr().out
    assert "p-values Holm-adjusted per measure" in text and "adj. p vs perfect" in text
    assert main([*common, "--correction-family", "all", "--latex"]) == 0
    assert "p-values Holm-adjusted together" in capsys.readouterr().out


def test_score_html_overwrite_and_a_file_appearing_meanwhile(tmp_path, capsys, monkeypatch):
    """`gsr score --html FILE` creates FILE at the end only if nothing is there then (a file that appeared while
    scoring is left as it is); --overwrite replaces it, so the README's command can be repeated."""
    from tests.support.toy_collection import score_args, write_toy

    folder = write_toy(tmp_path / "toy")
    page = tmp_path / "report.html"
    args = ["-q", *score_args(folder), "--html", str(page)]
    assert main(args) == 0 and page.stat().st_size > 0
    assert main([*args, "--overwrite"]) == 0 and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    page.unlink()
    from experiments.report import html

    real_write = html.write_html

    def meanwhile(data, path):
        page.write_text("the user's own file\n", encoding="utf-8")  # appears while the page is being written
        return real_write(data, path)

    monkeypatch.setattr(html, "write_html", meanwhile)
    capsys.readouterr()
    assert main(args) == 2
    assert "appeared while scoring; it was left as it is" in capsys.readouterr().err
    assert page.read_text(encoding="utf-8") == "the user's own file\n"
    assert not list(tmp_path.glob(".report.html*"))  # no partial file left beside it
