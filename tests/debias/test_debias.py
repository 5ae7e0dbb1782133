"""Properties of regular (Bolukbasi et al.) and strong (Prost et al.) debiasing, word lists and `gsr debias`."""

from __future__ import annotations

import argparse
import json
import logging
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from debias import (
    DebiasError,
    HardDebias,
    StrongDebias,
    WordListError,
    default_definitional_pairs,
    default_equalize_pairs,
    default_gender_specific,
    equalize_pair,
    load_pair_list,
    load_word_list,
    neutralize,
    unit_normalised,
)
from debias.command import configure_parser, run
from debias.words import DEBIASWE_FILES
from gsr.errors import EmbeddingError
from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS, case_variants
from gsr.vectors import load_embedding
from tests.support.shared_data import SHARED_DATA

DEBIASWE = SHARED_DATA / "debiaswe"
PAPER = SHARED_DATA.parent / "papers" / "gsr-fabris-et-al.md"
TOL = 1e-5
DIM = 16


# --------------------------------------------------------------------------- embeddings


def _keyed(words, vectors):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float32)
    kv.add_vectors(list(words), np.asarray(vectors, dtype=np.float32))
    return kv


def _random_kv(seed: int = 0):
    """Random vectors with a planted gender axis: female words +, male words −, some stereotyped neutral words."""
    rng = np.random.default_rng(seed)
    female = [f for f, _ in DEFAULT_DEFINITIONAL_PAIRS] + ["queen", "Queen", "aunt", "actress", "women"]
    male = [m for _, m in DEFAULT_DEFINITIONAL_PAIRS] + ["king", "King", "uncle", "actor", "men"]
    stereotyped = {"nurse": 1.0, "homemaker": 1.2, "engineer": -1.0, "programmer": -0.8}
    neutral = [f"w{i}" for i in range(300)]
    words = female + male + list(stereotyped) + neutral + ["<pad>"]
    axis = rng.normal(size=DIM)
    axis /= np.linalg.norm(axis)
    vectors = rng.normal(size=(len(words), DIM))
    lean = np.array([2.0] * len(female) + [-2.0] * len(male) + list(stereotyped.values()) + [0.0] * (len(neutral) + 1))
    vectors += lean[:, None] * axis
    vectors[-1] = 0  # a padding row, as some published embeddings have
    return _keyed(words, vectors)


def _debiaswe(name: str) -> Path:
    path = DEBIASWE / name
    if not path.exists():
        pytest.skip(f"Bolukbasi et al.'s debiaswe word lists are not available at {DEBIASWE}")
    return path


# --------------------------------------------------------------------------- property checks


def _unit(matrix):
    matrix = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1)


def _protected_keys(kv, words, variants=True):
    forms = (f for w in words for f in (case_variants(w) if variants else (w,)))
    return {f for f in forms if f in kv.key_to_index}


def _check_unit_rows(kv_in, kv_out):
    norms = np.linalg.norm(kv_out.vectors, axis=1)
    zero_in = ~np.asarray(kv_in.vectors).any(axis=1)
    assert np.allclose(norms[~zero_in], 1, atol=TOL)
    assert not kv_out.vectors[zero_in].any()
    assert np.isfinite(kv_out.vectors).all()


