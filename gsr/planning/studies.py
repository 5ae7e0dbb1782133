"""Simulated studies of n topics drawn like a pilot's, and the search for the smallest n that reaches a goal.

A study of n topics "drawn like the pilot" draws n of the pilot's topics uniformly with replacement: the pilot stands
in for the population of topics, as in the bootstrap (Efron & Tibshirani 1993, ch. 6). Each study is one row of
per-topic counts, so a statistic of every study is a few matrix-vector products (as gsr.uncertainty computes the
bootstrap); the memory is studies × pilot topics, whatever n is.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gsr.planning.options import MAX_TOPICS, MIN_TOPICS
from gsr.uncertainty import check_resample_memory, resample_counts

# Draw each study's n topics as n indices while that costs at most this many times a multinomial over the pilot's
# topics (numpy draws a multinomial one binomial per category, about ten index draws' time each).
INDEX_DRAWS_PER_CATEGORY = 8
BLOCK_CELLS = 1 << 22  # index draws per block: 32 MiB of int64, whatever the studies and n
CACHE_BYTES = 256 << 20  # counts kept for reuse within one plan


def study_counts(pilot_size: int, n: int, studies: int, seed: int) -> np.ndarray:
    """(studies × pilot_size) float counts: how often each pilot topic is drawn into each of `studies` studies of
    n topics, drawn uniformly with replacement.

    For n = pilot_size these are gsr.uncertainty.resample_counts(pilot_size, studies, seed), the very resamples of
    `gsr score`'s bootstrap with that seed. Otherwise each study draws n indices (in blocks of rows, so memory stays
    bounded) or, for n well above the pilot's size, its counts from the multinomial distribution, whose cost does
    not grow with n; both are exact draws of the same distribution.

    Args:
        pilot_size: The pilot's topics.
        n: The topics of each study.
        studies: The studies.
        seed: The seed of the draws.

    Returns:
        The counts, each row summing to n.
    """
    check_resample_memory(pilot_size, studies)
    if n == pilot_size:
        return resample_counts(pilot_size, studies, seed)
    rng = np.random.default_rng(seed)
    if n > INDEX_DRAWS_PER_CATEGORY * pilot_size:
        return rng.multinomial(n, np.full(pilot_size, 1.0 / pilot_size), size=studies).astype(np.float64)
    counts = np.empty((studies, pilot_size), dtype=np.float64)
    rows = max(1, BLOCK_CELLS // n)
    for start in range(0, studies, rows):
        block = min(rows, studies - start)
        draws = rng.integers(0, pilot_size, size=(block, n), dtype=np.int64)
        draws += pilot_size * np.arange(block, dtype=np.int64)[:, None]
        counts[start : start + block] = np.bincount(draws.ravel(), minlength=block * pilot_size).reshape(
            block, pilot_size
        )
    return counts


class StudyDraws:
    """The simulated studies of one plan: `studies` studies of n topics per pilot size and n, drawn with `seed`, each
    set drawn once and reused while the kept counts fit CACHE_BYTES. Every run and pair of runs with the same number
    of pilot topics is so planned on the same studies (common random numbers: their answers differ by their data,
    not by their draws).

    Args:
        studies: The studies per study size.
        seed: The seed of the draws.
    """

    def __init__(self, studies: int, seed: int):
        self.studies = studies
        self.seed = seed
        self._kept: dict[tuple[int, int], np.ndarray] = {}

    def counts(self, pilot_size: int, n: int) -> np.ndarray:
        """study_counts(pilot_size, n, studies, seed), drawn once."""
        key = (pilot_size, n)
        if key in self._kept:
            return self._kept[key]
        counts = study_counts(pilot_size, n, self.studies, self.seed)
        if sum(c.nbytes for c in self._kept.values()) + counts.nbytes <= CACHE_BYTES:
            self._kept[key] = counts
        return counts


def smallest_topics(reaches: Callable[[int], bool], start: int = MIN_TOPICS) -> int | None:
    """The smallest n ≥ MIN_TOPICS for which `reaches(n)` holds, for a goal that, once reached, stays reached as n
    grows (a half-width that shrinks, a power that grows): from `start`, n is halved while the goal holds or doubled
    until it does, then the bracket is bisected. None when even MAX_TOPICS topics do not reach it.

    Args:
        reaches: Whether a study of n topics reaches the goal.
        start: Where the search starts (a guess of the answer saves evaluations).

    Returns:
        The smallest such n, or None.
    """
    high = max(MIN_TOPICS, min(start, MAX_TOPICS))
    if reaches(high):
        while True:  # halve while the goal holds
            if high == MIN_TOPICS:
                return high
            low = max(MIN_TOPICS, high // 2)
            if not reaches(low):
                break
            high = low
    else:
        while True:  # double until it holds
            low, high = high, min(2 * high, MAX_TOPICS)
            if reaches(high):
                break
            if high == MAX_TOPICS:
                return None
    while high - low > 1:  # reaches(high) holds and reaches(low) does not
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def out_of_reach(what: str) -> str:
    """The `why` of a study size that does not exist below MAX_TOPICS."""
    return f"{what} needs more than {MAX_TOPICS:,} topics"
