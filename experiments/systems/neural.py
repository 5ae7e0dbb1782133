"""Neural re-rankers on frozen word vectors: DRMM (Guo et al. 2016) and MatchPyramid (Pang et al. 2016)."""

from __future__ import annotations

from experiments.registry import SYSTEMS, SystemType
from gsr.store import cache_dir
from retrievers.neural import NEURAL_PARAMETERS


def rerank(experiment, system) -> dict:
    """The upstream run with each judged query's top `depth` re-ranked by the model, 5-fold cross-validated.

    Only judged queries with candidates can be trained on and evaluated; the others keep the upstream order.
    """
    from retrievers.neural import rerank_cross_validated

    collection = experiment.collection
    candidates = experiment.system_run(experiment.upstream(system))
    depth = system.params["depth"]
    needed = {d for ranked in candidates.values() for d, _ in ranked[:depth]}
    texts = collection.texts(needed)
    trainable = {q for q in collection.judged_queries() if candidates.get(q)}
    folds = collection.folds
    if folds is not None:
        folds = [[q for q in fold if q in trainable] for fold in folds]
    reranked = rerank_cross_validated(
        system.model, {q: collection.queries[q] for q in sorted(trainable)}, texts,
        {q: candidates[q] for q in sorted(trainable)}, collection.qrels, experiment.embedding(system.embedding).kv,
        folds=folds, depth=depth, epochs=system.params["epochs"], seed=system.params["seed"],
        threads=1,  # tiny models: a second thread only adds contention
        checkpoint_dir=cache_dir() / "checkpoints" / experiment.system_key(system), progress=experiment.progress)
    return {q: reranked.get(q, ranked) for q, ranked in candidates.items()}


SYSTEMS.register(SystemType("drmm", "DRMM: matching histograms, feed-forward per query term, IDF term gating", rerank,
                            params=NEURAL_PARAMETERS, needs_embedding=True, reranks=True, default_upstream="bm25",
                            reference="Guo et al. 2016"))
SYSTEMS.register(SystemType("matchpyramid", "MatchPyramid: convolutions over the cosine matching matrix", rerank,
                            params=NEURAL_PARAMETERS, needs_embedding=True, reranks=True, default_upstream="bm25",
                            reference="Pang et al. 2016"))
