"""The re-rankers by name: which models exist, their declared parameters and learning rates, and how to make a
fresh model and the inputs it reads."""

from __future__ import annotations

from torch import nn

from gsr.params import Param
from retrievers.neural.drmm import DRMM, DrmmInputs
from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import RankingData
from retrievers.neural.matchpyramid import MatchPyramid, PyramidInputs

MODELS = ("drmm", "matchpyramid")
# what a configuration sets for a re-ranker; the defaults are those of rerank_cross_validated
NEURAL_PARAMETERS: tuple[Param, ...] = (
    Param("depth", int, 100, "re-ranked documents per query", minimum=1),
    Param("epochs", int, 10, "training epochs per fold", minimum=1),
    Param("seed", int, 0, "seed of the folds, the sampling and the initial weights"),
)
LEARNING_RATES = {"drmm": 1e-2, "matchpyramid": 1e-3}


def new_model(name: str) -> nn.Module:
    """A freshly initialised model by name: 'drmm' or 'matchpyramid'."""
    if name == "drmm":
        return DRMM()
    if name == "matchpyramid":
        return MatchPyramid()
    raise NeuralRankerError(f"unknown neural model {name!r}; expected one of {', '.join(MODELS)}")


def model_inputs(name: str, data: RankingData):
    """The precomputed inputs a model of this name reads (DrmmInputs or PyramidInputs)."""
    if name == "drmm":
        return DrmmInputs(data)
    if name == "matchpyramid":
        return PyramidInputs(data)
    raise NeuralRankerError(f"unknown neural model {name!r}; expected one of {', '.join(MODELS)}")
