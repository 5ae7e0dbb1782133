"""FaiRR and NFaiRR (Rekabsaz, Kopeinik & Schedl 2021): hand-worked values, the port of the reference code in
tests/support/fairr_reference.py on randomised runs and on a slice of the reference's own sample runs, the
documented departures from that code, the cache of word counts, `gsr bias` and ir_measures."""

from __future__ import annotations

import json
import math
import pickle
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from gsr.documents.opening import open_documents
from gsr.fairness.equations import BiasError
from gsr.fairness.evaluate import BiasMeasures, BiasSettings
from gsr.fairness.fairr import (
    FaiRRError,
    document_neutrality,
    fairr,
    ideal_fairr,
    nfairr,
    position_weights,
    ranker_agnostic_fairr,
)
from gsr.fairness.fairr_runs import FaiRRMeasures, FaiRRSettings
from gsr.fairness.neutrality import GroupWordsError, group_words, read_group_words, text_tokens
from gsr.io.fairness_sensitive import REPRESENTATIVE_WORDS_FILE
from tests.support import fairr_reference as reference

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "fairr_sample"
LOG2_3 = math.log2(3)

# hand-worked documents under the paper's list, τ = 1, shares (½, ½); (female, male) words in [brackets]
DOCS = {
    "balanced": "she and he met",  # [1, 1]: Σ = 2 > τ, p = (½, ½): ω = 1 − 0 − 0 = 1
    "two_to_one": "she told her father",  # [2, 1]: p = (⅔, ⅓): ω = 1 − ⅙ − ⅙ = ⅔
    "male_only": "he and his son",  # [0, 3]: p = (0, 1): ω = 1 − ½ − ½ = 0
    "one_word": "the mother",  # [1, 0]: Σ = 1 ≤ τ: ω = 1
    "no_word": "a report on rainfall",  # [0, 0]: ω = 1
    "punctuation": "He said she, he",  # whitespace: 'she,' is no word: [0, 2], ω = 0; words: [1, 2], ω = ⅔
}
OMEGA = {"balanced": 1.0, "two_to_one": 2 / 3, "male_only": 0.0, "one_word": 1.0, "no_word": 1.0, "punctuation": 0.0}


