"""The Lucene retrieval models by name, each declared once: its parameters (Anserini's defaults, ranges within
Java's float, checked before indexing rather than failing in the JVM after it) and how it sets up Anserini's
searcher. The harness's system types, the library's checks (retrievers.lucene.api) and the JVM worker read this
table; the worker dispatches through it, never on a model's name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gsr.infra.params import Param


@dataclass(frozen=True)
class LuceneModel:
    """A retrieval model of Anserini's searcher: its name, its parameters, and `configure(searcher, params,
    autoclass)`, which sets the searcher up with checked parameters (`autoclass`: pyjnius', for Lucene classes)."""

    name: str
    params: tuple[Param, ...]
    configure: Callable[[object, dict, Callable], None]


def _bm25(searcher, params: dict, autoclass) -> None:
    searcher.set_bm25(params["k1"], params["b"])


def _qld(searcher, params: dict, autoclass) -> None:
    searcher.set_qld(params["mu"])


def _tfidf(searcher, params: dict, autoclass) -> None:
    # Anserini has no tf-idf switch: set_bm25 builds a fresh IndexSearcher, whose similarity is then replaced by
    # Lucene's ClassicSimilarity (a local variable, not a Java field set from Python: that crashed the JVM)
    searcher.set_bm25(0.9, 0.4)
    classic = autoclass("org.apache.lucene.search.similarities.ClassicSimilarity")()
    searcher.searcher.setSimilarity(classic)


LUCENE_MODELS: dict[str, LuceneModel] = {
    model.name: model
    for model in (
        LuceneModel(
            "bm25",
            (
                Param("k1", float, 0.9, "term-frequency saturation", minimum=0, open_minimum=True, maximum=1000),
                Param("b", float, 0.4, "length normalisation", minimum=0, maximum=1),
            ),
            _bm25,
        ),
        LuceneModel(
            "qld", (Param("mu", float, 1000.0, "Dirichlet smoothing", minimum=0, open_minimum=True, maximum=1e7),), _qld
        ),
        LuceneModel("tfidf", (), _tfidf),
    )
}