def _check_regular(kv_in, kv_out, debiaser, variants=True):
    g = debiaser.direction_.vector
    assert kv_out is not kv_in and kv_out.index_to_key == kv_in.index_to_key
    assert kv_out.vectors.dtype == np.float32
    _check_unit_rows(kv_in, kv_out)
    protected = _protected_keys(kv_in, debiaser.gender_specific_, variants)
    equalized = debiaser.report(kv_in).equalized
    assert equalized, "the lists equalise nothing on this embedding"
    in_pairs = [w for pair in equalized for w in pair]
    touched = protected | set(in_pairs)
    rows = np.array([i for i, w in enumerate(kv_in.index_to_key) if w not in touched])
    projections = kv_out.vectors @ g
    # neutral words: no component left along the gender direction
    assert np.abs(projections[rows]).max() < TOL
    # gender-specific words: unchanged up to unit normalisation
    kept = np.array([kv_in.key_to_index[w] for w in protected - set(in_pairs)])
    assert np.allclose(_unit(kv_out.vectors[kept]), _unit(kv_in.vectors[kept]), atol=TOL)
    assert np.abs(projections[kept]).max() > 0.1
    # equalised pairs: mirror images about the neutral subspace, each word on its input side
    once = {w for w in in_pairs if in_pairs.count(w) == 1}
    for a, b in equalized:
        if a not in once or b not in once:
            continue
        va, vb = kv_out[a].astype(np.float64), kv_out[b].astype(np.float64)
        pa, pb = va @ g, vb @ g
        assert pa == pytest.approx(-pb, abs=TOL), (a, b)
        assert np.allclose(va - pa * g, vb - pb * g, atol=TOL), (a, b)
        side = (_unit(kv_in[a]) - _unit(kv_in[b])) @ g
        assert np.sign(pa) == np.sign(side) != 0, (a, b)


def _check_strong(kv_in, kv_out, debiaser):
    assert kv_out is not kv_in and kv_out.index_to_key == kv_in.index_to_key
    _check_unit_rows(kv_in, kv_out)
    assert np.abs(kv_out.vectors @ debiaser.direction_.vector).max() < TOL


# --------------------------------------------------------------------------- the two equations


def test_neutralize_by_hand():
    block = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 0.0], [0.6, -0.8]], dtype=np.float32)
    neutralize(block, np.array([1.0, 0.0]), neutral=np.array([True, False, True, True]))
    assert np.allclose(block, [[0, 1], [1, 0], [0, 0], [0, -1]])
    on_direction = np.array([[1.0, 0.0]], dtype=np.float32)
    assert not neutralize(on_direction, np.array([1.0, 0.0])).any()  # nothing left to re-normalise


def test_equalize_pair_by_hand():
    a, b = np.array([0.8, 0.6, 0.0]), np.array([-0.6, 0.0, 0.8])
    new_a, new_b = equalize_pair(a, b, np.array([1.0, 0.0, 0.0]), side=+1)
    z = np.sqrt(1 - 0.3**2 - 0.4**2)
    assert np.allclose(new_a, [z, 0.3, 0.4]) and np.allclose(new_b, [-z, 0.3, 0.4])
    swapped_a, swapped_b = equalize_pair(a, b, np.array([1.0, 0.0, 0.0]), side=-1)
    assert np.allclose(swapped_a, new_b) and np.allclose(swapped_b, new_a)


# --------------------------------------------------------------------------- random embedding


def test_regular_on_random_embedding():
    kv = _random_kv()
    before = kv.vectors.copy()
    debiaser = HardDebias()
    out = debiaser.fit_transform(kv)
    assert np.array_equal(kv.vectors, before)  # input untouched
    _check_regular(kv, out, debiaser, variants=False)  # debiaswe's lists match words exactly, as debiaswe does
    assert abs(float(kv["nurse"] @ debiaser.direction_.vector)) > 0.5  # the check above had work to do
    equalized = set(debiaser.report(kv).equalized)
    assert {("king", "queen"), ("King", "Queen"), ("uncle", "aunt"), ("men", "women")} <= equalized
    assert out["queen"] @ debiaser.direction_.vector > 0 > out["king"] @ debiaser.direction_.vector
    project = HardDebias(lists="project")
    _check_regular(kv, project.fit_transform(kv), project)
    assert ("actress", "actor") in project.report(kv).equalized


def test_regular_case_variants_switch():
    kv = _random_kv(1)
    exact = HardDebias(gender_specific=["queen", "king", "she", "he"], equalize_pairs=[], case_variants=False)
    out = exact.fit_transform(kv)
    assert abs(out["Queen"] @ exact.direction_.vector) < TOL  # 'Queen' is not 'queen' when matching exactly
    assert abs(out["queen"] @ exact.direction_.vector) > 0.1
    variants = HardDebias(gender_specific=["queen", "king", "she", "he"], equalize_pairs=[], case_variants=True)
    assert abs(variants.fit_transform(kv)["Queen"] @ variants.direction_.vector) > 0.1
    assert HardDebias().fit(kv).case_variants_ is False and HardDebias(lists="project").fit(kv).case_variants_


