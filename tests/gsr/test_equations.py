"""The paper's equations on hand-computed examples, and the fast path against the definitions."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from gsr import (
    GENDERED_KEEP_WORDS,
    GSR,
    Analyzer,
    DocumentStats,
    GenderLexicon,
    GSRError,
    document_genderedness,
    gsr_slope,
    list_genderedness,
    measure_run,
    query_genderedness,
    rank_discounts,
    relative_gsr,
    tied_rank_weights,
)
from gsr.baselines import cut_run, perfect_run, random_run, relevant_counts
from gsr.text.analyzer import stopword_list, stopwords_of

LOG3 = math.log2(3)


def test_tokens_follow_the_paper_and_keep_gendered_pronouns():
    analyzer = Analyzer()
    text = "She is the Nurse; he's an X-ray tech (covid19), Mr. Smith & Mrs. Jones — e.g. U.S.A. a_b"
    assert analyzer.tokens(text) == ["she", "nurse", "he", "ray", "tech", "mr", "smith", "mrs", "jones"]


def test_custom_stop_list_still_keeps_gendered_words(tmp_path):
    from gsr import read_stopwords

    path = tmp_path / "stop.txt"
    path.write_text("the\nshe\nhis # comment\ntech\n")
    analyzer = Analyzer(read_stopwords(path))
    assert analyzer.tokens("the tech she his nurse") == ["she", "his", "nurse"]


@pytest.mark.parametrize(
    "terms, expected",
    [
        (["nurse", "care", "unknownword"], (0.25 + 0.1) / 2),  # the mean over the terms the lexicon knows
        (["unknownword"], math.nan),  # none known: undefined
        ([], math.nan),
    ],
    ids=["known-terms", "none-known", "no-terms"],
)
def test_query_genderedness_is_the_mean_over_known_terms(tiny_lexicon, terms, expected):
    assert query_genderedness(terms, tiny_lexicon) == pytest.approx(expected, nan_ok=True)


@pytest.mark.parametrize(
    "exclusion, expected",
    [
        ("exact", (0.2 + 0.15 + 0.1 + 0.3) / 4),  # only 'nurse' itself goes
        ("lemma", (0.15 + 0.1 + 0.3) / 3),  # 'nurses' (lemma nurse) goes too; 'nursing' is its own noun
        ("stem", (0.1 + 0.3) / 2),  # nurses, nursing, nurse share the stem 'nurs': care and woman remain
    ],
)
def test_document_genderedness_drops_query_terms_and_inflections(tiny_lexicon, exclusion, expected):
    analyzer = Analyzer(exclusion=exclusion)
    doc = analyzer.tokens("Nurses and nursing: the nurse gives care to the woman.")
    g = document_genderedness(doc, tiny_lexicon, excluded=["nurse"], inflection_class=analyzer.inflection_class)
    assert g == pytest.approx(expected)
    assert document_genderedness(doc, tiny_lexicon) == pytest.approx((0.2 + 0.15 + 0.25 + 0.1 + 0.3) / 5)


EXCLUSION_LEXICON = {
    "women": 0.4,
    "woman": 0.3,
    "children": 0.2,
    "child": 0.1,
    "organ": -0.1,
    "organization": -0.2,
    "fertile": 0.05,
    "fertilization": 0.15,
    "labor": 0.01,
}


@pytest.mark.parametrize(
    "exclusion, remaining",
    [
        # the lemma joins irregular plurals and keeps derivations apart: organ and fertile stay
        ("lemma", ["organ", "fertile", "labor"]),
        # Snowball (Porter2) stems miss women/woman and children/child and take fertile with fertilization (fertil);
        # organization stems to organiz, so organ stays (Porter's original stemmer would take it: organ)
        ("stem", ["women", "children", "organ", "labor"]),
        ("exact", ["women", "children", "organ", "fertile", "labor"]),
    ],
)
def test_query_term_exclusion_modes_in_gendered_documents(exclusion, remaining):
    """What GenderedDocuments (the path every GSR number takes) leaves out of g_q(d) for the query's terms."""
    lexicon = GenderLexicon.from_mapping(EXCLUSION_LEXICON)
    analyzer = Analyzer(exclusion=exclusion)
    stats = DocumentStats.build({"d": " ".join(EXCLUSION_LEXICON)}.items(), analyzer, n_jobs=1)
    gendered = stats.gendered(lexicon, analyzer)
    value = gendered.query_document_genderedness(
        analyzer.tokens("woman child organization fertilization"), np.array([0])
    )
    assert value[0] == pytest.approx(sum(EXCLUSION_LEXICON[w] for w in remaining) / len(remaining))
    both_ways = gendered.query_document_genderedness(["women", "children"], np.array([0]))
    if exclusion == "lemma":  # a query with the plural leaves out the singular as well
        assert both_ways[0] == pytest.approx((-0.1 - 0.2 + 0.05 + 0.15 + 0.01) / 5)