def _run_file(path: Path, run: dict[str, list[str]], tag: str = "t") -> Path:
    """A TREC run with `run`'s lists in rank order (scores falling from 100, no ties)."""
    lines = [f"{q} Q0 {d} {r} {100 - r} {tag}\n" for q, ranked in run.items() for r, d in enumerate(ranked, 1)]
    path.write_text("".join(lines), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------------------------- by hand


def test_document_neutrality_by_hand():
    words = group_words()
    counts = [[sum(t in words.words[g] for t in text_tokens(text)) for g in ("f", "m")] for text in DOCS.values()]
    assert counts == [[1, 1], [2, 1], [0, 3], [1, 0], [0, 0], [0, 2]]
    assert document_neutrality(counts).tolist() == pytest.approx(list(OMEGA.values()), abs=1e-15)
    # τ = 0: one word is enough to be measured ([1, 0] → p = (1, 0) → ω = 0); τ = 3: [2, 1] (Σ = 3) is neutral
    assert document_neutrality([1, 0], threshold=0) == 0.0 and document_neutrality([2, 1], threshold=3) == 1.0
    # unequal shares J = (0.3, 0.7): [0, 3] → 1 − 0.3 − 0.3 = 0.4; [3, 0] → 1 − 0.7 − 0.7 = −0.4 (as the reference)
    assert document_neutrality([[0, 3], [3, 0]], {"f": 0.3, "m": 0.7}).tolist() == pytest.approx([0.4, -0.4])


def test_tokenisations():
    assert text_tokens(DOCS["punctuation"]) == ["he", "said", "she,", "he"]
    assert text_tokens(DOCS["punctuation"], "words") == ["he", "said", "she", "he"]
    assert text_tokens("he\tsaid\nshe\u00a0left") == ["he", "said", "she", "left"]  # any whitespace (see the docs)


def test_fairr_nfairr_and_the_ranker_agnostic_value_by_hand():
    omega = [2 / 3, 0.0, 1.0]  # two_to_one, male_only, one_word, ranks 1-3
    p2, p3 = 1 / LOG2_3, 0.5
    assert position_weights(3).tolist() == pytest.approx([1.0, p2, p3], rel=1e-15)
    assert fairr(omega, 1) == pytest.approx(2 / 3) and fairr(omega, 2) == pytest.approx(2 / 3)
    assert fairr(omega, 3) == pytest.approx(2 / 3 + p3)  # 7/6
    assert fairr(omega, 50) == fairr(omega, 3)  # a short list: summed over the documents it has
    ideal = 1.0 + (2 / 3) * p2  # sorted: [1, ⅔, 0]
    assert ideal_fairr(omega, 2) == pytest.approx(ideal) and ideal_fairr(omega, 3) == pytest.approx(ideal)
    assert nfairr(fairr(omega, 3), ideal_fairr(omega, 3), 3) == pytest.approx((7 / 6) / ideal)  # 0.821238…
    assert round((7 / 6) / ideal, 6) == 0.821238
    assert ranker_agnostic_fairr(omega, 2) == pytest.approx((5 / 9) * (1 + p2))  # mean ω × (p1 + p2)
    assert ranker_agnostic_fairr(omega, 10) == pytest.approx((5 / 9) * (1 + p2 + p3))  # min(k, |S|) = 3 positions
    assert nfairr(0.0, 0.0, 3) is None and nfairr(0.5, 1e-20, 3) is None  # IFaiRR within rounding of 0


def test_runs_by_hand(tmp_path):
    run = {"q1": ["two_to_one", "male_only", "one_word"], "q2": ["male_only"]}
    settings = FaiRRSettings(cutoffs=[1, 3])
    result = FaiRRMeasures(DOCS, settings).evaluate(_run_file(tmp_path / "run.txt", run))
    q1, q2 = result.query_values("q1"), result.query_values("q2")
    ideal3 = 1.0 + (2 / 3) / LOG2_3
    assert q1["FaiRR@1"] == pytest.approx(2 / 3) and q1["NFaiRR@1"] == pytest.approx(2 / 3)
    assert q1["FaiRR@3"] == pytest.approx(7 / 6) and q1["NFaiRR@3"] == pytest.approx((7 / 6) / ideal3)
    assert q1["FaiRR_agnostic@1"] == pytest.approx(5 / 9) and q1["NFaiRR_agnostic@1"] == pytest.approx(5 / 9)
    # q2 holds one one-sided document: FaiRR 0, its ideal 0, so NFaiRR is undefined, never 0/0
    assert q2["FaiRR@3"] == 0.0 and q2["NFaiRR@3"] is None and q2["NFaiRR_agnostic@3"] is None
    assert result.skipped == {"zero_ideal_fairr": ["q2"]}
    assert result.measures()["FaiRR@3"] == pytest.approx((7 / 6 + 0.0) / 2)
    assert result.measures()["NFaiRR@3"] == pytest.approx((7 / 6) / ideal3)  # the mean over the defined query
    assert result.defined()["NFaiRR@3"] == 1 and result.settings["background"] == "the run itself"
    # a background run: q1's background set is {no_word, balanced, male_only} (ω 1, 1, 0)
    background = _run_file(tmp_path / "bg.txt", {"q1": ["no_word", "balanced", "male_only"], "q2": ["balanced"]})
    other = FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2])).evaluate(tmp_path / "run.txt", background)
    assert other.query_values("q1")["NFaiRR@2"] == pytest.approx((2 / 3) / (1 + 1 / LOG2_3))
    assert other.query_values("q2")["NFaiRR@2"] == 0.0  # FaiRR 0 over an ideal of 1
    assert other.settings["background"] == str(background)
    # background depth 1: only the background's first document ('no_word', ω 1) forms q1's set
    shallow = FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2], background_depth=1)).evaluate(
        tmp_path / "run.txt", background
    )
    assert shallow.query_values("q1")["NFaiRR@2"] == pytest.approx(2 / 3)
    # the 'words' tokens see 'she,' as she: ω(punctuation) = ⅔ instead of 0
    words = FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[1], tokens="words")).evaluate({"q": {"punctuation": 1.0}})
    assert words.query_values("q")["FaiRR@1"] == pytest.approx(2 / 3)
    assert (
        FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[1])).evaluate({"q": {"punctuation": 1}}).measures()["FaiRR@1"] == 0
    )