@pytest.mark.parametrize(
    "case_variants, expected",
    [
        (True, (("Catholic_priest", "nun"), ("catholic_priest", "nun"))),  # as written, then lower, Title, UPPER
        (False, (("catholic_priest", "nun"),)),  # debiaswe: lower, Title, UPPER only
    ],
)
def test_equalize_pairs_are_matched_form_by_form(case_variants, expected):
    words = [f for f, _ in DEFAULT_DEFINITIONAL_PAIRS] + [m for _, m in DEFAULT_DEFINITIONAL_PAIRS]
    words += ["Catholic_priest", "catholic_priest", "nun", "Nun"]
    kv = _keyed(words, np.random.default_rng(0).normal(size=(len(words), DIM)))
    debiaser = HardDebias(
        gender_specific=[], equalize_pairs=[("Catholic_priest", "nun")], case_variants=case_variants
    ).fit(kv)
    assert debiaser.report(kv).equalized == expected


def test_strong_on_random_embedding():
    kv = _random_kv(2)
    before = kv.vectors.copy()
    debiaser = StrongDebias()
    out = debiaser.fit_transform(kv)
    assert np.array_equal(kv.vectors, before)
    _check_strong(kv, out, debiaser)
    report = debiaser.report(kv)
    assert report.n_neutralised == len(kv.index_to_key) and report.equalized == ()


def test_read_only_input_small_chunks_same_result():
    kv = _random_kv(3)
    whole = HardDebias().fit_transform(kv)
    kv.vectors.flags.writeable = False  # any write into the input would raise
    chunked = HardDebias(chunk_rows=7).fit_transform(kv)
    assert np.allclose(chunked.vectors, whole.vectors, atol=1e-6)


def test_transform_another_embedding():
    kv = _random_kv(4)
    debiaser = HardDebias().fit(kv)
    other = _random_kv(5)
    _check_regular(other, debiaser.transform(other), debiaser)  # the direction learnt on kv


# --------------------------------------------------------------------------- built-in GloVe


@pytest.mark.slow  # debiases all 400,000 GloVe words
def test_regular_on_glove(glove):
    assert isinstance(glove.vectors, np.memmap) and not glove.vectors.flags.writeable
    debiaser = HardDebias()
    out = debiaser.fit_transform(glove)
    assert debiaser.direction_.explained_variance == pytest.approx(0.494, abs=0.01)
    _check_regular(glove, out, debiaser, variants=False)
    g = debiaser.direction_.vector
    assert abs(out["nurse"] @ g) < TOL < abs(glove["nurse"] @ g)
    # the vocabulary of Robust04's most female topics stays gendered (debiaswe's list holds it; the project's did not)
    report = debiaser.report(glove)
    equalized = {w for pair in report.equalized for w in pair}
    for word in ("estrogen", "menopause", "womb", "feminism"):
        before = float(glove[word] @ g) / np.linalg.norm(glove[word])
        assert before > 0.1 and out[word] @ g > 0.1, word  # female before and after
        if word not in equalized:  # estrogen is equalised with testosterone; the others are kept as they were
            assert out[word] @ g == pytest.approx(before, abs=TOL), word
    assert report.n_words == 400_000 and report.dimensions == 50
    # debiaswe's list is cased for word2vec (He, Lions, ...); GloVe is lowercase, so the capitalised forms are absent
    specific = load_word_list(DEBIASWE_FILES["gender_specific"])
    assert report.missing_gender_specific == tuple(w for w in specific if w not in glove.key_to_index)
    assert len(report.equalized) == 43


@pytest.mark.slow  # debiases all 400,000 GloVe words
def test_strong_on_glove(glove):
    debiaser = StrongDebias()
    out = debiaser.fit_transform(glove)
    _check_strong(glove, out, debiaser)
    assert np.abs(out.vectors @ debiaser.direction_.vector).max() < TOL


