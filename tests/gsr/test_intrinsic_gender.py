"""gsr.text.intrinsic_gender (§4.2.5's intrinsic gender of documents) on hand-counted paragraphs, its word lists,
and `gsr label`."""

from __future__ import annotations

import importlib.resources
import json
import logging

import pytest

from experiments.cli import main
from gsr.text import corpora
from gsr.text import intrinsic_gender as labels
from gsr.text.intrinsic_gender import (
    GENDERED_ENTITIES,
    LabelError,
    MentionWords,
    census_first_names,
    default_mention_words,
    first_names,
    intrinsic_gender,
    load_gendered_entities,
    nltk_first_names,
)

# (text, female mentions, male mentions, label), counted by hand with Appendix B's words and either name list.
PARAGRAPHS = [
    # entity words in any case; lowercase may / will / in / so are never names (the census lists make in, so female)
    ("The man arrived early. He said his train may be late, so he will wait in the station.", 0, 4, "male"),
    # Will, capitalised mid-sentence, is a first name on both lists
    ("Yesterday Will met the committee.", 0, 1, "male"),
    # capitalised function words at a sentence's start are never names (census: in, so, my, many, see, else)
    ("In the end it held. So it goes. My view differs. Many agree. See below. Else nothing.", 0, 0, "neutral"),
    # entity words count in any case
    ("SHE told HER Aunt the news.", 3, 0, "female"),
    # a name in capitals throughout (a headline run) is not taken as a name; month names are dates
    ("MARY ARRIVES. In June and April the rains came.", 0, 0, "neutral"),
    # names and entities together: Mary + her against brother + John + uncle
    ("Mary and her brother John visited their uncle.", 2, 3, "male"),
    # every occurrence counts; a tie is neutral
    ("She and he met; she left, he stayed.", 2, 2, "neutral"),
    ("Prices rose in March, the report said.", 0, 0, "neutral"),
]


@pytest.fixture(params=["nltk", "census"])
def mention_words(request, monkeypatch):
    """The default lists with NLTK's names corpus (skipped where the shared corpus is absent) or the census lists."""
    if request.param == "nltk":
        request.getfixturevalue("nltk_data")
    return default_mention_words(names=request.param)


@pytest.mark.parametrize("text, female, male, label", PARAGRAPHS)
def test_hand_counted_paragraphs(mention_words, text, female, male, label):
    result = intrinsic_gender(text, mention_words)
    assert (result.female_mentions, result.male_mentions, result.label) == (female, male, label)
    assert result.to_dict() == {"label": label, "female_mentions": female, "male_mentions": male}


def test_nltk_lists_are_the_papers_source(nltk_data):
    female, male = nltk_first_names()
    assert (len(female), len(male)) == (4998, 2943)  # 5,001 female entries, three repeated in other case
    words = default_mention_words()
    assert words.names_source == "nltk"
    # a name on both NLTK lists (Chris, Bill) counts for neither side; Will and Mark are male names
    assert {"chris", "bill"}.isdisjoint(words.female_names | words.male_names)
    assert {"will", "mark", "john"} <= words.male_names and {"mary", "rose"} <= words.female_names
    assert {"may", "june", "april", "august", "in"}.isdisjoint(words.female_names | words.male_names)


def test_missing_nltk_corpus_falls_back_to_the_census_and_says_how_to_install(monkeypatch, caplog, own_cache):
    monkeypatch.setattr(labels, "nltk_first_names", lambda: None)
    monkeypatch.setattr(corpora, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="gsr.corpora"):
        female, male, source = first_names("nltk")
    assert source == "census" and (female, male) == census_first_names()
    assert "python -m nltk.downloader names" in caplog.text
    # a notice once per cache: the next process (here: a fresh set of notices given) says it at -v only
    caplog.clear()
    monkeypatch.setattr(corpora, "_warned", set())
    with caplog.at_level(logging.DEBUG, logger="gsr.corpora"):
        first_names("nltk")
    assert [r.levelname for r in caplog.records if "nltk.downloader names" in r.getMessage()] == ["DEBUG"]
    assert default_mention_words().names_source == "census"


