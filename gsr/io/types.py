"""The shapes every reader returns and every measure takes: a run and qrels as plain dicts, and trec_eval's order;
what the readers take (RunInput, QrelsInput, QueriesInput)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any, TypeAlias

Run = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first


class CheckedRun(dict):
    """A Run as the readers return it: every score a finite float, no document twice for a query, each list in
    trec_eval's order. gsr.io.as_run takes it as it is instead of checking every row again."""


Qrels = dict[str, dict[str, int]]  # qid -> {docid: grade}

# What gsr.io.convert's as_run, as_qrels and as_queries read (their docstrings list the forms): a file path or
# "irds:ID", a mapping, a DataFrame with ir_measures' or PyTerrier's columns, or an iterable of records or tuples
RunInput: TypeAlias = str | os.PathLike[str] | Mapping[Any, Any] | Iterable[Any]
QrelsInput: TypeAlias = str | os.PathLike[str] | Mapping[Any, Any] | Iterable[Any]
QueriesInput: TypeAlias = str | os.PathLike[str] | Mapping[Any, Any] | Iterable[Any]


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