def test_measured_queries_the_run_does_not_answer_are_undefined():
    result = FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2])).evaluate({"q1": {"balanced": 1.0}}, query_ids=["q1", "q9"])
    assert result.query_values("q9") == dict.fromkeys(FaiRRSettings(cutoffs=[2]).names)
    assert result.skipped == {"empty_run": ["q9"]} and result.defined()["FaiRR@2"] == 1


def test_ties_are_broken_in_trec_eval_order():
    """Equal scores: document id descending, so 'one_word' (ω 1) comes before 'male_only' (ω 0)."""
    run = {"q": {"male_only": 1.0, "one_word": 1.0}}
    assert FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[1])).evaluate(run).measures()["FaiRR@1"] == 1.0


def test_documents_missing_from_the_collection(tmp_path):
    run = {"q1": {"balanced": 2.0, "gone": 1.0}}
    with pytest.raises(Exception, match=r"no document gone \(retrieved for query q1\)"):
        FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2])).evaluate(run)
    kept = FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2], missing="neutral")).evaluate(run)
    assert kept.measures()["FaiRR@2"] == pytest.approx(1 + 1 / LOG2_3)  # ω(gone) = 1, the reference's intent
    assert kept.settings["missing_documents"] == 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"threshold": -1}, "the neutrality threshold must be a number ≥ 0, not -1"),
        ({"cutoffs": [5, 0]}, "a FaiRR cut-off must be a positive integer, not 0"),
        ({"background_depth": 0}, "the background depth must be a positive integer, not 0"),
        ({"shares": {"f": 0.5, "m": 0.6}}, "the group shares must sum to 1"),
        ({"shares": {"f": 1.0}}, "the group shares need at least two groups"),
        ({"tokens": "chars"}, "tokens must be one of whitespace, words"),
        ({"missing": "skip"}, "missing must be one of error, neutral"),
    ],
)
def test_settings_are_checked(kwargs, message):
    with pytest.raises(FaiRRError, match=message.replace("(", r"\(")):
        FaiRRSettings(**kwargs)


def test_the_word_lists(tmp_path):
    words = read_group_words(REPRESENTATIVE_WORDS_FILE)
    assert words.sizes() == {"f": 163, "m": 163} and "retha" in words.words["f"]  # 'Retha,f', the last line
    assert group_words().source == "gender-representative" and group_words().words == words.words
    assert group_words("msmarco-gender").sizes() == {"f": 32, "m": 32}
    assert group_words("msmarco-gender", ("m", "f")).groups == ("m", "f")  # the shares' order
    with pytest.raises(GroupWordsError, match="msmarco-gender: a list of female and male words needs the groups f, m"):
        group_words("msmarco-gender", ("f", "n"))
    path = tmp_path / "words.txt"
    path.write_text("She,f\n\nhe , m\n", encoding="utf-8")
    assert read_group_words(path).words == {"f": frozenset({"she"}), "m": frozenset({"he"})}
    three = tmp_path / "three.txt"
    three.write_text("she,f\nhe,m\nthey,n\n", encoding="utf-8")
    assert read_group_words(three, ("f", "m", "n")).sizes() == {"f": 1, "m": 1, "n": 1}
    for text, message in (
        ("she,f\nhe\n", ":2: expected 'word,GROUP'"),
        ("she,f\nhe,x\n", ":2: unknown group 'x' (the groups are f, m"),
        ("she,f\nshe,m\n", ":2: 'she' is listed under groups f and m"),
        ("\n", ": no words in this file"),
    ):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(GroupWordsError, match=message.replace("(", r"\(")):
            read_group_words(path)


