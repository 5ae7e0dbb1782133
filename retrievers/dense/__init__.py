"""Dense retrieval and cross-encoder re-ranking through sentence-transformers, usable without the harness.

Modules: `encoders` (built-in and folder encoders, their checks, content digest and loading on a device),
`index` (batched encoding, passages, the document-embedding cache entry, exact inner-product top-k search),
`rerank` (cross-encoder re-ranking of a run). The device setting is retrievers.device's.
"""

from retrievers.dense.cross_encoder import CrossEncoderRanker, rerank_run
from retrievers.dense.encoders import (
    BUILTIN_ENCODERS,
    MINILM,
    BuiltinEncoder,
    EncoderError,
    EncoderLocation,
    check_folder,
    folder_digest,
    load_bi_encoder,
    load_cross_encoder,
    locate_encoder,
    verify_builtin,
)
from retrievers.dense.index import (
    PASSAGE_MODES,
    BiEncoder,
    DocumentEmbeddings,
    PassageSettings,
    document_embeddings,
    ranked_lists,
    search,
    transformed_embeddings,
)

__all__ = [
    "BUILTIN_ENCODERS",
    "MINILM",
    "PASSAGE_MODES",
    "BiEncoder",
    "BuiltinEncoder",
    "CrossEncoderRanker",
    "DocumentEmbeddings",
    "EncoderError",
    "EncoderLocation",
    "PassageSettings",
    "check_folder",
    "document_embeddings",
    "folder_digest",
    "load_bi_encoder",
    "load_cross_encoder",
    "locate_encoder",
    "ranked_lists",
    "rerank_run",
    "search",
    "transformed_embeddings",
    "verify_builtin",
]
