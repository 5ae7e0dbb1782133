"""Effectiveness measures computed with numpy from a run's arrays (gsr.io.run_arrays.RunArrays), to the bit as
ir_measures computes them with its default providers: P@k, R@k, RR, AP, AP@k, nDCG and nDCG@k as pytrec_eval
(trec_eval 9.0.8) does, RR@k as ir_measures' msmarco provider does. Anything else (another parameter, judged_only,
custom gains, negative grades, a query judged with no document) is left to ir_measures (`supports`).

What is reproduced, from their sources:

* trec_eval ranks by the score as a C float (single precision: pytrec_eval stores it so), ties by document id
  descending; msmarco's RR@k by the score as a double, ties by document id ascending.
* a relevant document has a grade ≥ rel (default 1); R, the number of relevant documents, comes from the qrels;
  an unjudged document has no grade;
* nDCG's gain is the grade, its discount log2(rank + 1) (math.log2: the C library's log2, as trec_eval calls it),
  the ideal ranking the query's positive grades in descending order, cut at k for nDCG@k;
* every sum is taken in rank order, one term at a time, as the C loops take it (numpy's pairwise sums would differ in
  the last bits): a value is the same double ir_measures returns.

A query the run does not answer, or that the qrels do not judge, gets no value here (evaluate_run gives it 0).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from gsr.io.run_arrays import RunArrays, has_repeats, pair_hashes, ranked_order
from gsr.io.types import Qrels, Run

_PARAMS = {  # the parameters each native measure takes (besides judged_only=False)
    "P": {"cutoff", "rel"},
    "R": {"cutoff"},
    "RR": {"cutoff", "rel"},
    "AP": {"cutoff", "rel"},
    "nDCG": {"cutoff", "dcg"},
}
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def supports(measure) -> bool:
    """Whether `measure` (an ir_measures Measure) is computed here exactly as ir_measures computes it."""
    params = dict(measure.params)
    if params.pop("judged_only", False) or params.get("dcg", "log2") != "log2":
        return False
    if measure.NAME in ("P", "R") and params.get("cutoff") is None:
        return False
    return measure.NAME in _PARAMS and set(params) <= _PARAMS[measure.NAME]


def qrels_supported(qrels: Qrels) -> bool:
    """Qrels the native measures reproduce trec_eval on: every query judges a document, every grade an int ≥ 0
    (trec_eval treats negative grades as judged-unjudged, and reads past an empty list)."""
    return all(judged and all(type(g) is int and g >= 0 for g in judged.values()) for judged in qrels.values())


def run_supported(arrays: RunArrays) -> bool:
    """Runs whose scores trec_eval's single-precision ranking handles as numpy does: finite, within a float's range."""
    finite = arrays.scores[np.isfinite(arrays.scores)]
    return len(finite) == len(arrays.scores) and (not len(finite) or float(np.abs(finite).max()) <= _FLOAT32_MAX)


@cache
def _discounts(n: int) -> np.ndarray:
    """log2(i + 2) for ranks i = 0 … n-1, by the C library (math.log2), as trec_eval computes them."""
    return np.array([math.log2(i + 2) for i in range(n)])


def _discount(positions: np.ndarray) -> np.ndarray:
    size = 1 << max(10, int(positions.max(initial=0)).bit_length())
    return _discounts(size)[positions]


def sequential_sums(codes: np.ndarray, terms: np.ndarray, n: int) -> np.ndarray:
    """Per code (0 … n-1), the sum of its terms added one at a time in the order given, as a C loop adds them:
    bincount's weighted sum is that loop (numpy's sum and add.reduceat sum pairwise, which differs in the last bits)."""
    return np.bincount(codes, weights=terms, minlength=n).astype(np.float64)  # (int zeros when there is none)


class _Judged:
    """The evaluated queries' rows (run order), their qrels, and the grades of the rows looked up when needed."""

    def __init__(self, arrays: RunArrays, qrels: Qrels):
        keep = [i for i, q in enumerate(arrays.qids) if q in qrels]
        self.qids = [arrays.qids[i] for i in keep]
        if len(keep) == len(arrays.qids):
            self.offsets, self.docids, self.scores = arrays.offsets, arrays.docids, arrays.scores
        else:
            index = np.array(keep, dtype=np.int64)
            begin, lengths = arrays.offsets[index], np.diff(arrays.offsets)[index]
            self.offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
            rows = np.arange(self.offsets[-1], dtype=np.int64) + np.repeat(begin - self.offsets[:-1], lengths)
            self.docids, self.scores = arrays.docids[rows], arrays.scores[rows]
        self.n = len(self.qids)
        self.codes = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.offsets))
        judged = [qrels[q] for q in self.qids]
        self.q_codes = np.repeat(np.arange(self.n, dtype=np.int64), [len(j) for j in judged])
        self.q_docids = np.array([d.encode("utf-8") for j in judged for d in j], dtype=bytes).reshape(-1)
        self.q_grades = np.array([g for j in judged for g in j.values()], dtype=np.int64)
        self.positive = [sorted((g for g in j.values() if g > 0), reverse=True) for j in judged]
        self._grades = np.full(len(self.codes), -1, dtype=np.int64)
        self._looked_up = np.zeros(len(self.codes), dtype=bool)
        self._orders: dict[str, np.ndarray] = {}

    def order(self, kind: str) -> np.ndarray:
        """The rows in trec_eval's ranking ('trec') or msmarco's ('msmarco'): query blocks stay where they are."""
        if kind not in self._orders:
            keys, descending = (self.scores.astype(np.float32), True) if kind == "trec" else (self.scores, False)
            order = ranked_order(self.codes, self.docids, keys, descending) if len(self.codes) else None
            self._orders[kind] = np.arange(len(self.codes)) if order is None else order
        return self._orders[kind]

    def grades(self, rows: np.ndarray) -> np.ndarray:
        """The grades of `rows` (−1: not judged), looked up in the qrels the first time a row is asked for."""
        new = rows[~self._looked_up[rows]]
        if len(new):
            self._looked_up[new] = True
            self._grades[new] = self._lookup(self.codes[new], self.docids[new])
        return self._grades[rows]

    def _lookup(self, codes: np.ndarray, docids: np.ndarray) -> np.ndarray:
        found = np.full(len(codes), -1, dtype=np.int64)
        if not len(self.q_codes):
            return found
        judged = pair_hashes(self.q_docids, self.q_codes)
        if len(np.unique(judged)) < len(judged):  # two judgments share a hash: compared one by one
            table = dict(zip(zip(self.q_codes.tolist(), self.q_docids.tolist()), self.q_grades.tolist()))
            return np.array([table.get(key, -1) for key in zip(codes.tolist(), docids.tolist())], dtype=np.int64)
        by_hash = np.argsort(judged)
        hashed = pair_hashes(docids, codes)
        at = by_hash[np.minimum(np.searchsorted(judged[by_hash], hashed), len(judged) - 1)]
        same = (judged[at] == hashed) & (self.q_codes[at] == codes) & (self.q_docids[at] == docids)
        found[same] = self.q_grades[at[same]]
        return found

    def relevant_counts(self, rel: int) -> np.ndarray:
        return np.bincount(self.q_codes[self.q_grades >= rel], minlength=self.n)


