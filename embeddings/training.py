"""word2vec and fastText vectors trained with gensim on a collection itself, when no pretrained file is given.

One pass over the collection (in parallel processes) writes its tokens as gensim's corpus_file and counts its
words; every model reads that file and takes its vocabulary from those counts, so no model scans the text again.
While gensim trains, progress (epoch, words/s, ETA) is logged (logger gsr.training).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gsr.documents.opening import iter_documents
from gsr.errors import ParamError
from gsr.infra import logs
from gsr.infra.digests import content_key
from gsr.infra.params import Param, check_params
from gsr.infra.progress import progress
from gsr.infra.store import cache_dir, cached_folder
from gsr.text.analyzer import TOKENS_VERSION

log = logs.get("training")

METHODS = ("word2vec", "fasttext")
FASTTEXT_BUCKETS = 2_000_000  # fastText's own default, the most `buckets = 0` gives
BUCKETS_PER_NGRAM = 4  # buckets = 4 × the vocabulary's distinct n-grams: about 1 in 5 n-grams shares its bucket

TRAINING_PARAMS = (
    Param("dim", int, 100, "vector dimensions", minimum=1, maximum=10_000),
    Param("window", int, 5, "context words on each side of a word", minimum=1, maximum=1_000),
    Param("min_count", int, 5, "words seen fewer times in the collection get no vector", minimum=1),
    Param("epochs", int, 5, "passes over the collection", minimum=1, maximum=1_000),
    Param(
        "sample",
        float,
        1e-3,
        "frequent-word subsampling threshold t: a word of frequency f > t is kept with "
        "probability √(t/f) + t/f (0: keep every word)",
        minimum=0,
        maximum=1,
    ),
    Param("min_n", int, 3, "fastText: shortest character n-gram", minimum=1),
    Param("max_n", int, 6, "fastText: longest character n-gram", minimum=1),
    Param(
        "buckets",
        int,
        0,
        "fastText: hash buckets of the n-grams (0: four per distinct n-gram of the "
        f"vocabulary, at most {FASTTEXT_BUCKETS:,})",
        minimum=0,
    ),
    Param("seed", int, 0, "seed of the initial vectors and the sampling", minimum=0, maximum=2**32 - 1),
)


@dataclass(frozen=True)
class TrainingSettings:
    """Skip-gram with negative sampling (5 noise words); `TRAINING_PARAMS` says what each setting means."""

    method: str = "fasttext"
    dim: int = 100
    window: int = 5
    min_count: int = 5
    epochs: int = 5
    sample: float = 1e-3  # gensim's; 1e-4 halves the gendered pronouns' updates and moves the demo's GSR
    min_n: int = 3
    max_n: int = 6
    buckets: int = 0
    seed: int = 0

    def __post_init__(self):
        if self.method not in METHODS:
            raise ParamError(f"training method {self.method!r} is unknown; choose one of {', '.join(METHODS)}")
        values = {p.name: getattr(self, p.name) for p in TRAINING_PARAMS}
        for name, value in check_params(TRAINING_PARAMS, values, where="training ").items():
            object.__setattr__(self, name, value)
        if self.max_n < self.min_n:
            raise ParamError(f"training max_n ({self.max_n}) must be at least min_n ({self.min_n})")


@dataclass
class TokenCorpus:
    """A collection as gensim's corpus_file (one document per line, tokens separated by spaces) and its counts."""

    path: Path
    documents: int
    counts: dict[str, int] = field(repr=False)

    @property
    def words(self) -> int:
        return sum(self.counts.values())

    @classmethod
    def load(cls, folder: Path) -> TokenCorpus:
        info = json.loads((folder / "counts.json").read_text(encoding="utf-8"))
        return cls(folder / "corpus.txt", info["documents"], info["counts"])


def _tokenise(shard: list[tuple[str, str]]) -> tuple[str, Counter, int]:
    """(the shard's documents as token lines, their word counts, how many documents)."""
    from gsr.text.analyzer import Analyzer

    analyzer = Analyzer(stopwords=frozenset())  # the models see every word, stop words included
    lines = [analyzer.tokens(text) for _, text in shard]
    counts = Counter(token for tokens in lines for token in tokens)
    return "".join(" ".join(tokens) + "\n" for tokens in lines), counts, len(lines)


def _count_tokens(shard: list[tuple[str, str]]) -> Counter:
    """The word counts of a shard, tokenised as _tokenise does (no stop list)."""
    from gsr.text.analyzer import Analyzer

    analyzer = Analyzer(stopwords=frozenset())
    return Counter(token for _, text in shard for token in analyzer.tokens(text))


