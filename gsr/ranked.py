"""A run placed on a collection: every query's ranked documents as rows of a DocumentStats, in flat arrays.

Placing a run costs one document-id look-up per retrieved document (a Python dict look-up each, the largest
part of scoring a run); `measure_run` does it for any run it is given, and a placed run can be measured again
(other embeddings, other lexicons) without it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gsr.documents.stats import DocumentStats
from gsr.io.types import Run


@dataclass(frozen=True)
class RankedRows:
    """Query qids[i]'s documents, best first, are rows[offsets[i]:offsets[i+1]] (−1: not in the collection)
    with their scores (the tie keys of Eq. 2) at the same positions.

    Args:
        stats: The collection the run is placed on.
        qids: The run's query ids, in its order.
        offsets: Where each query's list begins and ends in `rows` and `scores` (one more than the queries).
        rows: Each retrieved document's row of `stats`, −1 where it is not in the collection.
        scores: Each retrieved document's score.
        unknown: {qid: the first retrieved document id that is not in the collection}.

    Example:
        >>> stats = DocumentStats.build([("d1", "she sings"), ("d2", "he sings")], n_jobs=1)
        >>> placed = RankedRows.place({"q1": [("d2", 2.0), ("d9", 1.0)]}, stats)
        >>> placed.rows.tolist(), placed.unknown
        ([1, -1], {'q1': 'd9'})
    """

    stats: DocumentStats
    qids: tuple[str, ...]
    offsets: np.ndarray
    rows: np.ndarray
    scores: np.ndarray
    unknown: dict[str, str]  # qid -> the first retrieved document id that is not in the collection

    @classmethod
    def place(cls, run: Run, stats: DocumentStats) -> RankedRows:
        """The run's documents looked up in `stats` (scores compared as floats for ties).

        Args:
            run: {qid: [(docid, score)]}, best first.
            stats: The collection.

        Returns:
            The placed run.
        """
        qids = tuple(run)
        lists = [run[q] for q in qids]
        offsets = np.zeros(len(qids) + 1, dtype=np.int64)
        np.cumsum([len(ranked) for ranked in lists], out=offsets[1:])
        get = stats.doc_index.get
        rows = np.array([get(d, -1) for ranked in lists for d, _ in ranked], dtype=np.int64)
        scores = np.array([s for ranked in lists for _, s in ranked], dtype=np.float64)
        missing = np.flatnonzero(rows < 0)
        queries, first = np.unique(np.searchsorted(offsets, missing, side="right") - 1, return_index=True)
        unknown = {qids[q]: lists[q][missing[i] - offsets[q]][0] for q, i in zip(queries.tolist(), first.tolist())}
        return cls(stats, qids, offsets, rows, scores, unknown)

    def select(self, qids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, scores, offsets) of the lists of `qids` in that order; a query the run lacks has an empty list.

        Args:
            qids: The query ids.

        Returns:
            The three arrays, list i at offsets[i]:offsets[i + 1].
        """
        where = {q: i for i, q in enumerate(self.qids)}
        index = np.array([where.get(q, -1) for q in qids], dtype=np.int64)
        begin = np.where(index >= 0, self.offsets[index], 0)
        lengths = np.where(index >= 0, self.offsets[index + 1] - begin, 0)
        offsets = np.zeros(len(qids) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        positions = np.arange(offsets[-1], dtype=np.int64) + np.repeat(begin - offsets[:-1], lengths)
        return self.rows[positions], self.scores[positions], offsets
