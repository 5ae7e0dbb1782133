"""The shapes every reader returns and every measure takes: a run and qrels as plain dicts, and trec_eval's order."""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

Run = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first


class CheckedRun(dict):
    """A Run as the readers return it: every score a finite float, no document twice for a query, each list in
    trec_eval's order. gsr.io.as_run takes it as it is instead of checking every row again."""


Qrels = dict[str, dict[str, int]]  # qid -> {docid: grade}


_SCORE_THEN_ID = itemgetter(1, 0)  # (pair[1], pair[0]), made in C


def rank_order(scored: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, ties broken by document id descending."""
    return sorted(scored, key=_SCORE_THEN_ID, reverse=True)


def run_subset(run: Run, query_ids: Iterable[str]) -> Run:
    """The queries of `query_ids` that `run` answers; a CheckedRun stays one (its lists are checked and ranked already,
    so measuring the subset does not check every row again)."""
    subset = {q: run[q] for q in query_ids if run.get(q)}
    return CheckedRun(subset) if isinstance(run, CheckedRun) else subset


def top_ranked(run: Run, qid: str, k: int) -> list[tuple[str, float]]:
    """The first `k` of a query's list in trec_eval's order (a CheckedRun's lists are in it already)."""
    ranked = run.get(qid, [])
    return ranked[:k] if isinstance(run, CheckedRun) else rank_order(ranked)[:k]