def _ranked(judged: _Judged, kind: str, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, their query codes, their 0-based ranks) in `kind`'s ranking, the first `cutoff` of each query."""
    rows = judged.order(kind)
    ranks = np.arange(len(rows)) - judged.offsets[judged.codes]
    if cutoff is not None:
        top = ranks < cutoff
        rows, ranks = rows[top], ranks[top]
    return rows, judged.codes[rows], ranks


def _first_relevant(judged: _Judged, kind: str, cutoff: int | None, rel: int) -> np.ndarray:
    rows, codes, ranks = _ranked(judged, kind, cutoff)
    hit = judged.grades(rows) >= rel
    values = np.zeros(judged.n)
    codes, ranks = codes[hit], ranks[hit]
    firsts = np.unique(codes, return_index=True)[1]
    values[codes[firsts]] = 1.0 / (ranks[firsts] + 1).astype(np.float64)
    return values


def _values(judged: _Judged, measure) -> np.ndarray:
    """One native measure's value for each evaluated query, as ir_measures gives it."""
    name, cutoff, rel = measure.NAME, measure.params.get("cutoff"), measure.params.get("rel", 1)
    if name == "RR":  # RR@k: msmarco's provider (double scores, ids ascending); RR: trec_eval's recip_rank
        return _first_relevant(judged, "msmarco" if cutoff is not None else "trec", cutoff, rel)
    rows, codes, ranks = _ranked(judged, "trec", cutoff)
    grades = judged.grades(rows)
    if name in ("P", "R"):
        found = np.bincount(codes[grades >= rel], minlength=judged.n).astype(np.float64)
        if name == "P":
            return found / float(cutoff)
        relevant = judged.relevant_counts(1).astype(np.float64)
        return np.divide(found, relevant, out=np.zeros(judged.n), where=relevant > 0)
    if name == "AP":
        hit = grades >= rel
        codes, ranks = codes[hit], ranks[hit]
        so_far = np.arange(len(codes)) - np.searchsorted(codes, codes, side="left") + 1
        sums = sequential_sums(codes, so_far / (ranks + 1).astype(np.float64), judged.n)
        relevant = judged.relevant_counts(rel).astype(np.float64)
        # map: 0 unless a relevant document was retrieved; map_cut: 0 when the query has none
        return np.divide(sums, relevant, out=np.zeros(judged.n), where=relevant > 0)
    # nDCG, nDCG@k: positive gains only, ideal from the qrels' positive grades
    gain = grades > 0
    codes, ranks = codes[gain], ranks[gain]
    dcg = sequential_sums(codes, grades[gain].astype(np.float64) / _discount(ranks), judged.n)
    ideal_lists = [g[:cutoff] if cutoff is not None else g for g in judged.positive]
    ideal_codes = np.repeat(np.arange(judged.n, dtype=np.int64), [len(g) for g in ideal_lists])
    ideal_gains = np.array([x for g in ideal_lists for x in g], dtype=np.float64)
    ideal_ranks = np.arange(len(ideal_codes)) - np.searchsorted(ideal_codes, ideal_codes, side="left")
    ideal = sequential_sums(ideal_codes, ideal_gains / _discount(ideal_ranks), judged.n)
    return np.divide(dcg, ideal, out=dcg.copy(), where=ideal > 0)


