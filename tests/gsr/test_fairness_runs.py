"""The label-based measures of whole runs: label sources, targets, undefined queries, trec_eval order, the
ir_measures aggregate against the direct computation, and `gsr bias` / `gsr rerank` on files."""

from __future__ import annotations

import json
import math

import pytest

from experiments.cli import main
from gsr.fairness import (
    BiasMeasures,
    BiasSettings,
    DocumentLabels,
    LabelSourceError,
    gendered_word_counts,
    genderedness_labels,
    intrinsic_labels,
    parse_label_source,
    read_labels_file,
)
from gsr.fairness.evaluate import BiasError

F, M, N = "female", "male", "neutral"
LABELS = {"d1": F, "d2": M, "d3": M, "d4": F, "d5": N, "d6": F, "d7": M}
RUN = {
    "q1": [("d1", 4.0), ("d2", 3.0), ("d3", 2.0), ("d4", 1.0)],  # F M M F
    "q2": [("d5", 1.0)],  # only a neutral document
    "q4": [("d2", 1.0), ("d6", 1.0)],
}  # a tie: trec_eval puts d6 first
QRELS = {"q1": {"d1": 1, "d4": 1, "d2": 0}, "q2": {"d5": 1}, "q3": {"d7": 1}, "q4": {"d6": 1, "d2": 1}, "q5": {"d1": 0}}
ONE_GENDER = 0.5 * math.log(0.5 / 1e-4) + 0.5 * math.log(0.5)
THIRD = 0.5 * math.log(1.5) + 0.5 * math.log(0.75)


def measures(target="uniform", k=4, labels=LABELS, **settings) -> BiasMeasures:
    return BiasMeasures(DocumentLabels(labels, "test"), BiasSettings(k=k, target=target, rab="labels", **settings))


def test_queries_measured_skipped_and_the_means_over_defined_ones():
    report = measures().evaluate(RUN, QRELS)
    by_qid = {q.qid: q for q in report.per_query}
    assert list(by_qid) == ["q1", "q2", "q3", "q4"]  # judged topics: q5 has no relevant document
    assert by_qid["q1"].values["FSKL@4"] == pytest.approx((ONE_GENDER + THIRD) / 4)
    assert by_qid["q1"].counts == {F: 2, M: 2, N: 0}
    assert by_qid["q2"].skipped == "no_gendered_document" and by_qid["q2"].values["RaB@4"] == 0.0
    assert by_qid["q3"].skipped == "empty_run" and by_qid["q3"].values["KL@4"] is None
    # q4's tie: trec_eval order puts d6 (female) above d2 (male); FSKL = (ONE_GENDER + 0) / 2 either way, RaB_1 not
    assert by_qid["q4"].values["ARaB@4"] == pytest.approx((-1 + 0) / 2)
    assert report.measures["FSKL@4"] == pytest.approx(((ONE_GENDER + THIRD) / 4 + ONE_GENDER / 2) / 2)
    assert report.measures["RaB@4"] == pytest.approx((0 + 0 + 0) / 3)
    assert report.queries["FSKL@4"] == 2 and report.queries["RaB@4"] == 3
    assert report.settings["skipped"] == {"no_gendered_document": ["q2"], "empty_run": ["q3"]}
    out = report.to_dict()
    assert set(out) == {"measures", "per_query", "settings", "queries"}
    assert out["settings"]["labels"] == "test" and out["settings"]["target"] == "uniform"
    json.dumps(out)  # JSON-ready


@pytest.mark.parametrize(
    "target, expected_kl",
    [
        ("collection", 0.0),  # labelled: d1 d4 d6 female, d2 d3 d7 male → (1/2, 1/2)
        ("relevant", math.log(2)),  # q1's relevant d1, d4: T = (1, 0); top 4 (1/2, 1/2)
        ({"female": 0.25, "male": 0.75}, 0.25 * math.log(0.25 / 0.5) + 0.75 * math.log(0.75 / 0.5)),
        ("retrieved", 0.0),  # the whole list: F M M F
    ],
)
def test_targets(target, expected_kl):
    report = measures(target=target).evaluate({"q1": RUN["q1"]}, QRELS, ["q1"])
    assert report.per_query[0].values["KL@4"] == pytest.approx(expected_kl)


