"""Effectiveness through ir_measures: per-query values, means, and the paper's paired t-test marks († p<0.05, ‡ p<0.01)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gsr.io import InputError, Qrels, Run

DEFAULT_MEASURES = ("AP", "P@10", "nDCG@100")
DISPLAY_NAMES = {"AP": "MAP"}


def parse_measures(names) -> list:
    """ir_measures Measure objects for measure strings (e.g. 'AP', 'P@10', 'nDCG@100'); a bad one names itself."""
    import ir_measures

    measures = []
    for name in names:
        try:
            measures.append(ir_measures.parse_measure(str(name)))
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError) as err:
            raise InputError(f"measure {name!r} is not an ir_measures measure ({err})") from None
    return measures


def display_name(measure) -> str:
    """The paper's column name of a measure (AP averaged over queries is MAP)."""
    return DISPLAY_NAMES.get(str(measure), str(measure))


@dataclass
class Effectiveness:
    """One system's per-query values for each measure, over a fixed set of evaluated queries."""

    per_query: dict[str, dict[str, float]]  # measure -> qid -> value

    def mean(self, measure: str) -> float:
        values = self.per_query[measure]
        return sum(values.values()) / len(values) if values else math.nan


def evaluate_run(run: Run, qrels: Qrels, measures, query_ids: list[str]) -> Effectiveness:
    """Per-query values of `measures` on `query_ids`; a query the run does not answer scores 0 (as trec_eval -c)."""
    import ir_measures

    wanted = set(query_ids)
    qrels_in = {q: qrels[q] for q in query_ids if q in qrels}
    run_in = {q: {d: float(s) for d, s in run.get(q, [])} for q in query_ids if run.get(q)}
    per_query: dict[str, dict[str, float]] = {str(m): {q: 0.0 for q in query_ids} for m in measures}
    if run_in:
        for metric in ir_measures.iter_calc(measures, qrels_in, run_in):
            if metric.query_id in wanted:
                per_query[str(metric.measure)][metric.query_id] = float(metric.value)
    return Effectiveness(per_query)


def paired_t_test(system: dict[str, float], baseline: dict[str, float]) -> float | None:
    """Two-sided paired t-test p-value over the queries both were evaluated on (None when undefined)."""
    from scipy import stats

    common = sorted(set(system) & set(baseline))
    if len(common) < 2:
        return None
    a = [system[q] for q in common]
    b = [baseline[q] for q in common]
    if all(x == y for x, y in zip(a, b)):
        return None
    p = stats.ttest_rel(a, b).pvalue
    return None if math.isnan(p) else float(p)


def significance_mark(p: float | None) -> str:
    """‡ for p < 0.01, † for p < 0.05 (the paper's Table 3 marks), '' otherwise."""
    if p is None:
        return ""
    return "‡" if p < 0.01 else "†" if p < 0.05 else ""


def check_run_ids(run: Run, docids: set[str], name: str) -> None:
    """A run whose documents are mostly unknown to the collection was made on another collection."""
    retrieved = {d for ranked in run.values() for d, _ in ranked}
    if retrieved and not retrieved & docids:
        example = next(iter(sorted(retrieved)))
        raise InputError(f"run {name}: none of its documents is in the collection (e.g. {example})")