# ----------------------------------------------------------------------------------------------- the reference port


def _random_case(folder: Path, seed: int, documents: int = 300, queries: int = 40):
    """Documents of neutral and representative words (some capitalised, single spaces only, so the reference's
    split(' ') and split() agree), a run of 1-80 and a background run of 150-260 documents per query."""
    rng = random.Random(seed)
    gendered = ["she", "her", "mother", "Sister", "girls", "he", "HIS", "son", "father", "men", "boys", "madam"]
    plain = [f"w{i}" for i in range(40)] + ["report,", "she,", "data"]
    docs = {}
    for i in range(documents):
        share = rng.choice([0.0, 0.05, 0.2, 0.5])
        docs[f"d{i}"] = " ".join(rng.choice(gendered) if rng.random() < share else rng.choice(plain) for _ in range(20))
    ids = list(docs)
    run = {f"q{q}": rng.sample(ids, rng.randint(1, 80)) for q in range(queries)}
    background = {q: rng.sample(ids, rng.randint(150, 260)) for q in run}
    return docs, _run_file(folder / "run.txt", run), _run_file(folder / "background.txt", background)


def _reference(docs, run_path, background_path, threshold=1, shares=None, as_written=False, cutoffs=(5, 10, 20, 50)):
    neutrality = reference.DocumentNeutrality(REPRESENTATIVE_WORDS_FILE, threshold, shares)
    scores = reference.collection_neutrality(docs.items(), neutrality, as_written)
    metric = reference.FaiRRMetric(scores, reference.read_documentset_from_retrievalresults(background_path), cutoffs)
    ranked = metric.calc_FaiRR_retrievalresults(reference.read_retrievalresults_from_runfile(run_path))
    agnostic = metric.calc_FaiRR_rankeragnostic(metric.background_doc_set)
    return ranked, agnostic, metric


@pytest.mark.parametrize("seed, threshold, shares", [(1, 1, None), (2, 0, None), (3, 2, {"f": 0.3, "m": 0.7})])
def test_the_product_equals_the_reference_port_on_random_runs(tmp_path, seed, threshold, shares):
    docs, run_path, background_path = _random_case(tmp_path, seed)
    settings = FaiRRSettings(threshold=threshold, shares=shares or {"f": 0.5, "m": 0.5})
    result = FaiRRMeasures(docs, settings).evaluate(run_path, background_path)
    ranked, agnostic, metric = _reference(docs, run_path, background_path, threshold, shares)
    per_query = result.per_query()
    compared = 0
    for k in (5, 10, 20, 50):
        for qid, expected in ranked["metrics_perq"]["FaiRR"][k].items():
            assert per_query[qid][f"FaiRR@{k}"] == pytest.approx(expected, rel=1e-12, abs=1e-12)
            ideal = metric.IFaiRR_perq[k][qid]
            if ideal > 0:
                assert per_query[qid][f"NFaiRR@{k}"] == pytest.approx(expected / ideal, rel=1e-12)
                compared += 1
            else:  # the reference divides by 0; the product says undefined
                assert per_query[qid][f"NFaiRR@{k}"] is None
            # the background sets hold ≥ 150 documents, more than k: the ranker-agnostic values are the reference's
            assert per_query[qid][f"FaiRR_agnostic@{k}"] == pytest.approx(
                agnostic["metrics_perq"]["FaiRR"][k][qid], rel=1e-12
            )
        assert result.measures()[f"FaiRR@{k}"] == pytest.approx(ranked["metrics_avg"]["FaiRR"][k], rel=1e-12)
    assert compared > 100
    # the reference stores ω with six decimals ("%f"): its values then differ from the product's by < 1e-5
    written, _, _ = _reference(docs, run_path, background_path, threshold, shares, as_written=True)
    for k in (5, 50):
        assert result.measures()[f"FaiRR@{k}"] == pytest.approx(written["metrics_avg"]["FaiRR"][k], abs=1e-5)


