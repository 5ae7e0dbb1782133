"""word2vec and fastText vectors trained with gensim on a collection itself, when no pretrained file is given."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from gsr.io import iter_documents

METHODS = ("word2vec", "fasttext")


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
        for name in ("dim", "window", "min_count", "epochs"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"training {name} must be a positive integer, not {getattr(self, name)!r}")


class _Sentences:
    """Re-iterable token lists of a documents file (gensim reads the corpus once per epoch plus once for the vocabulary)."""

    def __init__(self, documents: Path, progress: bool):
        from gsr.text import Analyzer

        self.documents = documents
        self.analyzer = Analyzer(stopwords=frozenset())  # the models see every word, stop words included
        self.progress = progress
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        for n, (_, text) in enumerate(iter_documents(self.documents), start=1):
            if self.progress and n % 20_000 == 0:
                print(f"\r  pass {self.passes}: {n:,} documents", end="", file=sys.stderr, flush=True)
            yield self.analyzer.tokens(text)
        if self.progress:
            print(file=sys.stderr)


def train_embedding(documents: Path, settings: TrainingSettings, progress: bool = False):
    """Skip-gram word2vec or fastText (gensim) trained on every document of a JSONL/TSV collection file."""
    from gensim.models import FastText, Word2Vec

    model_class = FastText if settings.method == "fasttext" else Word2Vec
    sentences = _Sentences(Path(documents), progress)
    model = model_class(sentences=sentences, vector_size=settings.dim, window=settings.window,
                        min_count=settings.min_count, epochs=settings.epochs, sg=1, seed=settings.seed,
                        workers=max(1, os.cpu_count() or 1))
    return model.wv


def trained_embedding(documents: Path, collection_key: str, settings: TrainingSettings, progress: bool = False):
    """train_embedding, cached per (collection content, settings) with the other embedding caches."""
    from embeddings.loading import cached_embedding

    key = "trained-" + collection_key + "-" + _settings_key(settings)
    if progress:
        print(f"embedding {settings.method} ({settings.dim}d) on {documents}", file=sys.stderr)
    return cached_embedding(key, lambda: train_embedding(documents, settings, progress), cache=True)


def _settings_key(settings: TrainingSettings) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(asdict(settings), sort_keys=True).encode()).hexdigest()[:12]
