"""The built-in demo collection: sizes, formats, determinism and the planted GSR directions."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from experiments.demo import DEMO_VERSION, DemoError, generate_demo
from gsr import GSR, DocumentStats, read_qrels, read_queries
from gsr.documents.opening import iter_documents
from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS
from gsr.text.analyzer import default_analyzer

DEFINITIONAL_WORDS = [w.lower() for pair in DEFAULT_DEFINITIONAL_PAIRS for w in pair]
SMALL = {"n_documents": 3_000, "n_queries": 60}


@pytest.fixture(scope="module")
def default_demo(tmp_path_factory, glove_lexicon):
    """The demo at its default size, generated once for this module, with its parsed contents."""
    folder = tmp_path_factory.mktemp("demo-default")
    files = generate_demo(folder, lexicon=glove_lexicon)
    documents = list(iter_documents(files.documents))
    stats = DocumentStats.build(documents, default_analyzer(), n_jobs=1)
    return files, documents, read_queries(files.topics), read_qrels(files.qrels), stats


def _bm25_run(stats: DocumentStats, queries: dict[str, str], k1: float = 0.9, b: float = 0.4, depth: int = 1000):
    """Okapi BM25 (Anserini's defaults) over the bag-of-words counts: the lexical ranker of the planted claim."""
    counts = stats.counts.tocsc().astype(np.float64)
    column = {term: j for j, term in enumerate(stats.vocabulary)}
    lengths = np.asarray(stats.counts.sum(axis=1)).ravel()
    n_docs = len(lengths)
    df = np.diff(counts.indptr)
    idf = np.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    norm = k1 * (1 - b + b * lengths / lengths.mean())
    analyzer = default_analyzer()
    run = {}
    for qid, text in queries.items():
        scores = np.zeros(n_docs)
        for term in analyzer.tokens(text):
            j = column.get(term)
            if j is None:
                continue
            rows = counts.indices[counts.indptr[j] : counts.indptr[j + 1]]
            tf = counts.data[counts.indptr[j] : counts.indptr[j + 1]]
            scores[rows] += idf[j] * tf * (k1 + 1) / (tf + norm[rows])
        top = np.argsort(-scores, kind="stable")[:depth]
        run[qid] = [(stats.docids[i], float(scores[i])) for i in top if scores[i] > 0]
    return run


def _mean_vector_run(stats: DocumentStats, queries: dict[str, str], kv, depth: int = 1000):
    """Cosine between the mean word vectors of query and document: the embedding ranker (w2v_add)."""
    vectors = np.zeros((len(stats.vocabulary), kv.vector_size))
    for j, term in enumerate(stats.vocabulary):
        if term in kv.key_to_index:
            vectors[j] = kv[term]
    documents = stats.counts @ vectors
    documents /= np.linalg.norm(documents, axis=1, keepdims=True)
    analyzer = default_analyzer()
    run = {}
    for qid, text in queries.items():
        query = np.sum([kv[t] for t in analyzer.tokens(text)], axis=0)
        scores = documents @ (query / np.linalg.norm(query))
        top = np.argsort(-scores, kind="stable")[:depth]
        run[qid] = [(stats.docids[i], float(scores[i])) for i in top]
    return run


def _mean_average_precision(run, qrels) -> float:
    precisions = []
    for qid, judged in qrels.items():
        relevant = {d for d, grade in judged.items() if grade > 0}
        hits, total = 0, 0.0
        for rank, (docid, _) in enumerate(run.get(qid, []), start=1):
            if docid in relevant:
                hits += 1
                total += hits / rank
        precisions.append(total / len(relevant))
    return float(np.mean(precisions))


@pytest.mark.slow
def test_default_size_formats_and_gender_words(default_demo, glove_lexicon):
    files, documents, queries, qrels, stats = default_demo
    lines = files.documents.read_text(encoding="utf-8").splitlines()
    assert all(set(json.loads(line)) == {"id", "contents"} for line in lines[:100])
    docids = [d for d, _ in documents]
    assert len(docids) >= 20_000 and len(set(docids)) == len(docids)
    assert 200 <= len(queries) <= 300
    analyzer = default_analyzer()
    assert all(2 <= len(analyzer.tokens(text)) <= 4 for text in queries.values())
    assert all(t in glove_lexicon for text in queries.values() for t in analyzer.tokens(text))
    assert all(term in glove_lexicon for term in stats.vocabulary)  # every word is in the default embedding

    assert set(qrels) == set(queries)
    grades = Counter(g for judged in qrels.values() for g in judged.values())
    assert set(grades) == {0, 1, 2}
    assert all(sum(g > 0 for g in judged.values()) >= 1 for judged in qrels.values())
    assert set().union(*(judged.keys() for judged in qrels.values())) <= set(docids)
    qrels_rows = files.qrels.read_text(encoding="utf-8").splitlines()
    assert all(row.split()[1] == "0" and len(row.split()) == 4 for row in qrels_rows)

    word_counts = np.asarray(stats.counts.sum(axis=0)).ravel()
    column = {term: j for j, term in enumerate(stats.vocabulary)}
    counts = {w: int(word_counts[column[w]]) if w in column else 0 for w in DEFINITIONAL_WORDS}
    assert len(counts) == 20 and min(counts.values()) >= 50, counts


@pytest.mark.slow
def test_planted_gsr_directions_and_effectiveness(default_demo, glove_lexicon):
    """The planted outcome (experiments/demo.py's docstring): GSR(BM25) > GSR(perfect) > GSR(random) ≈ 0, and BM25
    neither fails nor is perfect."""
    _, _, queries, qrels, stats = default_demo
    measure = GSR(glove_lexicon)
    gendered = measure.documents(stats)
    run = _bm25_run(stats, queries)
    report = measure.evaluate(run, queries, gendered, qrels)
    bm25, perfect, random = report.system.gsr, report.perfect.gsr, report.random.gsr
    assert report.system.n_queries == len(queries)
    assert bm25 > perfect + 0.03 and perfect > random + 0.1, (bm25, perfect, random)
    assert abs(random) < 0.05  # a random engine's GSR is about 0
    assert 0.2 < _mean_average_precision(run, qrels) < 0.6  # MAP of a lexical ranker: neither failing nor perfect


@pytest.mark.slow
def test_embedding_ranker_also_reinforces_more_than_the_perfect_engine(default_demo, glove_lexicon, glove):
    _, _, queries, qrels, stats = default_demo
    measure = GSR(glove_lexicon)
    run = _mean_vector_run(stats, queries, glove)
    report = measure.evaluate(run, queries, measure.documents(stats), qrels)
    assert report.system.gsr > report.perfect.gsr + 0.03, (report.system.gsr, report.perfect.gsr)
    assert _mean_average_precision(run, qrels) > 0.1


@pytest.mark.slow
def test_same_seed_gives_byte_identical_files_and_another_seed_differs(tmp_path, glove_lexicon):
    outputs = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        folder = tmp_path / name
        folder.mkdir()
        files = generate_demo(folder, seed=seed, lexicon=glove_lexicon, **SMALL)
        outputs.append([files.documents.read_bytes(), files.topics.read_bytes(), files.qrels.read_bytes()])
    assert outputs[0] == outputs[1]
    assert outputs[0][0] != outputs[2][0] and outputs[0][2] != outputs[2][2]
    assert DEMO_VERSION  # the cache key the caller stores the files under


@pytest.mark.slow
def test_sizes_follow_the_parameters(tmp_path, glove_lexicon):
    files = generate_demo(tmp_path, seed=1, lexicon=glove_lexicon, n_documents=2_500, n_queries=40)
    assert sum(1 for _ in iter_documents(files.documents)) == 2_500
    queries = read_queries(files.topics)
    assert len(queries) == 40
    assert set(read_qrels(files.qrels)) == set(queries)


@pytest.mark.parametrize(
    "sizes, message",
    [
        ({"n_documents": 100, "n_queries": 60}, "n_documents=100"),
        ({"n_documents": 3_000, "n_queries": 2}, "n_queries=2"),
        ({"n_documents": 3_000, "n_queries": 100_000}, "n_queries=100000"),
    ],
)
@pytest.mark.slow
def test_impossible_sizes_are_refused(tmp_path, glove_lexicon, sizes, message):
    with pytest.raises(DemoError, match=message):
        generate_demo(tmp_path, lexicon=glove_lexicon, **sizes)
    assert not any(tmp_path.iterdir())


def test_missing_folder_is_refused(tmp_path, glove_lexicon):
    with pytest.raises(ValueError, match="no such folder"):
        generate_demo(tmp_path / "absent", lexicon=glove_lexicon, **SMALL)


@pytest.mark.usefixtures("glove_lexicon")  # the vocabulary still comes from the built-in embedding
def test_a_lexicon_missing_the_vocabulary_is_refused_by_name(tmp_path):
    from gsr import GenderLexicon

    tiny = GenderLexicon.from_mapping({"nurse": 0.2, "she": 0.1}, name="tiny")
    with pytest.raises(DemoError, match="lexicon 'tiny' knows only 1 of"):
        generate_demo(tmp_path, lexicon=tiny, **SMALL)
