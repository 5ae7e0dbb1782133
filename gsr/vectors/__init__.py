"""Word vectors: loading word2vec, GloVe and fastText files and the built-in GloVe 6B into memory-mapped vectors
(loading), the vectors themselves without gensim (word_vectors), and the Parquet reader of the built-in's word index
(parquet)."""