def test_the_ranker_agnostic_value_of_a_set_smaller_than_k(tmp_path):
    """The reference sums p_i to k even for a set of fewer documents; the product to min(k, |S|) (the expected FaiRR
    of a random order of S): they differ by that factor, and the product's NFaiRR_agnostic stays ≤ 1."""
    docs = {"a": "she and he met", "b": "he and his son", "c": "the mother"}
    run_path = _run_file(tmp_path / "run.txt", {"q": ["a", "b", "c"]})
    result = FaiRRMeasures(docs, FaiRRSettings(cutoffs=[10])).evaluate(run_path)
    _, agnostic, _ = _reference(docs, run_path, run_path, cutoffs=(10,))
    factor = position_weights(3).sum() / position_weights(10).sum()
    assert result.query_values("q")["FaiRR_agnostic@10"] == pytest.approx(
        agnostic["metrics_perq"]["FaiRR"][10]["q"] * factor, rel=1e-12
    )
    assert agnostic["metrics_perq"]["NFaiRR"][10]["q"] > 1 >= result.query_values("q")["NFaiRR_agnostic@10"]


def _sample_texts() -> dict[str, str]:
    """A synthetic text for every passage of the sample slice (seeded by its id); the two passages BERT ties at ranks
    10-11 of query 148538 are made one fully male (ω 0), one neutral (ω 1), so the order of the tie shows."""
    words = ["she", "her", "mother", "he", "his", "father", "son", "daughter"] + [f"w{i}" for i in range(30)]
    ids = {
        line.split()[2] for name in ("trecdl2019_bm25.run", "trecdl2019_bert_l4.run") for line in open(SAMPLE / name)
    }
    texts = {}
    for docid in sorted(ids):
        rng = random.Random(int(docid))
        texts[docid] = " ".join(rng.choice(words) for _ in range(rng.randint(5, 30)))
    texts["332401"], texts["615407"] = "he and his son", "a report"
    return texts


def test_the_reference_sample_slice(tmp_path):
    texts = _sample_texts()
    run_path, background_path = SAMPLE / "trecdl2019_bert_l4.run", SAMPLE / "trecdl2019_bm25.run"
    result = FaiRRMeasures(texts).evaluate(run_path, background_path).per_query()
    # the reference reads the file's order; the product trec_eval's (ties: document id descending)
    as_filed, _, _ = _reference(texts, run_path, background_path)
    reordered = tmp_path / "bert_trec_eval_order.run"
    reordered.write_text("".join(_trec_eval_order(open(run_path).readlines())), encoding="utf-8")
    in_order, _, _ = _reference(texts, reordered, background_path)
    assert sorted(result) == ["148538", "183378", "962179"]
    for k in (5, 10, 20, 50):
        for qid in result:
            assert result[qid][f"FaiRR@{k}"] == pytest.approx(in_order["metrics_perq"]["FaiRR"][k][qid], rel=1e-12)
            assert result[qid][f"NFaiRR@{k}"] == pytest.approx(in_order["metrics_perq"]["NFaiRR"][k][qid], rel=1e-12)
    # the tie at ranks 10-11 of 148538 (332401 filed first, ω 0; 615407 first in trec_eval's order, ω 1)
    assert as_filed["metrics_perq"]["FaiRR"][10]["148538"] < result["148538"]["FaiRR@10"]
    assert as_filed["metrics_perq"]["FaiRR"][20]["962179"] == pytest.approx(result["962179"]["FaiRR@20"], rel=1e-12)


