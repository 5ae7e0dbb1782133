"""Issue 35, item 3: texts are tokenised with compatibility forms folded (NFKC: fullwidth, ligatures), queries and
documents alike; a GSR measured on fewer than half of its topics says so, and with fewer than three queries left is
undefined; qrels none of whose relevant documents is in the collection are an error."""

from __future__ import annotations

import pytest

from gsr import GSR, GenderLexicon, InputError
from gsr.lexicon import vocabulary_key
from gsr.text.analyzer import Analyzer, read_stopwords

FULLWIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(ord("a"), ord("z") + 1)})


def fullwidth(text: str) -> str:
    """`text` with its ASCII lowercase letters written fullwidth (U+FF41…), as East Asian input methods type them."""
    return text.translate(FULLWIDTH)


def test_fullwidth_and_ligature_forms_are_the_words_they_stand_for():
    analyzer = Analyzer(stopwords=frozenset())
    assert analyzer.tokens(f"{fullwidth('nurse')} \ufb01reman \u017fhe Straße") == ["nurse", "fireman", "she", "straße"]
    assert vocabulary_key({"nurse"}, fullwidth("nurse")) == "nurse"


def test_a_stop_list_written_fullwidth_drops_the_words(tmp_path):
    path = tmp_path / "stop.txt"
    path.write_text(fullwidth("the") + "\n", encoding="utf-8")
    assert read_stopwords(path) == {"the"}
    assert Analyzer(read_stopwords(path)).tokens("the nurse") == ["nurse"]


def test_gsr_of_fullwidth_topics_and_documents_is_that_of_ascii(tiny_lexicon):
    documents = {"d1": "she is a nurse", "d2": "he is an electrician", "d3": "the hospital", "d4": "tools and wire"}
    queries = {"q1": "nurse care", "q2": "electrician tools", "q3": "hospital", "q4": "wire"}
    run = {q: [(d, 4.0 - i) for i, d in enumerate(("d1", "d2", "d3", "d4"))] for q in queries}
    run["q2"], run["q4"] = list(reversed(run["q2"])), list(reversed(run["q4"]))
    measure = GSR(tiny_lexicon, resamples=0, cutoff=None)
    plain = measure.evaluate(run, queries, documents, n_jobs=1).system
    folded = measure.evaluate(
        run, {q: fullwidth(t) for q, t in queries.items()}, {d: fullwidth(t) for d, t in documents.items()}, n_jobs=1
    ).system
    assert plain.n_queries == folded.n_queries == 4
    assert folded.gsr == pytest.approx(plain.gsr)


def _coverage(measurable: int, topics: int):
    """GSR of `topics` topics of which only the first `measurable` have a word in the lexicon."""
    words = ["nurse", "care", "tools", "wire", "kind", "city", "rain", "bridge"]
    lexicon = GenderLexicon.from_mapping({"she": 0.5, "he": -0.5, **{w: 0.1 * i - 0.3 for i, w in enumerate(words)}})
    documents = {"d1": "she care", "d2": "he tools"}
    queries = {f"q{i}": words[i] if i < measurable else "unknown" for i in range(topics)}
    run = {q: [("d1", 2.0), ("d2", 1.0)] if i % 2 else [("d2", 2.0), ("d1", 1.0)] for i, q in enumerate(queries)}
    return GSR(lexicon, resamples=0, cutoff=None).evaluate(run, queries, documents, n_jobs=1).system


def test_a_gsr_from_fewer_than_half_the_topics_carries_a_warning():
    result = _coverage(3, 8)
    assert result.gsr is not None
    assert result.coverage_warning == "GSR from 3 of 8 topics (5 query_out_of_vocabulary)"
    assert result.to_dict()["warning"] == result.coverage_warning
    assert _coverage(4, 8).coverage_warning is None and "warning" not in _coverage(4, 8).to_dict()


def test_two_queries_left_of_many_topics_give_no_gsr():
    result = _coverage(2, 8)
    assert result.gsr is None
    assert result.error == (
        "GSR is undefined: GSR from 2 of 8 topics (6 query_out_of_vocabulary); fewer than 3 queries measured out "
        "of 8 topics"
    )
    assert _coverage(2, 2).gsr is not None  # two topics given, both measured: a slope of the topics asked for


def test_qrels_judging_no_document_of_the_collection_are_an_error(tiny_lexicon):
    documents = {"d1": "she is a nurse", "d2": "he is an electrician"}
    queries = {"q1": "nurse", "q2": "electrician"}
    run = {"q1": [("d1", 2.0), ("d2", 1.0)], "q2": [("d2", 2.0), ("d1", 1.0)]}
    qrels = {"q1": {"x1": 1}, "q2": {"x2": 1, "d1": 0}}
    with pytest.raises(InputError, match=r"qrels: none of the 2 relevant judged documents is in the documents"):
        GSR(tiny_lexicon, resamples=0).evaluate(run, queries, documents, qrels, n_jobs=1)
