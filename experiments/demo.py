"""The built-in demo collection: a synthetic test collection with planted gender stereotypes.

Vocabulary. Every word is one of the 50,000 most frequent words of the default embedding (GloVe 6B 50d,
ordered by frequency) that is alphabetic, 3+ letters, not a stop word (scikit-learn's list) and
known to the lexicon; so every system and every GSR lexicon built on that embedding knows all of them.
Vocabulary and vectors always come from the default embedding; `lexicon` only supplies g(w).

Queries (topics.tsv). A seed word (wordlists/demo_seeds.txt: occupations and topics; then the Appendix A words of
gsr.validation.stereotypes, minus UNTOPICAL_SEEDS) plus its 1-3 nearest embedding neighbours: 2-4 content words,
e.g. "knitting sewing" or "hockey basketball football soccer". Of the distinct candidates (about 300;
queries whose first two terms repeat an earlier candidate's are dropped), `n_queries` are taken evenly
spaced in the order of g(q), so g(q) spans the female-leaning, neutral and male-leaning range; by rank,
the upper third *leans female*, the lower third *male*, the middle third is *neutral*. Query ids are
shuffled so they do not reveal g(q). A query's topic vocabulary is the 40 nearest neighbours of the mean
of its term vectors, without its terms, their inflections and the definitional words.

Gender context. The 20 definitional words of gsr.lexicon.DEFAULT_DEFINITIONAL_PAIRS (she he her
his woman man Mary John herself himself daughter son mother father gal guy girl boy female male) are the
only planted gender words: a document's context is 12-20 words drawn from one side's ten (each appears
thousands of times in the default collection). A query's *stereotypical* side is its leaning (a coin flip
per document for neutral queries), the *counter-stereotypical* side the other one.

Documents (documents.jsonl), per query, composed by RECIPES:
- relevant, in stereotypical / counter-stereotypical pairs of equal grade (2-7 pairs: 4-14 relevant
  documents, balanced gender context at every grade). Grade 2: every query term and 25-40 topic words;
  the stereotypical one repeats each term 2-4 times, the counter-stereotypical one names each once.
  Grade 1: 10-20 topic words; the stereotypical one has some of the terms 1-3 times each, the counter-
  stereotypical one a single term once.
- 4-10 distractors, judged non-relevant (grade 0 in qrels.txt): some query terms 2-3 times each, 15-30
  words of another query's topic, stereotypical gender context.
Each planted document also has 30-90 Zipf-drawn background words (of the 20,000 most frequent). The rest
are background documents: half generic (50-120 background words, 0-8 gender words of a random side),
half topical (8-20 words of a random query's topic, one of its terms 30% of the time, 6-14 gender words
of its stereotypical side 80% of the time, 30-90 background words). Documents have about 45-150 words,
in random order, written as pseudo-sentences; ids are d00000, d00001, ... with the planted documents
at random positions among the background.

Planted expectations. The perfect engine sees balanced gender context, so its GSR is small and positive,
coming only from topic words that lean with their query in the embedding. A lexical ranker (BM25, QLM,
tf-idf) prefers the stereotypical relevant documents (more query-term repetitions) and the stereotypical
distractors over the counter-stereotypical relevant documents, and a mean-word-vector ranker (w2v_add,
w2v_si, ftt_add) also because stereotypical context moves a document's mean vector towards the query's;
so GSR(ranker) > GSR(perfect) > GSR(random) ≈ 0 (|GSR(random)| < 0.05), and BM25's MAP lies between 0.2
and 0.6: neither failing nor perfect (tests/experiments/test_demo.py checks these numbers). The topical background
makes the whole collection stereotyped (80/20), so word vectors trained on it (ftt_add) learn a gender direction and
the stereotypes along it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gsr.errors import GSRError

DEMO_VERSION = "1"

BACKGROUND_VOCABULARY = 20_000  # most frequent embedding words that background text is drawn from
TOPIC_VOCABULARY = 50_000  # most frequent embedding words that topics and query terms are drawn from
TOPIC_SIZE = 40
TOPICAL_STEREOTYPE_SHARE = 0.8
NEIGHBOUR_SHORTLIST = 400  # nearest words sorted when looking for neighbours; enough for TOPIC_SIZE after exclusions

SEED_WORDS_FILE = Path(__file__).resolve().parent / "wordlists" / "demo_seeds.txt"


# Appendix A words whose GloVe neighbourhood is another sense (a tennis player, surnames, grammar) or no topic.
# fmt: off
UNTOPICAL_SEEDS = frozenset({"courier", "carpenter", "miner", "possessive", "outgoing", "critical", "independent",
                             "office", "home", "sensitive", "strong", "demanding", "generous", "proud", "confident"})
# fmt: on


class DemoError(GSRError):
    """The demo collection cannot be generated with the given sizes or lexicon; the message says which."""


@dataclass
class DemoFiles:
    """Where generate_demo wrote the collection."""

    documents: Path
    topics: Path
    qrels: Path


@dataclass(frozen=True)
class Recipe:
    """How one kind of planted document is composed (ranges are inclusive)."""

    grade: int
    side: str  # "stereotypical" or "counter"
    query_terms: str  # "all", "some" (at least one, fewer than all) or "one"
    query_tf: tuple[int, int]
    topic_words: tuple[int, int]
    own_topic: bool = True  # False: the topic words come from another query's topic
    gender_words: tuple[int, int] = (12, 20)
    background_words: tuple[int, int] = (30, 70)


RECIPES = {
    "relevant-2-stereotypical": Recipe(2, "stereotypical", "all", (2, 4), (25, 40)),
    "relevant-2-counter": Recipe(2, "counter", "all", (1, 1), (25, 40)),
    "relevant-1-stereotypical": Recipe(1, "stereotypical", "some", (1, 3), (10, 20), background_words=(40, 90)),
    "relevant-1-counter": Recipe(1, "counter", "one", (1, 1), (10, 20), background_words=(40, 90)),
    "distractor": Recipe(0, "stereotypical", "some", (2, 3), (15, 30), own_topic=False),
}
RELEVANT_PAIRS = (2, 7)
DISTRACTORS = (4, 10)


def _gender_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS

    female = tuple(f for f, _ in DEFAULT_DEFINITIONAL_PAIRS)
    male = tuple(m for _, m in DEFAULT_DEFINITIONAL_PAIRS)
    return female, male


@dataclass
class _Query:
    qid: str
    terms: list[str]
    g: float
    topic: list[str]
    leaning: str = "neutral"  # "female", "male" or "neutral"


class _Vocabulary:
    """The embedding's frequent words: Zipf-weighted background text and topic neighbourhoods."""

    def __init__(self, kv, lexicon, stopwords: frozenset[str]):
        female, male = _gender_words()
        banned = {w.lower() for w in female + male}
        self.lexicon = lexicon
        self.analyzer = generator_analyzer()
        words = kv.index_to_key[:TOPIC_VOCABULARY]
        keep = [
            i
            for i, w in enumerate(words)
            if w.isascii() and w.isalpha() and len(w) > 2 and w not in stopwords and w not in banned and w in lexicon
        ]
        self.words = [words[i] for i in keep]
        self.position = {w: i for i, w in enumerate(self.words)}
        vectors = np.asarray(kv.vectors[keep], dtype=np.float64)
        self.unit = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
        self.stems = self.analyzer.inflection_classes(self.words)
        n_background = int(np.searchsorted(keep, BACKGROUND_VOCABULARY))
        if n_background == 0 or len(keep) <= NEIGHBOUR_SHORTLIST:
            raise DemoError(
                f"the lexicon {getattr(lexicon, 'name', '')!r} knows only {len(keep)} of the "
                f"{TOPIC_VOCABULARY:,} most frequent words of the default embedding"
            )
        weights = 1.0 / (np.arange(n_background) + 10.0)  # Zipf-like, flattened for the very top
        self.background_cdf = np.cumsum(weights) / weights.sum()

    def nearest(self, vectors: np.ndarray) -> np.ndarray:
        """For each row of `vectors`, the NEIGHBOUR_SHORTLIST nearest word positions by cosine, nearest first."""
        vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
        similarity = vectors @ self.unit.T
        shortlist = np.argpartition(-similarity, NEIGHBOUR_SHORTLIST, axis=1)[:, :NEIGHBOUR_SHORTLIST]
        ordered = []
        for i, row in enumerate(shortlist):
            # Rounded similarities and a position tie-break keep the order identical across BLAS builds.
            rounded = np.round(similarity[i, row].astype(np.float64), 5)
            ordered.append(row[np.lexsort((row, -rounded))])
        return np.array(ordered)

    def first_words(self, positions: np.ndarray, excluded_stems: set[str], count: int) -> list[str]:
        """The first `count` words at `positions` outside the excluded inflection classes."""
        found = []
        for i in positions:
            if self.stems[i] not in excluded_stems:
                found.append(self.words[i])
                if len(found) == count:
                    break
        return found

    def background(self, rng: np.random.Generator, count: int) -> list[str]:
        picks = np.searchsorted(self.background_cdf, rng.random(count), side="right")
        return [self.words[i] for i in picks]


