"""Word vectors: loading word2vec, GloVe and fastText files and the built-in GloVe 6B into memory-mapped vectors
(loading), the vectors themselves without gensim (word_vectors), and the Parquet reader of the built-in's word index
(parquet). `GenderLexicon.from_embedding` takes a built-in name or a file itself; `load_embedding` gives the vectors.
"""

from gsr.infra.lazy import lazy_names, names_of

_LAZY = {
    **names_of("gsr.vectors.loading", "BUILTIN_EMBEDDINGS", "load_embedding"),
    **names_of("gsr.vectors.word_vectors", "KeyedVectorsLike", "WordVectors"),
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
