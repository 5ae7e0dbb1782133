"""Regular (hard) debiasing of Bolukbasi et al. (2016) and strong debiasing of Prost et al. (2019).

Both follow Bolukbasi et al.'s reference code (debiaswe, `debias.py`), and with the default lists (debiaswe's)
regular debiasing gives debiaswe's debias() output:

* every vector is unit-normalised first (debiaswe normalises on load), so the output embedding has
  unit rows; all-zero rows (padding vectors) stay zero. `unit_normalised` is this first step alone: the
  vectors the harness's regular systems retrieve with, so that regular and debiased systems differ by
  debiasing only;
* the gender direction is learnt by `gsr.lexicon.fit_gender_direction` (unit-normalised
  definitional pairs, pair-centred PCA, first component, oriented so that female words project
  positive; words are looked up by the project's case policy, so debiaswe's Mary/John resolve in lowercase
  vocabularies, where debiaswe itself stops with a KeyError);
* neutralised words lose their component along the direction and are re-normalised; a row with nothing to remove
  is left bit for bit as it was;
* regular debiasing keeps the gender-specific words as they are (unit-normalised) and then equalises
  each equalize pair; strong debiasing neutralises every word and equalises nothing.

Memory: the output is the only copy of the matrix. It is filled, normalised and neutralised in float32,
in place, `chunk_rows` rows at a time, so the input (which may be a read-only memory map) is only ever
read, and no float64 temporary is larger than one chunk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from debias.words import (
    DEFAULT_LISTS,
    WordListError,
    default_definitional_pairs,
    default_equalize_pairs,
    default_gender_specific,
    load_pair_list,
    load_word_list,
)
from gsr.errors import EmbeddingError
from gsr.infra.numeric import release_rows, unit_rows
from gsr.lexicon import GenderDirection, case_variants, fit_gender_direction

DEFAULT_CHUNK_ROWS = 16_384  # 16k x 300 float32 = 20 MB per chunk temporary

# A unit row whose length after losing its gender component is below this lay (numerically) on the
# direction: re-normalising it would only blow rounding noise up into an arbitrary unit vector.
VANISHING_NORM = 1e-5


class DebiasError(EmbeddingError):
    """Debiasing that cannot be done as asked (wrong dimensions, empty lists); the message says why."""


def neutralize(block: np.ndarray, direction: np.ndarray, neutral: np.ndarray | None = None) -> np.ndarray:
    """Bolukbasi et al. Alg. 1, Neutralize: w := (w − w_B)/‖w − w_B‖ on unit rows where `neutral`, in place.

    Only rows that had a component along the direction are re-normalised; the others keep their exact bits, so
    debiasing along a zero direction (or with nothing to neutralise) returns its input unchanged.
    """
    direction = direction.astype(block.dtype, copy=False)
    changed = np.zeros(len(block), dtype=bool)
    # A second pass removes what float32 rounding left of the projection after the first (on GloVe
    # 6B 50d the largest leftover drops from 1.7e-7 to 5e-8), for words lying close to the direction.
    for _ in range(2):
        projection = block @ direction
        if neutral is not None:
            projection[~neutral] = 0
        changed |= projection != 0
        block -= projection[:, None] * direction[None, :]
    if changed.any():
        rows = block[changed]
        rows[np.linalg.norm(rows, axis=1) < VANISHING_NORM] = 0
        block[changed] = unit_rows(rows, in_place=True)
    return block


def _unit_copy(kv, chunk_rows: int):
    """(float32 copy of kv's vectors, [(start, block)]): each block is unit-normalised in place before it is yielded;
    the input (possibly a read-only memory map) is only read, one chunk at a time."""
    source = kv.vectors
    matrix = np.empty(source.shape, dtype=np.float32)
    step = max(1, int(chunk_rows))

    def blocks():
        for start in range(0, source.shape[0], step):
            block = matrix[start : start + step]
            block[...] = source[start : start + step]  # the only copy: casts to float32 chunk by chunk
            release_rows(source, start, start + len(block))  # a memory-mapped input is read once: keep it out of RSS
            unit_rows(block, in_place=True)  # debiaswe's normalize
            yield start, block

    return matrix, blocks()


def unit_normalised(kv, chunk_rows: int = DEFAULT_CHUNK_ROWS):
    """New WordVectors with `kv`'s rows scaled to unit length in float32: the first step of every debiasing alone,
    bit for bit, so that a system using it and one using a debiased copy differ only by debiasing."""
    matrix, blocks = _unit_copy(kv, chunk_rows)
    for _ in blocks:
        pass
    return _keyed_vectors_like(kv, matrix)


def equalize_pair(a: np.ndarray, b: np.ndarray, direction: np.ndarray, side: float):
    """Bolukbasi et al. Alg. 1, Equalize on {a, b}: ν = μ − μ_B; a, b := ν ± sqrt(1 − ‖ν‖²)·sign(side)·w_g."""
    direction = np.asarray(direction, dtype=np.float64)
    centre = (np.asarray(a, dtype=np.float64) + np.asarray(b, dtype=np.float64)) / 2
    nu = centre - (centre @ direction) * direction
    # ‖ν‖ ≤ 1 for unit a and b; clipping only absorbs rounding.
    offset = np.sqrt(max(0.0, 1.0 - float(nu @ nu))) * (1.0 if side >= 0 else -1.0) * direction
    return nu + offset, nu - offset


@dataclass(frozen=True)
class DebiasReport:
    """What a debiasing does to one embedding: counts, equalised keys and list words it lacks."""

    method: str
    n_words: int
    dimensions: int
    explained_variance: float
    n_neutralised: int
    equalized: tuple[tuple[str, str], ...]
    missing_gender_specific: tuple[str, ...]
    missing_equalize: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Plan:
    neutral: np.ndarray | None  # row mask; None = every row
    equalize: tuple[tuple[str, str], ...]
    missing_gender_specific: tuple[str, ...]
    missing_equalize: tuple[tuple[str, str], ...]


def _pairs_param(value, default, name: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return tuple(tuple(p) for p in default())
    if isinstance(value, (str, os.PathLike)):
        return tuple(load_pair_list(value))
    pairs = []
    for number, item in enumerate(value, start=1):
        item = tuple(item) if not isinstance(item, str) else (item,)
        if len(item) != 2 or not all(isinstance(w, str) and w for w in item):
            raise WordListError(f"{name}: item {number} is not a pair of words: {item!r}")
        pairs.append(item)
    return tuple(pairs)


def _words_param(value, default, name: str) -> tuple[str, ...]:
    if value is None:
        return tuple(default())
    if isinstance(value, (str, os.PathLike)):
        return tuple(load_word_list(value))
    words = tuple(value)
    for number, item in enumerate(words, start=1):
        if not isinstance(item, str) or not item:
            raise WordListError(f"{name}: item {number} is not a word: {item!r}")
    return words


class _DirectionDebias(BaseEstimator):
    """Shared fit/transform: learn the gender direction, then write a neutralised copy of an embedding."""

    method = ""

    def fit(self, kv, y=None):
        """Learn `direction_` (a GenderDirection) from `kv` and resolve the word lists (files are read here)."""
        self.definitional_pairs_ = _pairs_param(
            self.definitional_pairs, lambda: default_definitional_pairs(self.lists), "definitional_pairs"
        )
        self._resolve_lists()
        self.direction_: GenderDirection = fit_gender_direction(kv, self.definitional_pairs_)
        return self

    def fit_transform(self, kv, y=None):
        """fit(kv), then transform(kv)."""
        return self.fit(kv).transform(kv)

    def transform(self, kv):
        """NEW WordVectors (gsr.vectors.word_vectors) with unit, debiased float32 rows; `kv` is only read."""
        check_is_fitted(self, "direction_")
        self._check_dimensions(kv)
        plan = self._plan(kv)
        direction = self.direction_.vector
        source = kv.vectors
        matrix, blocks = _unit_copy(kv, self.chunk_rows)
        for start, block in blocks:
            neutral = None if plan.neutral is None else plan.neutral[start : start + len(block)]
            neutralize(block, direction, neutral)
        for a, b in plan.equalize:
            i, j = kv.key_to_index[a], kv.key_to_index[b]
            # Each word keeps its side of the direction as in the input, so a pair whose words were
            # both neutralised (not gender-specific) still gets the female word on the female side.
            side = float((_unit_float64(source[i]) - _unit_float64(source[j])) @ direction)
            matrix[i], matrix[j] = equalize_pair(matrix[i], matrix[j], direction, side)
        return _keyed_vectors_like(kv, matrix)

    def report(self, kv) -> DebiasReport:
        """What transform(kv) does: neutralised and equalised words, and list words missing from `kv`."""
        check_is_fitted(self, "direction_")
        self._check_dimensions(kv)
        plan = self._plan(kv)
        total = len(kv.index_to_key)
        return DebiasReport(
            method=self.method,
            n_words=total,
            dimensions=int(kv.vector_size),
            explained_variance=self.direction_.explained_variance,
            n_neutralised=total if plan.neutral is None else int(plan.neutral.sum()),
            equalized=plan.equalize,
            missing_gender_specific=plan.missing_gender_specific,
            missing_equalize=plan.missing_equalize,
        )

    def _resolve_lists(self) -> None:
        pass

    def _plan(self, kv) -> _Plan:
        return _Plan(None, (), (), ())

    def _check_dimensions(self, kv) -> None:
        expected = len(self.direction_.vector)
        if kv.vectors.ndim != 2 or kv.vectors.shape[1] != expected:
            raise DebiasError(
                f"the embedding has {kv.vectors.shape[-1]}-dimensional vectors but the gender direction "
                f"was fitted on {expected} dimensions"
            )


class HardDebias(_DirectionDebias):
    """Regular (hard) debiasing, Bolukbasi et al. (2016): neutralise all but gender-specific words, then equalise.

    lists: the named list set the three defaults come from, 'debiaswe' (Bolukbasi et al.'s own lists, the default)
        or 'project' (the project's lowercase lists); see debias.words.
    definitional_pairs: (female, male) pairs or a debiaswe JSON file; default: the list set's.
    gender_specific: words or a debiaswe JSON list; default: the list set's. They keep their gender component (up
        to unit normalisation).
    equalize_pairs: pairs or a debiaswe JSON file; default: the list set's. Each pair is equalised in its lower,
        Title and UPPER forms where both words are in the vocabulary, as debiaswe does. Pairs are equalised in list
        order after neutralising, from the neutralised, re-normalised vectors, as in debiaswe (which iterates a
        set, so its order is arbitrary); a word in two pairs ends with the later pair's vector. Each word keeps the
        side of the direction it had in the input (debiaswe reads the side after neutralising, which is the same
        whenever a pair holds a gender-specific word, as each of the 43 debiaswe pairs found in GloVe 6B does, and is
        rounding noise otherwise).
    case_variants: False matches gender-specific words exactly, as debiaswe does; True also protects each word's
        lower, Title and UPPER forms and equalises each pair also as written (e.g. 'Catholic_priest'), so lowercase
        lists work on cased embeddings such as GoogleNews word2vec. Default: False for the debiaswe lists, True for
        the project's.
    chunk_rows: rows processed at a time (memory: one chunk of temporaries).
    """

    method = "regular"

    def __init__(
        self,
        definitional_pairs=None,
        gender_specific=None,
        equalize_pairs=None,
        case_variants: bool | None = None,
        lists: str = DEFAULT_LISTS,
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
    ):
        self.definitional_pairs = definitional_pairs
        self.gender_specific = gender_specific
        self.equalize_pairs = equalize_pairs
        self.case_variants = case_variants
        self.lists = lists
        self.chunk_rows = chunk_rows

    def _resolve_lists(self) -> None:
        self.gender_specific_ = _words_param(
            self.gender_specific, lambda: default_gender_specific(self.lists), "gender_specific"
        )
        self.equalize_pairs_ = _pairs_param(
            self.equalize_pairs, lambda: default_equalize_pairs(self.lists), "equalize_pairs"
        )
        self.case_variants_ = self.lists == "project" if self.case_variants is None else bool(self.case_variants)

    def _plan(self, kv) -> _Plan:
        vocabulary = kv.key_to_index
        neutral = np.ones(len(kv.index_to_key), dtype=bool)
        missing = []
        for word in self.gender_specific_:
            spellings = case_variants(word) if self.case_variants_ else (word,)
            rows = [vocabulary[form] for form in spellings if form in vocabulary]
            if not rows:
                missing.append(word)
            neutral[rows] = False
        equalize: dict[tuple[str, str], None] = {}
        missing_pairs = []
        for female, male in self.equalize_pairs_:
            forms: list[tuple[str, str]] = [
                (female.lower(), male.lower()),
                (female.title(), male.title()),
                (female.upper(), male.upper()),
            ]
            if self.case_variants_:
                forms.insert(0, (female, male))
            found = [(a, b) for a, b in dict.fromkeys(forms) if a in vocabulary and b in vocabulary and a != b]
            if not found:
                missing_pairs.append((female, male))
            equalize.update(dict.fromkeys(found))
        return _Plan(neutral, tuple(equalize), tuple(missing), tuple(missing_pairs))


class StrongDebias(_DirectionDebias):
    """Strong debiasing, Prost et al. (2019): remove the gender direction from every word, gender-specific included.

    No word keeps a gender component, so there is nothing to equalise. Like regular debiasing, rows are
    unit-normalised before and after (debiaswe's convention); a word lying on the direction becomes zero.
    definitional_pairs: (female, male) pairs or a debiaswe JSON file; default: those of the list set `lists`.
    chunk_rows: rows processed at a time (memory: one chunk of temporaries).
    """

    method = "strong"

    def __init__(self, definitional_pairs=None, lists: str = DEFAULT_LISTS, chunk_rows: int = DEFAULT_CHUNK_ROWS):
        self.definitional_pairs = definitional_pairs
        self.lists = lists
        self.chunk_rows = chunk_rows


METHODS = {"regular": HardDebias, "strong": StrongDebias}  # a [debias] variant's method, by name


def _unit_float64(vector: np.ndarray) -> np.ndarray:
    return unit_rows(np.asarray(vector, dtype=np.float64))


def _keyed_vectors_like(kv, matrix: np.ndarray):
    """Plain WordVectors with `kv`'s keys in `kv`'s order and `matrix` as vectors (no n-grams, no counts)."""
    from gsr.vectors.word_vectors import WordVectors

    return WordVectors(list(kv.index_to_key), matrix, dict(kv.key_to_index))
