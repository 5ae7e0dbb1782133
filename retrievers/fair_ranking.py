"""Gender-fairness re-rankers as run transformers: any run in, a run out, deterministic under a seed.

Feng & Shah's epsilon-greedy (Algorithm 1), relevance-aware swapping (Algorithm 2, Eq. 2) and fairness-greedy
(Algorithm 3), and Dash's cost-based greedy (Eq. 1). Only each query's top `depth` documents are re-ranked (the rest
follow unchanged); the output scores are n − i + 1 at position i, so the new order survives any re-sorting.

They live with the retrievers (they make runs; gsr only measures) and need nothing but numpy and gsr: labels are a
gsr.fairness.DocumentLabels, the KL divergence is gsr.fairness's. Choices the papers leave open (README,
"Label-based bias measures and re-rankers"): every random draw is U[0, 1) from a generator seeded by (seed, query
id), so a query's result depends on neither the other queries nor their order, and a sweep over epsilon reuses the
same draws; fairness-greedy follows the paper's prose (its pseudo-code can loop forever and loses items), ties going
to the group whose next document ranks first; with neutral = 'exclude', fairness-greedy and Dash re-rank the
gendered documents among the positions gendered documents hold, neutral ones staying where they are.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from gsr.errors import InputError
from gsr.fairness.equations import (
    DEFAULT_EPSILON,
    NEUTRAL_POLICIES,
    check_target,
    group_shares,
    groups_of,
    kl_divergence,
)
from gsr.infra.params import Param, ParamError, check_params
from gsr.io.types import Run, rank_order

if TYPE_CHECKING:
    from gsr.fairness.labels import DocumentLabels

METHODS = ("epsilon_greedy", "relevance_swap", "fairness_greedy", "dash")
LABEL_METHODS = ("fairness_greedy", "dash")  # the methods that read document labels
RERANK_TARGETS = ("collection", "uniform", "retrieved")
RELEVANCE_COSTS = ("score", "embedding")
TIE = 1e-12


class RerankError(InputError):
    """A re-ranking that cannot run as asked (unknown method, a target that would leak the qrels, missing labels)."""


def _target(value, label: str):
    """'collection', 'uniform', 'retrieved' or explicit shares {female = .., male = ..[, neutral = ..]}."""
    if isinstance(value, str):
        if value == "relevant":
            raise ParamError(
                f"{label} 'relevant' would feed the test qrels into the system; re-rankers take "
                f"{', '.join(RERANK_TARGETS)} or explicit shares"
            )
        if value in RERANK_TARGETS:
            return value
    elif isinstance(value, Mapping):
        try:
            check_target(value, groups_of("group" if "neutral" in value else "exclude"))
        except ValueError as err:
            raise ParamError(f"{label}: {err}") from None
        return {str(k): float(v) for k, v in value.items()}
    raise ParamError(
        f"{label} must be one of {', '.join(RERANK_TARGETS)} or shares such as {{female = 0.5, male = "
        f"0.5}}, not {value!r}"
    )


def _depth(value, label: str):
    if value == "all" or (isinstance(value, int) and not isinstance(value, bool) and value >= 2):
        return value
    raise ParamError(f"{label} must be an integer ≥ 2 or 'all', not {value!r}")


SEED = Param("seed", int, 0, "seed of the random draws (with the query id)", minimum=0)
DEPTH = Param(
    "depth",
    object,
    100,
    "documents re-ranked per query (the rest follow unchanged): an integer ≥ 2 or 'all'",
    validator=_depth,
    range_help="int ≥ 2 or all",
)
NEUTRAL = Param(
    "neutral",
    str,
    "exclude",
    "neutral documents: keep their positions (exclude) or form a third group",
    choices=NEUTRAL_POLICIES,
)
METHOD_PARAMS: dict[str, tuple[Param, ...]] = {
    "epsilon_greedy": (
        Param(
            "epsilon",
            float,
            0.3,
            "probability that an item swaps with a random later one (Algorithm 1)",
            minimum=0,
            maximum=1,
            open_minimum=True,
        ),
        SEED,
        DEPTH,
    ),
    "relevance_swap": (
        Param(
            "rho",
            float,
            0.5,
            "swapping sensitivity: item i swaps with probability ρ(1 − W_i) (Algorithm 2, Eq. 2)",
            minimum=0,
            maximum=1,
            open_minimum=True,
        ),
        SEED,
        DEPTH,
    ),
    "fairness_greedy": (
        Param(
            "target",
            object,
            "collection",
            "target distribution T (Algorithm 3)",
            validator=_target,
            range_help="collection, uniform, retrieved or shares",
        ),
        NEUTRAL,
        DEPTH,
    ),
    "dash": (
        Param(
            "w_r",
            float,
            0.5,
            "weight of the relevance cost (Eq. 1); the KL cost weighs w_g = 1 − w_r",
            minimum=0,
            maximum=1,
        ),
        Param(
            "relevance",
            str,
            "score",
            "relevance cost: 1 − the min-max normalised score, or 1 − cosine of "
            "the query's and the document's mean word vectors",
            choices=RELEVANCE_COSTS,
        ),
        Param(
            "target",
            object,
            "retrieved",
            "target distribution p(g, I'): the candidates' own (retrieved), the collection's, uniform or shares",
            validator=_target,
            range_help="retrieved, collection, uniform or shares",
        ),
        NEUTRAL,
        DEPTH,
    ),
}


def method_params(method: str) -> tuple[Param, ...]:
    """The declared parameters of a re-ranking method."""
    if method not in METHOD_PARAMS:
        raise RerankError(f"re-ranking method {method!r} is unknown (choose one of {', '.join(METHODS)})")
    return METHOD_PARAMS[method]


def query_rng(seed: int, qid: str) -> np.random.Generator:
    """The generator of one query's draws: seeded by (seed, the first 8 bytes of sha256(qid), little-endian)."""
    digest = int.from_bytes(hashlib.sha256(qid.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence([seed, digest]))


def _swaps(items: Sequence, probability: Callable[[int], float], draw: Callable[[], float]) -> list:
    """Algorithms 1-2's pass: at each position i < n, with a draw p ≤ probability(i), the item swaps in place with the
    one at i + 1 + ⌊u·(n − i)⌋ (u a second draw: uniform among the items after it); position n draws nothing."""
    items = list(items)
    n = len(items)
    for i in range(1, n):
        if draw() <= probability(i):
            j = i + 1 + math.floor(draw() * (n - i))
            items[i - 1], items[j - 1] = items[j - 1], items[i - 1]
    return items


def epsilon_greedy(items: Sequence, epsilon: float, draw: Callable[[], float]) -> list:
    """Feng & Shah Algorithm 1: each item swaps with a random item after it with probability ϵ."""
    return _swaps(items, lambda i: epsilon, draw)


def swap_weights(n: int) -> list[float]:
    """Feng & Shah Eq. 2: W_i = (1 − i/|L|) / log2(i + 1) for positions i = 1..n."""
    return [(1 - i / n) / math.log2(i + 1) for i in range(1, n + 1)]


def relevance_aware_swapping(items: Sequence, rho: float, draw: Callable[[], float]) -> list:
    """Feng & Shah Algorithm 2: item i swaps with a random item after it with probability ρ(1 − W_i) (Eq. 2)."""
    weights = swap_weights(len(items)) if items else []
    return _swaps(items, lambda i: rho * (1 - weights[i - 1]), draw)


def fairness_greedy(labels: Sequence[str], target: Mapping[str, float], groups: Sequence[str]) -> list[int]:
    """Feng & Shah Algorithm 3, as its prose says: keep the first item; then at each position take the first remaining
    item of the most under-represented group x = argmin (P_x − T_x) among the groups with items left (P: the shares
    placed so far); ties go to the group whose next item ranks first. Returns the new order as indices."""
    queues = {g: deque(i for i, label in enumerate(labels) if label == g) for g in groups}
    if sum(map(len, queues.values())) != len(labels):
        raise RerankError(f"fairness-greedy re-ranks labels in {', '.join(groups)} only")
    order: list[int] = []
    placed = dict.fromkeys(groups, 0)
    while len(order) < len(labels):
        available = [g for g in groups if queues[g]]
        if order:
            gaps = {g: placed[g] / len(order) - target[g] for g in available}
            lowest = min(gaps.values())
            pick = min((g for g in available if gaps[g] - lowest <= TIE), key=lambda g: queues[g][0])
        else:
            pick = labels[0]
        order.append(queues[pick].popleft())
        placed[pick] += 1
    return order


def dash_greedy(
    labels: Sequence[str],
    costs: Sequence[float],
    target: Mapping[str, float],
    groups: Sequence[str],
    w_r: float,
    epsilon: float = DEFAULT_EPSILON,
) -> list[int]:
    """Dash Eq. 1: repeatedly append the candidate i of least C = w_r · cost_i + w_g · KL(p(g, R + i) ‖ T), w_g =
    1 − w_r (KL in natural log, zeros of T replaced by epsilon); ties go to the earliest position."""
    heaps: dict[str, list[tuple[float, int]]] = {g: [] for g in groups}
    for i, (label, cost) in enumerate(zip(labels, costs)):
        if label not in heaps:
            raise RerankError(f"Dash's re-ranker re-ranks labels in {', '.join(groups)} only")
        heapq.heappush(heaps[label], (cost, i))
    t = [target[g] for g in groups]
    placed = dict.fromkeys(groups, 0)
    order: list[int] = []
    while len(order) < len(labels):
        best: tuple[float, int, str] | None = None
        for g in groups:
            if not heaps[g]:
                continue
            cost, i = heaps[g][0]
            counts = [placed[x] + (x == g) for x in groups]
            total = w_r * cost + (1 - w_r) * kl_divergence([c / (len(order) + 1) for c in counts], t, epsilon)
            if best is None or total < best[0] - TIE or (abs(total - best[0]) <= TIE and i < best[1]):
                best = (total, i, g)
        assert best is not None  # some heap still holds a candidate
        heapq.heappop(heaps[best[2]])
        placed[best[2]] += 1
        order.append(best[1])
    return order


def minmax_costs(scores: Sequence[float]) -> list[float]:
    """Dash's relevance cost from scores: 1 − (s − min)/(max − min) over the candidates (0 for all when equal)."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    return [0.0 if high == low else 1 - (s - low) / (high - low) for s in scores]


def _within_positions(labels: list[str], groups: Sequence[str], reorder: Callable[[list[int]], list[int]]) -> list[int]:
    """A permutation of range(len(labels)) that re-ranks the items whose label is in `groups` with `reorder` (given
    their indices, returns them re-ordered) among the positions they hold; the others keep theirs."""
    members = [i for i, label in enumerate(labels) if label in groups]
    order = list(range(len(labels)))
    for position, index in zip(members, reorder(members)):
        order[position] = index
    return order


class Reranker:
    """One re-ranking method with checked parameters (method_params); `rerank(run, labels, relevance)` re-ranks.

    relevance: for Dash with relevance = 'embedding', a callable (qid, docids) → costs in [0, 2].
    """

    def __init__(self, method: str, params: Mapping | None = None):
        self.method = method
        self.params = check_params(method_params(method), dict(params or {}))

    @property
    def needs_labels(self) -> bool:
        return self.method in LABEL_METHODS

    def _target(self, labels: DocumentLabels, groups, candidates: list[str]) -> dict[str, float]:
        target = self.params["target"]
        if isinstance(target, dict):
            return {g: float(s) for g, s in check_target(target, groups).items()}
        if target == "uniform":
            return {g: 1 / len(groups) for g in groups}
        if target == "collection":
            return {g: float(s) for g, s in labels.collection_shares(groups).items()}
        shares = group_shares(candidates, groups)  # 'retrieved': the candidates' own shares, uniform without any
        return {g: s for g, s in zip(groups, shares)} if shares else {g: 1 / len(groups) for g in groups}

    def rerank_query(
        self,
        qid: str,
        ranked: list[tuple[str, float]],
        labels: DocumentLabels | None = None,
        relevance: Callable[[str, list[str]], list[float]] | None = None,
    ) -> list[tuple[str, float]]:
        """One query's list re-ranked (its top depth), scored n − i + 1."""
        ranked = rank_order(ranked)
        depth = len(ranked) if self.params["depth"] == "all" else self.params["depth"]
        head, tail = ranked[:depth], ranked[depth:]
        if self.method in ("epsilon_greedy", "relevance_swap"):
            draw = query_rng(self.params["seed"], qid).random
            head = (
                epsilon_greedy(head, self.params["epsilon"], draw)
                if self.method == "epsilon_greedy"
                else relevance_aware_swapping(head, self.params["rho"], draw)
            )
        elif head:
            if labels is None:
                raise RerankError(f"{self.method} needs document labels")
            groups = groups_of(self.params["neutral"])
            docids = [d for d, _ in head]
            names = labels.ranked(docids, qid)[0]
            target = self._target(labels, groups, names)
            if self.method == "fairness_greedy":

                def reorder(members):
                    return [members[i] for i in fairness_greedy([names[m] for m in members], target, groups)]
            else:
                embedding_costs = relevance
                if self.params["relevance"] == "embedding" and embedding_costs is None:
                    raise RerankError("Dash's re-ranker with relevance = 'embedding' needs the query-document costs")

                def reorder(members):
                    if embedding_costs is None or self.params["relevance"] == "score":
                        costs = minmax_costs([head[m][1] for m in members])
                    else:
                        costs = embedding_costs(qid, [docids[m] for m in members])
                    chosen = dash_greedy([names[m] for m in members], costs, target, groups, self.params["w_r"])
                    return [members[i] for i in chosen]

            head = [head[i] for i in _within_positions(names, groups, reorder)]
        documents = head + tail
        return [(docid, float(len(documents) - i)) for i, (docid, _) in enumerate(documents)]

    def rerank(
        self,
        run: Run,
        labels: DocumentLabels | None = None,
        relevance: Callable[[str, list[str]], list[float]] | None = None,
    ) -> Run:
        """Every query of `run` re-ranked (see rerank_query)."""
        return {qid: self.rerank_query(qid, ranked, labels, relevance) for qid, ranked in run.items()}


def cosine_costs(retriever, queries: Mapping[str, str]) -> Callable[[str, list[str]], list[float]]:
    """Dash's embedding relevance cost 1 − cos(query vector, document vector) from a retrievers.vector_average
    retriever (mean word vectors; 'add' weighting), 1 where either vector is undefined."""
    rows = retriever.stats.doc_index
    cache: dict[str, np.ndarray | None] = {}

    def costs(qid: str, docids: list[str]) -> list[float]:
        if qid not in cache:
            cache[qid] = retriever.query_vector(queries[qid]) if qid in queries else None
        query = cache[qid]
        out = []
        for docid in docids:
            row = rows.get(docid)
            vector = None if row is None else np.asarray(retriever.documents[row], dtype=np.float64)
            if query is None or vector is None or not np.any(vector):
                out.append(1.0)
            else:
                out.append(float(1 - vector @ query / np.linalg.norm(vector)))
        return out

    return costs
