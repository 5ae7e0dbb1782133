"""The vectorised scoring of whole runs (measure_run, GenderedDocuments, RankedRows) against a naive recomputation
of the definitions, document by document, on random collections, queries and runs with ties."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from gsr import Analyzer, DocumentStats, GenderLexicon, GSRError, measure_run
from gsr.equations import list_genderedness_many, tied_rank_weights, tied_rank_weights_many
from gsr.ranked import RankedRows

# words sharing a Snowball stem (nurse/nurses/nursing, …), gendered words, words the lexicon lacks, a stop word
WORDS = [
    "nurse",
    "nurses",
    "nursing",
    "care",
    "caring",
    "cares",
    "tools",
    "tool",
    "wire",
    "wired",
    "man",
    "men",
    "woman",
    "women",
    "she",
    "he",
    "hospital",
    "hospitals",
    "zebra",
    "quokka",
    "the",
]
UNKNOWN = {"zebra", "quokka"}


def _lexicon(seed: int) -> GenderLexicon:
    rng = random.Random(seed)
    return GenderLexicon.from_mapping({w: rng.uniform(-0.5, 0.5) for w in WORDS if w not in UNKNOWN and w != "the"})


def _case(seed: int):
    """A random collection, queries and a run with tied scores, unknown documents and empty lists."""
    rng = random.Random(seed)
    docs = {f"D{i}": " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9))) for i in range(80)}
    queries = {f"q{i}": " ".join(rng.sample(WORDS, rng.randint(1, 3))) for i in range(30)}
    queries["q_unknown"] = "zebra quokka"
    queries["q_empty"] = "the"
    run = {}
    for qid in list(queries)[:-3] + ["q_not_in_topics"]:
        depth = rng.choice([0, 1, 2, 5, 20, 40])
        picked = rng.sample(sorted(docs), depth) + (["NOT_A_DOC"] if rng.random() < 0.2 else [])
        scores = sorted((float(rng.randint(0, 6)) for _ in picked), reverse=True)  # many ties
        run[qid] = list(zip(picked, scores))
    return docs, queries, run


def _naive_weights(scores: list[float]) -> list[float]:
    """Eq. 2's discounts, tied positions sharing the mean of theirs, written out position by position."""
    weights = []
    start = 0
    while start < len(scores):
        end = start
        while end < len(scores) and scores[end] == scores[start]:
            end += 1
        shared = sum(1 / math.log2(r + 2) for r in range(start, end)) / (end - start)
        weights.extend([shared] * (end - start))
        start = end
    return weights


def _naive_point(query: str, ranked, docs, lexicon, analyzer):
    """(g(q), g_q(L), unmeasured documents) recomputed from the texts: the original scripts' way."""
    terms = analyzer.tokens(query)
    known = [lexicon.get(t) for t in terms if lexicon.get(t) is not None]
    g_query = sum(known) / len(known) if known else None
    banned = {analyzer.inflection_class(t) for t in terms}
    values = []
    for docid, _ in ranked:
        kept = [
            lexicon.get(t)
            for t in analyzer.tokens(docs.get(docid, ""))
            if analyzer.inflection_class(t) not in banned and lexicon.get(t) is not None
        ]
        values.append(sum(kept) / len(kept) if docid in docs and kept else None)
    weights = _naive_weights([s for _, s in ranked])
    measured = [(w, v) for w, v in zip(weights, values) if v is not None]
    g_list = sum(w * v for w, v in measured) / sum(w for w, _ in measured) if measured else None
    return g_query, g_list, sum(v is None for v in values)


@pytest.mark.parametrize("seed", range(12))
def test_measure_run_equals_the_naive_recomputation(seed):
    analyzer = Analyzer()
    docs, queries, run = _case(seed)
    lexicon = _lexicon(seed)
    gendered = DocumentStats.build(docs.items(), analyzer, n_jobs=1).gendered(lexicon, analyzer)
    result = measure_run(run, queries, gendered)
    assert [p.qid for p in result.per_query] == sorted(queries)
    xs, ys = [], []
    for point in result.per_query:
        g_query, g_list, unmeasured = _naive_point(queries[point.qid], run.get(point.qid, []), docs, lexicon, analyzer)
        for got, want in ((point.g_query, g_query), (point.g_list, g_list)):
            assert (got is None) == (want is None)
            if want is not None:
                assert got == pytest.approx(want, abs=1e-12, rel=0)
        assert point.n_docs == len(run.get(point.qid, []))
        assert point.n_unmeasured == unmeasured
        if g_query is not None and g_list is not None:
            xs.append(g_query)
            ys.append(g_list)
    assert result.unknown_docids == sum(d not in docs for q in queries for d, _ in run.get(q, []))
    assert result.skipped["not_in_topics"] == ["q_not_in_topics"]
    assert "q_unknown" in result.skipped["query_out_of_vocabulary"]
    if len(xs) >= 2 and np.ptp(xs) > 0:
        x, y = np.array(xs), np.array(ys)
        slope = np.mean((x - x.mean()) * (y - y.mean())) / np.mean((x - x.mean()) ** 2)
        assert result.gsr == pytest.approx(slope, abs=1e-12, rel=0)


@pytest.mark.parametrize("chunk_pairs", [1, 3, 17, 1 << 18])
def test_scoring_many_queries_equals_one_query_at_a_time(chunk_pairs):
    analyzer = Analyzer()
    docs, queries, _ = _case(5)
    gendered = DocumentStats.build(docs.items(), analyzer, n_jobs=1).gendered(_lexicon(5), analyzer)
    rng = np.random.default_rng(0)
    terms = [analyzer.tokens(queries[q]) for q in sorted(queries)]
    lists = [rng.choice(len(docs), size=rng.integers(0, 30), replace=True) for _ in terms]  # repeats allowed
    offsets = np.concatenate([[0], np.cumsum([len(rows) for rows in lists])])
    many = gendered.query_document_genderedness_many(terms, np.concatenate(lists), offsets, chunk_pairs=chunk_pairs)
    one = np.concatenate([gendered.query_document_genderedness(t, rows) for t, rows in zip(terms, lists)])
    np.testing.assert_allclose(many, one, rtol=0, atol=1e-12)
    assert np.array_equal(np.isnan(many), np.isnan(one))


