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
    # with effectiveness, its tests against the baseline join the one family
    assert (
        main(_score(tmp_path, "--run", *runs, "--qrels", str(tmp_path / "qrels.txt"), "--json", "--measures", "AP,P@1"))
        == 0
    )
    out = json.loads(capsys.readouterr().out)
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