def debiaswe_debias(words: list[str], vectors: np.ndarray, definitional, gender_specific, equalize) -> np.ndarray:
    """Bolukbasi et al.'s hard debiasing as their paper (§5, Alg. 1) and debiaswe's debias() describe it, written
    afresh in float64: normalise every vector; the gender direction is the first principal component of the
    definitional pairs' vectors centred on their pair means; every word not in the gender-specific list loses its
    component along it; normalise again; then each equalize pair, in its lower-, Title- and UPPER-case forms present
    in the vocabulary, is replaced by ν ± sqrt(1 − ‖ν‖²)·g, ν the pair mean without its gender component, the sign
    following (a − b)·g; normalise again. Only deviation: a definitional word missing as written (GloVe has no
    'Mary') is looked up in lowercase, where debiaswe would stop with a KeyError."""
    from sklearn.decomposition import PCA

    index = {w: i for i, w in enumerate(words)}
    unit = vectors.astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)

    def v(word):
        return unit[index[word] if word in index else index[word.lower()]]

    rows = []
    for a, b in definitional:
        centre = (v(a) + v(b)) / 2
        rows += [v(a) - centre, v(b) - centre]
    g = PCA(n_components=10).fit(np.array(rows)).components_[0]
    specific = set(gender_specific)
    neutral = np.array([w not in specific for w in words])
    unit[neutral] -= np.outer(unit[neutral] @ g, g) / (g @ g)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    candidates = {
        form for a, b in equalize for form in ((a.lower(), b.lower()), (a.title(), b.title()), (a.upper(), b.upper()))
    }
    for a, b in sorted(candidates):
        if a in index and b in index:
            mean = (unit[index[a]] + unit[index[b]]) / 2
            nu = mean - (mean @ g) * g
            z = np.sqrt(1 - nu @ nu) * (1 if (unit[index[a]] - unit[index[b]]) @ g >= 0 else -1)
            unit[index[a]], unit[index[b]] = nu + z * g, nu - z * g
    return unit / np.linalg.norm(unit, axis=1, keepdims=True)


@pytest.mark.slow
def test_gsr_debias_regular_matches_debiaswe_on_glove(glove, tmp_path):
    """`gsr debias --method regular` with no list options gives debiaswe's debias() output on GloVe 6B 50d."""
    out = tmp_path / "debiased.bin"
    assert run(_args("--out", str(out))) == 0
    written = load_embedding(out, cache=False)
    assert written.index_to_key == glove.index_to_key
    lists = {
        name: (load_pair_list if name != "gender_specific" else load_word_list)(_debiaswe(file.name))
        for name, file in DEBIASWE_FILES.items()
    }
    expected = debiaswe_debias(
        glove.index_to_key,
        np.asarray(glove.vectors),
        lists["definitional"],
        lists["gender_specific"],
        lists["equalize"],
    )
    assert np.abs(written.vectors - expected).max() < 2e-6


def test_default_lists_are_debiaswes_own():
    for name, copy in DEBIASWE_FILES.items():
        assert copy.read_bytes() == _debiaswe(copy.name).read_bytes(), name
    assert set(default_definitional_pairs()) == set(DEFAULT_DEFINITIONAL_PAIRS)
    assert len(default_equalize_pairs()) == 52 and ("Catholic_priest", "nun") in default_equalize_pairs()
    specific = default_gender_specific()
    assert len(specific) == 1441 and {"estrogen", "menopause", "womb", "feminism", "He"} <= set(specific)
    assert {"nurse", "doctor", "engineer", "homemaker"}.isdisjoint(specific)
    license_text = (DEBIASWE_FILES["definitional"].parent / "LICENSE").read_text()
    assert "MIT License" in license_text and "Copyright (c) 2016 Tolga" in license_text
    with pytest.raises(WordListError, match="unknown word lists 'mine'"):
        default_gender_specific("mine")