def _trec_eval_order(lines: list[str]) -> list[str]:
    """Each query's lines by score descending, ties by document id descending (queries in file order)."""
    order = {q: i for i, q in enumerate(dict.fromkeys(line.split()[0] for line in lines))}
    return sorted(
        lines, key=lambda line: (order[line.split()[0]], -float(line.split()[4]), _descending(line.split()[2]))
    )


def _descending(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text) + (1,)


# ----------------------------------------------------------------------------------------------- reading and caching


def test_word_counts_are_read_for_the_needed_documents_only_and_cached(tmp_path, own_cache):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": k, "contents": v}) + "\n" for k, v in DOCS.items()), encoding="utf-8")
    run = {"q1": {"two_to_one": 2.0, "male_only": 1.0}}
    measures = FaiRRMeasures(docs, FaiRRSettings(cutoffs=[2]), n_jobs=1)
    assert measures.evaluate({}, query_ids=["q1"]).skipped == {"empty_run": ["q1"]}
    assert not own_cache.exists() or not list(own_cache.iterdir())  # an empty run reads nothing, not even a listing
    first = measures.evaluate(run).measures()
    entries = list((own_cache / "document-group-counts").iterdir())
    assert len(entries) == 1
    counted = dict(zip(np.load(entries[0] / "ids.npy").tolist(), np.load(entries[0] / "counts.npy").tolist()))
    assert counted == {b"male_only": [0, 3], b"two_to_one": [2, 1]}  # not the collection's other four documents
    (entries[0] / "counts.npy").write_bytes(b"damaged")  # a damaged entry is found, removed and counted again
    assert measures.evaluate(run).measures() == first
    assert dict(zip(np.load(entries[0] / "ids.npy").tolist(), np.load(entries[0] / "counts.npy").tolist())) == counted


# ------------------------------------------------------------------------------ gsr bias, BiasMeasures, ir_measures


def _bias_files(folder: Path) -> Path:
    (folder / "docs.jsonl").write_text(
        "".join(json.dumps({"id": k, "contents": v}) + "\n" for k, v in DOCS.items()), encoding="utf-8"
    )
    _run_file(folder / "run.txt", {"q1": ["two_to_one", "male_only", "one_word"], "q2": ["male_only"]})
    _run_file(folder / "bg.txt", {"q1": ["no_word", "balanced", "male_only"], "q2": ["balanced"]})
    (folder / "labels.tsv").write_text("two_to_one\tfemale\nmale_only\tmale\n", encoding="utf-8")
    return folder


