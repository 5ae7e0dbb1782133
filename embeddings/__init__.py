"""Word embeddings: loading, the Bolukbasi gender direction and word genderedness (Eq. 1)."""

from embeddings.direction import (
    DEFAULT_DEFINITIONAL_PAIRS,
    GenderDirection,
    fit_gender_direction,
    gender_lexicon,
    load_word_pairs,
    lookup_word,
    word_genderedness,
)
from embeddings.loading import BUILTIN_EMBEDDINGS, EmbeddingError, load_embedding

__all__ = [
    "BUILTIN_EMBEDDINGS",
    "DEFAULT_DEFINITIONAL_PAIRS",
    "EmbeddingError",
    "GenderDirection",
    "fit_gender_direction",
    "gender_lexicon",
    "load_embedding",
    "load_word_pairs",
    "lookup_word",
    "word_genderedness",
]