def _listed_seed_words() -> list[str]:
    """Occupations and topics whose GloVe neighbourhoods are coherent (not surnames), across gender leanings."""
    lines = SEED_WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _seed_words(vocabulary: _Vocabulary) -> list[str]:
    """The listed seed words then Appendix A's words that are in the vocabulary, one per inflection class."""
    from gsr.validation.stereotypes import STEREOTYPE_CONTRASTS

    listed = _listed_seed_words() + [
        w.lower() for pair in STEREOTYPE_CONTRASTS.values() for words in pair for w in words
    ]
    seeds, seen = [], set()
    for word in listed:
        i = vocabulary.position.get(word)
        if i is not None and vocabulary.stems[i] not in seen and word not in UNTOPICAL_SEEDS:
            seen.add(vocabulary.stems[i])
            seeds.append(word)
    return seeds


def _candidate_queries(vocabulary: _Vocabulary, rng: np.random.Generator) -> list[_Query]:
    """One query per seed: the seed and 1-3 of its nearest neighbours, with its topic vocabulary."""
    from gsr.equations import query_genderedness

    seeds = _seed_words(vocabulary)
    seed_positions = [vocabulary.position[w] for w in seeds]
    terms_of, seen = [], set()
    for seed, position, nearest in zip(seeds, seed_positions, vocabulary.nearest(vocabulary.unit[seed_positions])):
        n_terms = int(rng.integers(2, 5))
        terms = [seed] + vocabulary.first_words(nearest, {vocabulary.stems[position]}, n_terms - 1)
        pair = frozenset(vocabulary.analyzer.inflection_classes(terms[:2]))
        if pair not in seen:  # 'colonel lieutenant' after 'lieutenant colonel'
            seen.add(pair)
            terms_of.append(terms)
    centres = np.array([vocabulary.unit[[vocabulary.position[t] for t in terms]].mean(axis=0) for terms in terms_of])
    candidates = []
    for terms, nearest in zip(terms_of, vocabulary.nearest(centres)):
        topic = vocabulary.first_words(nearest, set(vocabulary.analyzer.inflection_classes(terms)), TOPIC_SIZE)
        g = query_genderedness(terms, vocabulary.lexicon)
        candidates.append(_Query("", terms, round(g, 6), topic))
    return candidates