def test_project_lists():
    assert default_definitional_pairs("project") is DEFAULT_DEFINITIONAL_PAIRS
    pairs = default_equalize_pairs("project")
    words = [w for pair in pairs for w in pair]
    assert len(words) == len(set(words)), "a word in two equalize pairs would be equalised twice"
    specific = set(default_gender_specific("project"))
    assert set(words) <= specific
    assert {w for pair in DEFAULT_DEFINITIONAL_PAIRS for w in pair} <= specific
    assert {"nurse", "doctor", "engineer", "homemaker", "person"}.isdisjoint(specific)
    assert {"womb", "feminism"}.isdisjoint(specific)  # Robust04's female topic words these lists neutralise


# --------------------------------------------------------------------------- like with like (Tables 2-3)


def _zero_direction(debiaser, kv):
    from gsr.lexicon import GenderDirection

    debiaser.fit(kv)
    debiaser.direction_ = GenderDirection(np.zeros(kv.vector_size), 0.0)
    return debiaser


@pytest.mark.parametrize(
    "debiaser",
    [
        lambda kv: _zero_direction(StrongDebias(), kv),
        lambda kv: _zero_direction(HardDebias(equalize_pairs=[]), kv),
        lambda kv: HardDebias(gender_specific=list(kv.index_to_key), equalize_pairs=[]).fit(
            kv
        ),  # nothing to neutralise
    ],
)
def test_debiasing_that_removes_nothing_changes_no_vector_and_no_run(debiaser):
    """The regular systems retrieve with unit_normalised vectors, so a debiasing that removes nothing gives the very
    same vectors, bit for bit, and so the same runs and neural inputs."""
    from gsr.documents.stats import DocumentStats
    from gsr.text.analyzer import Analyzer
    from retrievers.neural.inputs import build_ranking_data
    from retrievers.vector_average import VectorAverageRetriever

    kv = _random_kv(9)
    regular = unit_normalised(kv)
    debiased = debiaser(kv).transform(kv)
    assert regular.vectors.dtype == np.float32 and np.array_equal(regular.vectors, debiased.vectors)
    rng = np.random.default_rng(3)
    words = [w for w in kv.index_to_key if w.isalpha() and len(w) > 2]
    docs = {f"d{i}": " ".join(rng.choice(words, 12)) for i in range(40)}
    queries = {f"q{i}": " ".join(rng.choice(words, 2)) for i in range(6)}
    analyzer = Analyzer(frozenset())
    stats = DocumentStats.build(docs.items(), analyzer, n_jobs=1)
    for weighting in ("add", "si"):
        runs = [
            VectorAverageRetriever(v, stats, weighting, analyzer).search(queries, k=10) for v in (regular, debiased)
        ]
        assert runs[0] == runs[1]
    candidates = {q: [(d, 1.0) for d in sorted(docs)[:10]] for q in queries}
    qrels = {q: {"d0": 1} for q in queries}
    inputs = [
        build_ranking_data(queries, docs, candidates, qrels, v, depth=10, tokenize=analyzer.tokens).digest()
        for v in (regular, debiased)
    ]
    assert inputs[0] == inputs[1]


def test_unit_normalised_is_the_first_step_of_debiasing():
    kv = _random_kv(10)
    unit = unit_normalised(kv, chunk_rows=7)
    assert np.array_equal(unit.vectors, unit_normalised(kv).vectors)
    _check_unit_rows(kv, unit)
    assert np.allclose(unit.vectors, _unit(kv.vectors), atol=1e-7)
    assert unit.index_to_key == kv.index_to_key


def test_project_gender_specific_has_appendix_b():
    if not PAPER.exists():
        pytest.skip(f"the GSR paper is not available at {PAPER}")
    text = PAPER.read_text(encoding="utf-8").split("## Appendix B", 1)[1]
    lists = re.findall(r"with (?:male|female) entities:\s*\n\s*\n(.+)", text)
    assert len(lists) == 2
    appendix = {w.strip().rstrip(".") for line in lists for w in line.split(",")}
    assert len(appendix) >= 150  # 170 distinct words in the published appendix
    assert appendix - set(default_gender_specific("project")) == set()


