"""The stereotype validation of Fig. 1: Appendix A word sets and one-tailed permutation tests on g(w)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gsr.errors import EmbeddingError

# Appendix A, verbatim (Table A.4 spells 'corageous'; it is reported as missing where no vector has it).
AGENCY = (
    "aggressive",
    "ambitious",
    "arrogant",
    "confident",
    "corageous",
    "critical",
    "decisive",
    "demanding",
    "hardworking",
    "independent",
    "possessive",
    "proud",
    "selfish",
    "strong",
    "stubborn",
)
COMMUNION = (
    "affectionate",
    "compassionate",
    "emotional",
    "generous",
    "honest",
    "nurturing",
    "outgoing",
    "patient",
    "polite",
    "romantic",
    "sensitive",
    "unselfish",
)
SCIENCE = ("astronomy", "chemistry", "Einstein", "experiment", "NASA", "physics", "science", "technology")
ARTS = ("art", "dance", "drama", "literature", "novel", "poetry", "Shakespeare", "symphony")
CAREER = ("business", "career", "corporation", "executive", "management", "office", "professional", "salary")
FAMILY = ("children", "cousin", "family", "home", "marriage", "parents", "relatives", "wedding")
JOBS_MALE = (
    "stonemason",
    "roofer",
    "electrician",
    "plumber",
    "carpenter",
    "firefighter",
    "millwright",
    "welder",
    "machinist",
    "driver",
)
JOBS_FEMALE = (
    "hygienist",
    "secretary",
    "hairstylist",
    "dietician",
    "paralegal",
    "receptionist",
    "phlebotomist",
    "maid",
    "nurse",
    "typist",
)

# name -> (male-stereotyped set, female-stereotyped set), in the order of Fig. 1.
STEREOTYPE_CONTRASTS = {
    "agency_communion": (AGENCY, COMMUNION),
    "science_arts": (SCIENCE, ARTS),
    "career_family": (CAREER, FAMILY),
    "jobs": (JOBS_MALE, JOBS_FEMALE),
}
REFERENCE_WORDS = ("woman", "man", "her", "his")
# words Appendix A misspells, kept as it prints them (the tests are the paper's), with the word meant: `gsr validate`
# says so where one is missing, so the paper's typo is not taken for the project's (docs/paper.md, "Fig. 1 tests")
PAPER_SPELLINGS = {"corageous": "courageous"}

EXACT_LIMIT = 40  # words in a test; up to this many every split is counted (meet in the middle)


@dataclass
class StereotypeTest:
    """One Fig. 1 contrast: mean g of each word set and the one-tailed permutation p-value."""

    name: str
    male_mean: float
    female_mean: float
    p_value: float
    male_words: dict[str, float] = field(default_factory=dict)
    female_words: dict[str, float] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    exact: bool = True
    n_splits: int = 0

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "male_mean": self.male_mean,
            "female_mean": self.female_mean,
            "p_value": self.p_value,
            "exact": self.exact,
            "n_splits": self.n_splits,
            "missing": self.missing,
            "male_words": self.male_words,
            "female_words": self.female_words,
        }


def _subset_sums_by_size(values: np.ndarray) -> list[np.ndarray]:
    sums = [np.zeros(1)]
    for v in values:
        grown = [sums[0]] + [
            np.concatenate([sums[k], sums[k - 1] + v]) if k < len(sums) else sums[k - 1] + v
            for k in range(1, len(sums) + 1)
        ]
        sums = grown
    return sums


def count_subsets_at_least(values: np.ndarray, size: int, threshold: float) -> int:
    """How many `size`-subsets of `values` have a sum >= threshold, counted exactly by meet in the middle."""
    values = np.asarray(values, dtype=np.float64)
    half = len(values) // 2
    left = _subset_sums_by_size(values[:half])
    right = [np.sort(s) for s in _subset_sums_by_size(values[half:])]
    total = 0
    for j, sums in enumerate(left):
        k = size - j
        if k < 0 or k >= len(right):
            continue
        cut = np.searchsorted(right[k], threshold - sums, side="left")
        total += int((len(right[k]) - cut).sum())
    return total


def permutation_test(male: np.ndarray, female: np.ndarray, n_resamples: int = 200_000, seed: int = 0):
    """One-tailed test of mean g(female) > mean g(male): (p, exact?, number of splits considered).

    Exact over all C(n, |female|) relabellings when n <= EXACT_LIMIT, else Monte Carlo with the
    observed split counted (p >= 1 / (n_resamples + 1)).
    """
    male, female = np.asarray(male, float), np.asarray(female, float)
    pooled = np.concatenate([female, male])
    n, k = len(pooled), len(female)
    observed = female.sum()
    tolerance = 1e-12 * max(1.0, float(np.abs(pooled).sum()))
    if n <= EXACT_LIMIT:
        splits = math.comb(n, k)
        return count_subsets_at_least(pooled, k, observed - tolerance) / splits, True, splits
    rng = np.random.default_rng(seed)
    hits = 1
    for _ in range(n_resamples):
        if pooled[rng.permutation(n)[:k]].sum() >= observed - tolerance:
            hits += 1
    return hits / (n_resamples + 1), False, n_resamples + 1


def stereotype_test(name: str, male_words, female_words, lexicon) -> StereotypeTest:
    """Fig. 1 for one pair of word sets; words missing from the lexicon are left out and listed."""
    male = {w: lexicon.get(w) for w in male_words}
    female = {w: lexicon.get(w) for w in female_words}
    missing = [w for w, g in {**male, **female}.items() if g is None]
    male = {w: g for w, g in male.items() if g is not None}
    female = {w: g for w, g in female.items() if g is not None}
    if len(male) < 1 or len(female) < 1:
        raise EmbeddingError(f"stereotype test {name}: a word set has no word in the embedding (missing: {missing})")
    p, exact, splits = permutation_test(np.array(list(male.values())), np.array(list(female.values())))
    return StereotypeTest(
        name,
        float(np.mean(list(male.values()))),
        float(np.mean(list(female.values()))),
        p,
        male,
        female,
        missing,
        exact,
        splits,
    )


def stereotype_tests(lexicon, contrasts=None) -> list[StereotypeTest]:
    """All four Fig. 1 contrasts (or the given {name: (male words, female words)})."""
    contrasts = contrasts or STEREOTYPE_CONTRASTS
    return [stereotype_test(name, m, f, lexicon) for name, (m, f) in contrasts.items()]
