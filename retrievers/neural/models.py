"""The re-rankers by name: how to make a fresh model and the inputs it reads. Which models exist, their declared
parameters and learning rates are retrievers.neural.settings' (no PyTorch there), re-exported here."""

from __future__ import annotations

from torch import nn

from retrievers.neural.drmm import DRMM, DrmmInputs
from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import RankingData
from retrievers.neural.matchpyramid import MatchPyramid, PyramidInputs
from retrievers.neural.settings import (  # noqa: F401  (their home before settings; still importable here)
    AUTO_DEPTH,
    AUTO_DEPTH_FLOOR,
    LEARNING_RATES,
    MAX_DEPTH,
    MODELS,
    NEURAL_PARAMETERS,
    rerank_depth,
)


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
