"""Neural re-rankers on frozen word vectors: DRMM (Guo et al. 2016) and MatchPyramid (Pang et al. 2016)."""

from __future__ import annotations

import numpy as np

from experiments.registry import SYSTEMS, SystemType
from gsr.infra.store import cache_dir, content_key
from retrievers.neural import NEURAL_PARAMETERS


def document_frequencies(experiment) -> dict[str, int]:
    """Number of collection documents holding each term, from the harness's document statistics (computed once)."""
    def count() -> dict[str, int]:
        stats = experiment.document_stats()
        df = np.bincount(stats.counts.indices, minlength=len(stats.vocabulary))
        return dict(zip(stats.vocabulary, df.tolist()))

    return experiment.shared("document frequencies", count)


def rerank(experiment, system) -> dict:
    """The upstream run with each judged query's top `depth` re-ranked by the model, 5-fold cross-validated.

    Only judged queries with candidates can be trained on and evaluated; the others keep the upstream order. Texts
    are read with GSR's analyzer, and DRMM's term gating uses the IDF of the query terms over the whole collection.
    """
    from retrievers.device import out_of_memory, resolve_device
    from retrievers.neural import collection_idf, rerank_cross_validated, rerank_depth

    collection = experiment.collection
    candidates = experiment.system_run(experiment.upstream(system))
    trainable = {q for q in collection.judged_queries() if candidates.get(q)}
    depth = rerank_depth(system.params["depth"], collection.qrels, trainable)
    needed = {d for ranked in candidates.values() for d, _ in ranked[:depth]}
    texts = collection.texts(needed)
    folds = collection.folds
    if folds is not None:
        folds = [[q for q in fold if q in trainable] for fold in folds]
    tokenize = experiment.analyzer.tokens
    query_terms = {t for q in trainable for t in tokenize(collection.queries[q])}
    idf = collection_idf(query_terms, document_frequencies(experiment), len(experiment.document_stats()))
    device = resolve_device(system.params["device"], f"{system.name}.device")
    with out_of_memory(system.name, device, "lower depth"):
        reranked = rerank_cross_validated(
            system.model, {q: collection.queries[q] for q in sorted(trainable)}, texts,
            {q: candidates[q] for q in sorted(trainable)}, collection.qrels, experiment.embedding(system.embedding).kv,
            folds=folds, depth=depth, epochs=system.params["epochs"], seed=system.params["seed"], tokenize=tokenize,
            idf=idf, threads=1,  # tiny models: a second thread only adds contention
            checkpoint_dir=cache_dir() / "checkpoints" / experiment.system_key(system),
            device=device)
    return {q: reranked.get(q, ranked) for q, ranked in candidates.items()}


def device_available(experiment, system) -> None:
    """Before any long work: a GPU asked for (device = "cuda") exists."""
    from retrievers.device import resolve_device

    resolve_device(system.params["device"], f"{system.name}.device")


def training_inputs(experiment, system) -> str:
    """What the models learn from besides the collection and the upstream run: the qrels and the folds (a changed
    qrels file must not reuse a run trained on the old judgments)."""
    return content_key(experiment.collection.qrels, experiment.collection.folds)


# version 2: collection IDF, GSR's analyzer, depth 'auto'
SYSTEMS.register(SystemType("drmm", "DRMM: matching histograms, feed-forward per query term, IDF term gating", rerank,
                            params=NEURAL_PARAMETERS, needs_embedding=True, reranks=True, default_upstream="bm25",
                            version=2, reference="Guo et al. 2016", cache_inputs=training_inputs,
                            preflight=device_available))
SYSTEMS.register(SystemType("matchpyramid", "MatchPyramid: convolutions over the cosine matching matrix", rerank,
                            params=NEURAL_PARAMETERS, needs_embedding=True, reranks=True, default_upstream="bm25",
                            version=2, reference="Pang et al. 2016", cache_inputs=training_inputs,
                            preflight=device_available))
