"""The tables that spare every process lemminflect, nltk and gensim: the lemma table agrees with lemminflect on its
whole dictionary, NLTK's corpora are read as nltk reads them, and a cached lexicon is the one computed from the
embedding."""

from __future__ import annotations

import numpy as np
import pytest

from gsr.text.lemmas import LemmaTable, chosen_lemma, lemma_table


def test_the_lemma_table_is_lemminflects_dictionary_word_for_word():
    from lemminflect import getAllLemmas
    from lemminflect.core.Lemmatizer import Lemmatizer

    lemmatizer = Lemmatizer()
    words = sorted(w for w in {*lemmatizer._getLemmaDict(), *lemmatizer._getOverridesDict()} if w == w.lower())
    table = lemma_table()
    expected = [chosen_lemma(getAllLemmas(w), w) for w in words]
    assert table.lemmas_of(words) == expected
    assert [table.lemma(w) for w in words[::97]] == expected[::97]
    unknown = ["qzxv", "gsrbench", "electricianship"]
    assert table.lemmas_of(unknown) == unknown and [table.lemma(w) for w in unknown] == unknown


@pytest.mark.parametrize(
    "lemma, forms",
    [("woman", {"woman", "women"}), ("child", {"child", "children"}), ("see", {"see", "seeing", "seen", "sees"})],
)
def test_a_lemmas_members_are_every_word_whose_lemma_it_is(lemma, forms):
    from lemminflect import getAllLemmas

    [members] = lemma_table().members([lemma])
    assert forms <= set(members) and members[0] == lemma
    assert all(chosen_lemma(getAllLemmas(m), m) == lemma for m in members)


def test_a_lemma_that_is_not_its_own_lemma_is_not_its_own_member():
    table = LemmaTable(np.array(["saw", "women"]), np.array(["see", "woman"]))
    assert table.members(["saw", "woman"]) == [[], ["woman", "women"]]


def test_nltk_corpora_are_read_as_nltk_reads_them(nltk_data):
    nltk = pytest.importorskip("nltk")
    from gsr.text.corpora import nltk_words

    for corpus, fileid in (("stopwords", "english"), ("names", "female.txt"), ("names", "male.txt")):
        assert nltk_words(corpus, fileid) == list(getattr(nltk.corpus, corpus).words(fileid))


def test_a_cached_lexicon_is_the_embeddings_own_and_is_read_back_from_the_cache(tmp_path, own_cache):
    from gsr.lexicon import GenderLexicon
    from gsr.lexicon_cache import cached_lexicon
    from gsr.vectors import load_embedding

    path = tmp_path / "vectors.txt"
    rng = np.random.default_rng(0)
    words = [
        "she",
        "he",
        "her",
        "his",
        "woman",
        "man",
        "Mary",
        "John",
        "herself",
        "himself",
        "daughter",
        "son",
        "mother",
        "father",
        "gal",
        "guy",
        "girl",
        "boy",
        "female",
        "male",
        "nurse",
        "wire",
    ]
    path.write_text(
        f"{len(words)} 4\n" + "".join(f"{w} {' '.join(f'{v:.4f}' for v in rng.normal(size=4))}\n" for w in words),
        encoding="utf-8",
    )
    direct = GenderLexicon.from_embedding(load_embedding(path))
    first, again = cached_lexicon(path), cached_lexicon(path)
    for lexicon in (first, again):
        assert lexicon.values(words).tolist() == pytest.approx(direct.values(words).tolist(), abs=1e-12)
        assert np.allclose(lexicon.direction.vector, direct.direction.vector)
        assert lexicon.direction.explained_variance == pytest.approx(direct.direction.explained_variance)
    assert len(list((own_cache / "lexicons").iterdir())) == 1
