"""Word embeddings: loading word2vec, GloVe, fastText and the built-in GloVe 6B into memory-mapped vectors, and
training word2vec/fastText on a collection. The gender direction and g(w) (Eq. 1) are the measure's own:
gsr.lexicon (their old names here still work, with a DeprecationWarning)."""

from __future__ import annotations

from embeddings.loading import BUILTIN_EMBEDDINGS, load_embedding
from gsr.errors import EmbeddingError

_MOVED_TO_LEXICON = (
    "DEFAULT_DEFINITIONAL_PAIRS",
    "GenderDirection",
    "fit_gender_direction",
    "gender_lexicon",
    "load_word_pairs",
    "lookup_word",
    "word_genderedness",
)

__all__ = ["BUILTIN_EMBEDDINGS", "EmbeddingError", "load_embedding"]


def __getattr__(name: str):
    if name in _MOVED_TO_LEXICON:
        import gsr.lexicon
        from gsr._moved import warn_moved

        warn_moved(f"embeddings.{name}", f"gsr.lexicon.{name}")
        return getattr(gsr.lexicon, name)
    raise AttributeError(f"module 'embeddings' has no attribute {name!r}")
