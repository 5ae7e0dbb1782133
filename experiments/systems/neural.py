"""Neural re-rankers on frozen word vectors: DRMM (Guo et al. 2016) and MatchPyramid (Pang et al. 2016)."""

from __future__ import annotations

import functools

import numpy as np

from experiments.estimates import Work
from experiments.registry import SYSTEMS, SystemType
from gsr.infra.digests import content_key
from gsr.infra.store import cache_dir
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
    An experiment on edited queries (Experiment.with_queries(..., trained_by=original)) trains nothing: each query is
    scored by the model its fold trained on the original queries (probed_rerank).
    """
    if experiment.trained_by is not None:
        return probed_rerank(experiment, system)
    kept = kept_fold_models(experiment, system)
    reranked = cross_validated(experiment, system, fold_models=kept.keep)
    kept.complete = True
    candidates = experiment.system_run(experiment.upstream(system))
    return {q: reranked.get(q, ranked) for q, ranked in candidates.items()}


def trainable_queries(experiment, system) -> tuple[dict, set[str]]:
    """(the upstream run, the judged queries it answers: the ones the models train on and re-rank)."""
    candidates = experiment.system_run(experiment.upstream(system))
    return candidates, {q for q in experiment.collection.judged_queries() if candidates.get(q)}


def ranking_settings(experiment, system) -> dict:
    """What the models read besides the queries and candidates: depth, GSR's analyzer, the collection IDF of the
    training queries' terms, the device."""
    from retrievers.device import resolve_device
    from retrievers.neural import rerank_depth

    collection = experiment.collection
    _, trainable = trainable_queries(experiment, system)
    return {
        "depth": rerank_depth(system.params["depth"], collection.qrels, trainable),
        "tokenize": memoised_tokens(experiment),
        "idf": query_idf(experiment, [collection.queries[q] for q in trainable]),
        "device": resolve_device(system.params["device"], f"{system.name}.device"),
    }


class FoldModels:
    """A neural system's fold models as trained or loaded in this process: {fold k: (its test queries, the weights on
    the CPU)}, complete once every fold is in. The adversarial probe scores its edited queries with them instead of
    loading every checkpoint again and rebuilding the original queries' inputs for each appended word."""

    def __init__(self):
        self.folds: dict[int, tuple[list[str], dict]] = {}
        self.complete = False

    def keep(self, k: int, test_queries: list[str], network) -> None:
        self.folds[k] = (
            list(test_queries),
            {name: t.detach().cpu().clone() for name, t in network.state_dict().items()},
        )


def kept_fold_models(experiment, system) -> FoldModels:
    """The FoldModels of `system` in `experiment` (shared with the experiments derived from it)."""
    return experiment.shared(f"fold models {experiment.system_key(system)}", FoldModels)


def memoised_tokens(experiment):
    """GSR's analyzer, its token lists kept for the experiment (and those derived from it): every neural system and
    the probe's re-scoring read the same candidate documents, which were tokenised once per system before."""
    return experiment.shared("memoised tokens", lambda: functools.lru_cache(maxsize=None)(experiment.analyzer.tokens))


def cross_validated(experiment, system, fold_models=None) -> dict:
    """The judged queries re-ranked by the models of 5-fold cross-validation (retrievers.neural.crossval)."""
    from retrievers.device import out_of_memory
    from retrievers.neural import rerank_cross_validated

    collection = experiment.collection
    candidates, trainable = trainable_queries(experiment, system)
    settings = ranking_settings(experiment, system)
    needed = {d for ranked in candidates.values() for d, _ in ranked[: settings["depth"]]}
    folds = collection.folds
    if folds is not None:
        folds = [[q for q in fold if q in trainable] for fold in folds]
    with out_of_memory(system.name, settings["device"], "lower depth"):
        return rerank_cross_validated(
            system.model,
            {q: collection.queries[q] for q in sorted(trainable)},
            collection.texts(needed),
            {q: candidates[q] for q in sorted(trainable)},
            collection.qrels,
            experiment.embedding(system.embedding).kv,
            folds=folds,
            epochs=system.params["epochs"],
            seed=system.params["seed"],
            threads=1,  # tiny models: a second thread only adds contention
            checkpoint_dir=cache_dir() / "checkpoints" / experiment.system_key(system),
            fold_models=fold_models,
            **settings,
        )