def evaluate(arrays: RunArrays, qrels: Qrels, measures) -> dict[str, dict[str, float]]:
    """{str(measure): {qid: value}} of the native `measures` (each `supports`) for every query both the run
    (with at least one document) and `qrels` hold (`qrels_supported`, `run_supported`)."""
    judged = _Judged(arrays, qrels)
    out = {}
    for measure in measures:
        values = _values(judged, measure).tolist() if judged.n else []
        out[str(measure)] = dict(zip(judged.qids, values))
    return out


def evaluate_into(run, qrels: Qrels, measures: list, per_query: dict[str, dict[str, float]]) -> list:
    """Fill `per_query` ({str(measure): {qid: value}}) with the values of the `measures` computed here, for the
    queries the run (a Run or RunArrays) answers and `qrels` judge; the measures left for ir_measures."""
    import ir_measures

    chosen = [m for m in measures if supports(m)]
    if not chosen or not qrels_supported(qrels) or not ir_measures.pytrec_eval.is_available():
        return measures  # (without pytrec_eval, ir_measures computes them with other providers)
    arrays = run if isinstance(run, RunArrays) else RunArrays.from_run(run)
    if not run_supported(arrays) or (not arrays.ranked and has_repeats(arrays.docids, arrays.query_codes())):
        return measures  # ir_measures keeps a repeated document's last score
    for name, values in evaluate(arrays, qrels, chosen).items():
        per_query[name].update(values)
    return [m for m in measures if m not in chosen]


def plain_run(arrays: RunArrays) -> Run:
    """RunArrays as a plain run, lists as they are."""
    return {
        q: list(zip((d.decode("utf-8") for d in arrays.docids[b:e].tolist()), arrays.scores[b:e].tolist()))
        for q, b, e in zip(arrays.qids, arrays.offsets[:-1].tolist(), arrays.offsets[1:].tolist())
    }
