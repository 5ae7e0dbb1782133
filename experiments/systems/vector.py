"""Bag-of-word-vector systems of Vulić & Moens (2015): w2v_add / ftt_add (`add`) and w2v_si (`si`)."""

from __future__ import annotations

from experiments.registry import SYSTEMS, SystemType
from gsr.store import content_key


def search(experiment, system) -> dict:
    """Exact top-`depth` documents by cosine between the query's and the documents' (weighted) vector sums."""
    from retrievers.vector_average import VectorAverageRetriever

    collection = experiment.collection
    embedding = experiment.embedding(system.embedding)
    cache_key = content_key(collection.key, embedding.key, sorted(experiment.analyzer.stopwords))
    retriever = VectorAverageRetriever(embedding.kv, experiment.document_stats(), system.model, experiment.analyzer,
                                       cache_key=cache_key, progress=experiment.progress)
    return retriever.search(collection.queries, k=experiment.config.depth)


SYSTEMS.register(SystemType("add", "sum of the text's word vectors, cosine ranking (w2v_add, ftt_add)", search,
                            needs_embedding=True, reference="Vulić & Moens 2015"))
SYSTEMS.register(SystemType("si", "word vectors weighted by self-information −log p(w), cosine ranking (w2v_si)",
                            search, needs_embedding=True, reference="Vulić & Moens 2015"))
