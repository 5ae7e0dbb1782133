"""Bag-of-word-vector systems of Vulić & Moens (2015): w2v_add / ftt_add (`add`) and w2v_si (`si`)."""

from __future__ import annotations

from experiments.estimates import Work, collection_size
from experiments.registry import SYSTEMS, SystemType
from gsr.infra.digests import content_key


def vector_retriever(experiment, embedding_name: str, weighting: str):
    """The collection's document vectors under an embedding and weighting ('add', 'si'), cached on disk and made once
    per experiment (an `add` system and Dash's embedding relevance share them)."""
    from gsr.text.analyzer import TOKENS_VERSION
    from retrievers.vector_average import VectorAverageRetriever

    def make():
        embedding = experiment.embedding(embedding_name)
        cache_key = content_key(
            experiment.collection.key, embedding.key, sorted(experiment.analyzer.stopwords), TOKENS_VERSION
        )
        return VectorAverageRetriever(
            embedding.kv, experiment.document_stats(), weighting, experiment.analyzer, cache_key=cache_key
        )

    return experiment.shared(f"vector retriever {embedding_name} {weighting}", make)


def search(experiment, system) -> dict:
    """Exact top-`depth` documents by cosine between the query's and the documents' (weighted) vector sums."""
    retriever = vector_retriever(experiment, system.embedding, system.model)
    return retriever.search(experiment.collection.queries, k=experiment.config.depth)


def search_cost(experiment, system) -> list[Work]:
    """Every document's vector, then every topic searched."""
    return [Work("document vectors", collection_size(experiment).documents)]


SYSTEMS.register(
    SystemType(
        "add",
        "sum of the text's word vectors, cosine ranking (w2v_add, ftt_add)",
        search,
        needs_embedding=True,
        reference="Vulić & Moens 2015",
        cost=search_cost,
    )
)
SYSTEMS.register(
    SystemType(
        "si",
        "word vectors weighted by self-information −log p(w), cosine ranking (w2v_si)",
        search,
        needs_embedding=True,
        reference="Vulić & Moens 2015",
        cost=search_cost,
    )
)
