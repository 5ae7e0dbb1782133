"""Neural re-rankers DRMM (Guo et al. 2016) and MatchPyramid (Pang et al. 2016) in PyTorch, cross-validated.

Both models read word vectors from a gensim KeyedVectors (the caller picks the variant: regular, debiased,
strong-debiased). The vectors are frozen, never fine-tuned, so that GSR differences between runs come from the
embedding variant and from the learned matching weights alone; frozen vectors also make every model input
constant, so DRMM's histograms are computed once per (query, document) pair. Terms missing from the embedding are
dropped (looked up as written, lowercase, Title-case and UPPER case, like the GSR lexicon).

MatchZoo-py is not used: it does not install on Python 3.11 and departs from both papers (no IDF gating, count
histograms, dot-product matching and average pooling in MatchPyramid).

Modules: `inputs` (the pairs and their term rows, shared by both models), `drmm`, `matchpyramid`, `models` (the
models by name and their declared parameters), `training` (loss, sampling, scoring, training, re-ranking),
`crossval` (folds and checkpoints: `rerank_cross_validated`, what callers use), `settings` (the models' names and
declared parameters, no PyTorch), `errors`. This package exports what a user calls; the models' parts (histograms,
pooling, losses, sampling) are imported from their modules. Importing it imports no PyTorch (the `neural` extra):
DRMM, MatchPyramid, rerank_cross_validated and seeded_folds load it on first use.
"""

from __future__ import annotations

import importlib

from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import collection_idf
from retrievers.neural.settings import AUTO_DEPTH, MODELS, NEURAL_PARAMETERS, rerank_depth

# exported names whose modules import PyTorch: loaded on first use
_WITH_TORCH = {
    "DRMM": "drmm",
    "MatchPyramid": "matchpyramid",
    "rerank_cross_validated": "crossval",
    "seeded_folds": "crossval",
}

__all__ = [
    "AUTO_DEPTH",
    "DRMM",
    "MODELS",
    "NEURAL_PARAMETERS",
    "MatchPyramid",
    "NeuralRankerError",
    "collection_idf",
    "rerank_cross_validated",
    "rerank_depth",
    "seeded_folds",
]


def __getattr__(name: str):
    if name in _WITH_TORCH:
        return getattr(importlib.import_module(f"retrievers.neural.{_WITH_TORCH[name]}"), name)
    raise AttributeError(f"module 'retrievers.neural' has no attribute {name!r}")
