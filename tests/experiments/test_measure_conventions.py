"""The conventions docs/scoring.md and docs/label-measures.md document where the references disagree (issue 35.13):
RR@k ranks as ir_measures' msmarco provider (ties by document id ascending), not as trec_eval (descending); RaB and
ARaB measure trec_eval's ranking of every line of a query, not the run file's line order with only a query's last
block of lines, as the authors' code reads it."""

from __future__ import annotations

import pytest

from gsr.effectiveness.evaluate import evaluate_run, parse_measures
from gsr.fairness import BiasMeasures, BiasSettings, DocumentLabels
from gsr.io.runs import read_trec_run

QRELS = {"q": {"a": 0, "b": 1}}
TIED = {"q": [("a", 1.0), ("b", 1.0)]}  # b is relevant; the two are tied


@pytest.mark.parametrize("native", [True, False])
def test_rr_at_k_breaks_ties_as_ir_measures_msmarco_provider_and_rr_as_trec_eval(native):
    measures = parse_measures(["RR", "RR@2"])
    values = evaluate_run(TIED, QRELS, measures, ["q"], native=native).per_query
    assert values["RR"]["q"] == 1.0  # trec_eval: ties by document id descending, b first
    assert values["RR@2"]["q"] == 0.5  # msmarco: ties by document id ascending, a first


F, M = "female", "male"
LABELS = DocumentLabels({"f1": F, "f2": F, "m1": M, "m2": M}, "test")
# one query in two blocks, neither sorted by score: in trec_eval's order the list is f1 m1 m2 f2
UNSORTED_IN_BLOCKS = "q Q0 m2 3 2.0 x\nq Q0 f1 1 4.0 x\nother Q0 f1 1 1.0 x\nq Q0 f2 4 1.0 x\nq Q0 m1 2 3.0 x\n"


def _authors_lists(text: str) -> dict[str, list[str]]:
    """A run file read as the authors' step2_calculate_bias_runs.ipynb reads it: lines in file order, a query's list
    started afresh whenever the query id changes from the line before."""
    lists: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        values = line.strip().split(" ")
        if len(values) == 6:
            if values[0] != current:
                lists[values[0]] = []
                current = values[0]
            lists[values[0]].append(values[2])
    return lists


def _rab(ranked: list[str]) -> tuple[float, float]:
    """RaB@4 and ARaB@4 with label magnitudes (1 for the document's own gender): male share minus female share."""
    signs = [1.0 if LABELS.labels[d] == M else -1.0 for d in ranked]
    prefixes = [sum(signs[:t]) / t for t in range(1, len(signs) + 1)]
    return prefixes[-1], sum(prefixes) / len(prefixes)


def test_rab_measures_trec_eval_order_of_every_line_of_a_query(tmp_path):
    path = tmp_path / "unsorted.run"
    path.write_text(UNSORTED_IN_BLOCKS, encoding="utf-8")
    report = BiasMeasures(LABELS, BiasSettings(k=4, target="uniform", rab="labels")).evaluate(read_trec_run(path))
    values = next(q for q in report.per_query if q.qid == "q").values
    expected = _rab(["f1", "m1", "m2", "f2"])
    assert (values["RaB@4"], values["ARaB@4"]) == pytest.approx(expected)
    authors = _authors_lists(UNSORTED_IN_BLOCKS)["q"]
    assert authors == ["f2", "m1"]  # the last block only, in file order
    assert _rab(authors) != pytest.approx(expected)
