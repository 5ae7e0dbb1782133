"""Word vectors: loading word2vec, GloVe and fastText files and the built-in GloVe 6B into memory-mapped vectors
(loading), the vectors themselves without gensim (word_vectors), and the Parquet reader of the built-in's word index
(parquet). `GenderLexicon.from_embedding` takes a built-in name or a file itself; `load_embedding` gives the vectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gsr.infra.lazy import lazy_names, names_of

# the lazy names as type checkers and IDEs see them (the modules of _LAZY; tests/test_api_reference.py)
if TYPE_CHECKING:
    from gsr.vectors.loading import BUILTIN_EMBEDDINGS as BUILTIN_EMBEDDINGS
    from gsr.vectors.loading import load_embedding as load_embedding
    from gsr.vectors.word_vectors import KeyedVectorsLike as KeyedVectorsLike
    from gsr.vectors.word_vectors import WordVectors as WordVectors

_LAZY = {
    **names_of("gsr.vectors.loading", "BUILTIN_EMBEDDINGS", "load_embedding"),
    **names_of("gsr.vectors.word_vectors", "KeyedVectorsLike", "WordVectors"),
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
