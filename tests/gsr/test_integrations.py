"""GSR inside ir_measures and PyTerrier: the aggregate equals `gsr score`'s Eq. 3 on a topic GSR cannot measure, a
run covering half the topics and batched evaluation (found in the PyTerrier versions gsr says it checks); measure
names; what those libraries hand over (ScoredDoc and Qrel lists, generators, ir_datasets iterables and `irds:` ids);
without pandas, one line naming the extra that brings it."""

from __future__ import annotations

import json
import sys
import warnings

import pytest

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

from experiments.cli import main  # noqa: E402
from gsr import GSR  # noqa: E402
from gsr.equations import GSRError  # noqa: E402
from gsr.errors import InputError  # noqa: E402
from gsr.integrations.ir_measures_gsr import ir_measures_measures, parse_measure_name  # noqa: E402
from gsr.io.convert import as_qrels, as_queries, as_run  # noqa: E402

DOCS = {
    "m1": "The man fixed the wire with his tools.",
    "m2": "He is a strong electrician and he works hard.",
    "m3": "His brother and his father repair engines.",
    "f1": "The woman gave care at the hospital.",
    "f2": "She is a nurse, and her care is kind.",
    "f3": "Her mother and her sister teach dance.",
    "n1": "Report on the annual budget and the market.",
    "n2": "Weather today: rain over the city.",
}
TOPICS = {
    "q1": "electrician tools",
    "q2": "nurse hospital",
    "q3": "budget report",
    "q4": "dancer",
    "q5": "engineer",
    "q6": "receptionist",
}
QRELS = {
    "q1": {"m1": 1, "m2": 1, "f1": 0},
    "q2": {"f1": 2, "f2": 1},
    "q3": {"n1": 1, "m3": 1},
    "q4": {"f3": 1, "n2": 1},
    "q5": {"m3": 1, "m2": 1},
    "q6": {"f2": 1, "n1": 1},
    "q7": {"n2": 0},
}  # q7: judged, but only non-relevant
RUN = {
    "q1": {"m1": 3.0, "f1": 2.0, "m2": 1.0},
    "q2": {"f2": 3.0, "m1": 2.0},
    "q3": {"n1": 2.0, "f3": 1.0},
    "q4": {"m2": 2.0, "f3": 1.0},
    "q5": {"m3": 2.0, "n2": 1.0},
    "q6": {"f2": 2.0, "n1": 1.0},
    "q7": {"n2": 1.0, "m1": 0.5},
}


def _files(folder, run=RUN):
    (folder / "docs.jsonl").write_text("".join(json.dumps({"id": k, "contents": v}) + "\n" for k, v in DOCS.items()))
    (folder / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in TOPICS.items()) + "q7\tkindergarten\n")
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in QRELS.items() for d, g in ds.items()))
    lines = [
        f"{q} Q0 {d} {r} {s} t"
        for q, ds in run.items()
        for r, (d, s) in enumerate(sorted(ds.items(), key=lambda x: -x[1]), start=1)
    ]
    (folder / "run.txt").write_text("\n".join(lines) + "\n")
    return folder


