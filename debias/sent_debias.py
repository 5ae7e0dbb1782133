"""Debiasing a sentence encoder's output space: the paper's question — does debiasing lower a ranker's stereotype
reinforcement, and at what cost? — asked of dense retrievers.

The gender subspace is estimated in the encoder's own output space as SENT-DEBIAS does (Liang et al. 2020, "Towards
Debiasing Sentence Representations", ACL): each definitional pair (she/he, woman/man, …; Bolukbasi et al. 2016's,
from debias.words) is put into the same sentence contexts, both versions are encoded, and the principal components
of the pair-centred encodings are the gender subspace (Bolukbasi et al.'s PCA of pair differences, the very step
gsr.lexicon.pair_difference_components performs for word vectors). SENT-DEBIAS draws its contexts from
text corpora; here they are the fixed "bleached" templates of SEAT (May et al. 2019: "This is {}.", "{} is here.", …)
plus the bare words, so the subspace depends on the encoder and the word lists only, never on the collection.

* "regular" (the `debiased` variant) removes the first component, the gender direction: SENT-DEBIAS with k = 1,
  the counterpart of Bolukbasi et al.'s neutralise step.
* "strong" removes the first k components (default `DEFAULT_STRONG_DIMENSIONS`), SENT-DEBIAS's k-dimensional bias
  subspace: h' = h − Σ_j ⟨h, v_j⟩ v_j. A subspace rather than iterative nullspace projection (INLP, Ravfogel et al.
  2020) because INLP needs a labelled training set of gendered texts far larger than the definitional pairs to
  learn more than the directions the pairs already span; the subspace removes those directions exactly and keeps
  the method one PCA, shared with the word-embedding debiasers. How much linearly decodable gender is left after
  either variant is reported (EncoderDebiasReport: a linear probe on held-out gendered word pairs).

Removal follows the encoder's similarity: for a cosine encoder the vectors are unit and are re-normalised after
the removal (debias.hard.neutralize, one component at a time: the same vector as removing the whole subspace at
once, since the components are orthonormal); for a dot-product encoder the component is subtracted and the length
left as it is. Both queries and documents are transformed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from debias.hard import DebiasError, _pairs_param, neutralize
from debias.words import DEFAULT_LISTS, default_definitional_pairs, default_equalize_pairs, female_first
from gsr.infra.numeric import unit_rows
from gsr.lexicon import pair_difference_components

# SEAT's semantically bleached templates (May et al. 2019), plus the bare word
TEMPLATES: tuple[str, ...] = (
    "{}",
    "This is {}.",
    "That is {}.",
    "There is {}.",
    "Here is {}.",
    "{} is here.",
    "{} is there.",
    "It is {}.",
)
DEFAULT_STRONG_DIMENSIONS = 10
ENCODER_METHODS = ("regular", "strong")
PROBE_FOLDS = 5

Encode = Callable[[list[str]], np.ndarray]


def pair_texts(pairs: Sequence[tuple[str, str]], templates: Sequence[str]) -> tuple[list[str], list[str], list[int]]:
    """(female texts, male texts, pair index of each): every pair in every template; multi-word entries written
    with '_' (debiaswe's Catholic_priest) are read with spaces."""
    female, male, owner = [], [], []
    for template in templates:
        for index, (f, m) in enumerate(pairs):
            female.append(template.format(f.replace("_", " ")))
            male.append(template.format(m.replace("_", " ")))
            owner.append(index)
    return female, male, owner


def remove_subspace(vectors: np.ndarray, basis: np.ndarray, unit: bool) -> np.ndarray:
    """`vectors` (float32 copy) without their components along the orthonormal rows of `basis`; re-normalised where
    `unit` (cosine encoders; rows left with nothing but gender become zero), left at their length otherwise."""
    block = np.array(vectors, dtype=np.float32)
    if unit:
        unit_rows(block, in_place=True)
        for direction in np.asarray(basis):
            neutralize(block, direction)
        return block
    basis32 = np.asarray(basis, dtype=np.float32)
    for _ in range(2):  # a second pass removes what float32 rounding left after the first
        block -= (block @ basis32.T) @ basis32
    return block


@dataclass(frozen=True)
class EncoderDebiasReport:
    """How much gender a debiased encoder space still holds (all on the definitional texts unless said otherwise).

    removed_share: share of the pair differences' variance along the removed components (Bolukbasi's "explained
    variance" of the direction, summed over the components).
    projection_before / projection_after: mean |⟨h, v⟩| of the definitional texts' vectors on each removed
    component v (after: zero up to float32 rounding, max_projection_after the largest).
    difference_left: mean ‖f' − m'‖² / ‖f − m‖² over the pairs in every template: the share of what told the female
    and male version of the same text apart that is still there.
    residual_share: the variance share of the first principal component of the pair differences re-estimated in the
    debiased space (what a fresh SENT-DEBIAS would find next), and residual_projection the definitional texts' mean
    |projection| on it.
    probe_before / probe_after: accuracy of a logistic-regression probe telling female from male texts of held-out
    gendered pairs (debiaswe's equalize pairs, none of them definitional, cross-validated by pair; 0.5 = no linearly
    decodable gender), before and after.
    """

    method: str
    dimensions: int
    components: int
    pairs: int
    templates: int
    removed_share: float
    variance_shares: tuple[float, ...]
    projection_before: tuple[float, ...]
    projection_after: tuple[float, ...]
    max_projection_after: float
    difference_left: float
    residual_share: float
    residual_projection: float
    probe_pairs: int
    probe_before: float | None
    probe_after: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def _probe_accuracy(
    female: np.ndarray, male: np.ndarray, owner: Sequence[int], folds: int = PROBE_FOLDS, seed: int = 0
) -> float | None:
    """Cross-validated (folds by pair) accuracy of logistic regression telling female (1) from male (0) rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_score

    groups = np.concatenate([owner, owner])
    if len(set(groups.tolist())) < folds:
        return None
    x = np.vstack([female, male])
    y = np.concatenate([np.ones(len(female)), np.zeros(len(male))])
    probe = LogisticRegression(max_iter=2000, C=1.0, random_state=seed)
    return float(cross_val_score(probe, x, y, groups=groups, cv=GroupKFold(n_splits=folds)).mean())


class EncoderDebias(BaseEstimator):
    """SENT-DEBIAS-style removal of a gender subspace from an encoder's vectors, sklearn-style (fit/transform).

    method: 'regular' (remove the gender direction, k = 1) or 'strong' (remove the first `dimensions` components).
    definitional_pairs: (female, male) pairs or a debiaswe JSON file; default: the list set `lists`'s.
    templates: the sentence contexts each pair is encoded in ('{}' is the word).
    unit: True for cosine encoders (vectors re-normalised after removal), False for dot-product encoders.
    fit(encode) takes a function mapping a list of texts to their vectors (rows), e.g. BiEncoder.encode.
    """

    def __init__(
        self,
        method: str = "regular",
        definitional_pairs=None,
        lists: str = DEFAULT_LISTS,
        templates: Sequence[str] = TEMPLATES,
        dimensions: int = DEFAULT_STRONG_DIMENSIONS,
        unit: bool = True,
    ):
        self.method = method
        self.definitional_pairs = definitional_pairs
        self.lists = lists
        self.templates = templates
        self.dimensions = dimensions
        self.unit = unit

    def _components(self) -> int:
        if self.method not in ENCODER_METHODS:
            raise DebiasError(
                f"unknown encoder debiasing method {self.method!r}: choose one of {', '.join(ENCODER_METHODS)}"
            )
        if self.method == "regular":
            return 1
        if isinstance(self.dimensions, bool) or not isinstance(self.dimensions, int) or self.dimensions < 1:
            raise DebiasError(
                f"strong debiasing removes a positive whole number of dimensions, not {self.dimensions!r}"
            )
        return self.dimensions

    def fit(self, encode: Encode, y=None):
        """Encode the definitional pairs in every template and learn `basis_` [k, dim] (orthonormal rows, each
        oriented so that the female texts project positive on average)."""
        k = self._components()
        self.definitional_pairs_ = _pairs_param(
            self.definitional_pairs, lambda: default_definitional_pairs(self.lists), "definitional_pairs"
        )
        if len(self.definitional_pairs_) < 2:
            raise DebiasError("the gender subspace needs at least two definitional pairs")
        female_texts, male_texts, self.owner_ = pair_texts(self.definitional_pairs_, self.templates)
        vectors = np.asarray(encode(female_texts + male_texts), dtype=np.float64)
        self.female_, self.male_ = vectors[: len(female_texts)], vectors[len(female_texts) :]
        components, ratios = pair_difference_components(unit_rows(self.female_), unit_rows(self.male_))
        available = int(np.sum(np.asarray(ratios) > 1e-12))
        if k > available:
            raise DebiasError(
                f"strong debiasing asks for {k} dimensions, but the {len(female_texts)} definitional "
                f"text pairs span only {available}; lower the dimensions or give more pairs"
            )
        basis = components[:k].copy()
        signs = np.sign(((self.female_ - self.male_) @ basis.T).mean(axis=0))
        basis *= np.where(signs == 0, 1.0, signs)[:, None]
        self.basis_ = basis
        self.variance_shares_ = tuple(ratios)
        return self

    def transform(self, vectors: np.ndarray) -> np.ndarray:
        """float32 vectors without the gender subspace (re-normalised for unit encoders)."""
        check_is_fitted(self, "basis_")
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[1] != self.basis_.shape[1]:
            raise DebiasError(
                f"the vectors have shape {vectors.shape}, but the gender subspace was fitted on "
                f"{self.basis_.shape[1]} dimensions"
            )
        return remove_subspace(vectors, self.basis_, self.unit)

    def report(self, encode: Encode | None = None, probe_pairs=None) -> EncoderDebiasReport:
        """EncoderDebiasReport: the definitional texts' projections before and after, the pair differences left, a
        re-estimated residual direction, and (with `encode`) the linear probe on held-out pairs (`probe_pairs`,
        default: the list set's equalize pairs that share no word with the definitional pairs)."""
        check_is_fitted(self, "basis_")
        before_f, before_m = self.female_, self.male_
        after_f, after_m = self.transform(before_f), self.transform(before_m)
        both_before, both_after = np.vstack([before_f, before_m]), np.vstack([after_f, after_m])
        if self.unit:
            both_before = unit_rows(both_before)
        projection_before = np.abs(both_before @ self.basis_.T).mean(axis=0)
        projection_after = np.abs(both_after.astype(np.float64) @ self.basis_.T)
        difference_before = (
            np.sum((before_f - before_m) ** 2, axis=1)
            if not self.unit
            else np.sum((unit_rows(before_f) - unit_rows(before_m)) ** 2, axis=1)
        )
        difference_after = np.sum((after_f.astype(np.float64) - after_m) ** 2, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            left = np.where(difference_before > 0, difference_after / difference_before, 0.0)
        residual, residual_ratios = pair_difference_components(
            unit_rows(after_f.astype(np.float64)), unit_rows(after_m.astype(np.float64))
        )
        probe_before = probe_after = None
        probe_count = 0
        if encode is not None:
            words = {w.lower() for pair in self.definitional_pairs_ for w in pair}
            listed = _pairs_param(probe_pairs, lambda: default_equalize_pairs(self.lists), "probe_pairs")
            pairs = list(
                dict.fromkeys(
                    (f.lower(), m.lower())
                    for f, m in female_first(listed)  # each word labelled by its gender, not its position
                    if f.lower() not in words and m.lower() not in words and f.lower() != m.lower()
                )
            )
            probe_count = len(pairs)
            female_texts, male_texts, owner = pair_texts(pairs, self.templates)
            vectors = np.asarray(encode(female_texts + male_texts), dtype=np.float64)
            female, male = vectors[: len(female_texts)], vectors[len(female_texts) :]
            probe_before = _probe_accuracy(female, male, owner)
            probe_after = _probe_accuracy(self.transform(female), self.transform(male), owner)
        k = len(self.basis_)
        return EncoderDebiasReport(
            method=self.method,
            dimensions=int(self.basis_.shape[1]),
            components=k,
            pairs=len(self.definitional_pairs_),
            templates=len(self.templates),
            removed_share=float(sum(self.variance_shares_[:k])),
            variance_shares=tuple(round(float(r), 6) for r in self.variance_shares_[: max(k, 10)]),
            projection_before=tuple(float(p) for p in projection_before),
            projection_after=tuple(float(p) for p in projection_after.mean(axis=0)),
            max_projection_after=float(projection_after.max()),
            difference_left=float(left.mean()),
            residual_share=float(residual_ratios[0]),
            residual_projection=float(np.abs(unit_rows(both_after.astype(np.float64)) @ residual[0]).mean()),
            probe_pairs=probe_count,
            probe_before=probe_before,
            probe_after=probe_after,
        )