def test_relevant_target_undefined_without_gendered_relevant_documents():
    report = measures(target="relevant").evaluate({"q2": [("d1", 1.0)]}, QRELS, ["q2"])
    assert report.per_query[0].skipped == "no_gendered_relevant_document"
    with pytest.raises(BiasError, match="needs qrels"):
        measures(target="relevant").evaluate(RUN)


def test_without_qrels_the_runs_queries_are_measured():
    report = measures().evaluate(RUN)
    assert [q.qid for q in report.per_query] == ["q1", "q2", "q4"]


def test_unlabelled_documents_are_neutral_counted_or_errors():
    report = measures(labels={"d1": F, "d2": M}).evaluate({"q1": RUN["q1"]})
    assert report.per_query[0].unlabelled == 2 and report.settings["unlabelled"] == 2
    assert report.per_query[0].values["KL@4"] == pytest.approx(0.0)  # F M among (F M N N)
    strict = BiasMeasures(DocumentLabels({"d1": F, "d2": M}, "file:x", strict=True), BiasSettings(target="uniform"))
    with pytest.raises(LabelSourceError, match="document d3 .retrieved for query q1. has no label"):
        strict.evaluate({"q1": RUN["q1"]})
    complete = BiasMeasures(
        DocumentLabels({"d1": F, "d2": M}, "intrinsic", complete=True), BiasSettings(target="uniform")
    )
    with pytest.raises(LabelSourceError, match="d3 .retrieved for query q1. is not in the labelled documents"):
        complete.evaluate({"q1": RUN["q1"]})


def test_rab_from_entity_word_counts():
    docs = {"a": "She met her sister and her mother.", "b": "He and his son.", "c": "Nothing gendered here."}
    counts = gendered_word_counts(docs)
    assert counts == {"a": (5, 0), "b": (0, 3), "c": (0, 0)}  # she, her ×2, sister, mother; he, his, son
    assert gendered_word_counts(docs, wanted={"b"}) == {"b": (0, 3)}
    labels = DocumentLabels({"a": F, "b": M, "c": N}, "test")
    report = BiasMeasures(labels, BiasSettings(k=2, target="uniform", rab="tc"), counts).evaluate(
        {"q": [("a", 2.0), ("b", 1.0)]}
    )
    assert report.per_query[0].values["RaB@2"] == pytest.approx((0 + 3) / 2 - (5 + 0) / 2)


def test_ir_measures_aggregate_equals_the_direct_computation():
    ir_measures = pytest.importorskip("ir_measures")
    from gsr.integrations.ir_measures_bias import BiasIRMeasures

    labels = DocumentLabels(LABELS, "test")
    settings = BiasSettings(k=4, target="uniform", rab="labels")
    direct = BiasMeasures(labels, settings).evaluate(RUN, QRELS)
    catalogue = BiasIRMeasures(labels, settings)
    names = ["KL@4", "FSKL@4", "NDKL@4", "MB_female@4", "MAB_female@4", "RaB@4", "ARaB_male@4"]
    wanted = [catalogue[name] for name in names]
    run = {q: dict(docs) for q, docs in RUN.items()}
    aggregate = ir_measures.calc_aggregate(wanted, QRELS, run)
    for name, measure in zip(names, wanted):
        assert aggregate[measure] == pytest.approx(direct.measures[name]), name
    per_query = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(wanted, QRELS, run)}
    assert per_query[("FSKL@4", "q1")] == pytest.approx((ONE_GENDER + THIRD) / 4)
    assert math.isnan(per_query[("FSKL@4", "q3")])  # undefined (empty run): NaN, left out of the mean, never 0
    assert catalogue["NDKL"] == catalogue["NDKL@4"] and str(catalogue["NDKL@10"]) == "NDKL@10"
    with pytest.raises(Exception, match="not a per-query mean"):
        catalogue["SB_female@4"]


def test_labels_file(tmp_path):
    path = tmp_path / "labels.tsv"
    path.write_text("d1\tfemale\nd2\tMale\n\nd3\tneutral\n")
    labels = read_labels_file(path)
    assert labels.labels == {"d1": F, "d2": M, "d3": N} and labels.source == f"file:{path}"
    assert labels.counts() == {F: 1, M: 1, N: 1} and labels.collection_shares((F, M)) == {F: 0.5, M: 0.5}
    for text, message in (
        ("d1\tboth\n", ":1: label 'both' is not female, male or neutral"),
        ("d1 female\n", ":1: expected 'docid<TAB>female|male|neutral'"),
        ("d1\tfemale\nd1\tmale\n", ":2: document d1 is labelled female and male"),
        ("\n", "no labels in this file"),
    ):
        path.write_text(text)
        with pytest.raises(LabelSourceError, match=message):
            read_labels_file(path)


