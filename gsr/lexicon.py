"""Eq. 1: the gender direction of Bolukbasi et al. (§2.2) and word genderedness g(w), looked up for the tokens GSR
averages over by the project's one word-lookup policy (vocabulary_key).

An embedding is anything with gensim KeyedVectors' `key_to_index`, `index_to_key`, `vectors` and `[word]`
(KeyedVectorsLike); gsr imports no embedding library (gsr.vectors.load_embedding reads the file formats, and
GenderLexicon.from_embedding takes a built-in name or a file too).
"""

from __future__ import annotations

import math
import os
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gsr.errors import EmbeddingError, InputError
from gsr.infra.numeric import release_rows, unit_rows
from gsr.io.files import read_json
from gsr.text.normal_form import nfc, nfd, nfkc
from gsr.vectors.word_vectors import KeyedVectorsLike


def case_variants(word: str) -> tuple[str, ...]:
    """The word as written, then its lowercase, Title-case and UPPER-case forms, without repeats."""
    return tuple(dict.fromkeys((word, word.lower(), word.title(), word.upper())))


def vocabulary_key(vocabulary: Container[str], word: str) -> str | None:
    """The lookup policy of every package: the first of case_variants(word) in `vocabulary`, else None.

    So 'Mary' resolves in a lowercase vocabulary and 'nasa' in one that only has 'NASA'. The word is looked up in
    Unicode NFC, then (a vocabulary written decomposed) NFD, then with compatibility forms folded (NFKC: fullwidth
    "ｎｕｒｓｅ", ligatures): "café" is one word however either side spells it.

    Args:
        vocabulary: The words known (a set, a dict's keys, a KeyedVectors' key_to_index).
        word: The word looked up.

    Returns:
        The vocabulary's spelling of the word, or None.

    Example:
        >>> vocabulary_key({"mary", "NASA"}, "Mary"), vocabulary_key({"mary", "NASA"}, "nasa")
        ('mary', 'NASA')
    """
    composed = nfc(word)
    forms = (composed,) if composed.isascii() else tuple(dict.fromkeys((composed, nfd(composed), nfkc(composed))))
    for form in forms:
        for candidate in case_variants(form):
            if candidate in vocabulary:
                return candidate
    return None


