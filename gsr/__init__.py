"""Gender Stereotype Reinforcement (Fabris et al.): the measure, its baselines and its validation.

Importable without torch or pyserini. The equations live in gsr.measure, one function each.
"""

from gsr.baselines import cut_run, perfect_run, random_run, relevant_counts
from gsr.documents import open_documents, register_document_source
from gsr.evaluate import GSR, GSRReport, GSRResult, QueryResult, measure_run
from gsr.io import InputError, as_qrels, as_queries, as_run, read_qrels, read_queries, read_trec_run, read_trec_topics
from gsr.lexicon import GenderLexicon
from gsr.measure import (
    GSRError,
    document_genderedness,
    gsr_slope,
    list_genderedness,
    query_genderedness,
    rank_discounts,
    relative_gsr,
    tied_rank_weights,
)
from gsr.sources import DocumentSource
from gsr.ranked import RankedRows
from gsr.stats import DocumentStats, GenderedDocuments
from gsr.text import GENDERED_KEEP_WORDS, Analyzer, default_analyzer, read_stopwords

__all__ = [
    "GENDERED_KEEP_WORDS", "GSR", "Analyzer", "DocumentStats", "GSRError", "GSRReport", "GSRResult",
    "GenderLexicon", "GenderedDocuments", "InputError", "QueryResult", "RankedRows", "as_qrels", "as_queries", "as_run",
    "cut_run", "default_analyzer", "document_genderedness", "gsr_slope", "list_genderedness", "measure_run",
    "perfect_run", "query_genderedness", "random_run", "rank_discounts", "read_qrels", "read_queries",
    "read_stopwords", "read_trec_run", "read_trec_topics", "relative_gsr", "relevant_counts", "tied_rank_weights",
    "DocumentSource", "open_documents", "register_document_source",
]