def _choose_queries(candidates: list[_Query], n_queries: int, rng: np.random.Generator) -> list[_Query]:
    """n_queries candidates evenly spaced in g(q); the upper third lean female, the lower third male."""
    ordered = sorted(candidates, key=lambda q: (q.g, q.terms[0]))
    picks = np.unique(np.round(np.linspace(0, len(ordered) - 1, n_queries)).astype(int))
    chosen = [ordered[i] for i in picks]
    third = len(chosen) / 3
    for rank, query in enumerate(chosen):
        query.leaning = "male" if rank < third else "female" if rank >= 2 * third else "neutral"
    width = len(str(len(chosen)))
    order = rng.permutation(len(chosen))  # qids do not reveal g(q)
    for number, i in enumerate(order, start=1):
        chosen[i].qid = f"q{number:0{width}d}"
    return sorted(chosen, key=lambda q: q.qid)


def _side(leaning: str, stereotypical: bool, rng: np.random.Generator) -> str:
    if leaning == "neutral":
        leaning = "female" if rng.random() < 0.5 else "male"
    if stereotypical:
        return leaning
    return "male" if leaning == "female" else "female"


def _between(rng: np.random.Generator, bounds: tuple[int, int]) -> int:
    return int(rng.integers(bounds[0], bounds[1] + 1))


