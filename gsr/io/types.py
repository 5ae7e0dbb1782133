"""The shapes every reader returns and every measure takes: a run and qrels as plain dicts, and trec_eval's order."""

from __future__ import annotations

from collections.abc import Iterable

Run = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first
Qrels = dict[str, dict[str, int]]  # qid -> {docid: grade}


def rank_order(scored: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, ties broken by document id descending."""
    return sorted(scored, key=lambda pair: (pair[1], pair[0]), reverse=True)
