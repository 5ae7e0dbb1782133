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
`crossval` (folds and checkpoints: `rerank_cross_validated`, what callers use), `errors`.
"""

from retrievers.neural.crossval import CHECKPOINT_FORMAT, DEFAULT_FOLDS, rerank_cross_validated, seeded_folds
from retrievers.neural.drmm import (
    DRMM,
    HISTOGRAM_BINS,
    DrmmInputs,
    histogram_bins,
    idf_term_gating,
    log_count_histogram,
    matching_histograms,
)
from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import (
    RankingData,
    build_ranking_data,
    candidate_pool_idf,
    collection_idf,
    default_tokenizer,
    smoothed_idf,
)
from retrievers.neural.matchpyramid import (
    PYRAMID_DOC_TERMS,
    PYRAMID_QUERY_TERMS,
    MatchPyramid,
    PyramidInputs,
    cosine_matching_matrices,
    dynamic_max_pool,
)
from retrievers.neural.models import (
    AUTO_DEPTH,
    AUTO_DEPTH_FLOOR,
    LEARNING_RATES,
    MODELS,
    NEURAL_PARAMETERS,
    model_inputs,
    new_model,
    rerank_depth,
)
from retrievers.neural.training import (
    VALIDATION_CUTOFF,
    TrainingReport,
    mean_ndcg,
    ndcg_at,
    pairwise_hinge_loss,
    rerank,
    sample_training_groups,
    score_pairs,
    scores_by_query,
    train_ranker,
)

__all__ = [
    "AUTO_DEPTH",
    "AUTO_DEPTH_FLOOR",
    "CHECKPOINT_FORMAT",
    "DEFAULT_FOLDS",
    "DRMM",
    "HISTOGRAM_BINS",
    "LEARNING_RATES",
    "MODELS",
    "NEURAL_PARAMETERS",
    "PYRAMID_DOC_TERMS",
    "PYRAMID_QUERY_TERMS",
    "VALIDATION_CUTOFF",
    "DrmmInputs",
    "MatchPyramid",
    "NeuralRankerError",
    "PyramidInputs",
    "RankingData",
    "TrainingReport",
    "build_ranking_data",
    "candidate_pool_idf",
    "collection_idf",
    "cosine_matching_matrices",
    "default_tokenizer",
    "dynamic_max_pool",
    "histogram_bins",
    "idf_term_gating",
    "log_count_histogram",
    "matching_histograms",
    "mean_ndcg",
    "model_inputs",
    "ndcg_at",
    "new_model",
    "pairwise_hinge_loss",
    "rerank",
    "rerank_depth",
    "rerank_cross_validated",
    "sample_training_groups",
    "score_pairs",
    "scores_by_query",
    "seeded_folds",
    "smoothed_idf",
    "train_ranker",
]