def collection_word_counts(documents: Path, collection_key: str, write: bool, n_jobs: int | None = None) -> dict:
    """How often each word occurs in a collection as training tokenises it: the word counts a trained embedding's
    vocabulary is taken from (the words seen at least min_count times), known before any training. Read from the
    cached token corpus where there is one; otherwise, with `write`, the token corpus is written (training reads it
    next), and without (`gsr run --dry-run`) the collection is counted and nothing is written."""
    from gsr.infra.parallel import document_shards, map_in_processes

    folder = token_corpus_folder(collection_key)
    if write:  # verified, or written now
        folder, _ = cached_folder(folder, lambda staging: write_token_corpus(documents, staging, n_jobs))
        return TokenCorpus.load(folder).counts
    try:  # read only: the entry is verified when a run uses it
        return TokenCorpus.load(folder).counts
    except (OSError, ValueError, KeyError):
        pass
    counts: Counter = Counter()
    shards = document_shards(iter_documents(Path(documents)), 5_000)
    for shard_counts in map_in_processes(_count_tokens, shards, n_jobs or os.cpu_count() or 1):
        counts.update(shard_counts)
    return dict(counts)


def write_token_corpus(documents: Path, folder: Path, n_jobs: int | None = None) -> TokenCorpus:
    """Tokenise a JSONL/TSV collection into `folder`/corpus.txt and its word counts into `folder`/counts.json.

    Tokens are GSR's (lowercase runs of letters) without a stop list. `n_jobs` processes (default: all cores).
    Training reads corpus.txt in C with every worker thread, several times faster than Python iterables.
    """
    from gsr.infra.parallel import document_shards, map_in_processes

    n_jobs = n_jobs or os.cpu_count() or 1
    counts: Counter = Counter()
    documents_done = 0
    shards = document_shards(iter_documents(Path(documents)), 5_000)
    with (
        open(folder / "corpus.txt", "w", encoding="utf-8") as out,
        progress(desc="tokenising", unit="doc", unit_scale=True) as bar,
    ):
        for lines, chunk_counts, shard_documents in map_in_processes(_tokenise, shards, n_jobs):
            out.write(lines)
            counts.update(chunk_counts)
            documents_done += shard_documents
            bar.update(shard_documents)
    log.info("tokenised %s documents, %s words", f"{documents_done:,}", f"{sum(counts.values()):,}")
    (folder / "counts.json").write_text(json.dumps({"documents": documents_done, "counts": counts}), encoding="utf-8")
    return TokenCorpus(folder / "corpus.txt", documents_done, dict(counts))


def fasttext_buckets(words, min_n: int, max_n: int) -> int:
    """BUCKETS_PER_NGRAM × the distinct character n-grams of `words` (fastText's <word> padding), capped at
    fastText's default: the n-gram table sized to the vocabulary instead of 2 M rows whatever the collection."""
    grams: set[str] = set()
    for word in words:
        padded = f"<{word}>"
        for n in range(min_n, max_n + 1):
            grams.update(padded[i : i + n] for i in range(len(padded) - n + 1))
    return max(1, min(FASTTEXT_BUCKETS, BUCKETS_PER_NGRAM * len(grams)))


