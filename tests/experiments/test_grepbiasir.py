"""Grep-BiasIR: the collection kind on the copy shipped with gsr (gsr/data/grepbiasir) and on small hand-made folders,
and the gender-versions analysis against hand computations."""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import numpy as np
import pytest

from experiments.analyses.gender_versions import (
    GenderVersions,
    compare_versions,
    document_ranks,
    gender_versions_figure,
    plot_gender_versions,
    version_ranks,
)
from experiments.collections import load_collection
from experiments.collections.grepbiasir import BUILTIN
from experiments.config.experiment import BUILTIN_CONFIGS, parse_config
from gsr.errors import InputError
from tests.support.figures import PURPLE_FEMALE, assert_png, panels

DOCUMENT_HEADER = ["q_id", "d_id", "relevant", "query", "doc_title", "document", "content_gender", "exp_stereotype"]


def _folder(tmp_path, rows, queries=(("1", "Career", "salary negotiation"),)):
    """A Grep-BiasIR-shaped folder: queries.csv and one queries-documents_Career.csv."""
    with open(tmp_path / "queries.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["q_id", "category", "query"])
        writer.writerows(queries)
    with open(tmp_path / "queries-documents_Career.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(DOCUMENT_HEADER)
        writer.writerows(rows)
    return {"kind": "grepbiasir", "path": str(tmp_path)}


def _versions(qid, first_id, relevant, title):
    words = {"M": "men", "F": "women", "N": "people"}
    return [
        [qid, str(first_id + i), relevant, "q", f"{title} for {words[g]}", f"Advice\nfor {words[g]}.", g, "x"]
        for i, g in enumerate("MFN")
    ]


def test_the_shipped_copy():
    collection = load_collection({"kind": "grepbiasir"})  # no path: the copy shipped with gsr
    assert len(collection.queries) == 117 and len(collection.document_genders) == 702
    assert len(set(collection.query_categories.values())) == 7
    genders = list(collection.document_genders.values())
    assert (genders.count("female"), genders.count("male"), genders.count("neutral"), genders.count("both")) == (
        232,
        232,
        233,
        5,
    )
    assert all(sorted(judged.values()) == [0, 0, 0, 1, 1, 1] for judged in collection.qrels.values())
    assert collection.judged_queries() == sorted(collection.queries)
    assert any("'botrh'" in note for note in collection.notes)  # the source's typo, read as "both"
    same = load_collection({"kind": "grepbiasir", "path": str(BUILTIN)})  # a clone given as path reads alike
    assert same.key == collection.key and same.qrels == collection.qrels


def test_the_shipped_copy_carries_its_licence_and_citation():
    assert "CC0 1.0 Universal" in (BUILTIN / "LICENSE").read_text(encoding="utf-8")
    readme = (BUILTIN / "README.md").read_text(encoding="utf-8")
    assert "Krieg" in readme and "@inproceedings" in readme and "CC0" in readme
    assert len(sorted(BUILTIN.glob("queries-documents_*.csv"))) == 7


def test_the_builtin_config_reads_the_shipped_copy_and_records_it():
    from experiments.config.experiment import load_config
    from experiments.report.provenance import input_files

    config = load_config("grepbiasir")
    assert "path" not in config.collection
    recorded = {Path(entry["path"]).name for entry in input_files(config) if entry["role"] == "collection.builtin"}
    assert "queries.csv" in recorded and len(recorded) == 8  # queries.csv and the seven categories' documents


def test_a_small_folder_keeps_titles_labels_and_categories(tmp_path):
    spec = _folder(tmp_path, _versions("1", 10, "1", "Raise") + _versions("1", 13, "0", "Holidays"))
    collection = load_collection(spec)
    assert collection.queries == {"1": "salary negotiation"} and collection.query_categories == {"1": "Career"}
    assert collection.qrels == {"1": {"10": 1, "11": 1, "12": 1, "13": 0, "14": 0, "15": 0}}
    assert collection.document_genders["11"] == "female" and collection.document_genders["12"] == "neutral"
    assert collection.texts({"10"}) == {"10": "Raise for men Advice\nfor men."}  # title, then the multi-line body


@pytest.mark.parametrize(
    "rows, message",
    [
        ([["1", "10", "1", "q", "t", "d", "X", "x"]], "queries-documents_Career.csv:2: content_gender 'X' is not"),
        ([["1", "10", "2", "q", "t", "d", "F", "x"]], "queries-documents_Career.csv:2: relevant must be 0 or 1"),
        ([["9", "10", "1", "q", "t", "d", "F", "x"]], "queries-documents_Career.csv:2: query id '9' is not in"),
        (
            [["1", "10", "1", "q", "t", "two\nlines", "F", "x"], ["1", "10", "0", "q", "t", "d", "M", "x"]],
            "queries-documents_Career.csv:4: document id '10' is empty or appears twice",
        ),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path, rows, message):
    with pytest.raises(InputError, match=message):
        load_collection(_folder(tmp_path, rows))


def test_missing_folder_says_where_to_download(tmp_path):
    with pytest.raises(InputError, match="github.com/KlaraKrieg/GrepBiasIR"):
        load_collection({"kind": "grepbiasir", "path": str(tmp_path / "nowhere")})


def test_ranks_with_ties_and_unretrieved_documents():
    ranked = [("a", 5.0), ("b", 4.0), ("c", 4.0), ("d", 3.4278), ("e", 3.427799), ("f", 1.0)]
    ranks, unretrieved = document_ranks(ranked, n_documents=10)
    assert ranks == {"a": 1, "b": 2.5, "c": 2.5, "d": 4, "e": 5, "f": 6} and unretrieved == (7 + 10) / 2
    ranks, _ = document_ranks(ranked, n_documents=10, tolerance=2e-6)  # Anserini's tie-break undone
    assert ranks["d"] == ranks["e"] == 4.5


def test_versions_compared_by_hand():
    """Three queries; female vs male ranks: q1 2 vs 1, q2 1 vs 3, q3 tied (both unretrieved, rank (2+1+6)/2)."""
    genders = {
        "f1": "female",
        "m1": "male",
        "n1": "neutral",
        "f2": "female",
        "m2": "male",
        "n2": "neutral",
        "f3": "female",
        "m3": "male",
        "n3": "neutral",
        "x": "both",
    }
    qrels = {
        "q1": {"f1": 1, "m1": 1, "n1": 1},
        "q2": {"f2": 1, "m2": 1, "n2": 1},
        "q3": {"f3": 1, "m3": 1, "n3": 1},
        "q4": {"x": 1, "m1": 1, "n1": 1},
    }
    run = {
        "q1": [("m1", 3.0), ("f1", 2.0), ("n1", 1.0)],
        "q2": [("f2", 3.0), ("n2", 2.0), ("m2", 1.0)],
        "q3": [("n3", 2.0), ("x", 1.0)],
    }
    ranks, skipped = version_ranks(run, qrels, genders, n_documents=6)
    assert skipped == ["q4"]  # no female version
    assert ranks["q1"] == {"female": 2, "male": 1, "neutral": 3} and ranks["q3"]["female"] == ranks["q3"]["male"] == 4.5
    entry = compare_versions(ranks, "female", "male", resamples=8)
    assert entry["share"] == pytest.approx((0 + 1 + 0.5) / 3)  # q2 above, q3 tied
    assert entry["difference"] == pytest.approx(((2 - 1) + (1 - 3) + 0) / 3)
    # differences (1, −2, 0): signed sums ±1 ± 2 → |sum| ≥ 1 for all 8 sign vectors: p = 1
    assert entry["p_value"] == 1.0 and entry["queries"] == 3
    low, high = entry["share_ci"]
    assert 0 <= low <= entry["share"] <= high <= 1
    assert compare_versions(ranks, "female", "male", test=False)["p_value"] is None


def _versions_result() -> GenderVersions:
    """Two systems, two categories; BM25 has no interval in Career."""

    def entry(share, ci, queries):
        return {"female>male": {"share": share, "share_ci": ci, "queries": queries}}

    comparisons = {
        "BM25": {"all": entry(0.6, [0.4, 0.8], 10), "Career": entry(0.5, None, 4)},
        "add": {"all": entry(0.3, [0.1, 0.5], 10), "Career": entry(0.25, [0.0, 0.5], 4)},
    }
    return GenderVersions("relevant", comparisons, {})


def test_gender_versions_figure_shares_and_intervals():
    all_queries, career = panels(gender_versions_figure(_versions_result()))
    assert [ax.get_title() for ax in (all_queries, career)] == ["all (n = 10)", "Career (n = 4)"]
    shares, _ = all_queries.lines[0].get_data()  # one marker per system, top to bottom
    assert list(shares) == [0.6, 0.3] and list(all_queries.lines[0].get_ydata()) == [1, 0]
    assert all_queries.lines[0].get_color() == PURPLE_FEMALE
    (bars,) = [c for c in all_queries.collections if len(c.get_segments()) == 2]
    assert [[list(point) for point in segment] for segment in bars.get_segments()] == [
        [[0.4, 1], [0.8, 1]],
        [[0.1, 0], [0.5, 0]],
    ]
    (no_preference,) = [line for line in all_queries.lines if line.get_linestyle() == "--"]
    assert list(no_preference.get_xdata()) == [0.5, 0.5] and all_queries.get_xlim() == (0, 1)
    assert [t.get_text() for t in all_queries.get_yticklabels()] == ["BM25", "add"]
    assert list(career.lines[0].get_xdata()) == [0.5, 0.25]  # drawn without an interval where there is none


def test_gender_versions_png(tmp_path):
    assert_png(plot_gender_versions(_versions_result(), tmp_path / "versions.png"), tmp_path / "versions.png")


@pytest.mark.slow
def test_the_config_runs_an_embedding_system_and_the_analysis(tmp_path):
    """grepbiasir.toml cut to one embedding system: the analysis covers every category; the perfect engine, which
    ties the three versions, has no preference."""
    from experiments.experiment_result import PERFECT
    from experiments.report import write_report
    from experiments.runner import Experiment

    raw = tomllib.loads(BUILTIN_CONFIGS["grepbiasir"].read_text())
    raw["systems"] = [s for s in raw["systems"] if s["name"] == "glove_add"]
    raw.pop("debias")
    raw["analyses"] = {"gender_versions": True, "intrinsic_gender": False}
    raw["evaluation"].update(baseline="glove_add", resamples=500)
    raw["output"] = str(tmp_path / "out")
    config = parse_config(raw, BUILTIN_CONFIGS["grepbiasir"])
    result = Experiment(config).run()
    versions = result.analyses["gender_versions"]
    assert set(versions.comparisons["glove_add"]) == {
        "all",
        "Appearance",
        "Career",
        "Child Care",
        "Cognitive Capabilities",
        "Domestic Work",
        "Physical Capabilities",
        "Sex & Relationship",
    }
    perfect = versions.comparisons[PERFECT]["all"]["female>male"]
    assert (perfect["share"], perfect["difference"], perfect["queries"]) == (0.5, 0.0, 117)
    ours = versions.comparisons["glove_add"]["all"]["female>male"]
    ranks, _ = version_ranks(
        result.runs["glove_add"], result.collection.qrels, result.collection.document_genders, 702, tolerance=2e-6
    )
    assert ours["share"] == pytest.approx(
        np.mean([1.0 if r["female"] < r["male"] else 0.5 if r["female"] == r["male"] else 0.0 for r in ranks.values()])
    )
    written = write_report(result, config.output)
    table = (config.output / "gender_versions.md").read_text()
    assert "| glove_add | Child Care | 14 |" in table and "holm correction" in table
    assert written["gender_versions"].stat().st_size > 10_000


@pytest.mark.slow
def test_the_docs_grepbiasir_table_is_a_fresh_run(tmp_path, monkeypatch):
    """Issue 27.15: docs/generated/grepbiasir_results.md comes from a run in a fresh cache (docs/generate.py --runs);
    two of its systems run again here, in an empty cache, give the same effectiveness and GSR cells (the marks,
    Holm-adjusted over every system of the table, are left out)."""
    import re

    from experiments.report.results_table import markdown_table, results_rows
    from experiments.runner import Experiment

    monkeypatch.setenv("GSR_CACHE", str(tmp_path / "fresh-cache"))
    raw = tomllib.loads(BUILTIN_CONFIGS["grepbiasir"].read_text())
    raw["systems"] = [s for s in raw["systems"] if s["name"] in ("BM25", "glove_add")]
    raw.pop("debias")
    raw["analyses"] = {"intrinsic_gender": False, "rank_change": False, "gender_versions": False}
    raw["output"] = str(tmp_path / "out")
    result = Experiment(parse_config(raw, BUILTIN_CONFIGS["grepbiasir"])).run()
    fresh = markdown_table(result, results_rows(result))
    generated = (Path(__file__).resolve().parents[2] / "docs" / "generated" / "grepbiasir_results.md").read_text()

    def cells(table: str, system: str) -> list[str]:
        row = next(line for line in table.splitlines() if line.startswith(f"| {system} |"))
        return [re.sub(r"[†‡]", "", cell).strip() for cell in row.strip("|").split("|")]

    for system in ("BM25", "glove_add"):
        assert cells(fresh, system) == cells(generated, system), system