def query_idf(experiment, texts: list[str]) -> dict[str, float]:
    """The collection IDF of every term of `texts` (DRMM's term gating)."""
    from retrievers.neural import collection_idf

    terms = {t for text in texts for t in experiment.analyzer.tokens(text)}
    return collection_idf(terms, document_frequencies(experiment), len(experiment.document_stats()))


def probed_rerank(experiment, system) -> dict:
    """The edited queries' candidates re-ranked by the models trained on the original queries: each query by the
    model of the fold it was tested in (loaded from the original run's checkpoints, or trained again where they are
    gone, with the same seeds); queries the original run did not re-rank keep their candidates."""
    from retrievers.neural.inputs import build_ranking_data
    from retrievers.neural.models import model_inputs, new_model
    from retrievers.neural.training import rerank as rerank_fold

    original = experiment.trained_by
    queries = experiment.collection.queries
    candidates = experiment.system_run(experiment.upstream(system))
    settings = ranking_settings(original, system)
    wanted = [q for q in queries if candidates.get(q)]
    needed = {d for q in wanted for d, _ in candidates[q][: settings["depth"]]}
    data = build_ranking_data(
        queries,
        experiment.collection.texts(needed),
        candidates,
        experiment.collection.qrels,
        experiment.embedding(system.embedding).kv,
        qids=wanted,
        depth=settings["depth"],
        tokenize=settings["tokenize"],
        idf=query_idf(experiment, list(queries.values())),
    )
    inputs = model_inputs(system.model, data)
    kept = kept_fold_models(original, system)
    if not kept.complete:  # the original run came from the cache: its fold models are loaded (or trained) once
        cross_validated(original, system, fold_models=kept.keep)
        kept.complete = True
    device = settings["device"]
    reranked: dict = {}
    for _, (fold, weights) in sorted(kept.folds.items()):
        network = new_model(system.model)
        network.load_state_dict(weights)
        reranked.update(rerank_fold(network.to(device), inputs, data, [q for q in fold if q in data.candidates]))
    return {q: reranked.get(q, ranked) for q, ranked in candidates.items()}


def device_available(experiment, system) -> None:
    """Before any long work: a GPU asked for (device = "cuda") exists."""
    from retrievers.device import check_device

    check_device(system.params["device"], f"{system.name}.device")


def trains_on_the_cpu(experiment, system) -> bool:
    """Whether the models train on the CPU, where a forked process may train them (CUDA cannot be used after fork)."""
    from retrievers.device import resolve_device

    return resolve_device(system.params["device"], f"{system.name}.device") == "cpu"


def training_inputs(experiment, system) -> str:
    """What the models learn from besides the collection and the upstream run: the qrels and the folds (a changed
    qrels file must not reuse a run trained on the old judgments)."""
    key = content_key(experiment.collection.qrels, experiment.collection.folds)
    if experiment.trained_by is not None:  # scored by the models trained on the original queries
        return content_key(key, experiment.trained_by.system_key(system))
    return key


def training_cost(experiment, system) -> list[Work]:
    """Training on every fold: each judged topic's top `depth` candidates, every epoch (DRMM and MatchPyramid at
    rates of their own)."""
    from retrievers.neural import rerank_depth

    judged = experiment.collection.judged_queries()
    depth = rerank_depth(system.params["depth"], experiment.collection.qrels, judged)
    return [Work(system.model, len(judged) * depth * system.params["epochs"])]


# version 2: collection IDF, GSR's analyzer, depth 'auto'
NEURAL_MODELS = (  # (model, what it is, its paper): one declaration each, the rest shared
    ("drmm", "DRMM: matching histograms, feed-forward per query term, IDF term gating", "Guo et al. 2016"),
    ("matchpyramid", "MatchPyramid: convolutions over the cosine matching matrix", "Pang et al. 2016"),
)
for _model, _description, _reference in NEURAL_MODELS:
    SYSTEMS.register(
        SystemType(
            _model,
            _description,
            rerank,
            params=NEURAL_PARAMETERS,
            needs_embedding=True,
            reranks=True,
            runs_aside=trains_on_the_cpu,
            default_upstream="bm25",
            version=2,
            reference=_reference,
            cache_inputs=training_inputs,
            preflight=device_available,
            extra="neural",
            cost=training_cost,
        )
    )