class TrainingProgress:
    """Epoch, words/s and ETA logged while gensim trains: a line after each epoch and, within one, every `every`
    seconds (gensim's corpus_file training reports nothing before an epoch ends)."""

    def __init__(self, label: str, epochs: int, words_per_epoch: int, every: float = 15.0):
        self.label, self.epochs, self.words = label, epochs, words_per_epoch
        self.every = every
        self.done = 0
        self.epoch_seconds: list[float] = []
        self._stop = threading.Event()

    def line(self, message: str) -> None:
        log.info("%s: %s", self.label, message)

    def eta(self, into_epoch: float = 0.0) -> str:
        if not self.epoch_seconds:
            return "ETA after the first epoch"
        mean = sum(self.epoch_seconds) / len(self.epoch_seconds)
        return f"ETA {_duration(max(0.0, (self.epochs - self.done) * mean - into_epoch))}"

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.every):
            into = time.monotonic() - self.epoch_started
            self.line(f"epoch {self.done + 1}/{self.epochs}, {_duration(into)} in, {self.eta(into)}")

    # gensim's callback interface (gensim.models.callbacks.CallbackAny2Vec), duck-typed
    def on_train_begin(self, model) -> None:
        self.started = self.epoch_started = time.monotonic()
        if self.every > 0:
            threading.Thread(target=self._heartbeat, daemon=True).start()

    def on_epoch_begin(self, model) -> None:
        self.epoch_started = time.monotonic()

    def on_epoch_end(self, model) -> None:
        seconds = time.monotonic() - self.epoch_started
        self.epoch_seconds.append(seconds)
        self.done += 1
        self.line(
            f"epoch {self.done}/{self.epochs} in {_duration(seconds)}, "
            f"{self.words / max(seconds, 1e-9):,.0f} words/s, {self.eta()}"
        )

    def on_train_end(self, model) -> None:
        self.close()
        self.line(f"trained in {_duration(time.monotonic() - self.started)}")

    def close(self) -> None:
        """Stops the in-epoch reports (also when training fails)."""
        self._stop.set()


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{int(seconds // 60)} min {seconds % 60:02.0f} s"


def train_embedding(corpus: TokenCorpus, settings: TrainingSettings):
    """Skip-gram word2vec or fastText (gensim) on a token corpus; returns its KeyedVectors.

    One worker thread: with more, gensim's threads update shared vectors in whatever order the scheduler gives, and
    two runs with one seed differ (the demo's w2v_add MAP moved by 0.001 between fresh runs). Several embeddings
    train side by side instead (start_training), one per core.
    """
    import logging

    from gsr.infra.extras import require

    require("train", f"training {settings.method} (gensim)")
    from gensim.models import FastText, Word2Vec

    options = dict(
        vector_size=settings.dim,
        window=settings.window,
        min_count=settings.min_count,
        sample=settings.sample,
        sg=1,
        negative=5,
        seed=settings.seed,
        workers=1,
    )
    if settings.method == "fasttext":
        buckets = settings.buckets or fasttext_buckets(
            (w for w, c in corpus.counts.items() if c >= settings.min_count), settings.min_n, settings.max_n
        )
        model = FastText(min_n=settings.min_n, max_n=settings.max_n, bucket=buckets, **options)
    else:
        buckets, model = None, Word2Vec(**options)
    gensim_logger, previous_level = logging.getLogger("gensim"), logging.getLogger("gensim").level
    handler = logging.StreamHandler(sys.stderr)  # gensim's own INFO lines, under --verbose
    verbose = logs.verbose()
    if verbose:
        gensim_logger.addHandler(handler)
        gensim_logger.setLevel(logging.INFO)
    reporter = TrainingProgress(
        settings.method, settings.epochs, corpus.words, every=15.0 if log.isEnabledFor(logging.INFO) else 0.0
    )
    try:
        model.build_vocab_from_freq(corpus.counts, corpus_count=corpus.documents)
        reporter.line(
            f"{len(model.wv):,} words (min_count {settings.min_count})"
            + (f", {buckets:,} n-gram buckets" if buckets else "")
            + f", {settings.dim}d, "
            f"{settings.epochs} epochs over {corpus.words:,} words, {options['workers']} threads"
        )
        model.train(
            corpus_file=str(corpus.path),
            total_examples=corpus.documents,
            total_words=corpus.words,
            epochs=settings.epochs,
            callbacks=[reporter],
        )
    finally:
        reporter.close()
        if verbose:
            gensim_logger.removeHandler(handler)
            gensim_logger.setLevel(previous_level)
    return model.wv


def trained_embedding(documents: Path, collection_key: str, settings: TrainingSettings):
    """train_embedding cached per (collection content, settings): (memory-mapped KeyedVectors, its cache key).

    The token corpus is cached per collection, so a second method trained on it reuses the one tokenising pass.
    """
    from gsr.vectors.loading import cached_embedding

    key = trained_key(collection_key, settings)

    def build():
        folder, _ = cached_folder(
            token_corpus_folder(collection_key), lambda staging: write_token_corpus(documents, staging)
        )
        return train_embedding(TokenCorpus.load(folder), settings)

    return cached_embedding(key, build), key


def trained_key(collection_key: str, settings: TrainingSettings) -> str:
    """The cache key of an embedding trained on a collection with `settings` (and its tokens' version)."""
    return f"trained-{collection_key}-{content_key(asdict(settings), TOKENS_VERSION, length=12)}"


def token_corpus_folder(collection_key: str) -> Path:
    """The cache entry of a collection's token corpus (TokenCorpus), per version of the tokens."""
    return cache_dir() / "token-corpora" / f"{collection_key}-t{TOKENS_VERSION}"


def _trained_key(documents: Path, collection_key: str, settings: TrainingSettings) -> str:
    return trained_embedding(documents, collection_key, settings)[1]


def start_training(documents: Path, collection_key: str, settings: list[TrainingSettings], n_jobs: int):
    """trained_embedding for each of `settings` not cached yet, started in up to `n_jobs` forked processes (each
    trains on one core, see train_embedding) that run while the caller goes on; their results land in the cache,
    where trained_embedding finds them once the returned BackgroundProcesses has been waited for. None when there is
    nothing to train, or `n_jobs` < 2 (each is then trained in this process when first used). The token corpus is
    written first, once, for all of them."""
    from functools import partial

    from gsr.infra.parallel import BackgroundProcesses
    from gsr.vectors.loading import CACHE_FORMAT

    missing = [
        s
        for s in settings
        if not (cache_dir() / "embeddings" / f"{trained_key(collection_key, s)}-v{CACHE_FORMAT}").is_dir()
    ]
    if not missing or n_jobs < 2:
        return None
    cached_folder(token_corpus_folder(collection_key), lambda staging: write_token_corpus(documents, staging))
    return BackgroundProcesses(partial(_trained_key, documents, collection_key), missing, n_jobs)
