"""word2vec and fastText vectors trained with gensim on a collection itself, when no pretrained file is given."""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from gsr.io import iter_documents
from gsr.params import Param, check_params
from gsr.store import atomic_write, cache_dir, cached_file, content_key

METHODS = ("word2vec", "fasttext")
TRAINING_PARAMS = (Param("dim", int, 100, "vector dimensions", minimum=1),
                   Param("window", int, 5, "context window (words on each side)", minimum=1),
                   Param("min_count", int, 5, "words rarer than this are left out", minimum=1),
                   Param("epochs", int, 5, "passes over the collection", minimum=1),
                   Param("seed", int, 0, "random seed", minimum=0))


@dataclass(frozen=True)
class TrainingSettings:
    """Skip-gram settings; the defaults follow the published word2vec/fastText English models, with fewer epochs."""

    method: str = "fasttext"
    dim: int = 100
    window: int = 5
    min_count: int = 5
    epochs: int = 5
    seed: int = 0

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"training method {self.method!r} is unknown; choose one of {', '.join(METHODS)}")
        check_params(TRAINING_PARAMS, {p.name: getattr(self, p.name) for p in TRAINING_PARAMS}, where="training ")


def write_token_corpus(documents: Path, target: Path, progress: bool = False) -> Path:
    """The collection as gensim's corpus_file: one document per line, lowercased tokens separated by spaces.

    Training reads this file in C with every worker thread, several times faster than Python iterables.
    Written to a temporary file and renamed, so an interrupted run leaves nothing behind.
    """
    from gsr.text import Analyzer

    analyzer = Analyzer(stopwords=frozenset())  # the models see every word, stop words included
    with atomic_write(target) as out:
        for n, (_, text) in enumerate(iter_documents(documents), start=1):
            out.write(" ".join(analyzer.tokens(text)) + "\n")
            if progress and n % 50_000 == 0:
                print(f"\r  tokenised {n:,} documents", end="", file=sys.stderr, flush=True)
    return target


def train_embedding(documents: Path, settings: TrainingSettings, progress: bool = False, corpus: Path | None = None):
    """Skip-gram word2vec or fastText (gensim) trained on every document of a JSONL/TSV collection file."""
    import tempfile

    from gensim.models import FastText, Word2Vec

    model_class = FastText if settings.method == "fasttext" else Word2Vec
    with tempfile.TemporaryDirectory() as scratch:
        corpus = corpus or write_token_corpus(Path(documents), Path(scratch) / "corpus.txt", progress)
        if progress:
            print(f"training {settings.method} ({settings.dim}d, {settings.epochs} epochs) on {corpus}",
                  file=sys.stderr)
        model = model_class(corpus_file=str(corpus), vector_size=settings.dim, window=settings.window,
                            min_count=settings.min_count, epochs=settings.epochs, sg=1, seed=settings.seed,
                            workers=max(1, os.cpu_count() or 1))
    return model.wv


def trained_embedding(documents: Path, collection_key: str, settings: TrainingSettings, progress: bool = False):
    """train_embedding cached per (collection content, settings): (memory-mapped KeyedVectors, its cache key)."""
    from embeddings.loading import cached_embedding

    key = f"trained-{collection_key}-{content_key(asdict(settings), length=12)}"

    def build():
        corpus, _ = cached_file(cache_dir() / "token-corpora" / f"{collection_key}.txt",
                                lambda staging: write_token_corpus(documents, staging, progress))
        return train_embedding(documents, settings, progress, corpus=corpus)

    return cached_embedding(key, build), key