def _gender_context(rng: np.random.Generator, side: str, count: int) -> list[str]:
    female, male = _gender_words()
    words = female if side == "female" else male
    return [words[i] for i in rng.integers(0, len(words), count)]


def _planted_words(
    recipe: Recipe, query: _Query, other: _Query, vocabulary: _Vocabulary, rng: np.random.Generator
) -> list[str]:
    terms = query.terms
    if recipe.query_terms == "all":
        used = list(terms)
    else:
        n_used = 1 if recipe.query_terms == "one" or len(terms) == 1 else int(rng.integers(1, len(terms)))
        used = [terms[i] for i in sorted(rng.choice(len(terms), n_used, replace=False))]
    words = [t for t in used for _ in range(_between(rng, recipe.query_tf))]
    topic = query.topic if recipe.own_topic else other.topic
    words += [topic[i] for i in rng.integers(0, len(topic), _between(rng, recipe.topic_words))]
    side = _side(query.leaning, recipe.side == "stereotypical", rng)
    words += _gender_context(rng, side, _between(rng, recipe.gender_words))
    words += vocabulary.background(rng, _between(rng, recipe.background_words))
    return words


def _background_words(queries: list[_Query], vocabulary: _Vocabulary, rng: np.random.Generator) -> list[str]:
    if rng.random() < 0.5:
        words = _gender_context(rng, "female" if rng.random() < 0.5 else "male", int(rng.integers(0, 9)))
        return words + vocabulary.background(rng, int(rng.integers(50, 121)))
    query = queries[int(rng.integers(0, len(queries)))]
    words = [query.topic[i] for i in rng.integers(0, len(query.topic), int(rng.integers(8, 21)))]
    if rng.random() < 0.3:
        words.append(query.terms[int(rng.integers(0, len(query.terms)))])
    side = _side(query.leaning, rng.random() < TOPICAL_STEREOTYPE_SHARE, rng)
    words += _gender_context(rng, side, int(rng.integers(6, 15)))
    return words + vocabulary.background(rng, int(rng.integers(30, 91)))


def _text(words: list[str], rng: np.random.Generator) -> str:
    """The words in random order as pseudo-sentences of 6-14 words."""
    words = [words[i] for i in rng.permutation(len(words))]
    sentences = []
    start = 0
    while start < len(words):
        end = min(len(words), start + int(rng.integers(6, 15)))
        sentence = words[start:end]
        sentence[0] = sentence[0][0].upper() + sentence[0][1:]
        sentences.append(" ".join(sentence) + ".")
        start = end
    return " ".join(sentences)