def test_gsr_bias_without_labels(tmp_path, capsys):
    f = _bias_files(tmp_path)
    base = ["bias", "--run", str(f / "run.txt"), "--docs", str(f / "docs.jsonl")]
    assert main([*base, "--cutoffs", "1,3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ideal3 = 1.0 + (2 / 3) / LOG2_3
    assert out["measures"]["FaiRR@3"] == pytest.approx(7 / 12) and out["measures"]["NFaiRR@3"] == pytest.approx(
        (7 / 6) / ideal3
    )
    q1, q2 = out["per_query"]
    assert q1["qid"] == "q1" and q1["NFaiRR@1"] == pytest.approx(2 / 3) and q2["NFaiRR@3"] is None
    assert "KL@10" not in out["measures"] and "RaB@10" in out["measures"]  # no labels: RaB/ARaB and FaiRR only
    fairr_settings = out["settings"]["fairr"]
    assert (
        fairr_settings["background"] == "the run itself" and fairr_settings["gender_words"] == "gender-representative"
    )
    assert fairr_settings["skipped"] == {"zero_ideal_fairr": ["q2"]} and out["settings"]["labels"] is None
    assert out["queries"]["NFaiRR@3"] == 1
    assert main([*base, "--background", str(f / "bg.txt"), "--cutoffs", "2"]) == 0
    table = capsys.readouterr().out
    assert f"background {f / 'bg.txt'} (top 200 per query)" in table
    assert re.search(r"NFaiRR@2\s+0\.2044\s+\(2 queries\)", table), table  # ((2/3)/(1 + p2) + 0) / 2
    assert main([*base, "--no-fairr", "--json"]) == 0
    assert not any(name.startswith(("FaiRR", "NFaiRR")) for name in json.loads(capsys.readouterr().out)["measures"])


def test_gsr_bias_with_labels_keeps_the_label_measures_and_adds_fairr(tmp_path, capsys):
    f = _bias_files(tmp_path)
    argv = ["bias", "--run", str(f / "run.txt"), "--docs", str(f / "docs.jsonl"), "--labels", str(f / "labels.tsv")]
    assert main([*argv, "--k", "2", "--target", "uniform", "--cutoffs", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"KL@2", "NDKL@2", "MB_female@2", "RaB@2", "FaiRR@2", "NFaiRR@2"} <= set(out["measures"])
    assert out["per_query"][0]["female"] == 1 and out["per_query"][0]["FaiRR@2"] == pytest.approx(2 / 3)
    assert out["settings"]["labels"] == f"file:{f / 'labels.tsv'}"


def test_bias_measures_and_ir_measures_give_the_direct_values():
    import ir_measures

    from gsr.integrations.ir_measures_bias import BiasIRMeasures

    run = {"q1": {"two_to_one": 3.0, "male_only": 2.0, "one_word": 1.0}, "q2": {"male_only": 1.0, "balanced": 0.5}}
    qrels = {"q1": {"one_word": 1}, "q2": {"balanced": 1}}
    with pytest.raises(BiasError, match="RaB's magnitudes 'labels' need document labels"):
        BiasMeasures(None, BiasSettings(rab="labels"))
    direct = FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2, 3])).evaluate(run).measures()
    report = BiasMeasures(None, fairr=FaiRRMeasures(DOCS, FaiRRSettings(cutoffs=[2, 3]))).evaluate(run, qrels)
    assert {name: report.measures[name] for name in direct} == direct
    measures = BiasIRMeasures(None, fairr=FaiRRMeasures(DOCS))
    wanted = [measures["NFaiRR@3"], measures["FaiRR@2"], measures["NFaiRR_agnostic@2"]]
    aggregate = ir_measures.calc_aggregate(wanted, qrels, run)
    assert aggregate[measures["NFaiRR@3"]] == pytest.approx(direct["NFaiRR@3"], rel=1e-12)
    assert aggregate[measures["FaiRR@2"]] == pytest.approx(direct["FaiRR@2"], rel=1e-12)
    assert aggregate[measures["NFaiRR_agnostic@2"]] == pytest.approx(direct["NFaiRR_agnostic@2"], rel=1e-12)
    assert list(measures) == ["FaiRR", "NFaiRR", "FaiRR_agnostic", "NFaiRR_agnostic"]


