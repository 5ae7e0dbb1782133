"""The built-in collections: the generated demo (experiments/demo.py) and the paper's toy collections 1 and 2."""

from __future__ import annotations

from experiments.collections.base import Collection, canonical_documents, collections_cache
from experiments.registry import COLLECTION_KINDS, CollectionKind
from gsr.documents.opening import iter_documents
from gsr.infra import logs
from gsr.infra.digests import content_key
from gsr.infra.store import cached_folder
from gsr.io.qrels import read_qrels
from gsr.io.topics import read_tsv_queries

log = logs.get("collections")


def demo_files():
    """The built-in demo collection's files, generated once into the cache and verified on reuse."""
    from experiments.demo import DEMO_VERSION, DemoFiles, generate_demo

    def generate(staging):
        log.info("generating the demo collection")
        generate_demo(staging)

    folder, _ = cached_folder(collections_cache() / f"demo-v{DEMO_VERSION}", generate)
    return DemoFiles(folder / "documents.jsonl", folder / "topics.tsv", folder / "qrels.txt")


def load_demo(spec: dict) -> Collection:
    files = demo_files()
    documents, key = canonical_documents(f"demo-{files.documents.parent.name}", lambda: iter_documents(files.documents))
    return Collection("demo", documents, read_tsv_queries(files.topics), read_qrels(files.qrels), key)


def load_toy(spec: dict) -> Collection:
    from gsr.validation import toys

    toy = toys.toy1() if spec["kind"] == "toy1" else toys.toy2()
    source = content_key(toy.name, sorted(toy.documents.items()))
    documents, key = canonical_documents(f"{toy.name}-{source}", lambda: toy.documents.items())
    return Collection(
        toy.name,
        documents,
        dict(toy.queries),
        toy.qrels("N"),
        key,
        notes=[f"{toy.name}: every document of engine N (stereotypical and counter-stereotypical) is relevant"],
    )


COLLECTION_KINDS.register(
    CollectionKind(
        "demo", "the generated demo collection: 20,000 documents, 250 queries with planted stereotypes", load_demo
    )
)
COLLECTION_KINDS.register(CollectionKind("toy1", "§3.4's toy collection: 'The <person> is a <job>'", load_toy))
COLLECTION_KINDS.register(CollectionKind("toy2", "§4.1's synthetic collection: 'The <job> is <adjective>'", load_toy))
