"""GSR inside other evaluation tools: ir_measures custom measures (and so PyTerrier's Experiment)."""

from __future__ import annotations

import math

from gsr.baselines import cut_run, relevant_counts
from gsr.evaluate import GSR, measure_run
from gsr.io import as_qrels, as_queries, as_run
from gsr.measure import GSRError, gsr_slope_terms


def _per_query(gsr: GSR, queries, gendered, qrels_frame, run_frame):
    run = as_run(run_frame)
    qrels = as_qrels(qrels_frame) if len(qrels_frame) else {}
    if gsr.cutoff == "relevant" and qrels:
        run = cut_run(run, relevant_counts(qrels))
    elif isinstance(gsr.cutoff, int):
        run = cut_run(run, gsr.cutoff)
    return measure_run(run, queries, gendered, query_ids=sorted(set(run) & set(queries)), tie_scores=gsr.tie_scores)


def ir_measures_measures(gsr: GSR, queries, documents, prefix: str = "") -> dict:
    """Two ir_measures measures: `gL` (g_q(L) per query, Eq. 2) and `GSR` (per-query slope terms).

    GSR's per-query value is (g(q) − μ_q)(g_q(L) − μ_L) / σ²_g(q), so ir_measures' mean over the queries
    is exactly the slope of Eq. 3. With cutoff "relevant" each list is cut to its number of relevant
    documents (taken from the qrels passed to ir_measures).
    """
    import ir_measures

    queries = as_queries(queries)
    gendered = gsr.documents(documents)

    def list_values(qrels, run):
        result = _per_query(gsr, queries, gendered, qrels, run)
        for q in result.per_query:
            if q.g_list is not None:
                yield q.qid, q.g_list

    def slope_terms(qrels, run):
        result = _per_query(gsr, queries, gendered, qrels, run)
        x, y = result.points(defined_only=False)
        try:
            terms = gsr_slope_terms(x, y)
        except GSRError:
            return
        for q, term in zip(result.per_query, terms):
            if not math.isnan(term):
                yield q.qid, float(term)

    return {
        "gL": ir_measures.define(list_values, name=f"{prefix}gL", support_cutoff=False,
                                 short_desc="genderedness of the ranked list, Eq. 2"),
        "GSR": ir_measures.define(slope_terms, name=f"{prefix}GSR", support_cutoff=False,
                                  short_desc="gender stereotype reinforcement, Eq. 3 (mean over queries)"),
    }
