"""The re-rankers' names and declared parameters, and the re-ranking depth: what a config is checked against, without
PyTorch (the `neural` extra), so that the registry and the config checker import it in the core install."""

from __future__ import annotations

from gsr.infra.params import Param, ParamError
from retrievers.device import DEVICE_PARAM

MODELS = ("drmm", "matchpyramid")
AUTO_DEPTH = "auto"
AUTO_DEPTH_FLOOR = 100  # nDCG@100 and P@10 read at least this many re-ranked documents


MAX_DEPTH = 100_000  # candidates re-ranked per query (every pair's inputs are held in memory)


def _depth(value, label: str):
    """A positive integer, or 'auto'."""
    if value == AUTO_DEPTH:
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DEPTH:
        raise ParamError(f"{label} must be an integer in [1, {MAX_DEPTH:,}] or '{AUTO_DEPTH}', not {value!r}")
    return value


# what a configuration sets for a re-ranker; the defaults are those of rerank_cross_validated
NEURAL_PARAMETERS: tuple[Param, ...] = (
    Param(
        "depth",
        object,
        AUTO_DEPTH,
        f"re-ranked documents per query; auto: max({AUTO_DEPTH_FLOOR}, the largest "
        "number of relevant documents of a query), so GSR's top K is always the model's ranking",
        validator=_depth,
        range_help="int ≥ 1 or auto",
    ),
    Param("epochs", int, 10, "training epochs per fold", minimum=1, maximum=1_000),
    Param("seed", int, 0, "seed of the folds, the sampling and the initial weights", minimum=0, maximum=2**32 - 1),
    DEVICE_PARAM,
)
LEARNING_RATES = {"drmm": 1e-2, "matchpyramid": 1e-3}


def rerank_depth(depth, qrels, qids) -> int:
    """The re-ranking depth: `depth` itself, or for 'auto' max(AUTO_DEPTH_FLOOR, the largest number of relevant
    documents (grade > 0) of any of `qids`), so that every query's top K (§4.2.2: K = its relevant documents) is
    the model's own ranking and never the upstream run's tail."""
    if depth != AUTO_DEPTH:
        return int(depth)
    largest = max((sum(1 for g in qrels.get(q, {}).values() if g > 0) for q in qids), default=0)
    return max(AUTO_DEPTH_FLOOR, largest)
