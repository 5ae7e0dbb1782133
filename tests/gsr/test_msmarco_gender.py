"""Rekabsaz & Schedl's gender-annotated MS MARCO queries and word list (gsr/data/msmarco_gender): the topic set as
every topic reader reads it, its labels, the word list, and RaB/ARaB from that list checked against a hand-worked
example (two queries, every magnitude variant, t = 1..3), through the functions, BiasMeasures and `gsr bias`."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.collections.base import read_topics
from gsr.errors import InputError
from gsr.fairness.equations import average_rank_bias, gender_magnitude, rank_bias
from gsr.fairness.evaluate import BiasMeasures, BiasSettings
from gsr.fairness.labels import DocumentLabels, gender_words, gender_words_name, gendered_word_counts
from gsr.io.convert import as_queries
from gsr.io.msmarco_gender import (
    DATA,
    QUERY_LABELS,
    msmarco_gender_labels,
    read_annotated_queries,
    read_gender_wordlist,
    topic_set_labels,
)

pytestmark = pytest.mark.usefixtures("own_cache")

COUNTS = {"n": 1765, "f": 742, "m": 1202, "o": 41}  # the paper's (and the source README's) counts


# --- the topic set ---------------------------------------------------------------------------------------------


def test_the_shipped_files_are_there():
    for name in ("queries_gender_annotated.csv", "wordlist_genderspecific.txt", "LICENSE", "README.md"):
        assert (DATA / name).is_file(), name
    assert "MIT License" in (DATA / "LICENSE").read_text(encoding="utf-8")


def test_topic_set_counts_per_label():
    labels = msmarco_gender_labels()
    assert len(labels) == 3750 and len(as_queries("msmarco-gender")) == 3750
    assert Counter(labels.values()) == COUNTS
    for label, count in COUNTS.items():
        queries = as_queries(f"msmarco-gender:{label}")
        assert len(queries) == count
        assert set(msmarco_gender_labels(f"msmarco-gender:{label}").values()) == {label}
    assert len(as_queries("msmarco-gender:f,m")) == COUNTS["f"] + COUNTS["m"] == 1944
    assert as_queries("msmarco-gender:m, f") == as_queries("msmarco-gender:f,m")  # order and spaces do not matter
    assert len(as_queries("msmarco-gender:n,f,m,o")) == 3750


def test_exact_queries_and_commas_inside_a_text():
    queries, labels = as_queries("msmarco-gender"), msmarco_gender_labels()
    assert queries["986563"] == "who was known as the heretic king" and labels["986563"] == "m"
    assert queries["338042"] == "how popular is the name katie" and labels["338042"] == "f"
    assert queries["801288"] == "what is surrogate" and labels["801288"] == "n"
    # first comma / last comma: the commas of the text stay, spaces included
    assert queries["976587"] == "where is alexander ,kentucky ?" and labels["976587"] == "m"
    assert queries["1007771"] == (
        "when a chromosome pair fails to separate correctly in meiotic division, what is it called"
    )
    assert queries["498572"] == "singer, preacher, tony fontaine"
    assert "1007771" in as_queries("msmarco-gender:n") and "1007771" not in as_queries("msmarco-gender:f")


def test_configs_read_the_topic_set_too():
    assert read_topics("msmarco-gender:o") == as_queries("msmarco-gender:o")
    # a config keeps the name as it is (never resolved against its folder as a path)
    from experiments.config.params import resolve_path

    assert resolve_path(Path("/configs"), "msmarco-gender:n") == "msmarco-gender:n"


@pytest.mark.parametrize("spec", ["msmarco-gender:x", "msmarco-gender:", "msmarco-gender:n,,f", "msmarco-gender:N"])
def test_an_unknown_label_is_one_line_naming_it_and_the_valid_ones(spec):
    with pytest.raises(InputError) as caught:
        as_queries(spec)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(spec)
    assert all(f"{k} ({v})" in message for k, v in QUERY_LABELS.items())
    with pytest.raises(InputError):
        read_topics(spec)


def test_topic_set_labels_and_bad_annotation_files(tmp_path):
    assert topic_set_labels() == ("n", "f", "m", "o") and topic_set_labels("msmarco-gender:m,m") == ("m",)
    path = tmp_path / "q.csv"
    path.write_text("1,a, b,n\n\n2,c,f\n", encoding="utf-8")
    assert read_annotated_queries(path) == {"1": ("a, b", "n"), "2": ("c", "f")}
    for text, error in (("1,a\n", "expected 'id,text,label'"), ("1,a,x\n", "label 'x'"), ("1,a,n\n1,b,f\n", "twice")):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=error):
            read_annotated_queries(path)


# --- the word list ---------------------------------------------------------------------------------------------


def test_the_word_list_has_its_genders_from_the_file():
    female, male = read_gender_wordlist()
    assert len(female) == len(male) == 32 and not female & male
    assert {"she", "her", "hers", "herself", "woman", "women", "mother", "fiancee", "madam"} <= female
    assert {"he", "him", "his", "himself", "man", "men", "father", "fiance", "sir"} <= male
    assert gender_words("msmarco-gender") == (female, male)
    assert gender_words_name("msmarco-gender") == "msmarco-gender" and gender_words_name(None) == "appendix-b"
    appendix_female, appendix_male = gender_words("appendix-b")
    assert "wife" in appendix_female and "wife" not in female and "king" in appendix_male and "king" not in male


def test_word_list_files(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("She,f\nhe,M\n", encoding="utf-8")
    assert gender_words(path) == (frozenset({"she"}), frozenset({"he"}))
    (tmp_path / "words.json").write_text('{"female": ["she"], "male": ["he"]}', encoding="utf-8")
    assert gender_words(tmp_path / "words.json") == (frozenset({"she"}), frozenset({"he"}))
    for text in ("she\n", "she,x\n", "she,f\nshe,m\n", "she,f\n"):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match="words.txt"):
            read_gender_wordlist(path)


# --- RaB / ARaB by hand ----------------------------------------------------------------------------------------
#
# Rekabsaz & Schedl: mag^f(d), mag^m(d) from the counts of the list's female and male words in d (tc: the count;
# tf: ln(1 + count), of the summed count as their code computes it; bool: 1 when the count is > 0);
# qRaB^r_t(q) = (1/t) Σ_{i≤t} mag^r(d_i); RaB_t(q) = qRaB^m_t(q) − qRaB^f_t(q) (> 0: male-leaning);
# ARaB_t(q) = (1/t) Σ_{x=1..t} RaB_x(q); a system's value is the mean over its queries.
#
# The two queries are non-gendered MS MARCO queries (label n); 986563 (label m) is in the run too, so that
# `--topics msmarco-gender:n` has something to leave out, as the paper measures the n queries only.
Q1, Q2, Q_MALE = "1048725", "801288", "986563"
DOCUMENTS = {
    # hand counts with the msmarco-gender list (female words | male words):
    "d1": "She told her mother that the boys were late.",  # she, her, mother = 3 | boys = 1
    "d2": "The king and his wife visited.",  # none (wife is not listed) = 0 | his = 1 (king is not listed)
    "d3": "A table of numbers.",  # 0 | 0
    "d4": "He and his son met a man.",  # 0 | he, his, son, man = 4  (rank 4: beyond t = 3)
    "d5": "Men and women, sir.",  # women = 1 | men, sir = 2
    "d6": "Grandma gave the girls her recipe; the girls loved her.",  # grandma, girls, her, girls, her = 5 | 0
    "d7": "His brother.",  # 0 | his, brother = 2
    "d8": "The heretic king Akhenaten.",  # 0 | 0
}
HAND_COUNTS = {
    "d1": (3, 1),
    "d2": (0, 1),
    "d3": (0, 0),
    "d4": (0, 4),
    "d5": (1, 2),
    "d6": (5, 0),
    "d7": (0, 2),
    "d8": (0, 0),
}
RUN = {
    Q1: [("d1", 4.0), ("d2", 3.0), ("d3", 2.0), ("d4", 1.0)],
    Q2: [("d5", 3.0), ("d6", 2.0), ("d7", 1.0)],
    Q_MALE: [("d8", 1.0)],
}
LN2, LN3, LN4, LN6 = math.log(2), math.log(3), math.log(4), math.log(6)

# EXPECTED[variant][query] = ([RaB_1, RaB_2, RaB_3], [ARaB_1, ARaB_2, ARaB_3])
EXPECTED = {
    # tc. q1: f = [3, 0, 0], m = [1, 1, 0]
    #   RaB_1 = 1 − 3 = −2;  RaB_2 = (1+1)/2 − (3+0)/2 = 1 − 1.5 = −0.5;  RaB_3 = (1+1+0)/3 − (3+0+0)/3 = −1/3
    #   ARaB_1 = −2;  ARaB_2 = (−2 − 0.5)/2 = −1.25;  ARaB_3 = (−2 − 0.5 − 1/3)/3 = (−17/6)/3 = −17/18
    # q2: f = [1, 5, 0], m = [2, 0, 2]
    #   RaB_1 = 2 − 1 = 1;  RaB_2 = (2+0)/2 − (1+5)/2 = 1 − 3 = −2;  RaB_3 = (2+0+2)/3 − (1+5+0)/3 = −2/3
    #   ARaB_1 = 1;  ARaB_2 = (1 − 2)/2 = −0.5;  ARaB_3 = (1 − 2 − 2/3)/3 = (−5/3)/3 = −5/9
    "tc": {Q1: ([-2, -0.5, -1 / 3], [-2, -1.25, -17 / 18]), Q2: ([1, -2, -2 / 3], [1, -0.5, -5 / 9])},
    # tf = ln(1 + count). q1: f = [ln 4, 0, 0], m = [ln 2, ln 2, 0]
    #   RaB_1 = ln 2 − ln 4 = −ln 2;  RaB_2 = (2 ln 2)/2 − (ln 4)/2 = ln 2 − ln 2 = 0;  RaB_3 = (2 ln 2 − ln 4)/3 = 0
    #   ARaB_1 = −ln 2;  ARaB_2 = (−ln 2 + 0)/2 = −ln 2 / 2;  ARaB_3 = (−ln 2 + 0 + 0)/3 = −ln 2 / 3
    # q2: f = [ln 2, ln 6, 0], m = [ln 3, 0, ln 3]
    #   RaB_1 = ln 3 − ln 2;  RaB_2 = (ln 3)/2 − (ln 2 + ln 6)/2 = (ln 3 − ln 12)/2 = −ln 4 / 2 = −ln 2
    #   RaB_3 = (2 ln 3)/3 − (ln 2 + ln 6)/3 = (ln 9 − ln 12)/3 = (ln 3 − ln 4)/3
    #   ARaB_1 = ln 3 − ln 2;  ARaB_2 = (ln 3 − ln 2 − ln 2)/2 = (ln 3 − ln 4)/2
    #   ARaB_3 = (ln 3 − ln 2 − ln 2 + (ln 3 − ln 4)/3)/3 = ((4/3)(ln 3 − ln 4))/3 = 4 (ln 3 − ln 4)/9
    "tf": {
        Q1: ([-LN2, 0, 0], [-LN2, -LN2 / 2, -LN2 / 3]),
        Q2: ([LN3 - LN2, -LN2, (LN3 - LN4) / 3], [LN3 - LN2, (LN3 - LN4) / 2, 4 * (LN3 - LN4) / 9]),
    },
    # bool. q1: f = [1, 0, 0], m = [1, 1, 0]
    #   RaB_1 = 1 − 1 = 0;  RaB_2 = 2/2 − 1/2 = 0.5;  RaB_3 = 2/3 − 1/3 = 1/3
    #   ARaB_1 = 0;  ARaB_2 = (0 + 0.5)/2 = 0.25;  ARaB_3 = (0 + 0.5 + 1/3)/3 = (5/6)/3 = 5/18
    # q2: f = [1, 1, 0], m = [1, 0, 1]
    #   RaB_1 = 1 − 1 = 0;  RaB_2 = 1/2 − 2/2 = −0.5;  RaB_3 = 2/3 − 2/3 = 0
    #   ARaB_1 = 0;  ARaB_2 = (0 − 0.5)/2 = −0.25;  ARaB_3 = (0 − 0.5 + 0)/3 = −1/6
    "bool": {Q1: ([0, 0.5, 1 / 3], [0, 0.25, 5 / 18]), Q2: ([0, -0.5, 0], [0, -0.25, -1 / 6])},
}


def test_hand_counted_words_of_the_msmarco_gender_list():
    assert gendered_word_counts(DOCUMENTS, "msmarco-gender") == HAND_COUNTS
    appendix_b = gendered_word_counts(DOCUMENTS)  # the default list counts king and wife as well
    assert appendix_b["d2"] == (1, 2) and appendix_b["d8"] == (0, 1)


@pytest.mark.parametrize("variant", ["tc", "tf", "bool"])
def test_rab_and_arab_by_hand_through_the_functions(variant):
    counts = gendered_word_counts(DOCUMENTS, "msmarco-gender")
    for qid in (Q1, Q2):
        docids = [d for d, _ in RUN[qid]]
        female = [gender_magnitude(counts[d][0], variant) for d in docids]
        male = [gender_magnitude(counts[d][1], variant) for d in docids]
        rab, arab = EXPECTED[variant][qid]
        for t in (1, 2, 3):
            assert rank_bias(female, male, t)[0] == pytest.approx(rab[t - 1], abs=1e-12), (qid, t)
            assert average_rank_bias(female, male, t)[0] == pytest.approx(arab[t - 1], abs=1e-12), (qid, t)


@pytest.mark.parametrize("variant", ["tc", "tf", "bool"])
def test_rab_and_arab_by_hand_through_bias_measures(variant):
    mentions = gendered_word_counts(DOCUMENTS, "msmarco-gender")
    for t in (1, 2, 3):
        settings = BiasSettings(k=t, target="uniform", rab=variant)
        measures = BiasMeasures(DocumentLabels({}, "none"), settings, mentions, gender_words_name("msmarco-gender"))
        report = measures.evaluate(RUN, query_ids=[Q1, Q2])
        assert report.settings["gender_words"] == "msmarco-gender"
        for name, index in ((f"RaB@{t}", 0), (f"ARaB@{t}", 1)):
            per_query = report.values(name)
            expected = {qid: EXPECTED[variant][qid][index][t - 1] for qid in (Q1, Q2)}
            assert per_query == pytest.approx(expected, abs=1e-12)
            assert report.measures[name] == pytest.approx((expected[Q1] + expected[Q2]) / 2, abs=1e-12)


def test_gsr_bias_with_the_paper_list_and_queries(tmp_path, capsys):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in DOCUMENTS.items()))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {i} {s} x\n" for q, ranked in RUN.items() for i, (d, s) in enumerate(ranked)))
    labels = tmp_path / "labels.tsv"
    labels.write_text("d1\tfemale\nd4\tmale\n")
    common = ["bias", "--run", str(run), "--docs", str(docs), "--labels", str(labels), "--target", "uniform"]
    args = [*common, "--gender-words", "msmarco-gender", "--topics", "msmarco-gender:n", "--k", "3", "--json"]
    assert main([*args, "--rab", "tc"]) == 0
    out = json.loads(capsys.readouterr().out)
    # the 1,765 non-gendered queries are measured: the run answers two, the others are undefined (empty_run), never 0;
    # 986563 (label m) is not among them
    assert len(out["per_query"]) == 1765 and len(out["settings"]["skipped"]["empty_run"]) == 1763
    assert out["queries"]["RaB@3"] == 2 and Q_MALE not in {q["qid"] for q in out["per_query"]}
    assert out["settings"]["gender_words"] == "msmarco-gender"
    assert out["measures"]["RaB@3"] == pytest.approx((-1 / 3 - 2 / 3) / 2)  # EXPECTED["tc"], t = 3
    assert out["measures"]["ARaB@3"] == pytest.approx((-17 / 18 - 5 / 9) / 2)
    # the default list counts king (d2, d8) and wife (d2): another value, named in the output
    assert main([*common, "--k", "3", "--rab", "tc", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["gender_words"] == "appendix-b" and len(out["per_query"]) == 3
    assert out["measures"]["RaB@3"] != pytest.approx(-0.5)
    assert main([*common, "--gender-words", "msmarco-gender", "--topics", "msmarco-gender:f", "--k", "3"]) == 2
    assert "answers none of the 742 topics" in capsys.readouterr().err


def test_gsr_label_with_the_paper_list(tmp_path, capsys, nltk_data):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "a", "contents": "the queen met him"}) + "\n")
    assert main(["label", "--docs", str(docs), "--json"]) == 0  # Appendix B: queen (f) and him (m), a tie
    assert json.loads(capsys.readouterr().out)["label"] == "neutral"
    assert main(["label", "--docs", str(docs), "--entities", "msmarco-gender", "--json"]) == 0  # him only
    assert json.loads(capsys.readouterr().out)["label"] == "male"
