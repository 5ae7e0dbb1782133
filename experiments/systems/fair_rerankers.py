"""Gender-fairness re-rankers of another system's run (retrievers.fair_ranking): `model = "rerank"` with `method`
(epsilon_greedy, relevance_swap, fairness_greedy, dash), the method's parameters, the label source (methods that read
labels) and `rerank = "NAME"`, the system re-ranked (default: the first BM25 system). A list value of a scalar
parameter (`epsilon = [0.1, 0.3, 0.5]`, `seed = [0, 1, 2]`) makes one system per value."""

from __future__ import annotations

from dataclasses import replace

from experiments.document_labels import LABELS_PARAM, collection_labels, labels_version
from experiments.estimates import Work
from experiments.registry import SYSTEMS, SystemType
from gsr.errors import InputError
from gsr.infra.params import Param
from retrievers.fair_ranking import LABEL_METHODS, METHOD_PARAMS, METHODS, Reranker, cosine_costs

METHOD = Param(
    "method",
    str,
    None,
    "the re-ranker: epsilon_greedy (Feng & Shah Alg. 1), relevance_swap (Alg. 2), "
    "fairness_greedy (Alg. 3), dash (Dash Eq. 1)",
    choices=METHODS,
    required=True,
)
RELEVANCE_EMBEDDING = Param(
    "relevance_embedding",
    str,
    None,
    "with relevance = embedding: the [embeddings] name whose mean word vectors give the cosine relevance cost",
)


def declared_params(table: dict) -> tuple[Param, ...]:
    """The parameters of the table's method (all methods' when the method is missing or unknown, so the checker
    names the method, not its parameters)."""
    method = table.get("method")
    if method not in METHOD_PARAMS:
        return all_params()
    extra: tuple[Param, ...] = (LABELS_PARAM,) if method in LABEL_METHODS else ()
    extra += (RELEVANCE_EMBEDDING,) if method == "dash" else ()
    return (METHOD, *METHOD_PARAMS[method], *extra)


def all_params() -> tuple[Param, ...]:
    """Every method's parameters once, each help saying which methods take it (`gsr list systems`)."""
    users: dict[str, list[str]] = {}
    params: dict[str, Param] = {}
    for method in METHODS:
        for param in declared_params({"method": method})[1:]:
            users.setdefault(param.name, []).append(method)
            params.setdefault(param.name, param)
    return (METHOD, *(replace(p, help=f"{', '.join(users[name])}: {p.help}") for name, p in params.items()))


def _reranker(system) -> Reranker:
    names = {p.name for p in METHOD_PARAMS[system.params["method"]]}
    return Reranker(system.params["method"], {k: v for k, v in system.params.items() if k in names})


def rerank(experiment, system) -> dict:
    """The upstream run with each query's top `depth` re-ranked by the method (labels and costs as configured)."""
    reranker = _reranker(system)
    run = experiment.system_run(experiment.upstream(system))
    labels = collection_labels(experiment, system.params["labels"]) if reranker.needs_labels else None
    relevance = None
    if system.params["method"] == "dash" and system.params["relevance"] == "embedding":
        from experiments.systems.vector import vector_retriever

        retriever = vector_retriever(experiment, system.params["relevance_embedding"], "add")
        relevance = cosine_costs(retriever, experiment.collection.queries)
    return reranker.rerank(run, labels, relevance)


def check(experiment, system) -> None:
    """Before any long step: the relevance embedding exists, and a labels file is there."""
    if system.params["method"] == "dash" and system.params["relevance"] == "embedding":
        name = system.params["relevance_embedding"]
        if name not in experiment.config.embeddings:
            raise InputError(
                f"{system.name}: relevance = 'embedding' needs relevance_embedding = an [embeddings] "
                f"name (defined: {', '.join(experiment.config.embeddings) or 'none'}), not {name!r}"
            )
    if system.params["method"] in LABEL_METHODS:
        labels_version(experiment, system.params["labels"])


def inputs(experiment, system) -> object:
    """What the run depends on beyond its parameters: the labels' version and the relevance embedding's."""
    method = system.params["method"]
    parts = [labels_version(experiment, system.params["labels"])] if method in LABEL_METHODS else []
    if method == "dash" and system.params["relevance"] == "embedding":
        parts.append(experiment.embedding(system.params["relevance_embedding"]).key)
    return parts


def rerank_cost(experiment, system) -> list[Work]:
    depth = system.params["depth"]
    per_query = experiment.config.depth if depth == "all" else min(depth, experiment.config.depth)
    return [Work("re-ranking", len(experiment.collection.queries) * per_query)]


SYSTEMS.register(
    SystemType(
        "rerank",
        "a gender-fairness re-ranker of another system's run: epsilon-greedy, relevance-aware swapping, "
        "fairness-greedy (Feng & Shah 2022) or the cost-based greedy of Dash et al.",
        rerank,
        params=all_params(),
        reranks=True,
        default_upstream="bm25",
        params_of=declared_params,
        preflight=check,
        cache_inputs=inputs,
        reference="Feng & Shah 2022; Dash et al.",
        cost=rerank_cost,
    )
)