class GenderLexicon:
    """g(w) for a vocabulary; words are looked up by `vocabulary_key` (as given, then lower, Title, UPPER case).

    Words whose vector is all zeros (g is NaN) count as out of vocabulary. `rounding` bounds how far float rounding may
    have moved each value (genderedness_rounding for Eq. 1 on an embedding's vectors); g(q) that spread no more than
    that make GSR undefined (gsr.equations.gsr_slope).

    Args:
        index: Each word's position in `values`.
        values: g(w) of every word (NaN for all-zero vectors).
        name: How outputs name the lexicon.
        direction: The gender direction the values were computed with, if any.
        rounding: The largest rounding error of one value; None: the values are taken as exact float64 numbers,
            whose mean is off by at most float64's unit roundoff times the largest |g(w)|.

    Raises:
        InputError: If `index` and `values` differ in length.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"she": 0.5, "nurse": 0.25})
        >>> lexicon.get("Nurse"), lexicon.get("unknown"), "she" in lexicon
        (0.25, None, True)
    """

    def __init__(
        self,
        index: Mapping[str, int],
        values: np.ndarray,
        name: str = "custom",
        direction: GenderDirection | None = None,
        rounding: float | None = None,
    ):
        values = np.asarray(values, dtype=np.float64)
        if len(index) != len(values):
            raise InputError(f"{len(index)} words but {len(values)} genderedness values")
        self._index = index
        self._values = values
        self.name = name
        self.direction = direction
        if rounding is None:
            finite_values = np.abs(values[np.isfinite(values)])
            rounding = unit_roundoff(np.dtype(np.float64)) * (float(finite_values.max()) if len(finite_values) else 0.0)
        self.rounding = float(rounding)
        self._memo: dict[str, float] = {}

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, float], name: str = "custom") -> GenderLexicon:
        """A lexicon from a plain {word: g} mapping (hand-made examples, other tools' scores).

        Args:
            mapping: g(w) of each word.
            name: How outputs name the lexicon.

        Returns:
            The lexicon.
        """
        words = list(mapping)
        index = {w: i for i, w in enumerate(words)}
        return cls(index, np.array([mapping[w] for w in words], dtype=np.float64), name=name)

    @classmethod
    def from_embedding(
        cls,
        embedding: KeyedVectorsLike | str | os.PathLike[str],
        pairs: Sequence[tuple[str, str]] | None = None,
        direction: GenderDirection | None = None,
        name: str | None = None,
        allow_pickle: bool = False,
    ) -> GenderLexicon:
        """g(w) of Eq. 1 for every word of an embedding, with the Bolukbasi direction fitted on the definitional
        `pairs` (default: Bolukbasi's ten) unless `direction` is given.

        Args:
            embedding: A built-in embedding's name ("glove-6b-50d"), a vectors file (word2vec or fastText .bin,
                word2vec or GloVe text, .vec; read and cached by gsr.vectors.load_embedding), or vectors already
                loaded: anything with gensim KeyedVectors' `key_to_index`, `index_to_key`, `vectors` and `[word]`.
            pairs: (female, male) definitional pairs; None: DEFAULT_DEFINITIONAL_PAIRS.
            direction: A direction fitted before, used instead of fitting one.
            name: How outputs name the lexicon; default the name or path given, else "embedding".
            allow_pickle: Read a gensim .kv file, which is a Python pickle and runs code when loaded: only for
                files you trust.

        Returns:
            The lexicon, with the direction it used.

        Raises:
            EmbeddingError: If the embedding cannot be read, or the direction cannot be fitted (see
                fit_gender_direction).

        Example:
            >>> import numpy as np
            >>> class Vectors(dict):  # the part of gensim's KeyedVectors gsr reads
            ...     index_to_key = property(list)
            ...     key_to_index = property(lambda self: {w: i for i, w in enumerate(self)})
            ...     vectors = property(lambda self: np.array(list(self.values())))
            >>> kv = Vectors(she=[1.0, 1.0], he=[-1.0, 1.0], her=[1.0, 0.5], his=[-1.0, 0.5], nurse=[0.5, 1.0])
            >>> round(GenderLexicon.from_embedding(kv, [("she", "he"), ("her", "his")]).get("nurse"), 3)
            0.447
        """
        if isinstance(embedding, (str, os.PathLike)):
            from gsr.vectors.loading import load_embedding

            name = name or str(embedding)
            kv = load_embedding(embedding, allow_pickle=allow_pickle)
        else:
            kv = embedding
        direction = direction or fit_gender_direction(kv, pairs)
        return cls(
            kv.key_to_index,
            direction.vocabulary_genderedness(kv),
            name=name or "embedding",
            direction=direction,
            rounding=genderedness_rounding(kv.vectors.shape[1], np.asarray(kv.vectors[:1]).dtype),
        )

    def get(self, word: str) -> float | None:
        """g(word), or None when no case form of it is in the vocabulary.

        Args:
            word: The word, looked up by vocabulary_key.

        Returns:
            g(word), or None.
        """
        memo = self._memo.get(word)
        if memo is not None:
            return None if math.isnan(memo) else memo
        key = vocabulary_key(self._index, word)
        value = math.nan if key is None else float(self._values[self._index[key]])
        self._memo[word] = value
        return None if math.isnan(value) else value

    def __contains__(self, word: str) -> bool:
        return self.get(word) is not None

    def vocabulary_values(self) -> np.ndarray:
        """g of every word of the vocabulary, in its index's order (NaN for all-zero vectors).

        Returns:
            The values, one per word.
        """
        return self._values

    def values(self, words: Iterable[str]) -> np.ndarray:
        """g for each word, NaN where out of vocabulary.

        Args:
            words: The words.

        Returns:
            The values, one per word.
        """
        return np.array([self._nan_get(w) for w in words], dtype=np.float64)

    def _nan_get(self, word: str) -> float:
        value = self.get(word)
        return math.nan if value is None else value


