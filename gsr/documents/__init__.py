"""Where documents come from and what GSR keeps of them.

`base` (the DocumentSource interface and the listing that lets a collection be read only where a run needs it),
`lines` (JSONL and TSV files), `sgml` (TREC SGML files and folders), `irds` (ir_datasets), `opening`
(open_documents: any of these from a path or name, plus registered resolvers such as Lucene indexes), `stats`
(per-document bag-of-words and g(w) sums after GSR's text handling) and `needed` (those sums for only the
documents a run and the baselines need, cached).
"""

from gsr.documents.base import DocumentSource
from gsr.documents.opening import iter_documents, open_documents, register_document_source
from gsr.documents.stats import DocumentStats, GenderedDocuments

__all__ = [
    "DocumentSource",
    "DocumentStats",
    "GenderedDocuments",
    "iter_documents",
    "open_documents",
    "register_document_source",
]
