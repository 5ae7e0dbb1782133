"""The reference engines of §4.2.2: perfect (relevant documents by grade) and seeded random; top-K cut-offs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from gsr.io.types import Qrels, Run


def relevant_counts(qrels: Qrels) -> dict[str, int]:
    """K per query: the number of documents judged relevant (grade > 0).

    Args:
        qrels: {qid: {docid: grade}}.

    Returns:
        {qid: K}, 0 for a query judged only non-relevant.

    Example:
        >>> relevant_counts({"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 0}})
        {'q1': 2, 'q2': 0}
    """
    return {qid: sum(1 for g in judged.values() if g > 0) for qid, judged in qrels.items()}


def perfect_run(qrels: Qrels) -> Run:
    """All and only the relevant documents, ranked by grade; equal grades are ties (scores are the grades).

    Args:
        qrels: {qid: {docid: grade}}.

    Returns:
        The perfect engine's run; a query without a relevant document is absent.

    Example:
        >>> perfect_run({"q1": {"d1": 1, "d2": 0, "d3": 2}})
        {'q1': [('d3', 2.0), ('d1', 1.0)]}
    """
    run: Run = {}
    for qid, judged in qrels.items():
        relevant = [(d, float(g)) for d, g in judged.items() if g > 0]
        if relevant:
            run[qid] = sorted(relevant, key=lambda pair: (-pair[1], pair[0]))
    return run


def random_positions(qrels: Qrels, n_documents: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The random engine's draw: per query (in id order) K of the positions 0…n-1, uniformly without replacement,
    in random order; it needs the collection's size, not its documents."""
    rng = np.random.default_rng(seed)
    picks = {}
    for qid, k in sorted(relevant_counts(qrels).items()):
        if k > 0:
            picks[qid] = rng.choice(n_documents, size=min(k, n_documents), replace=False)
    return picks


def ranked_picks(picks: dict[str, np.ndarray], docids: Sequence[str] | Mapping[int, str]) -> Run:
    """The random engine's run from its draw: the documents at the drawn positions, first drawn ranked first."""
    return {qid: [(docids[int(i)], float(len(p) - r)) for r, i in enumerate(p)] for qid, p in picks.items()}


def random_run(qrels: Qrels, docids: Sequence[str], seed: int = 0) -> Run:
    """K documents drawn uniformly without replacement from the collection per query, in random order.

    Args:
        qrels: {qid: {docid: grade}}: K per query is its number of relevant documents.
        docids: The collection's document ids, in its order.
        seed: The seed of the draw.

    Returns:
        The random engine's run (scores K, K − 1, ..., 1 in the order drawn).

    Example:
        >>> random_run({"q1": {"d1": 1, "d2": 1}}, ["d1", "d2", "d3", "d4"], seed=0)
        {'q1': [('d3', 2.0), ('d4', 1.0)]}
    """
    return ranked_picks(random_positions(qrels, len(docids), seed), docids)


def cut_run(run: Run, cutoff: int | dict[str, int] | None, keep_ties: bool = False) -> Run:
    """Each ranked list cut to its first `cutoff` documents (one K for all, or a K per query); with `keep_ties`, a
    tie (equal scores) that crosses position K is kept whole, so Eq. 2 can share positions up to K among all of its
    documents (gsr.equations.tied_rank_weights_many) and no document id decides which of them counts.

    Args:
        run: {qid: [(docid, score)]}, best first.
        cutoff: K for every query, {qid: K} (0 for a query not named), or None (the run as it is).
        keep_ties: Keep a tie that crosses position K whole.

    Returns:
        The cut run.

    Example:
        >>> run = {"q1": [("d1", 3.0), ("d2", 2.0), ("d3", 2.0)]}
        >>> cut_run(run, 2), cut_run(run, 2, keep_ties=True)
        ({'q1': [('d1', 3.0), ('d2', 2.0)]}, {'q1': [('d1', 3.0), ('d2', 2.0), ('d3', 2.0)]})
    """
    if cutoff is None:
        return run
    cut = {}
    for qid, docs in run.items():
        k = cutoff if isinstance(cutoff, int) else cutoff.get(qid, 0)
        cut[qid] = docs[: tie_end(docs, k) if keep_ties else k]
    return cut


def tie_end(ranked: Sequence[tuple[str, float]], k: int) -> int:
    """The end of the cut at K that keeps the tie at position K whole: K, or past it while scores equal the K-th."""
    if k <= 0 or k >= len(ranked):
        return max(0, min(k, len(ranked)))
    end, score = k, ranked[k - 1][1]
    while end < len(ranked) and ranked[end][1] == score:
        end += 1
    return end