def test_exclusion_is_a_choice_of_the_api_and_checked():
    lexicon = GenderLexicon.from_mapping(EXCLUSION_LEXICON)
    assert GSR(lexicon).analyzer.exclusion == "lemma"
    assert GSR(lexicon, exclusion="stem").analyzer.exclusion == "stem"
    assert GSR(lexicon, Analyzer(frozenset({"labor"})), exclusion="exact").analyzer.stopwords == {"labor"}
    with pytest.raises(ValueError, match="exclusion must be one of exact, lemma, stem"):
        Analyzer(exclusion="wordnet")


def test_default_stop_list_holds_function_words_only():
    analyzer = Analyzer()
    assert analyzer.tokens("The fire and the bill of a system, in his interest, at the mill") == [
        "fire",
        "bill",
        "system",
        "his",
        "interest",
        "mill",
    ]
    assert GENDERED_KEEP_WORDS <= {"he", "she", "him", "her", "his", "hers", "himself", "herself", "mr", "mrs", "ms"}
    assert GENDERED_KEEP_WORDS.isdisjoint(analyzer.stopwords)
    assert len(analyzer.stopwords) == 179 - 8  # NLTK's list without he, she, him, her, his, hers, himself, herself
    sklearn = Analyzer(stopword_list("sklearn"))
    assert sklearn.tokens("the fire and the bill of a system") == []  # why it is no longer the default
    assert stopwords_of("sklearn") == sklearn.stopwords and stopwords_of(None) == analyzer.stopwords


def test_nltk_stop_list_is_read_through_nltk_and_the_copy_is_the_same(nltk_data, monkeypatch, caplog, own_cache):
    import zipfile

    from gsr.text import analyzer as text
    from gsr.text import corpora

    with zipfile.ZipFile(nltk_data / "corpora" / "stopwords.zip") as archive:
        listed = frozenset(archive.read("stopwords/english").decode("utf-8").split())
    assert len(listed) == 179
    text.nltk_stopwords.cache_clear()
    assert text.nltk_stopwords() == listed
    monkeypatch.setattr(text, "nltk_words", lambda corpus, fileid: None)
    monkeypatch.setattr(corpora, "_warned", set())
    text.nltk_stopwords.cache_clear()
    with caplog.at_level("WARNING", logger="gsr.corpora"):
        assert text.nltk_stopwords() == listed  # the bundled copy of the same list
    assert "python -m nltk.downloader stopwords" in caplog.text
    text.nltk_stopwords.cache_clear()


def test_rank_discounts_are_eq2_weights():
    assert rank_discounts(3) == pytest.approx([1.0, 1 / LOG3, 0.5])


def test_tied_documents_share_the_mean_weight_of_their_positions():
    weights = tied_rank_weights([2, 1, 1, 0])
    shared = (1 / LOG3 + 0.5) / 2
    assert weights == pytest.approx([1.0, shared, shared, 1 / math.log2(5)])
    assert weights.sum() == pytest.approx(rank_discounts(4).sum())
    assert tied_rank_weights([1, 1]) == pytest.approx([(1 + 1 / LOG3) / 2] * 2)


