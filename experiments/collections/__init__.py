"""Test collections: documents, topics and qrels from every source a config can name as `[collection] kind`.

One module per family of sources, each registering its kinds in experiments.registry.COLLECTION_KINDS; `base`
holds what they share: the Collection, the canonical documents file whose SHA-256 keys every cache, and the
consistency checks. A new kind is a module here plus its name below.
"""

import importlib

BUILTIN_MODULES = ("builtin", "files", "trec", "external", "grepbiasir")

for _module in BUILTIN_MODULES:
    importlib.import_module(f"{__name__}.{_module}")

from experiments.collections.base import (  # noqa: E402  (after the kinds are registered)
    Collection,
    canonical_documents,
    check_consistency,
    collection_docids,
    export_collection,
    load_collection,
    read_texts,
)
from experiments.collections.files import read_beir_qrels  # noqa: E402

__all__ = [
    "Collection",
    "canonical_documents",
    "check_consistency",
    "collection_docids",
    "export_collection",
    "load_collection",
    "read_beir_qrels",
    "read_texts",
]