def test_word_counts_read_and_counted_in_processes_are_the_same(tmp_path, own_cache, monkeypatch):
    """A listed collection's documents are read and counted by worker processes past PARALLEL_FROM documents, each
    worker given (file, offsets) shards: the same counts as one process reading them in turn."""
    from gsr.fairness import neutrality

    docs = tmp_path / "docs.tsv"
    rng = random.Random(5)
    words = ["she", "her", "he", "his", "mother", "son", "a", "b", "c,", "d"]
    texts = {f"d{i}": " ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for i in range(60)}
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in texts.items()), encoding="utf-8")
    run = {f"q{q}": {f"d{rng.randrange(60)}": rng.random() for _ in range(20)} for q in range(6)}
    alone = FaiRRMeasures(docs, FaiRRSettings(cutoffs=[3, 10]), n_jobs=1).evaluate(run)
    monkeypatch.setattr(neutrality, "PARALLEL_FROM", 1)
    monkeypatch.setattr(neutrality, "SHARD", 4)
    used = []
    reader = neutrality._read_listed
    monkeypatch.setattr(neutrality, "_read_listed", lambda *args: used.append(args[-1]) or reader(*args))
    shutil.rmtree(own_cache / "document-group-counts")
    together = FaiRRMeasures(docs, FaiRRSettings(cutoffs=[3, 10]), n_jobs=2).evaluate(run)
    assert together.measures() == alone.measures() and together.per_query() == alone.per_query() and used == [2]
    mapping = FaiRRMeasures(texts, FaiRRSettings(cutoffs=[3, 10]), n_jobs=2).evaluate(run)  # not a listed source
    assert mapping.measures() == alone.measures()
    # the workers receive the source without its loaded listing (10⁷ ids and offsets at MS MARCO's size)
    source = open_documents(docs)
    source.listing()
    shipped = pickle.loads(pickle.dumps(source))
    assert shipped._listing is None and dict(shipped.texts(["d3"])) == {"d3": texts["d3"]}
    table = neutrality.IdTable.of([b"d3", b"d7"])
    assert table.positions_in(np.array([b"d7", b"x", b"d3", b"d3x"])).tolist() == [0, 2]
    # an id's hash does not depend on the width of the array holding it (a run's and a background's differ)
    narrow, wide = np.array([b"d3", b"one_word"]), np.array([b"d3", b"one_word", b"a_much_longer_document_id"])
    assert neutrality.id_hashes(narrow).tolist() == neutrality.id_hashes(wide)[:2].tolist()
    assert len(set(neutrality.id_hashes(wide).tolist())) == 3


def test_ids_sharing_a_hash_are_looked_up_as_strings(monkeypatch):
    """Two distinct ids under one 64-bit hash (forced here: every id hashes to 0) are told apart by the ids
    themselves: the same values."""
    from gsr.fairness import neutrality

    run = {"q1": {"two_to_one": 3.0, "male_only": 2.0, "one_word": 1.0}, "q2": {"balanced": 1.0, "gone": 0.5}}
    settings = FaiRRSettings(cutoffs=[1, 3], missing="neutral")
    hashed = FaiRRMeasures(DOCS, settings).evaluate(run)
    monkeypatch.setattr(neutrality, "id_hashes", lambda docids: np.zeros(len(docids), dtype=np.uint64))
    table = neutrality.IdTable.of([b"b", b"a", b"b"])
    assert table.keys is None and table.ids.tolist() == [b"a", b"b"]
    assert table.positions_in(np.array([b"x", b"b", b"a"])).tolist() == [1, 2]
    assert FaiRRMeasures(DOCS, settings).evaluate(run).per_query() == hashed.per_query()


def test_a_shared_background_is_counted_once(tmp_path, own_cache):
    """The background's documents are one cache entry, the run's documents outside it another: a second system
    measured against the same background reads only its own extra documents."""
    f = _bias_files(tmp_path)
    background = f / "bg.txt"  # q1: no_word, balanced, male_only; q2: balanced
    first = _run_file(tmp_path / "a.txt", {"q1": ["two_to_one", "balanced"], "q2": ["balanced"]})
    second = _run_file(tmp_path / "b.txt", {"q1": ["one_word", "no_word"], "q2": ["punctuation"]})
    measures = FaiRRMeasures(f / "docs.jsonl", FaiRRSettings(cutoffs=[2]), n_jobs=1)
    measures.evaluate(first, background)

    def entries() -> set[tuple[bytes, ...]]:
        folder = own_cache / "document-group-counts"
        return {tuple(sorted(np.load(entry / "ids.npy").tolist())) for entry in folder.iterdir()}

    assert entries() == {(b"balanced", b"male_only", b"no_word"), (b"two_to_one",)}
    result = measures.evaluate(second, background)
    assert entries() == {(b"balanced", b"male_only", b"no_word"), (b"two_to_one",), (b"one_word", b"punctuation")}
    # q1: one_word (ω 1) then no_word (ω 1); the ideal of {no_word, balanced, male_only} is 1 + p2
    assert result.query_values("q1")["NFaiRR@2"] == pytest.approx(1.0)
    assert result.query_values("q2")["NFaiRR@2"] == 0.0  # punctuation: ω 0 under whitespace tokens
