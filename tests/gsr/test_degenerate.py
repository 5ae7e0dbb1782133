"""A number that means nothing is never printed as a result (issue 35, item 1): a gender direction fitted on
definitional pairs whose differences vanish, and g(q) with no spread beyond float rounding, are undefined, saying
which failed; the rounding bound of Eq. 1 is checked against g(w) computed exactly (float64 from the same vectors)."""

from __future__ import annotations

import numpy as np
import pytest

from gsr import GSR, GenderLexicon
from gsr.equations import gsr_slope
from gsr.errors import EmbeddingError, UndefinedMeasureError
from gsr.lexicon import fit_gender_direction, genderedness_rounding, word_genderedness
from gsr.vectors.word_vectors import WordVectors

U32 = 2.0**-24  # float32's unit roundoff
PAIRS = [("she", "he"), ("her", "his"), ("woman", "man")]


def _kv(rows: dict[str, np.ndarray], dtype=np.float32) -> WordVectors:
    return WordVectors(list(rows), np.array(list(rows.values()), dtype=dtype))


def _random_rows(words, dim: int, seed: int) -> dict[str, np.ndarray]:
    generator = np.random.default_rng(seed)
    return {w: generator.normal(size=dim) for w in words}


def test_pairs_whose_vectors_are_equal_give_no_direction():
    rows = _random_rows(["she", "her", "woman", "nurse"], 8, 0)
    rows.update(he=rows["she"], his=rows["her"], man=rows["woman"])  # every pair equalised exactly
    with pytest.raises(EmbeddingError) as info:
        fit_gender_direction(_kv(rows), PAIRS)
    message = str(info.value)
    assert message.startswith("no gender direction: the definitional pairs' differences vanish")
    assert "she/he, her/his, woman/man" in message


def test_pairs_that_differ_only_by_float32_rounding_give_no_direction():
    rows = {w: v.astype(np.float32) for w, v in _random_rows(["she", "her", "woman"], 50, 1).items()}
    # the male word of each pair one float32 step away from the female word in every component
    rows.update({m: np.nextafter(rows[f], np.float32(np.inf)) for f, m in PAIRS})
    with pytest.raises(EmbeddingError, match="no gender direction: the definitional pairs' differences vanish"):
        fit_gender_direction(_kv(rows), PAIRS)


def test_one_pair_that_differs_is_a_direction():
    rows = _random_rows(["she", "her", "woman"], 8, 2)
    rows.update(his=rows["her"], man=rows["woman"], he=rows["she"] + np.eye(8)[0])
    direction = fit_gender_direction(_kv(rows), PAIRS)
    assert direction.explained_variance == pytest.approx(1.0)


@pytest.mark.parametrize("dim, dtype, unit", [(50, np.float32, 2.0**-24), (300, np.float64, 2.0**-53)])
def test_the_rounding_bound_of_eq1_follows_the_vectors_precision_and_dimension(dim, dtype, unit):
    rows = _random_rows(["she", "he", "her", "his", "woman", "man"], dim, 3)
    lexicon = GenderLexicon.from_embedding(_kv(rows, dtype), PAIRS)
    assert lexicon.rounding == genderedness_rounding(dim, np.dtype(dtype)) == 2 * (dim + 2) * unit


def test_the_rounding_bound_holds_for_float32_vectors():
    """g(w) computed as gsr does (float32 vectors) differs from g(w) of the same vectors in float64 by less than the
    bound, over words of very different lengths and directions (some almost orthogonal to the direction)."""
    generator = np.random.default_rng(4)
    dim = 300
    direction = generator.normal(size=dim)
    direction /= np.linalg.norm(direction)
    vectors = generator.normal(size=(20_000, dim)) * generator.lognormal(0, 3, size=(20_000, 1))
    vectors[:10_000] -= np.outer(vectors[:10_000] @ direction, direction)  # neutralised: exact g(w) = 0
    stored = vectors.astype(np.float32)
    computed = word_genderedness(stored, direction)
    exact = (stored.astype(np.float64) @ direction) / np.linalg.norm(stored.astype(np.float64), axis=1)
    assert np.max(np.abs(computed - exact)) < genderedness_rounding(dim, np.dtype(np.float32))


def test_a_mapping_lexicon_rounds_as_float64_values_do():
    lexicon = GenderLexicon.from_mapping({"she": 0.5, "he": -0.25})
    assert lexicon.rounding == 0.5 * 2.0**-53


def test_the_slope_is_undefined_when_g_of_q_spreads_no_more_than_rounding():
    g_query, g_list = [1e-8, -2e-8, 3e-8, 0.0], [0.1, 0.2, 0.05, 0.3]
    assert gsr_slope(g_query, g_list) == pytest.approx(-0.475 / 13 * 1e8)  # what a number without the bound says
    with pytest.raises(UndefinedMeasureError) as info:
        gsr_slope(g_query, g_list, query_rounding=1e-7)
    message = str(info.value)
    assert message.startswith("GSR is undefined: g(q) has no spread beyond float noise (range 5e-08, SD 1.8e-08")
    assert "rounding alone may move each g(q) by 1e-07" in message
    assert gsr_slope([0.1, -0.2, 0.3, 0.0], g_list, query_rounding=1e-7) == pytest.approx(
        gsr_slope([0.1, -0.2, 0.3, 0.0], g_list)
    )


def _neutralised_embedding(dim: int = 50) -> WordVectors:
    """Definitional pairs on the first axis; every other word's first component is removed in float64 and the vectors
    stored in float32, as debiasing does: their g(w) is float32 rounding."""
    generator = np.random.default_rng(5)
    words = ["she", "he", "her", "his", "woman", "man"]
    rows = {
        w: np.eye(dim)[0] * (1 if i % 2 == 0 else -1) + 0.1 * generator.normal(size=dim) for i, w in enumerate(words)
    }
    content = ["nurse", "engineer", "care", "tools", "budget", "report", "city", "rain"]
    rows.update({word: generator.normal(size=dim) for word in content})
    kv = _kv(rows)
    direction = fit_gender_direction(kv, PAIRS).vector
    for word in content:  # neutralise along the fitted direction, in float64, then store in float32
        vector = np.asarray(rows[word], dtype=np.float64)
        kv.vectors[kv.key_to_index[word]] = vector - (vector @ direction) * direction
    return kv


def test_gsr_of_float_noise_is_undefined_with_its_reason():
    kv = _neutralised_embedding()
    lexicon = GenderLexicon.from_embedding(kv, PAIRS)
    assert 0 < max(abs(lexicon.get(w)) for w in ("nurse", "engineer", "care", "tools")) < lexicon.rounding
    documents = {"d1": "she nurse care", "d2": "he engineer tools", "d3": "budget report city", "d4": "rain city"}
    queries = {"q1": "nurse care", "q2": "engineer tools", "q3": "budget report", "q4": "rain city"}
    run = {q: [(d, 4.0 - i) for i, d in enumerate(("d1", "d2", "d3", "d4"))] for q in queries}
    run["q2"] = list(reversed(run["q2"]))
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1}}
    report = GSR(lexicon, resamples=0, cutoff=None).evaluate(run, queries, documents, qrels, n_jobs=1)
    assert report.system.gsr is None
    assert report.system.error.startswith("GSR is undefined: g(q) has no spread beyond float noise")
    assert report.perfect.gsr is None and report.relative is None
    assert report.to_dict()["gsr"] is None and "no spread beyond float noise" in report.to_dict()["error"]
