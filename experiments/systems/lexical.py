"""Lexical systems through Pyserini/Anserini: BM25, query likelihood with Dirichlet smoothing, tf-idf."""

from __future__ import annotations

from pathlib import Path

from experiments.estimates import Work, collection_size
from experiments.registry import SYSTEMS, SystemType
from gsr.infra.store import cache_dir, cached_folder, reusable
from retrievers.lucene import LEXICAL_PARAMETERS


def lucene_session(experiment):
    """The experiment's one Lucene worker (one JVM) for its indexing and every lexical search; ended with it."""
    from retrievers.lucene import LuceneSession

    return experiment.shared("lucene session", lambda: LuceneSession())


def lucene_index(experiment) -> Path:
    """The collection's Anserini index (positions, document vectors, raw text), built once and verified on reuse."""

    def build() -> Path:
        from retrievers.lucene import build_index

        def write(staging: Path) -> None:
            with experiment.step("Lucene index"):
                build_index(
                    experiment.collection.documents,
                    staging / "index",
                    threads=experiment.config.threads,
                    session=lucene_session(experiment),
                )

        folder, reused = cached_folder(cache_dir() / "indexes" / experiment.collection.key, write)
        if reused:
            experiment.note_reused(f"index {folder}")
        return folder / "index"

    return experiment.shared("lucene index", build)


def search(experiment, system) -> dict:
    """The system's top-`depth` documents per query from the collection's index."""
    from retrievers.lucene import search as lucene_search

    config = experiment.config
    return lucene_search(
        lucene_index(experiment),
        experiment.collection.queries,
        system.model,
        k=config.depth,
        threads=config.threads,
        params=system.params,
        session=lucene_session(experiment),
    )


def search_cost(experiment, system) -> list[Work]:
    """Searching every topic (and, where the cache lacks it, indexing the collection first)."""
    size = collection_size(experiment)
    work = [Work("lucene search", size.queries * size.words)]
    if not reusable(cache_dir() / "indexes" / experiment.collection.key):
        work.append(Work("lucene indexing", size.words, shared="lucene index"))
    return work


def require_java(experiment, system) -> None:
    """Fail before any long step when no Java 21+ runtime is available."""
    from retrievers.lucene import java_home

    java_home()


for _name, _description, _reference in (
    ("bm25", "BM25, Lucene 9's formula (no (k1 + 1) factor)", "Robertson & Zaragoza 2009"),
    ("qld", "query likelihood with Dirichlet smoothing", "Zhai 2008"),
    ("tfidf", "tf-idf: Lucene's ClassicSimilarity", "Salton & McGill 1983"),
):
    SYSTEMS.register(
        SystemType(
            _name,
            _description,
            search,
            params=LEXICAL_PARAMETERS[_name],
            preflight=require_java,
            reference=_reference,
            cost=search_cost,
            extra="lucene",
        )
    )