def test_intrinsic_and_genderedness_labels(tiny_lexicon, nltk_data):
    from gsr.documents.stats import DocumentStats
    from gsr.text.analyzer import Analyzer

    docs = {"a": "She is a nurse.", "b": "He has tools.", "c": "Care and wire.", "d": "Nothing known"}
    assert intrinsic_labels(docs).labels == {"a": F, "b": M, "c": N, "d": N}
    analyzer = Analyzer()
    gendered = DocumentStats.build(docs.items(), analyzer, n_jobs=1).gendered(tiny_lexicon, analyzer)
    # g(d): a (0.4 + 0.25)/2 = 0.325, b (−0.4 − 0.3)/2 = −0.35, c (0.1 − 0.05)/2 = 0.025, d none
    labels = genderedness_labels(gendered, 0.1)
    assert labels.labels == {"a": F, "b": M, "c": N, "d": N} and labels.source == "genderedness:0.1"
    assert genderedness_labels(gendered, 0.02).labels["c"] == F
    assert genderedness_labels(gendered, 0.4).labels == {"a": N, "b": N, "c": N, "d": N}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("intrinsic", ("intrinsic", None)),
        ("genderedness:0.05", ("genderedness", 0.05)),
        ("my/labels.tsv", ("file", "my/labels.tsv")),
    ],
)
def test_label_sources(text, expected):
    assert parse_label_source(text) == expected


@pytest.mark.parametrize("text", ["genderedness", "genderedness:x", "genderedness:-1"])
def test_genderedness_needs_a_threshold(text):
    with pytest.raises(LabelSourceError, match="needs a threshold"):
        parse_label_source(text)


def _files(folder):
    docs = {
        "d1": "She and her sister.",
        "d2": "He and his brother.",
        "d3": "He works.",
        "d4": "Her work.",
        "d5": "A report.",
        "d6": "She sings.",
        "d7": "He sings.",
    }
    (folder / "docs.jsonl").write_text("".join(json.dumps({"id": k, "contents": v}) + "\n" for k, v in docs.items()))
    (folder / "run.txt").write_text(
        "".join(f"{q} Q0 {d} {r} {s} t\n" for q, ranked in RUN.items() for r, (d, s) in enumerate(ranked, 1))
    )
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in QRELS.items() for d, g in ds.items()))
    (folder / "labels.tsv").write_text("".join(f"{d}\t{g}\n" for d, g in LABELS.items()))
    return folder


