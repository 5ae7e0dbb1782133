"""The search engines whose runs GSR measures.

Modules: `lucene` (BM25, query likelihood, tf-idf through Pyserini/Anserini, in a separate JVM process),
`vector_average` (the word-embedding retrievers w2v_add / ftt_add / w2v_si of Vulić & Moens) and `neural` (the
DRMM and MatchPyramid re-rankers, cross-validated). Each is imported on its own; this package imports none of
them, so using one never loads the others' dependencies (Java, PyTorch).
"""
