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
`crossval` (folds and checkpoints: `rerank_cross_validated`, what callers use), `errors`. This package exports what
a user calls; the models' parts (histograms, pooling, losses, sampling) are imported from their modules.
"""

from __future__ import annotations

import importlib

from retrievers.neural.crossval import rerank_cross_validated, seeded_folds
from retrievers.neural.drmm import DRMM
from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import collection_idf
from retrievers.neural.matchpyramid import MatchPyramid
from retrievers.neural.models import AUTO_DEPTH, MODELS, NEURAL_PARAMETERS, rerank_depth

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

# names this package exported before it kept to what a user calls: still importable here, with a DeprecationWarning
_INTERNALS = {
    "crossval": ("CHECKPOINT_FORMAT", "DEFAULT_FOLDS"),
    "drmm": (
        "HISTOGRAM_BINS",
        "DrmmInputs",
        "histogram_bins",
        "idf_term_gating",
        "log_count_histogram",
        "matching_histograms",
    ),
    "inputs": ("RankingData", "build_ranking_data", "candidate_pool_idf", "default_tokenizer", "smoothed_idf"),
    "matchpyramid": (
        "PYRAMID_DOC_TERMS",
        "PYRAMID_QUERY_TERMS",
        "PyramidInputs",
        "cosine_matching_matrices",
        "dynamic_max_pool",
    ),
    "models": ("AUTO_DEPTH_FLOOR", "LEARNING_RATES", "model_inputs", "new_model"),
    "training": (
        "VALIDATION_CUTOFF",
        "TrainingReport",
        "mean_ndcg",
        "ndcg_at",
        "pairwise_hinge_loss",
        "rerank",
        "sample_training_groups",
        "score_pairs",
        "scores_by_query",
        "train_ranker",
    ),
}
_MODULE_OF = {name: module for module, names in _INTERNALS.items() for name in names}


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'retrievers.neural' has no attribute {name!r}")
    from gsr._moved import warn_moved

    warn_moved(f"retrievers.neural.{name}", f"retrievers.neural.{module}.{name}")
    return getattr(importlib.import_module(f"retrievers.neural.{module}"), name)
