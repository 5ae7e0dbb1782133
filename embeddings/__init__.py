"""Word embeddings: loading word2vec, GloVe, fastText and the built-in GloVe 6B into memory-mapped vectors, and
training word2vec/fastText on a collection. The gender direction and g(w) (Eq. 1) are the measure's own: gsr.lexicon."""

from __future__ import annotations

from gsr.errors import EmbeddingError
from gsr.vectors.loading import BUILTIN_EMBEDDINGS, load_embedding

__all__ = ["BUILTIN_EMBEDDINGS", "EmbeddingError", "load_embedding"]