# Bolukbasi et al.'s ten definitional pairs, female word first (paper §2.2).
DEFAULT_DEFINITIONAL_PAIRS: tuple[tuple[str, str], ...] = (
    ("she", "he"),
    ("her", "his"),
    ("woman", "man"),
    ("Mary", "John"),
    ("herself", "himself"),
    ("daughter", "son"),
    ("mother", "father"),
    ("gal", "guy"),
    ("girl", "boy"),
    ("female", "male"),
)
"""Bolukbasi et al.'s ten definitional pairs (paper §2.2), female word first: fit_gender_direction's default.

Example:
    >>> DEFAULT_DEFINITIONAL_PAIRS[0], len(DEFAULT_DEFINITIONAL_PAIRS)
    (('she', 'he'), 10)
"""

ORIENTATION_PAIR = ("she", "he")


def load_word_pairs(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Read word pairs from a debiaswe-style JSON file: a list of two-word lists.

    Args:
        path: The JSON file.

    Returns:
        The pairs, in the file's order.

    Raises:
        EmbeddingError: If the file cannot be read or holds anything but pairs of words.

    Example:
        >>> import json, pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "pairs.json")
        ...     _ = path.write_text(json.dumps([["queen", "king"], ["aunt", "uncle"]]))
        ...     load_word_pairs(path)
        [('queen', 'king'), ('aunt', 'uncle')]
    """
    path = Path(path)
    data = read_json(path, error=EmbeddingError)
    if not isinstance(data, list):
        raise EmbeddingError(f"{path}: expected a JSON list of [word, word] pairs")
    pairs = []
    for number, item in enumerate(data, start=1):
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(w, str) for w in item)):
            raise EmbeddingError(f"{path}: item {number} is not a pair of words: {item!r}")
        pairs.append((item[0], item[1]))
    return pairs


def lookup_word(kv: KeyedVectorsLike, word: str) -> str | None:
    """The key of `word` in a KeyedVectors under the project's lookup policy (vocabulary_key)."""
    return vocabulary_key(kv.key_to_index, word)


def _definitional_unit(kv: KeyedVectorsLike, word: str) -> np.ndarray:
    key = lookup_word(kv, word)
    if key is None:
        raise EmbeddingError(f"the definitional word {word!r} is not in the embedding")
    vector = np.asarray(kv[key], dtype=np.float64)
    if not vector.any():
        raise EmbeddingError(f"the definitional word {word!r} has an all-zero vector")
    return unit_rows(vector)


@dataclass(frozen=True)
class GenderDirection:
    """A unit gender direction w_g, oriented so that female words project positive.

    Args:
        vector: w_g, a unit vector.
        explained_variance: The share of the pair differences' variance w_g explains.
        explained_variance_ratios: Every principal component's share, largest first.
        pairs: The definitional pairs it was fitted on.

    Example:
        >>> import numpy as np
        >>> direction = GenderDirection(np.array([1.0, 0.0]), 1.0)
        >>> direction.genderedness(np.array([[3.0, 4.0], [-1.0, 0.0]])).tolist()
        [0.6, -1.0]
    """

    vector: np.ndarray
    explained_variance: float
    explained_variance_ratios: tuple[float, ...] = ()
    pairs: tuple[tuple[str, str], ...] = field(default=())

    def genderedness(self, vectors: np.ndarray) -> np.ndarray:
        """Eq. 1, g(w) = w·w_g / (|w||w_g|), for each row of `vectors` (NaN for all-zero rows).

        Args:
            vectors: Word vectors, one per row.

        Returns:
            g(w) of each row.
        """
        return word_genderedness(vectors, self.vector)

    def vocabulary_genderedness(self, kv: KeyedVectorsLike, chunk_rows: int = 200_000) -> np.ndarray:
        """Eq. 1 for every word of a KeyedVectors, in chunks so a memory-mapped embedding is never copied whole.

        Args:
            kv: The embedding (`index_to_key` and `vectors` are read).
            chunk_rows: Rows per chunk.

        Returns:
            g(w) of every word, in the embedding's order.
        """
        total = len(kv.index_to_key)
        out = np.empty(total, dtype=np.float64)
        for start in range(0, total, chunk_rows):
            out[start : start + chunk_rows] = self.genderedness(kv.vectors[start : start + chunk_rows])
            release_rows(kv.vectors, start, start + chunk_rows)
        return out


