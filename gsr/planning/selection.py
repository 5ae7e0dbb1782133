"""Which topics of a pool to study: g(q) is known before any retrieval or judging, so the spread of a topic set, which
drives the precision of Eq. 3's slope (SE = σ / √Σ(x − x̄)²), can be chosen.

The n topics that minimise the slope's standard error under the pilot's noise σ are those that maximise
Σ(x − x̄)²: for a straight line, a D-optimal design (Atkinson, Donev & Tobias, Optimum Experimental Designs, 2007,
ch. 11), which takes the most female and the most male topics of the pool (some k lowest and n − k highest g(q):
Σ(x − x̄)² is convex in each chosen x, so an optimum never holds a topic between two left out). Two options trade
some of that precision for a design that can also show the relation's shape:

- a share of neutral topics: the ⌈share · n⌉ topics of smallest |g(q)| (g(q) = 0 is the paper's neutral query), chosen
  first; the rest is chosen around them as above;
- strata: the pool's measurable topics (besides the neutral ones) split by g(q) into equal-count quantile strata,
  the topics shared out equally (the remainder to the outermost strata first); within each stratum the topics
  farthest from the chosen set's mean, found by iterating mean → choice to a fixed point.

What a chosen set estimates: the least-squares slope over that design. It equals the slope over the pool (or over the
population of topics it stands for) only when g_q(L) depends on g(q) linearly; an extremes-only design cannot show a
curve, and where there is one it estimates the chord between the extremes. When GSR is to describe a population of
topics (as the paper's GSR over a topic collection does), a random sample of it is the right choice; a chosen design
answers "does this system reinforce the stereotype of a query's gender, and how strongly?" with fewer topics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from gsr.equations import query_genderedness
from gsr.errors import InputError
from gsr.text.analyzer import Analyzer, default_analyzer

MAX_CENTRE_STEPS = 50  # mean → choice steps of the stratified design; it settles in a few


@dataclass(frozen=True)
class Selection:
    """The chosen topics and the precision they buy.

    Args:
        queries: The chosen (qid, g(q)), most female first.
        pool_size: The pool's topics.
        measurable: Those with a g(q) (a term in the lexicon).
        neutral: The chosen neutral topics (smallest |g(q)|).
        neutral_bound: The largest |g(q)| among them, None without any.
        strata: The quantile strata, None without.
        spread: Σ(x − x̄)² of the chosen g(q).
        random_spread: Its expectation over simple random samples of the same size from the measurable pool,
            (n − 1) · S² (S² the pool's variance with divisor N − 1; Cochran, Sampling Techniques, 1977, §2.5).
        half_width: {run: {"chosen": w, "random": w}}: the analytic half-width of GSR's interval with each design
            under the run's pilot noise.
    """

    queries: list[tuple[str, float]]
    pool_size: int
    measurable: int
    neutral: int
    neutral_bound: float | None
    strata: int | None
    spread: float
    random_spread: float
    half_width: dict[str, dict[str, float | None]] = field(default_factory=dict)


def pool_genderedness(queries: Mapping[str, str], lexicon, analyzer: Analyzer | None = None) -> dict[str, float]:
    """g(q) (§3.3) of every query of a pool, as `gsr queries` computes it: NaN where no term is in the lexicon.

    Args:
        queries: {qid: text}.
        lexicon (GenderLexicon): g(w) of each word (Eq. 1).
        analyzer: The text handling (default: gsr.text.default_analyzer()).

    Returns:
        {qid: g(q)}.
    """
    analyzer = analyzer or default_analyzer()
    return {qid: query_genderedness(analyzer.tokens(text), lexicon) for qid, text in queries.items()}


def measurable_pool(pool: Mapping[str, float]) -> tuple[list[str], np.ndarray]:
    """The pool's topics with a finite g(q): (qids, g(q)); InputError when there is none."""
    qids = [q for q, g in pool.items() if g is not None and math.isfinite(g)]
    if not qids:
        raise InputError(f"pool: none of its {len(pool):,} queries has a term the lexicon can measure (no g(q))")
    return qids, np.array([pool[q] for q in qids], dtype=np.float64)


def spread_of(values: np.ndarray) -> float:
    """Σ(x − x̄)², the precision a design of these g(q) gives Eq. 3's slope."""
    return float(np.sum((values - values.mean()) ** 2))


def widest(values: np.ndarray, count: int, fixed: np.ndarray) -> np.ndarray:
    """Positions of `count` of the sorted `values` that, with the `fixed` ones, have the largest Σ(x − x̄)²: the k
    lowest and count − k highest for the best k (every k tried at once through prefix sums)."""
    size = len(values)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    sums = np.concatenate([[0.0], np.cumsum(values)])
    squares = np.concatenate([[0.0], np.cumsum(values * values)])
    low = np.arange(count + 1)  # k lowest, count − k highest
    total = sums[low] + sums[size] - sums[size - (count - low)] + fixed.sum()
    total_sq = squares[low] + squares[size] - squares[size - (count - low)] + float(fixed @ fixed)
    k = int(np.argmax(total_sq - total * total / (count + len(fixed))))
    return np.concatenate([np.arange(k), np.arange(size - (count - k), size)]).astype(np.int64)


def stratified(values: np.ndarray, count: int, strata: int, fixed: np.ndarray) -> np.ndarray:
    """Positions of `count` of the sorted `values`, an equal share from each of `strata` equal-count strata, within
    each the farthest from the design's mean (with the `fixed` ones), iterated to a fixed point."""
    bounds = np.cumsum([0] + [len(part) for part in np.array_split(np.arange(len(values)), strata)])
    sizes = np.diff(bounds)
    outermost_first = sorted(range(strata), key=lambda s: (min(s, strata - 1 - s), s))
    shares = np.minimum(np.full(strata, count // strata), sizes)
    for s in outermost_first * 2:  # the remainder, then what a too-small stratum could not take
        if shares.sum() < count and shares[s] < sizes[s]:
            shares[s] += 1
    while shares.sum() < count:  # only when most strata are full
        s = next(s for s in outermost_first if shares[s] < sizes[s])
        shares[s] += 1
    centre = float(values.mean())
    chosen = np.zeros(0, dtype=np.int64)
    for _ in range(MAX_CENTRE_STEPS):
        picks = []
        for s in range(strata):
            part = values[bounds[s] : bounds[s + 1]]
            order = np.argsort(-np.abs(part - centre), kind="stable")[: shares[s]]
            picks.append(bounds[s] + np.sort(order))
        following = np.concatenate(picks)
        if np.array_equal(following, chosen):
            break
        chosen = following
        centre = float(np.concatenate([values[chosen], fixed]).mean())
    return chosen


def check_selection(measurable: int, n: int, neutral_share: float, strata: int | None) -> int:
    """The neutral topics of a choice of n from a pool of `measurable` topics with a g(q): ⌈neutral_share · n⌉;
    InputError when the pool has fewer than n, or when fewer than `strata` topics are left to the strata."""
    if n > measurable:
        raise InputError(f"pool: {n:,} topics asked for, but only {measurable:,} of its queries have a g(q)")
    neutral = math.ceil(round(neutral_share * n, 9))  # rounded first: 0.1 · 30 is 3.0000000000000004
    if strata is not None and strata > n - neutral:
        raise InputError(f"strata = {strata}, but only {n - neutral} topics are chosen outside the neutral share")
    return neutral


def select_topics(
    pool: Mapping[str, float], n: int, neutral_share: float = 0.0, strata: int | None = None
) -> tuple[list[str], int, float | None]:
    """The n topics of `pool` ({qid: g(q)}, NaN where unmeasurable) that maximise Σ(x − x̄)² under the options (see
    the module docstring); (their qids most female first, the neutral ones among them, their largest |g(q)|).

    Args:
        pool: {qid: g(q)}.
        n: The topics to choose.
        neutral_share: The share of neutral topics, in [0, 1).
        strata: Equal-count quantile strata of g(q), or None.

    Returns:
        (the chosen qids, the neutral count, the neutral topics' largest |g(q)| or None).

    Raises:
        InputError: If the pool has no measurable topic, fewer than n, or fewer than `strata` beside the neutral ones.
    """
    qids, values = measurable_pool(pool)
    neutral_count = check_selection(len(qids), n, neutral_share, strata)
    neutral = np.argsort(np.abs(values), kind="stable")[:neutral_count]
    rest = np.setdiff1d(np.arange(len(values)), neutral)
    rest = rest[np.argsort(values[rest], kind="stable")]
    count = n - neutral_count
    fixed = values[neutral]
    if strata is None:
        picked = widest(values[rest], count, fixed)
    else:
        picked = stratified(values[rest], count, strata, fixed)
    chosen = np.concatenate([neutral, rest[picked]])
    chosen = chosen[np.argsort(-values[chosen], kind="stable")]
    bound = float(np.abs(fixed).max()) if neutral_count else None
    return [qids[i] for i in chosen], neutral_count, bound