def test_debiaswe_formats_load():
    assert len(load_word_list(_debiaswe("gender_specific_full.json"))) == 1441
    assert ("Catholic_priest", "nun") in load_pair_list(_debiaswe("equalize_pairs.json"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["she", "he"', ":1: invalid JSON (Expecting ',' delimiter at column 13)"),
        ('{"she": 1}', "expected a JSON list of words, found dict"),
        ('["she", ["queen", "king"]]', "item 2 is not a word: ['queen', 'king']"),
        ('["she", ""]', "item 2 is not a word: ''"),
    ],
)
def test_load_word_list_malformed(tmp_path, text, expected):
    path = tmp_path / "words.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(WordListError) as info:
        load_word_list(path)
    assert str(info.value).startswith(f"{path}:") and expected in str(info.value)
    with pytest.raises(WordListError, match=re.escape(str(path))):
        HardDebias(gender_specific=path).fit(_random_kv())


# --------------------------------------------------------------------------- command line


def _args(*argv):
    return configure_parser(argparse.ArgumentParser(prog="gsr debias")).parse_args(list(argv))


@pytest.mark.parametrize("name", ["debiased.bin", "debiased.txt"])
def test_cli_round_trip(tmp_path, caplog, name):
    source = tmp_path / "embedding.txt"
    kv = _random_kv(6)
    kv.save_word2vec_format(str(source))
    out = tmp_path / "sub" / name
    with caplog.at_level(logging.INFO, logger="gsr.cli"):
        assert run(_args("--embedding", str(source), "--out", str(out))) == 0
    written = load_embedding(out)
    expected = HardDebias().fit_transform(load_embedding(source))
    assert written.index_to_key == expected.index_to_key
    assert np.allclose(written.vectors, expected.vectors, atol=1e-6)
    err = caplog.text
    assert f"{len(kv.index_to_key):,} words x {DIM} dims" in err
    report = HardDebias().fit(kv).report(kv)
    assert f"neutralised {report.n_neutralised:,} words" in err and f"wrote {out}" in err
    assert f"equalised {len(report.equalized)} pairs" in err and len(report.equalized) > 10
    assert "gender-specific words in no case form" in err or "gender-specific words in the vocabulary only" in err
    # no staging file left behind; beside the output, what it was debiased from (gsr score notes it when measuring)
    assert sorted(p.name for p in out.parent.iterdir()) == sorted([name, name + ".debias.json"])


def test_cli_project_lists(tmp_path):
    source = tmp_path / "embedding.txt"
    kv = _random_kv(11)
    kv.save_word2vec_format(str(source))
    out = tmp_path / "project.txt"
    assert run(_args("--embedding", str(source), "--lists", "project", "--out", str(out))) == 0
    expected = HardDebias(lists="project").fit_transform(load_embedding(source))
    assert np.allclose(load_embedding(out).vectors, expected.vectors, atol=1e-6)
    assert not np.allclose(expected.vectors, HardDebias().fit_transform(load_embedding(source)).vectors, atol=1e-3)
    assert _args("--out", str(out)).lists == "debiaswe"


def test_cli_strong_and_custom_lists(tmp_path, caplog):
    source = tmp_path / "embedding.txt"
    _random_kv(7).save_word2vec_format(str(source))
    definitional = tmp_path / "definitional.json"
    definitional.write_text(json.dumps([["she", "he"], ["woman", "man"], ["girl", "boy"]]), encoding="utf-8")
    out = tmp_path / "strong.txt"
    with caplog.at_level(logging.INFO, logger="gsr.cli"):
        assert (
            run(
                _args(
                    "--embedding",
                    str(source),
                    "--method",
                    "strong",
                    "--definitional",
                    str(definitional),
                    "--out",
                    str(out),
                )
            )
            == 0
        )
    debiaser = StrongDebias(definitional_pairs=definitional).fit(load_embedding(source))
    _check_strong(load_embedding(source), load_embedding(out), debiaser)
    assert "(strong)" in caplog.text


def test_cli_defaults(tmp_path):
    defaults = _args("--out", str(tmp_path / "out.txt"))
    assert (defaults.embedding, defaults.method) == ("glove-6b-50d", "regular")


# --------------------------------------------------------------------------- refusals


def _file(folder: Path, name: str, text: str) -> Path:
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def _debias_cli(folder: Path, *argv: str):
    """`gsr debias` on a random embedding written to FOLDER/embedding.txt, output FOLDER/out.txt unless given."""
    _random_kv(8).save_word2vec_format(str(folder / "embedding.txt"))
    if "--out" not in argv:
        argv = (*argv, "--out", str(folder / "out.txt"))
    return run(_args("--embedding", str(folder / "embedding.txt"), *argv))


def _transform_unfitted(folder):
    HardDebias().transform(_random_kv(4))


def _transform_other_dimension(folder):
    HardDebias().fit(_random_kv(4)).transform(_keyed(["she", "he"], np.ones((2, DIM + 1))))


# (the call, in a temporary folder; the error; the start of its message, where "{dir}" is the folder)
REFUSED = {
    "transform-before-fit": (_transform_unfitted, NotFittedError, ""),
    "transform-other-dimension": (
        _transform_other_dimension,
        DebiasError,
        f"the embedding has {DIM + 1}-dimensional vectors but the gender direction was fitted on {DIM} dimensions",
    ),
    "definitional-word-missing": (
        lambda folder: HardDebias().fit(_keyed(["she", "he", "her", "his"], np.eye(4, DIM))),
        EmbeddingError,
        "definitional word(s) missing from the embedding: woman, man, girl, "
        "boy, mother, father, daughter, son, gal, guy, female, male, herself, himself, Mary, "
        "John",
    ),
    "pairs-in-code-not-a-pair": (
        lambda folder: HardDebias(equalize_pairs=[("queen", "king"), ("aunt",)]).fit(_random_kv()),
        WordListError,
        "equalize_pairs: item 2 is not a pair of words",
    ),
    "words-in-code-not-a-word": (
        lambda folder: HardDebias(gender_specific=[3]).fit(_random_kv()),
        WordListError,
        "gender_specific: item 1 is not a word: 3",
    ),
    "word-list-file-missing": (
        lambda folder: load_word_list(folder / "absent.json"),
        WordListError,
        "{dir}/absent.json: no such file",
    ),
    "pair-list-file-missing": (
        lambda folder: load_pair_list(folder / "absent.json"),
        WordListError,
        "{dir}/absent.json: no such file",
    ),
    "equalize-file-missing": (
        lambda folder: HardDebias(equalize_pairs=str(folder / "absent.json")).fit(_random_kv()),
        WordListError,
        "{dir}/absent.json: no such file",
    ),
    "pair-list-file-not-a-pair": (
        lambda folder: load_pair_list(_file(folder, "pairs.json", '[["queen", "king"], ["aunt"]]')),
        WordListError,
        "{dir}/pairs.json: item 2 is not a pair",
    ),
    "cli-gender-specific-invalid-json": (
        lambda folder: _debias_cli(folder, "--gender-specific", str(_file(folder, "specific.json", '["she", '))),
        WordListError,
        "{dir}/specific.json:1: invalid JSON",
    ),
    "cli-kv-output": (
        lambda folder: _debias_cli(folder, "--out", str(folder / "out.kv")),
        DebiasError,
        "{dir}/out.kv: --out writes word2vec files; name it .bin (binary) or .txt (text)",
    ),
    "cli-embedding-missing": (
        lambda folder: run(_args("--embedding", str(folder / "absent.txt"), "--out", str(folder / "out.txt"))),
        EmbeddingError,
        "{dir}/absent.txt: no such embedding file",
    ),
    "cli-strong-with-equalize": (
        lambda folder: _debias_cli(
            folder, "--method", "strong", "--equalize", str(_file(folder, "pairs.json", '[["she", "he"]]'))
        ),
        DebiasError,
        "--equalize apply to --method regular only",
    ),
}


@pytest.mark.parametrize("call, error, message", REFUSED.values(), ids=REFUSED.keys())
def test_refused(call, error, message, tmp_path):
    with pytest.raises(error) as info:
        call(tmp_path)
    assert str(info.value).startswith(message.replace("{dir}", str(tmp_path)))
    assert not (tmp_path / "out.txt").exists() and not (tmp_path / "out.kv").exists()
    assert issubclass(error, ValueError)  # bad input, which the CLI reports in one line


def test_equalize_pairs_are_read_as_female_male_by_gender_not_position():
    """Issue 27.14: debiaswe's equalize pairs are male-first but for two; each word is labelled by its gender."""
    from debias.words import default_equalize_pairs, female_first

    listed = default_equalize_pairs("debiaswe")
    oriented = dict(female_first(listed))
    assert oriented["wives"] == "husbands" and oriented["ex_girlfriend"] == "ex_boyfriend"  # given female-first
    assert oriented["she"] == "he" and oriented["convent"] == "monastery"  # male-first; unknown words: the majority
    assert female_first(default_equalize_pairs("project")) == default_equalize_pairs("project")  # already female-first


def test_the_encoder_probe_labels_each_text_by_its_word_gender():
    """An encoder whose first dimension is exactly the text's gender (+1 female, -1 male) lets the probe tell every
    held-out pair apart: accuracy 1.0 before debiasing (the two female-first debiaswe pairs read as male gave less)."""
    from debias.sent_debias import EncoderDebias
    from debias.words import default_definitional_pairs, default_equalize_pairs, female_first

    pairs = female_first(default_equalize_pairs("debiaswe")) + list(default_definitional_pairs("debiaswe"))
    female = {f.lower().replace("_", " ") for f, _ in pairs}

    def encode(texts):
        rows = []
        for text in texts:
            rng = np.random.default_rng(sum(map(ord, text)))
            is_female = any(f" {word} " in f" {text.lower().rstrip('.')} " for word in female)
            rows.append(np.concatenate(([1.0 if is_female else -1.0], 0.01 * rng.standard_normal(7))))
        return np.array(rows)

    report = EncoderDebias("regular", unit=False).fit(encode).report(encode)
    assert report.probe_pairs > 30 and report.probe_before == 1.0


def test_measuring_with_a_debiased_copy_says_so_in_one_line(tmp_path, caplog):
    """Issue 27.17: `gsr debias` records what it debiased beside its output; measuring GSR with that file notes that
    Eq. 1's direction is estimated again from what debiasing left."""
    import logging

    from experiments.cli import main
    from gsr.lexicon_cache import cached_lexicon, debiasing_record
    from tests.support.toy_collection import write_toy

    folder = write_toy(tmp_path / "toy")
    out = tmp_path / "debiased.txt"
    assert main(["-q", "debias", "--embedding", str(folder / "vectors.txt"), "--out", str(out)]) == 0
    assert debiasing_record(out) == {"source": str(folder / "vectors.txt"), "method": "regular", "lists": "debiaswe"}
    assert debiasing_record(folder / "vectors.txt") is None
    with caplog.at_level(logging.INFO, logger="gsr.lexicon"):
        cached_lexicon(out)
    (line,) = [r.getMessage() for r in caplog.records if "debiased copy" in r.getMessage()]
    assert f"a regular-debiased copy of {folder / 'vectors.txt'}" in line and "estimated again" in line
    # the record is an output too: never overwritten without --overwrite
    out.unlink()
    assert main(["-q", "debias", "--embedding", str(folder / "vectors.txt"), "--out", str(out)]) == 2


def test_the_summary_counts_case_only_misses_apart():
    """Issue 28.10: 'He' missing where 'he' is there is not the same as a word in no case form."""
    from types import SimpleNamespace

    from debias.command import summary

    report = SimpleNamespace(
        method="regular",
        n_words=3,
        dimensions=2,
        explained_variance=0.5,
        n_neutralised=1,
        equalized=[],
        missing_gender_specific=["He", "She", "ex_girlfriend"],
        missing_equalize=[],
    )
    text = summary(report, "toy", {"he": 0, "she": 1, "nurse": 2})
    assert "only in another case (2; the list is matched as written, as debiaswe does): He, She" in text
    assert "in no case form (1): ex_girlfriend" in text