def test_a_tie_crossing_the_cutoff_shares_the_weight_of_the_positions_up_to_k(tiny_lexicon):
    """Issue 27.13: a tie at positions p..q with p ≤ K < q gives each document (Σ_{j=p..K} w_j)/(q − p + 1), so no
    document id decides which tied document counts; W stays the top K's."""
    docs = {"a": "care", "b": "man", "c": "woman", "d": "she", "e": "he"}
    gendered = DocumentStats.build(docs.items(), n_jobs=1).gendered(tiny_lexicon)
    # a first; b, c, d tied at positions 2..4; e after them. K = 3 crosses the tie (p = 2, K = 3, q = 4).
    run = {"q": [("a", 3.0), ("d", 2.0), ("c", 2.0), ("b", 2.0), ("e", 1.0)]}
    shared = (1 / LOG3 + 1 / 2) / 3  # (w_2 + w_3) / 3
    by_hand = (1 * 0.1 + shared * (0.4 + 0.3 - 0.2)) / (1 + 3 * shared)  # care, then she, woman, man
    # on paper: shared = (0.63093 + 0.5) / 3 = 0.376977; (0.1 + 0.376977 × 0.5) / (1 + 1.130930) = 0.288489 / 2.130930
    assert by_hand == pytest.approx(0.135381, abs=1e-6)
    cut = measure_run(run, {"q": "nurse"}, gendered, cutoff=3).per_query[0]
    assert cut.g_list == pytest.approx(by_hand) and cut.n_docs == 4  # the whole tie is read, e is not
    reordered = {"q": [("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 2.0), ("e", 1.0)]}
    assert measure_run(reordered, {"q": "nurse"}, gendered, cutoff=3).per_query[0].g_list == pytest.approx(by_hand)
    # the same through a run cut beforehand (gsr.baselines.cut_run keeps the tie) and per-query K
    pre_cut = cut_run(run, {"q": 3}, keep_ties=True)
    assert pre_cut == {"q": run["q"][:4]} and cut_run(run, 3) == {"q": run["q"][:3]}
    assert measure_run(pre_cut, {"q": "nurse"}, gendered, cutoff={"q": 3}).per_query[0].g_list == pytest.approx(by_hand)
    # without tie sharing, the cut is plain trec_eval order: ids decide
    plain = measure_run(run, {"q": "nurse"}, gendered, cutoff=3, tie_scores=False).per_query[0]
    assert plain.n_docs == 3 and plain.g_list == pytest.approx(list_genderedness([0.1, 0.4, 0.3]))


def test_two_documents_tied_at_rank_one_with_k_one_count_half_each(tiny_lexicon):
    """Issue 27.13's second example: K = 1 and two documents tied at rank 1 give the same g_q(L) in either id
    order: each weighs w_1 / 2, so g_q(L) is their plain mean."""
    docs = {"x": "man", "y": "she"}
    gendered = DocumentStats.build(docs.items(), n_jobs=1).gendered(tiny_lexicon)
    for ranked in ([("x", 1.0), ("y", 1.0)], [("y", 1.0), ("x", 1.0)]):
        value = measure_run({"q": ranked}, {"q": "nurse"}, gendered, cutoff=1).per_query[0].g_list
        assert value == pytest.approx((-0.2 + 0.4) / 2)


def test_gsr_with_a_cutoff_does_not_depend_on_the_ids_of_tied_documents(tiny_lexicon):
    """GSR.evaluate at an integer K: renaming documents (which reorders ties in trec_eval order) changes nothing."""
    docs = {"m1": "man tools", "m2": "he", "f1": "woman", "f2": "she care", "n1": "wire care"}
    queries = {"qm": "electrician", "qf": "nurse", "qn": "hospital"}
    qrels = {"qm": {"m1": 1}, "qf": {"f1": 1}, "qn": {"n1": 1}}
    run = {
        "qm": [("m1", 2.0), ("f1", 1.0), ("m2", 1.0), ("f2", 1.0)],
        "qf": [("f2", 1.0), ("m2", 1.0), ("f1", 0.5)],
        "qn": [("n1", 1.0), ("m1", 1.0), ("f1", 1.0)],
    }
    renamed = {"m1": "z1", "m2": "a2", "f1": "b1", "f2": "y2", "n1": "n1"}

    def rename(ranked):
        return sorted(((renamed[d], s) for d, s in ranked), key=lambda p: (-p[1], p[0]))

    measure = GSR(tiny_lexicon, cutoff=2, random_seed=1, resamples=0)
    first = measure.evaluate(run, queries, docs, qrels).system
    second = measure.evaluate(
        {q: rename(r) for q, r in run.items()},
        queries,
        {renamed[d]: t for d, t in docs.items()},
        {q: {renamed[d]: g for d, g in j.items()} for q, j in qrels.items()},
    ).system
    assert [p.g_list for p in first.per_query] == pytest.approx([p.g_list for p in second.per_query])
    assert first.gsr == pytest.approx(second.gsr)


def test_paper_electrician_example(tiny_lexicon):
    """§3.2.3: q = electrician, L = [man doc, woman doc]; the man document, ranked first, weighs more."""
    docs = {"d1": "The man is an electrician.", "d2": "The woman is an electrician."}
    stats = DocumentStats.build(docs.items(), n_jobs=1)
    gendered = stats.gendered(tiny_lexicon)
    result = measure_run({"q": [("d1", 2.0), ("d2", 1.0)]}, {"q": "electrician"}, gendered)
    expected = (1.0 * -0.2 + (1 / LOG3) * 0.3) / (1 + 1 / LOG3)
    assert result.per_query[0].g_list == pytest.approx(expected)
    assert result.per_query[0].g_list == pytest.approx(-0.0065736, abs=1e-7)  # worked out by hand
    assert result.per_query[0].g_query == pytest.approx(-0.1)
    assert list_genderedness([-0.2, 0.3]) == pytest.approx(expected)


def test_list_genderedness_leaves_unmeasurable_documents_out_but_keeps_ranks():
    value = list_genderedness([0.2, math.nan, 0.4])
    assert value == pytest.approx((0.2 * 1 + 0.4 * 0.5) / 1.5)
    assert math.isnan(list_genderedness([math.nan]))


def test_gsr_slope_is_the_least_squares_slope():
    rng = np.random.default_rng(3)
    x = rng.normal(size=50)
    y = 0.7 * x + rng.normal(scale=0.1, size=50)
    assert gsr_slope(x, y) == pytest.approx(np.polyfit(x, y, 1)[0])
    x_with_gap = np.append(x, np.nan)
    assert gsr_slope(x_with_gap, np.append(y, 1.0)) == pytest.approx(np.polyfit(x, y, 1)[0])


def test_gsr_slope_hand_example():
    # x = [-1, 0, 1], y = [0, 1, 4]: mean y = 5/3, cov = (5/3 + 0 + 7/3) / 3 = 4/3, var = 2/3
    assert gsr_slope([-1, 0, 1], [0, 1, 4]) == pytest.approx(2.0)


@pytest.mark.parametrize(
    "x, y, message",
    [([0.1], [0.2], "at least two"), ([0.1, 0.1, 0.1], [0.2, 0.3, 0.4], "zero variance")],
    ids=["one-point", "constant-g(q)"],
)
def test_gsr_slope_refuses_undefined_cases(x, y, message):
    with pytest.raises(GSRError, match=message):
        gsr_slope(x, y)


# relative GSR (§4.2.2) = 100 · (GSR − GSR_perfect) / |GSR_perfect|
@pytest.mark.parametrize(
    "system, perfect, floor, expected",
    [
        (0.16, 0.085, 0.0, 100 * (0.16 - 0.085) / 0.085),  # 88.235 %
        (0.085, 0.085, 0.0, 0.0),
        (-0.2, -0.1, 0.0, -100.0),  # more negative than perfect: below it
        (0.1, 2e-13, 1e-13, 100 * (0.1 - 2e-13) / 2e-13),  # above the noise floor: defined
    ],
    ids=["above-perfect", "equal", "below-a-negative-perfect", "just-above-the-noise-floor"],
)
def test_relative_gsr(system, perfect, floor, expected):
    assert relative_gsr(system, perfect, noise_floor=floor) == pytest.approx(expected)


@pytest.mark.parametrize(
    "perfect, floor, message",
    [(0.0, 0.0, "zero up to rounding"), (3.5e-18, 1e-13, r"zero up to rounding \(\|3.5e-18\| ≤ 1e-13\)")],
    ids=["zero", "below-the-noise-floor"],
)
def test_relative_gsr_of_a_zero_perfect_gsr_is_undefined(perfect, floor, message):
    with pytest.raises(GSRError, match=message):
        relative_gsr(0.1, perfect, noise_floor=floor)


def _random_collection(seed: int, words: list[str], n_docs: int = 60):
    rng = random.Random(seed)
    docs = {}
    for i in range(n_docs):
        n = rng.randint(0, 12)
        docs[f"D{i}"] = " ".join(rng.choice(words) for _ in range(n)) + rng.choice(["", ".", " the 42 a"])
    return docs


def test_fast_statistics_match_the_definitions(tiny_lexicon):
    analyzer = Analyzer()
    words = ["man", "woman", "nurse", "nurses", "nursing", "care", "tools", "wire", "zebra", "the", "she", "he"]
    docs = _random_collection(7, words)
    queries = {"q1": "nurse care", "q2": "tools", "q3": "zebra", "q4": "Nursing women"}
    rng = random.Random(11)
    run = {q: [(d, float(100 - r)) for r, d in enumerate(rng.sample(sorted(docs), 25))] for q in queries}
    for n_jobs, shard in ((1, 7), (2, 9)):
        stats = DocumentStats.build(docs.items(), analyzer, n_jobs=n_jobs, shard_size=shard)
        result = measure_run(run, queries, stats.gendered(tiny_lexicon, analyzer))
        for point in result.per_query:
            q_terms = analyzer.tokens(queries[point.qid])
            doc_values = [
                document_genderedness(analyzer.tokens(docs[d]), tiny_lexicon, q_terms, analyzer.inflection_class)
                for d, _ in run[point.qid]
            ]
            expected = list_genderedness(doc_values)
            if math.isnan(expected):
                assert point.g_list is None
            else:
                assert point.g_list == pytest.approx(expected, abs=1e-12)
            g_q = query_genderedness(q_terms, tiny_lexicon)
            assert (point.g_query is None) == math.isnan(g_q)


def test_statistics_save_and_load_round_trip(tmp_path, tiny_lexicon):
    docs = _random_collection(2, ["man", "woman", "care", "wire", "nurses"], 30)
    stats = DocumentStats.build(docs.items(), n_jobs=1)
    stats.save(tmp_path / "stats")
    loaded = DocumentStats.load(tmp_path / "stats")
    assert loaded.docids == stats.docids and loaded.vocabulary == stats.vocabulary
    assert (loaded.counts != stats.counts).nnz == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_duplicate_document_ids_are_refused():
    with pytest.raises(ValueError, match="D1 appears more than once"):
        DocumentStats.build([("D1", "man"), ("D1", "woman")], n_jobs=1)


def test_skipped_queries_and_unknown_documents_are_reported(tiny_lexicon):
    docs = {"a": "man tools", "b": "woman care", "c": "electrician", "d": "zebra"}
    gendered = DocumentStats.build(docs.items(), n_jobs=1).gendered(tiny_lexicon)
    queries = {"q1": "nurse", "q2": "electrician", "q3": "zebra", "q4": "woman", "q5": "man"}
    run = {
        "q1": [("a", 3.0), ("b", 2.0), ("missing", 1.0)],
        "q2": [("c", 1.0)],  # only the query term itself: unmeasurable
        "q3": [("a", 1.0)],  # query out of vocabulary
        "q5": [("b", 1.0), ("d", 0.5)],
        "qX": [("a", 1.0)],  # not in the topics
    }
    result = measure_run(run, queries, gendered)
    assert result.skipped == {
        "no_measurable_document": ["q2"],
        "query_out_of_vocabulary": ["q3"],
        "nothing_retrieved": ["q4"],
        "not_in_topics": ["qX"],
    }
    assert result.unknown_docids == 1
    assert result.unmeasurable_docs == 2  # c for q2, d for q5
    assert result.n_queries == 2
    with pytest.raises(ValueError, match="missing retrieved for query q1 is not in the collection"):
        measure_run(run, queries, gendered, strict=True)


def test_perfect_random_and_top_k():
    qrels = {"q1": {"a": 2, "b": 1, "c": 0, "d": 1}, "q2": {"a": 0}}
    assert relevant_counts(qrels) == {"q1": 3, "q2": 0}
    assert perfect_run(qrels) == {"q1": [("a", 2.0), ("b", 1.0), ("d", 1.0)]}
    docids = [f"D{i}" for i in range(100)]
    first, again, other = (random_run(qrels, docids, seed) for seed in (1, 1, 2))
    assert first == again and first != other
    assert len(first["q1"]) == 3 and len(set(d for d, _ in first["q1"])) == 3 and "q2" not in first
    run = {"q1": [("x", 3.0), ("y", 2.0), ("z", 1.0), ("w", 0.5)], "q2": [("x", 1.0)]}
    assert cut_run(run, relevant_counts(qrels)) == {"q1": run["q1"][:3], "q2": []}
    assert cut_run(run, 1) == {"q1": run["q1"][:1], "q2": run["q2"]}


def test_gsr_evaluate_with_qrels_reports_baselines(tiny_lexicon):
    docs = {"m1": "man tools wire", "m2": "he tools", "f1": "woman care", "f2": "she care hospital", "n1": "wire care"}
    queries = {"qm": "electrician", "qf": "nurse", "qn": "hospital"}
    qrels = {"qm": {"m1": 1, "m2": 1}, "qf": {"f1": 2, "f2": 1}, "qn": {"n1": 1, "f1": 0}}
    # A counter-stereotypical run: female documents for the male query and vice versa.
    run = {"qm": [("f1", 2.0), ("f2", 1.0), ("m1", 0.5)], "qf": [("m1", 2.0), ("m2", 1.0)], "qn": [("n1", 1.0)]}
    measure = GSR(tiny_lexicon, random_seed=5)
    report = measure.evaluate(run, queries, docs, qrels)
    assert report.perfect.gsr > 0 > report.system.gsr
    assert report.relative == pytest.approx(relative_gsr(report.system.gsr, report.perfect.gsr))
    out = report.to_dict()
    assert set(out) >= {"gsr", "n_queries", "n_skipped", "per_query", "perfect", "random", "relative"}
    assert [q["qid"] for q in out["per_query"]] == ["qf", "qm", "qn"]
    # top-K with K = 2 relevant for qm: m1 at rank 3 is cut away.
    qm = next(q for q in report.system.per_query if q.qid == "qm")
    expected = list_genderedness([(0.3 + 0.1) / 2, (0.4 + 0.1 + 0.05) / 3])
    assert qm.g_list == pytest.approx(expected)


def test_gsr_evaluate_without_qrels_measures_whole_lists(tiny_lexicon):
    docs = {"a": "man", "b": "woman", "c": "care"}
    report = GSR(tiny_lexicon).evaluate(
        {"q1": [("a", 1.0), ("b", 0.5)], "q2": [("c", 1.0)]}, {"q1": "tools", "q2": "nurse"}, docs
    )
    assert report.perfect is None and "perfect" not in report.to_dict()
    assert report.system.per_query[0].g_list == pytest.approx(list_genderedness([-0.2, 0.3]))


def test_lexicon_case_fallback():
    lexicon = GenderLexicon.from_mapping({"Mary": 0.5, "NASA": -0.1, "john": -0.4})
    assert lexicon.get("mary") == 0.5 and lexicon.get("nasa") == -0.1 and lexicon.get("John") == -0.4
    assert lexicon.get("nobody") is None and "nobody" not in lexicon


def test_document_statistics_of_a_file_are_cached(tmp_path, tiny_lexicon, monkeypatch):
    import json as _json

    from gsr.evaluate import cached_document_stats

    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(
            _json.dumps({"id": f"D{i}", "contents": t}) + "\n"
            for i, t in enumerate(["man tools", "woman care", "nurse"])
        )
    )
    first = cached_document_stats(docs, Analyzer(), n_jobs=1)
    with monkeypatch.context() as patch:
        patch.setattr(DocumentStats, "build", lambda *a, **k: pytest.fail("cache not reused"))
        again = cached_document_stats(docs, Analyzer(), n_jobs=1)
    assert again.docids == first.docids and (again.counts != first.counts).nnz == 0
    other = cached_document_stats(docs, Analyzer(frozenset({"man"})), n_jobs=1)  # other stop list, other entry
    assert "man" not in other.vocabulary


COMPOSED, DECOMPOSED = "caf\u00e9", "cafe\u0301"  # "café" as one code point, and as e + combining acute accent


def test_nfc_and_nfd_spellings_are_one_word(tiny_lexicon):
    """Issue 27.9: every text is tokenised and looked up in NFC, so both spellings of "café" get one g(w)."""
    assert Analyzer().tokens(f"le {DECOMPOSED} au lait") == Analyzer().tokens(f"le {COMPOSED} au lait")
    assert COMPOSED in Analyzer().tokens(DECOMPOSED)
    for stored, looked_up in ((COMPOSED, DECOMPOSED), (DECOMPOSED, COMPOSED)):
        lexicon = GenderLexicon.from_mapping({stored: 0.25, "man": -0.2})
        assert lexicon.get(looked_up) == 0.25 and lexicon.get(looked_up.upper()) == 0.25
    lexicon = GenderLexicon.from_mapping({DECOMPOSED: 0.25, "man": -0.2, "nurse": 0.1})  # a decomposed vocabulary
    values = []
    for text in (f"{COMPOSED} man", f"{DECOMPOSED} man"):
        gendered = DocumentStats.build({"d": text}.items(), n_jobs=1).gendered(lexicon)
        values.append(measure_run({"q": [("d", 1.0)]}, {"q": "nurse"}, gendered).per_query[0].g_list)
    assert values == pytest.approx([(0.25 - 0.2) / 2] * 2)


def test_a_stop_list_in_either_form_drops_both_spellings(tmp_path):
    stop = tmp_path / "stop.txt"
    stop.write_text(f"{DECOMPOSED}\n", encoding="utf-8")
    analyzer = Analyzer(stopwords=stopwords_of(stop))
    assert analyzer.tokens(f"{COMPOSED} {DECOMPOSED} nurse") == ["nurse"]