def word_genderedness(vectors: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Eq. 1: cosine of each word vector with the gender direction; NaN where a vector is all zeros.

    Args:
        vectors: Word vectors, one per row (or one vector).
        direction: The gender direction w_g.

    Returns:
        g(w) of each vector.

    Example:
        >>> import numpy as np
        >>> word_genderedness(np.array([[3.0, 4.0], [0.0, 0.0]]), np.array([1.0, 0.0])).tolist()
        [0.6, nan]
    """
    vectors = np.asarray(vectors)
    direction = np.asarray(direction, dtype=np.float64)
    dots = vectors @ direction.astype(vectors.dtype, copy=False)
    norms = np.linalg.norm(vectors, axis=-1) * np.linalg.norm(direction)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.asarray(dots, dtype=np.float64) / norms
    return np.where(norms > 0, g, np.nan)


def unit_roundoff(dtype: np.dtype) -> float:
    """u, half the machine epsilon of a floating dtype (2^-24 for float32): the largest relative error of storing a real
    number in it. Other dtypes (integers) hold their values exactly: float64's."""
    return float(np.finfo(dtype if np.issubdtype(dtype, np.floating) else np.float64).eps) / 2


def genderedness_rounding(dimensions: int, dtype: np.dtype) -> float:
    """The largest error float rounding adds to one g(w) of Eq. 1 computed from vectors of `dtype`: 2(d + 2)·u.

    g(w) = w·w_g / (|w||w_g|) is a cosine (scale 1, whatever the vectors' lengths), computed in the vectors' precision
    u (word_genderedness). Its errors, each relative to |w||w_g|, are at most: d·u for the dot product of d terms
    (Higham's bound γ_d for a sum of d products), (d/2 + 1)·u for |w| (d squares summed, then a square root), u for
    w_g rounded to the vectors' precision, u for w itself (a vector whose exact g is 0, e.g. neutralised by debiasing,
    is stored rounded), u for a direction fitted again from rounded vectors: (3d/2 + 4)·u ≤ 2(d + 2)·u. For GloVe's
    50 float32 dimensions that is 6.2e-6, where the g(w) of real words spread over ±0.5.

    Args:
        dimensions: d, the vectors' dimension.
        dtype: The vectors' dtype.

    Returns:
        The bound.

    Example:
        >>> f"{genderedness_rounding(50, np.dtype(np.float32)):.2g}"
        '6.2e-06'
    """
    return 2 * (dimensions + 2) * unit_roundoff(dtype)


def pair_difference_components(female: np.ndarray, male: np.ndarray) -> tuple[np.ndarray, tuple[float, ...]]:
    """§2.2's PCA of pair differences: the principal components (unit rows, largest first) of the pair-centred
    rows a − (a + b)/2 and b − (a + b)/2 of each (female, male) pair of vectors, and each one's share of the
    variance. Row i of `female` and `male` is one pair; the rows are used as given (normalise them first where the
    method does). Shared by the word-embedding direction below and the encoder debiasing (debias.sent_debias)."""
    female, male = np.asarray(female, dtype=np.float64), np.asarray(male, dtype=np.float64)
    centre = (female + male) / 2
    matrix = np.empty((2 * len(female), female.shape[1]))
    matrix[0::2], matrix[1::2] = female - centre, male - centre  # pair by pair, as Bolukbasi et al.'s code stacks them
    # Rows of each pair sum to zero, so the matrix is already column-centred, as PCA requires.
    _, singular, vt = np.linalg.svd(matrix, full_matrices=False)
    variance = singular**2
    ratios = tuple(float(v) for v in variance / variance.sum())
    return vt / np.linalg.norm(vt, axis=1, keepdims=True), ratios


def fit_gender_direction(kv: KeyedVectorsLike, pairs: Sequence[tuple[str, str]] | None = None) -> GenderDirection:
    """§2.2: first principal component of the centred, unit-normalised definitional pairs, female-positive.

    Args:
        kv: The embedding (`key_to_index` and `[word]` are read).
        pairs: (female, male) definitional pairs; None:
            DEFAULT_DEFINITIONAL_PAIRS.

    Returns:
        The direction, with its explained variance and the pairs.

    Raises:
        EmbeddingError: If fewer than two pairs are given, a word (or 'she' or 'he') is missing from the embedding
            or a definitional word's vector is all zeros.

    Example:
        >>> class Vectors(dict):  # the part of gensim's KeyedVectors read here: key_to_index and [word]
        ...     key_to_index = property(lambda self: self)
        >>> kv = Vectors(she=[1.0, 1.0], he=[-1.0, 1.0], her=[1.0, 0.5], his=[-1.0, 0.5])
        >>> fit_gender_direction(kv, [("she", "he"), ("her", "his")]).vector.round(3).tolist()
        [1.0, 0.0]
    """
    pairs = tuple((female, male) for female, male in (pairs if pairs is not None else DEFAULT_DEFINITIONAL_PAIRS))
    if len(pairs) < 2:
        raise EmbeddingError("the gender direction needs at least two definitional pairs")
    missing = [w for pair in pairs for w in pair if lookup_word(kv, w) is None]
    if missing:
        raise EmbeddingError(
            "definitional word(s) missing from the embedding: "
            + ", ".join(missing)
            + " (give definitional pairs whose words it has)"
        )
    female = np.vstack([_definitional_unit(kv, f) for f, _ in pairs])
    male = np.vstack([_definitional_unit(kv, m) for _, m in pairs])
    check_pairs_differ(kv, pairs, female, male)
    components, ratios = pair_difference_components(female, male)
    direction = components[0]
    she, he = (lookup_word(kv, w) for w in ORIENTATION_PAIR)
    if she is None or he is None:
        raise EmbeddingError("cannot orient the gender direction: 'she' or 'he' is missing from the embedding")
    if float((_definitional_unit(kv, she) - _definitional_unit(kv, he)) @ direction) < 0:
        direction = -direction
    return GenderDirection(direction, ratios[0], ratios, pairs)


def check_pairs_differ(kv, pairs, female: np.ndarray, male: np.ndarray) -> None:
    """§2.2's direction exists only if some definitional pair differs by more than rounding: an EmbeddingError naming
    the pairs otherwise (every pair equalised, e.g. by debiasing, or written twice with one vector).

    Two words whose vectors are equal before being stored in precision u (2^-24 for float32) are stored within u of
    each other in every component, relatively, so their unit vectors differ by at most 4u (2u from storing both, 2u
    from normalising them). When every pair's difference is within that, the pair-difference matrix is rounding
    noise: its singular values are at most √(2n)·2u and the first component's share of the variance is the share of
    noise (or 0/0), so the direction would be an arbitrary axis."""
    dtype = np.result_type(*(np.asarray(kv[lookup_word(kv, w)]).dtype for pair in pairs for w in pair))
    tolerance = 4 * unit_roundoff(dtype)
    differences = np.linalg.norm(female - male, axis=1)
    if np.all(differences <= tolerance):
        precision = dtype.name if np.issubdtype(dtype, np.floating) else "float64"
        raise EmbeddingError(
            "no gender direction: the definitional pairs' differences vanish (each pair's unit vectors differ by at "
            f"most {float(differences.max()):.2g}, within {precision} rounding, 4u = {tolerance:.2g}): "
            + ", ".join(f"{f}/{m}" for f, m in pairs)
            + "; give pairs whose words differ, e.g. the pairs of the embedding before debiasing equalised them"
        )


def gender_lexicon(
    kv: KeyedVectorsLike,
    pairs: Sequence[tuple[str, str]] | None = None,
    direction: GenderDirection | None = None,
    name: str = "embedding",
) -> GenderLexicon:
    """g(w) of Eq. 1 for every word of `kv` (GenderLexicon.from_embedding)."""
    return GenderLexicon.from_embedding(kv, pairs, direction, name)