def test_bias_command_json(tmp_path, capsys, nltk_data):
    f = _files(tmp_path)
    assert (
        main(
            [
                "bias",
                "--run",
                str(f / "run.txt"),
                "--labels",
                "intrinsic",
                "--docs",
                str(f / "docs.jsonl"),
                "--qrels",
                str(f / "qrels.txt"),
                "--k",
                "4",
                "--target",
                "uniform",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"measures", "per_query", "settings", "queries"}
    assert out["settings"]["labels"] == "intrinsic" and out["settings"]["k"] == 4
    assert out["measures"]["FSKL@4"] == pytest.approx(((ONE_GENDER + THIRD) / 4 + ONE_GENDER / 2) / 2)
    assert [q["qid"] for q in out["per_query"]] == ["q1", "q2", "q3", "q4"]
    assert out["per_query"][0]["female"] == 2 and "RaB@4" in out["per_query"][0]
    assert out["settings"]["skipped"] == {"no_gendered_document": ["q2"], "empty_run": ["q3"]}


def test_bias_command_table_and_errors(tmp_path, capsys):
    f = _files(tmp_path)
    assert (
        main(
            [
                "bias",
                "--run",
                str(f / "run.txt"),
                "--labels",
                str(f / "labels.tsv"),
                "--rab",
                "labels",
                "--target",
                "female=0.5,male=0.5",
                "--k",
                "4",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f"labels file:{f / 'labels.tsv'}" in out and "FSKL@4" in out and "MB_female@4" in out
    for argv, message in (
        (["--labels", "intrinsic"], "labels the documents of --docs: give --docs"),
        (["--labels", str(f / "labels.tsv")], "--rab tf counts gendered words"),
        (["--labels", str(f / "labels.tsv"), "--rab", "labels", "--target", "relevant"], "needs --qrels"),
        (["--labels", "genderedness", "--docs", str(f / "docs.jsonl")], "needs a threshold"),
        (["--labels", str(f / "nope.tsv"), "--rab", "labels"], "nope.tsv"),
    ):
        assert main(["bias", "--run", str(f / "run.txt"), *argv]) == 2
        assert message in capsys.readouterr().err


def test_rerank_command(tmp_path, capsys):
    from gsr.io.runs import read_trec_run

    f = _files(tmp_path)
    out = tmp_path / "fg.run"
    assert (
        main(
            [
                "rerank",
                "--run",
                str(f / "run.txt"),
                "--method",
                "fairness_greedy",
                "--labels",
                str(f / "labels.tsv"),
                "--target",
                "female=0.75,male=0.25",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    reranked = read_trec_run(out)
    # F M M F: d1 kept; P = (1, 0), P − T = (.25, −.25): male d2; P = (.5, .5), P − T = (−.25, .25): female d4; d3
    assert [d for d, _ in reranked["q1"]] == ["d1", "d2", "d4", "d3"]
    assert [s for _, s in reranked["q1"]] == [4.0, 3.0, 2.0, 1.0]
    for argv, message in (
        (["--method", "dash"], "reads document labels: give --labels"),
        (["--method", "epsilon_greedy", "--rho", "0.3"], "takes no --rho"),
        (["--method", "epsilon_greedy", "--epsilon", "0"], "epsilon must be in (0, 1]"),
        (
            ["--method", "fairness_greedy", "--labels", str(f / "labels.tsv"), "--target", "relevant"],
            "would feed the test qrels",
        ),
    ):
        assert main(["rerank", "--run", str(f / "run.txt"), "--out", str(tmp_path / "refused.run"), *argv]) == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / "refused.run").exists()


def test_rerank_command_with_embedding_relevance(tmp_path):
    """Dash with relevance = embedding and w_r = 1: by 1 − cos(query, document mean vectors) alone: d2 ('nurse',
    cost 0) rises above d1 ('tools tools', cost 1 − cos((0, 1), (1, 0)) = 1)."""
    from gsr.io.runs import read_trec_run

    (tmp_path / "vectors.txt").write_text("2 2\nnurse 1.0 0.0\ntools 0.0 1.0\n")
    (tmp_path / "docs.jsonl").write_text('{"id": "d1", "contents": "tools tools"}\n{"id": "d2", "contents": "nurse"}\n')
    (tmp_path / "topics.tsv").write_text("q1\tnurse\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    (tmp_path / "labels.tsv").write_text("d1\tmale\nd2\tfemale\n")
    out = tmp_path / "dash.run"
    argv = [
        "rerank",
        "--run",
        str(tmp_path / "run.txt"),
        "--method",
        "dash",
        "--w-r",
        "1",
        "--labels",
        str(tmp_path / "labels.tsv"),
        "--relevance",
        "embedding",
        "--docs",
        str(tmp_path / "docs.jsonl"),
        "--out",
        str(out),
        "--embedding",
        str(tmp_path / "vectors.txt"),
    ]
    assert main([*argv, "--topics", str(tmp_path / "topics.tsv")]) == 0
    assert [d for d, _ in read_trec_run(out)["q1"]] == ["d2", "d1"]
    assert main(argv) == 2  # no --topics: nothing to compare the documents with


def test_gsr_labels_own_output_and_the_file_prefix_are_label_sources(tmp_path):
    """Issue 28.9: `gsr label --docs D > labels.tsv` then `--labels labels.tsv` (or `file:labels.tsv`, as configs
    write it) works; the header and the mention counts of gsr label's TSV are read past."""
    from gsr.fairness.labels import parse_label_source, read_labels_file

    path = tmp_path / "labels.tsv"
    path.write_text("id\tlabel\tfemale_mentions\tmale_mentions\nd1\tfemale\t2\t0\nd2\tmale\t0\t1\n", encoding="utf-8")
    assert read_labels_file(path).labels == {"d1": "female", "d2": "male"}
    assert parse_label_source(f"file:{path}") == ("file", str(path)) == parse_label_source(str(path))
    path.write_text("id\tlabel\tfemale_mentions\tmale_mentions\nd1\tfemale\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"labels.tsv:2: expected"):
        read_labels_file(path)