def _gsr_score(folder, capsys) -> float:
    assert (
        main(
            [
                "score",
                "--run",
                str(folder / "run.txt"),
                "--topics",
                str(folder / "topics.tsv"),
                "--docs",
                str(folder / "docs.jsonl"),
                "--qrels",
                str(folder / "qrels.txt"),
                "--json",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    return json.loads(capsys.readouterr().out)["gsr"]


def _frame(run):
    return pd.DataFrame([{"query_id": q, "doc_id": d, "score": s} for q, ds in run.items() for d, s in ds.items()])


def test_a_topic_judged_only_non_relevant_is_left_out(glove_lexicon, tmp_path, capsys):
    expected = _gsr_score(_files(tmp_path), capsys)
    measures = ir_measures_measures(GSR(glove_lexicon), dict(TOPICS, q7="kindergarten"), tmp_path / "docs.jsonl")
    values = {m.query_id: m.value for m in ir_measures.iter_calc([measures["GSR"]], QRELS, RUN)}
    assert values["q7"] == 0 and len(values) == 7  # q7 has no share of the slope
    assert sum(values.values()) / len(values) == pytest.approx(expected)  # the plain mean PyTerrier takes
    assert sum(values.values()) / 6 != pytest.approx(expected)  # the shares are scaled to the 7 topics
    assert ir_measures.calc_aggregate([measures["GSR"]], QRELS, RUN)[measures["GSR"]] == pytest.approx(expected)


def test_a_run_covering_half_the_topics(glove_lexicon, tmp_path, capsys):
    half = {q: RUN[q] for q in ("q1", "q2", "q4")}
    expected = _gsr_score(_files(tmp_path, run=half), capsys)
    measures = ir_measures_measures(GSR(glove_lexicon), TOPICS, tmp_path / "docs.jsonl")
    assert ir_measures.calc_aggregate([measures["GSR"]], QRELS, half)[measures["GSR"]] == pytest.approx(expected)
    frame = _frame(half)
    assert ir_measures.calc_aggregate([measures["GSR"]], QRELS, frame)[measures["GSR"]] == pytest.approx(expected)


def test_batches_aggregate_to_the_same_slope(glove_lexicon, tmp_path, capsys):
    """PyTerrier's batched Experiment calls ir_measures once per batch, with that batch's qrels, and aggregates the
    per-query values of all batches with the measure's aggregator: the same steps here, batches of 1, 2 and 4."""
    expected = _gsr_score(_files(tmp_path), capsys)
    measure = ir_measures_measures(GSR(glove_lexicon), TOPICS, tmp_path / "docs.jsonl")["GSR"]
    qids = sorted(QRELS)
    for size in (1, 2, 4):
        aggregate = measure.aggregator()
        for start in range(0, len(qids), size):
            batch = qids[start : start + size]
            for metric in ir_measures.iter_calc([measure], {q: QRELS[q] for q in batch}, {q: RUN[q] for q in batch}):
                aggregate.add(metric.value)
        assert aggregate.result() == pytest.approx(expected)


def test_pyterrier_experiment_batched_and_not(glove_lexicon, tmp_path, capsys):
    pt = pytest.importorskip("pyterrier")
    expected = _gsr_score(_files(tmp_path), capsys)
    measures = ir_measures_measures(GSR(glove_lexicon), TOPICS, tmp_path / "docs.jsonl")
    results = _frame(RUN).rename(columns={"query_id": "qid", "doc_id": "docno"})
    topics = pd.DataFrame({"qid": list(RUN), "query": [TOPICS.get(q, "kindergarten") for q in RUN]})
    qrels = pd.DataFrame([{"qid": q, "docno": d, "label": g} for q, ds in QRELS.items() for d, g in ds.items()])
    system = pt.Transformer.from_df(results)
    table = pt.Experiment([system], topics, qrels, eval_metrics=[measures["GSR"], measures["gL"]], names=["run"])
    assert table["GSR"][0] == pytest.approx(expected)
    with pytest.raises(GSRError, match=r"PyTerrier evaluates these topics in batches \(batch_size=2\)"):
        pt.Experiment([system], topics, qrels, eval_metrics=[measures["GSR"]], batch_size=2, names=["run"])


def test_plain_numbers_cannot_be_aggregated_into_a_slope(glove_lexicon, tmp_path):
    _files(tmp_path)
    measure = ir_measures_measures(GSR(glove_lexicon), TOPICS, tmp_path / "docs.jsonl")["GSR"]
    aggregate = measure.aggregator()
    for metric in ir_measures.iter_calc([measure], QRELS, RUN):
        aggregate.add(float(metric.value))  # the points are lost
    with pytest.raises(GSRError, match="plain per-query numbers"):
        aggregate.result()


def test_gl_per_query_and_measure_names(tiny_lexicon):
    docs = {
        "m1": "man tools wire",
        "m2": "he tools",
        "f1": "woman care",
        "f2": "she care hospital",
        "n1": "wire care",
        "n2": "man care",
    }
    queries = {"qm": "electrician", "qf": "nurse", "qn": "hospital wire"}
    qrels = {"qm": {"m1": 1, "m2": 1}, "qf": {"f1": 2, "f2": 1}, "qn": {"n1": 1, "n2": 1}}
    run = {"qm": {"f1": 2.0, "m2": 1.0, "m1": 0.5}, "qf": {"m1": 2.0, "f2": 1.0}, "qn": {"n2": 3.0, "f1": 1.0}}
    gsr = GSR(tiny_lexicon)
    measures = ir_measures_measures(gsr, queries, docs)
    expected = gsr.evaluate(run, queries, docs, qrels).system
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([measures["gL"]], qrels, run)}
    assert per_query == pytest.approx({q.qid: q.g_list for q in expected.per_query})
    assert str(measures["GSR@rel"]) == "GSR@rel" and str(measures["GSR@1"]) == "GSR@1"
    assert measures["GSR"] @ 1 == measures["GSR@1"]
    at_one = GSR(tiny_lexicon, cutoff=1).evaluate(run, queries, docs, qrels).system.gsr
    assert ir_measures.calc_aggregate([measures["GSR@1"]], qrels, run)[measures["GSR@1"]] == pytest.approx(at_one)
    assert ir_measures.calc_aggregate([measures["GSR@rel"]], qrels, run)[measures["GSR@rel"]] == pytest.approx(
        expected.gsr
    )
    assert parse_measure_name("gL@10") == ("gL", 10) and parse_measure_name("GSR") == ("GSR", None)
    for bad in ("GSR@0", "GSR@top", "GSRR"):
        with pytest.raises(InputError, match="not a GSR measure name"):
            parse_measure_name(bad)


def test_records_from_ir_measures_and_generators():
    scored = [ir_measures.ScoredDoc("q1", "d1", 1.0), ir_measures.ScoredDoc("q1", "d2", 3.0)]
    assert as_run(scored) == {"q1": [("d2", 3.0), ("d1", 1.0)]}
    assert as_run(iter(scored)) == as_run(scored) == as_run(s for s in [("q1", "d1", 1), ("q1", "d2", 3)])
    assert as_qrels([ir_measures.Qrel("q1", "d1", 2), ir_measures.Qrel("q2", "d9", 0)]) == {
        "q1": {"d1": 2},
        "q2": {"d9": 0},
    }
    assert as_queries(iter([("1", "nurse"), ("2", "electrician")])) == {"1": "nurse", "2": "electrician"}
    with pytest.raises(InputError, match="run, record 1: score must be a number"):
        as_run([("q1", "d1", "high")])
    with pytest.raises(InputError, match="qrels, record 2: document d1 judged twice"):
        as_qrels([("q1", "d1", 1), ("q1", "d1", 0)])
    with pytest.raises(InputError, match="queries, record 1: expected"):
        as_queries([("1", "nurse", "extra")])


@pytest.fixture(scope="module")
def tiny_irds():
    """A local ir_datasets dataset (registered in memory; nothing is downloaded)."""
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecQueries, TrecScoredDocs, TsvDocs
    from ir_datasets.util import StringFile

    name = "gsr-bench-test/tiny"
    if name not in ir_datasets.registry:
        topics = "".join(
            f"<top>\n<num> Number: {q}\n<title> {t}\n<desc> Description:\nAbout {t}.\n<narr> Narrative:\nAny.\n</top>\n"
            for q, t in (("1", "nurse"), ("2", "electrician"))
        )
        ir_datasets.registry.register(
            name,
            Dataset(
                TsvDocs(StringFile("d1\tshe is a nurse\nd2\the is an electrician\n")),
                TrecQueries(StringFile(topics)),
                TrecQrels(StringFile("1 0 d1 1\n2 0 d2 2\n"), {0: "no", 1: "yes", 2: "very"}),
                TrecScoredDocs(StringFile("1 Q0 d1 1 2.5 r\n2 Q0 d2 1 1.5 r\n")),
            ),
        )
    return f"irds:{name}"


def test_irds_ids_and_ir_datasets_iterables(tiny_irds):
    import ir_datasets

    assert as_queries(tiny_irds) == {"1": "nurse", "2": "electrician"}
    assert as_queries(tiny_irds, "title+desc") == {"1": "nurse About nurse.", "2": "electrician About electrician."}
    assert as_qrels(tiny_irds) == {"1": {"d1": 1}, "2": {"d2": 2}}
    assert as_run(tiny_irds) == {"1": [("d1", 2.5)], "2": [("d2", 1.5)]}
    dataset = ir_datasets.load(tiny_irds[len("irds:") :])
    assert as_queries(dataset.queries_iter(), "desc") == {"1": "About nurse.", "2": "About electrician."}
    assert as_qrels(dataset.qrels_iter()) == as_qrels(tiny_irds)
    with pytest.raises(InputError, match="ir_datasets has no dataset 'no/such'"):
        as_queries("irds:no/such")


def test_irds_ids_in_a_config_collection(tiny_irds, tmp_path):
    from experiments.collections import load_collection
    from experiments.config.experiment import parse_config

    (tmp_path / "docs.jsonl").write_text(
        '{"id": "d1", "contents": "she is a nurse"}\n{"id": "d2", "contents": "he is an electrician"}\n'
    )
    raw = {
        "collection": {"kind": "files", "documents": "docs.jsonl", "topics": tiny_irds, "qrels": tiny_irds},
        "systems": [{"name": "B", "model": "bm25"}],
        "embeddings": {"glove": {"source": "glove-6b-50d"}},
        "gsr": {"measuring": ["glove"]},
    }
    config = parse_config(raw, tmp_path / "c.toml")
    assert config.collection["topics"] == tiny_irds  # an id, not a path relative to the config
    collection = load_collection(config.collection)
    assert collection.queries == {"1": "nurse", "2": "electrician"} and collection.qrels == {
        "1": {"d1": 1},
        "2": {"d2": 2},
    }


def test_the_installed_pyterrier_is_one_whose_batches_are_found():
    """The batched pt.Experiment is found from PyTerrier's own frames (it has no public hook for it): the tests above
    check that on the installed PyTerrier, which must be one of the versions gsr says it checks."""
    from importlib.metadata import version

    from gsr.integrations.ir_measures_gsr import PYTERRIER_CHECKED, pyterrier_checked

    pytest.importorskip("pyterrier")
    assert pyterrier_checked(version("pyterrier")), (version("pyterrier"), PYTERRIER_CHECKED)
    assert [pyterrier_checked(v) for v in ("0.9.2", "1.0.0", "1.1.2", "1.2.0", "2.0", "dev")] == [
        False,
        True,
        True,
        False,
        False,
        False,
    ]


def _called_from_pyterrier(module: str, batch_size):
    """pyterrier_batch_size() as called from a frame of PyTerrier's module `module` holding `batch_size`."""
    from gsr.integrations.ir_measures_gsr import pyterrier_batch_size

    frame_globals = {"__name__": module, "probe": pyterrier_batch_size, "batch_size": batch_size}
    exec(compile("found = probe()", "<pyterrier>", "exec"), frame_globals)
    return frame_globals["found"]


def test_a_batch_size_is_found_in_pyterrier_frames_and_other_versions_are_warned_about(monkeypatch):
    import importlib.metadata

    from gsr.integrations import ir_measures_gsr

    assert _called_from_pyterrier("pyterrier._evaluation._execution", 4) == 4
    assert _called_from_pyterrier("elsewhere", 4) is None
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.1.2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _called_from_pyterrier("pyterrier._evaluation._execution", None) is None
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.9.0")
    monkeypatch.setattr(ir_measures_gsr, "_warned_versions", set())
    with pytest.warns(RuntimeWarning, match=r"PyTerrier 1\.9\.0: .* only in PyTerrier >=1\.0,<1\.2"):
        assert _called_from_pyterrier("pyterrier.new_layout", None) is None
    with warnings.catch_warnings():  # once per version
        warnings.simplefilter("error")
        _called_from_pyterrier("pyterrier.new_layout", None)


def test_without_pandas_the_measures_name_the_extra_in_one_line(monkeypatch, tiny_lexicon):
    """ir_measures gives measures defined in Python the run and qrels as pandas DataFrames; the core has no pandas, so
    making GSR's or the label-based measures says which extra brings it, before ir_measures fails inside a call."""
    import tomllib
    from pathlib import Path

    from gsr import BiasIRMeasures, DocumentLabels
    from gsr.infra.extras import EXTRAS, MissingExtraError

    monkeypatch.setitem(sys.modules, "pandas", None)  # what `import pandas` meets in the core install
    makers = [
        lambda: ir_measures_measures(GSR(tiny_lexicon), {"q1": "nurse"}, {"d1": "she is a nurse"}),
        lambda: BiasIRMeasures(DocumentLabels({"d1": "female"}, "example")),
    ]
    for make in makers:
        with pytest.raises(MissingExtraError) as raised:
            make()
        message = str(raised.value)
        assert "\n" not in message and "need pandas" in message, message
        assert message.endswith("the 'ir-measures' extra does: pip install 'gsr-bench[ir-measures]'"), message
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    extra = pyproject["project"]["optional-dependencies"]["ir-measures"]
    assert EXTRAS["ir-measures"][0] == ("pandas",) and [r for r in extra if r.startswith("pandas")], extra