def test_query_term_columns_grow_without_changing_earlier_answers():
    analyzer = Analyzer()
    docs, queries, run = _case(3)
    stats = DocumentStats.build(docs.items(), analyzer, n_jobs=1)
    lexicon = _lexicon(3)
    fresh = {q: measure_run(run, queries, stats.gendered(lexicon, analyzer), query_ids=[q]) for q in sorted(queries)}
    reused = stats.gendered(lexicon, analyzer)  # one object asked for one query after another, then for all
    for qid in sorted(queries):
        assert measure_run(run, queries, reused, query_ids=[qid]).per_query == fresh[qid].per_query
    everything = measure_run(run, queries, reused)
    assert everything.per_query == [fresh[q].per_query[0] for q in sorted(queries)]


def test_a_placed_run_scores_as_the_run_itself():
    analyzer = Analyzer()
    docs, queries, run = _case(8)
    stats = DocumentStats.build(docs.items(), analyzer, n_jobs=1)
    placed = RankedRows.place(run, stats)
    assert placed.unknown == {
        q: next(d for d, _ in ranked if d not in docs)
        for q, ranked in run.items()
        if any(d not in docs for d, _ in ranked)
    }
    for seed in (1, 2):  # one placement, two lexicons
        gendered = stats.gendered(_lexicon(seed), analyzer)
        assert measure_run(placed, queries, gendered).to_dict() == measure_run(run, queries, gendered).to_dict()
    other = DocumentStats.build(docs.items(), analyzer, n_jobs=1)
    with pytest.raises(ValueError, match="another collection"):
        measure_run(placed, queries, other.gendered(_lexicon(1), analyzer))


def test_strict_names_the_first_unknown_document_of_the_first_query_in_order():
    analyzer = Analyzer()
    docs = {"a": "man tools", "b": "woman care"}
    gendered = DocumentStats.build(docs.items(), analyzer, n_jobs=1).gendered(_lexicon(0), analyzer)
    run = {"q2": [("x2", 2.0), ("y2", 1.0)], "q1": [("a", 3.0), ("x1", 2.0), ("y1", 1.0)]}
    with pytest.raises(ValueError, match="document x1 retrieved for query q1 is not"):
        measure_run(run, {"q1": "nurse", "q2": "nurse"}, gendered, strict=True)


@pytest.mark.parametrize(
    "lists", [[[3.0, 3.0, 1.0], [], [2.0], [5.0, 5.0, 5.0, 5.0], [1.0, 2.0, 2.0]], [[], []], [[7.0]]]
)
def test_eq2_weights_and_lists_of_many_lists_equal_one_list_at_a_time(lists):
    offsets = np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype(np.int64)
    flat = np.array([s for x in lists for s in x], dtype=np.float64)
    weights = tied_rank_weights_many(flat, offsets)
    for i, scores in enumerate(lists):
        part = weights[offsets[i] : offsets[i + 1]]
        assert part == pytest.approx(_naive_weights(scores), abs=1e-15)
        assert part == pytest.approx(tied_rank_weights(scores), abs=1e-15)
    values = np.linspace(-0.3, 0.4, len(flat))
    if len(values) > 1:
        values[1] = np.nan
    g_lists = list_genderedness_many(values, weights, offsets)
    for i in range(len(lists)):
        v, w = values[offsets[i] : offsets[i + 1]], weights[offsets[i] : offsets[i + 1]]
        known = ~np.isnan(v)
        if known.any():
            assert g_lists[i] == pytest.approx(float(np.sum(w[known] * v[known]) / np.sum(w[known])), abs=1e-15)
        else:
            assert math.isnan(g_lists[i])


def test_too_few_measurable_queries_give_no_slope_but_every_point():
    analyzer = Analyzer()
    docs = {"a": "man tools", "b": "woman care"}
    gendered = DocumentStats.build(docs.items(), analyzer, n_jobs=1).gendered(_lexicon(0), analyzer)
    result = measure_run({"q1": [("a", 1.0)]}, {"q1": "nurse"}, gendered)
    assert result.gsr is None and "at least two" in result.error and len(result.per_query) == 1
    with pytest.raises(GSRError):
        from gsr.equations import gsr_slope

        gsr_slope(*result.points())


def test_an_undefined_relative_gsr_says_why(tiny_lexicon):
    """Issue 28.10: the README's example prints relative GSR beside the reason it is undefined (toy1's perfect
    engine has a GSR of zero), never a bare None."""
    from gsr import GSR

    docs = {"a": "she care", "b": "he wire", "c": "care wire"}
    queries = {"q1": "nurse", "q2": "electrician"}
    run = {"q1": [("a", 2.0), ("b", 1.0)], "q2": [("b", 2.0), ("a", 1.0)]}
    without = GSR(tiny_lexicon, resamples=0).evaluate(run, queries, docs)
    assert without.relative is None and "needs qrels" in without.relative_undefined_because
    qrels = {"q1": {"c": 1}, "q2": {"c": 1}}  # the perfect engine ranks c alone for both: its GSR is zero
    report = GSR(tiny_lexicon, resamples=0).evaluate(run, queries, docs, qrels)
    assert report.relative is None and report.relative_undefined_because.startswith("relative GSR is undefined")