def test_census_names_follow_the_files_and_the_frequency_rule():
    female, male = census_first_names()
    assert len(female) > 4000 and len(male) > 1000 and not female & male
    assert all(n.islower() and n.isalpha() for n in female | male)
    raw = {}
    for sex in ("female", "male"):
        rows = (labels.CENSUS_FIRST_NAMES / f"dist.{sex}.first").read_text().split("\n")
        raw[sex] = {r.split()[0].lower(): float(r.split()[1]) for r in rows if r.strip()}
    shared = set(raw["female"]) & set(raw["male"])
    assert {"james", "mary", "john"} <= shared
    for name in shared:
        f, m = raw["female"][name], raw["male"][name]
        assert (name in female) == (f > m) and (name in male) == (m > f)
    assert {"in", "so", "my", "an", "many", "see", "else"} <= female  # why function words must never be names
    assert {"will", "long", "major"} <= male


def test_the_shipped_census_lists_are_those_of_the_names_package():
    """The census lists ship with gsr (the 2013 package `names` is no dependency); they are its files, byte for byte."""
    pytest.importorskip("names", reason="the PyPI package 'names' (test extra) is absent: shipped lists not compared")
    folder = importlib.resources.files("names")
    for fileid in ("dist.female.first", "dist.male.first"):
        assert (labels.CENSUS_FIRST_NAMES / fileid).read_bytes() == (folder / fileid).read_bytes(), fileid


def test_mention_word_rules_on_hand_lists():
    words = MentionWords(
        female_entities={"Her"},
        male_entities={"man"},
        female_names={"Chris", "mary", "man", "so"},
        male_names={"chris", "john"},
        function_words={"so"},
    )
    assert words.female_entities == {"her"}
    assert words.female_names == {"mary"}  # chris is on both lists, man an entity word, so a function word
    assert words.male_names == {"john"}
    assert intrinsic_gender("Man, Chris and So met Mary", words).to_dict() == {
        "label": "neutral",
        "female_mentions": 1,
        "male_mentions": 1,
    }
    assert intrinsic_gender("", words).label == "neutral"
    assert intrinsic_gender("ex-boyfriend", MentionWords({"x"}, {"boyfriend"})).male_mentions == 1
    with pytest.raises(LabelError, match="'guy' is both"):
        MentionWords({"guy"}, {"Guy"})


def test_gendered_entities_file_properties():
    female, male = load_gendered_entities()
    assert len(female) > 70 and len(male) > 80 and not female & male
    assert all(w == w.lower() and w == w.strip() for w in female | male)
    assert {"she", "her", "woman", "aunt", "queen", "mrs"} <= female
    assert {"he", "his", "man", "uncle", "king", "mr"} <= male
    assert "pregnancy" not in female  # the paper keeps only words that refer to a person
    assert json.loads(GENDERED_ENTITIES.read_text())["female"]


ENTITY_FILES_REFUSED = {
    "word-on-both-lists": (
        "both.json",
        json.dumps({"female": ["queen", "Guy"], "male": ["guy"]}),
        "'guy' is listed as both",
    ),
    "a-list-missing": ("missing.json", json.dumps({"female": ["queen"]}), "'male' must be a list"),
    "invalid-json": ("broken.json", '{"female": [\n"queen",\n}', r"broken.json:3: invalid JSON"),
    "no-such-file": ("absent.json", None, "no such file"),
}


@pytest.mark.parametrize("name, text, message", ENTITY_FILES_REFUSED.values(), ids=ENTITY_FILES_REFUSED.keys())
def test_gendered_entities_bad_files(tmp_path, name, text, message):
    if text is not None:
        (tmp_path / name).write_text(text)
    with pytest.raises(LabelError, match=message):
        load_gendered_entities(tmp_path / name)


def test_unknown_first_name_source():
    with pytest.raises(LabelError, match="unknown first-name source"):
        first_names("wikipedia")


def test_label_command(tmp_path, capsys):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{i}", "contents": text}) + "\n" for i, (text, *_) in enumerate(PARAGRAPHS)),
        encoding="utf-8",
    )
    assert main(["label", "--docs", str(docs), "--names", "census", "--json"]) == 0
    out = capsys.readouterr()
    rows = [json.loads(line) for line in out.out.splitlines()]
    assert rows == [
        {"id": f"d{i}", "label": label, "female_mentions": female, "male_mentions": male}
        for i, (_, female, male, label) in enumerate(PARAGRAPHS)
    ]
    assert "8 documents: 1 female, 3 male, 4 neutral (first names: census)" in out.err
    assert main(["label", "--docs", str(docs), "--names", "census"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "id\tlabel\tfemale_mentions\tmale_mentions" and table[6] == "d5\tmale\t2\t3"
    assert main(["label", "--docs", str(tmp_path / "absent.jsonl")]) == 2
    assert "absent.jsonl: no such file" in capsys.readouterr().err
