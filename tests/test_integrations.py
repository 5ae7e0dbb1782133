"""GSR as ir_measures custom measures: per-query g_q(L) and a slope whose mean aggregate is Eq. 3."""

from __future__ import annotations

import pytest

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

from gsr import GSR  # noqa: E402
from gsr.integrations import ir_measures_measures  # noqa: E402


def test_ir_measures_aggregate_equals_gsr(tiny_lexicon):
    docs = {"m1": "man tools wire", "m2": "he tools", "f1": "woman care", "f2": "she care hospital",
            "n1": "wire care", "n2": "man care"}
    queries = {"qm": "electrician", "qf": "nurse", "qn": "hospital wire"}
    qrels = {"qm": {"m1": 1, "m2": 1}, "qf": {"f1": 2, "f2": 1}, "qn": {"n1": 1, "n2": 1}}
    run = {"qm": {"f1": 2.0, "m2": 1.0, "m1": 0.5}, "qf": {"m1": 2.0, "f2": 1.0}, "qn": {"n2": 3.0, "f1": 1.0}}
    measure = GSR(tiny_lexicon)
    expected = measure.evaluate(run, queries, docs, qrels).system
    measures = ir_measures_measures(measure, queries, docs)
    aggregate = ir_measures.calc_aggregate([measures["GSR"], measures["gL"]], qrels, run)
    assert aggregate[measures["GSR"]] == pytest.approx(expected.gsr)
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([measures["gL"]], qrels, run)}
    assert per_query == pytest.approx({q.qid: q.g_list for q in expected.per_query})
    frame = pd.DataFrame([{"query_id": q, "doc_id": d, "score": s} for q, ds in run.items() for d, s in ds.items()])
    assert ir_measures.calc_aggregate([measures["GSR"]], qrels, frame)[measures["GSR"]] == pytest.approx(expected.gsr)