def generator_analyzer():
    """The word handling the generator was written with (scikit-learn's stop list, Snowball stems for near-duplicate
    words), fixed here so the demo collection stays byte-identical when GSR's defaults change."""
    from gsr.text.analyzer import Analyzer, stopword_list

    return Analyzer(stopword_list("sklearn"), exclusion="stem")


def _default_lexicon():
    from gsr.lexicon import gender_lexicon
    from gsr.vectors import load_embedding

    kv = load_embedding("glove-6b-50d")
    return kv, gender_lexicon(kv, name="glove-6b-50d")


def generate_demo(
    folder: Path, *, n_documents: int = 20_000, n_queries: int = 250, seed: int = 0, lexicon=None
) -> DemoFiles:
    """Write documents.jsonl, topics.tsv and qrels.txt of the demo collection into `folder` (deterministic)."""
    from gsr.vectors.loading import load_embedding

    if not isinstance(n_queries, int) or n_queries < 3:
        raise DemoError(f"n_queries={n_queries!r}: the demo needs at least 3 queries (female, neutral, male)")
    if not isinstance(n_documents, int) or n_documents < 1:
        raise DemoError(f"n_documents={n_documents!r}: expected a positive integer")
    folder = Path(folder)
    if not folder.is_dir():
        raise DemoError(f"{folder}: no such folder")
    if lexicon is None:
        kv, lexicon = _default_lexicon()
    else:
        kv = load_embedding("glove-6b-50d")
    vocabulary = _Vocabulary(kv, lexicon, generator_analyzer().stopwords)
    rng = np.random.default_rng(seed)
    candidates = _candidate_queries(vocabulary, rng)
    if n_queries > len(candidates):
        raise DemoError(
            f"n_queries={n_queries}: the demo has only {len(candidates)} distinct queries whose seed "
            f"word the lexicon {getattr(lexicon, 'name', '')!r} knows"
        )
    queries = _choose_queries(candidates, n_queries, rng)

    planted: list[tuple[str, int, list[str]]] = []  # (qid, grade, words)
    for number, query in enumerate(queries):
        kinds = []
        for _ in range(_between(rng, RELEVANT_PAIRS)):
            grade = 2 if rng.random() < 0.5 else 1
            kinds += [f"relevant-{grade}-stereotypical", f"relevant-{grade}-counter"]
        kinds += ["distractor"] * _between(rng, DISTRACTORS)
        for kind in kinds:
            drawn = int(rng.integers(0, len(queries) - 1))
            other = queries[drawn + (drawn >= number)]  # any query but this one
            words = _planted_words(RECIPES[kind], query, other, vocabulary, rng)
            planted.append((query.qid, RECIPES[kind].grade, words))
    if n_documents < len(planted):
        raise DemoError(f"n_documents={n_documents}: {n_queries} queries need at least {len(planted)} documents")

    slots = rng.permutation(n_documents)  # planted document k goes to position slots[k]
    width = len(str(n_documents))
    docids = [f"d{i:0{width}d}" for i in range(n_documents)]
    texts: list[str | None] = [None] * n_documents
    qrels: list[tuple[str, str, int]] = []
    for (qid, grade, words), slot in zip(planted, slots):
        texts[slot] = _text(words, rng)
        qrels.append((qid, docids[slot], grade))
    for slot in slots[len(planted) :]:
        texts[slot] = _text(_background_words(queries, vocabulary, rng), rng)

    files = DemoFiles(folder / "documents.jsonl", folder / "topics.tsv", folder / "qrels.txt")
    with open(files.documents, "w", encoding="utf-8", newline="\n") as out:
        for docid, text in zip(docids, texts):
            out.write(json.dumps({"id": docid, "contents": text}) + "\n")
    files.topics.write_text("".join(f"{q.qid}\t{' '.join(q.terms)}\n" for q in queries), encoding="utf-8")
    files.qrels.write_text(
        "".join(f"{qid} 0 {docid} {grade}\n" for qid, docid, grade in sorted(qrels)), encoding="utf-8"
    )
    return files
