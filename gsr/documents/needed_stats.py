"""Document statistics read from a DocumentSource and cached through gsr.infra.store: of a whole collection, or of only
the documents measured runs and the reference engines need.

The needed documents are kept as two cache entries, because they change at different paces: the runs' documents
(keyed by the ids the cut runs retrieved) and the engines' documents (the perfect engine's relevant documents and
the random engine's draw, keyed by those ids and the drawn positions), which every run scored against the same
qrels and seed shares. Both are read from the source in one pass when both are missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gsr.documents.base import DocumentSource
from gsr.documents.opening import open_documents
from gsr.documents.stats import DocumentStats
from gsr.infra import logs
from gsr.infra.digests import content_key
from gsr.infra.store import atomic_folder, cache_dir, cached_folder, reusable
from gsr.text.analyzer import TOKENS_VERSION, Analyzer

log = logs.get("documents")

DRAWN_IDS = "drawn-ids.json"  # in an engines entry: the ids at the random engine's positions


def _stats_entry(*key) -> Path:
    return cache_dir() / "document-stats" / content_key(*key, TOKENS_VERSION)


def document_stats_entry(source, analyzer: Analyzer) -> Path:
    """The cache entry cached_document_stats keeps a whole collection's statistics in."""
    return _stats_entry("all", open_documents(source).version(), sorted(analyzer.stopwords or ()))


def cached_document_stats(source, analyzer: Analyzer, n_jobs: int | None = None) -> DocumentStats:
    """DocumentStats of a whole collection (anything gsr.documents.open_documents reads), built once per
    (collection version, stop list) and reused from the cache.

    The cache entry is written atomically and verified on reuse (gsr.infra.store.cached_folder).
    """
    source = open_documents(source)
    built = []

    def build(staging: Path) -> None:
        built.append(DocumentStats.build(iter(source), analyzer, n_jobs=n_jobs))
        built[0].write_files(staging)

    folder, reused = cached_folder(document_stats_entry(source, analyzer), build)
    if reused:
        log.info("document statistics of %s: reused from %s", source.name, folder)
    return built[0] if built else DocumentStats.load(folder)


@dataclass
class NeededStats:
    """Statistics of the documents one scoring needs, and the ids at the random engine's positions."""

    runs: DocumentStats  # the documents the measured runs retrieved (after the cut-off)
    engines: DocumentStats  # the perfect engine's and the random engine's documents
    drawn: list[str]


def _routed(
    texts: Iterable[tuple[str, str]], keep: set[str], stash_ids: set[str], stash: list[tuple[str, str]]
) -> Iterator[tuple[str, str]]:
    """The documents of `keep`; those of `stash_ids` are put aside into `stash` for a second build."""
    for docid, text in texts:
        if docid in stash_ids:
            stash.append((docid, text))
        if docid in keep:
            yield docid, text


def needed_document_stats(
    source: DocumentSource,
    run_ids: set[str],
    engine_ids: set[str],
    positions: np.ndarray,
    analyzer: Analyzer,
    n_jobs: int | None = None,
) -> NeededStats:
    """Statistics of the `run_ids` documents, and of the `engine_ids` documents plus those at `positions`.

    Whatever the cache lacks is read in one DocumentSource.fetch; the engines' documents (bounded by the qrels,
    not by the collection) are the only texts held while the runs' statistics are built.
    """
    positions = np.asarray(positions, dtype=np.int64)
    stop, version = sorted(analyzer.stopwords or ()), source.version()  # a listed source stats every one of its files
    run_entry = _stats_entry("needed-runs", version, stop, sorted(run_ids))
    engine_entry = _stats_entry("needed-engines", version, stop, sorted(engine_ids), positions.tolist())
    runs = DocumentStats.load(run_entry) if reusable(run_entry) else None
    engines: DocumentStats | None = None
    drawn: list[str] = []
    if reusable(engine_entry):
        engines = DocumentStats.load(engine_entry)
        drawn = json.loads((engine_entry / DRAWN_IDS).read_text(encoding="utf-8"))
    reused = [what for what, stats in (("runs'", runs), ("engines'", engines)) if stats is not None]
    log.info(
        "documents of %s: %s retrieved, %s judged, %s drawn%s",
        source.name,
        f"{len(run_ids):,}",
        f"{len(engine_ids):,}",
        f"{len(positions):,}",
        f"; the {' and '.join(reused)} reused from the cache" if reused else "",
    )
    if runs is not None and engines is not None:
        return NeededStats(runs, engines, drawn)
    texts: Iterable[tuple[str, str]]
    drawn_now, texts = source.fetch(
        (run_ids if runs is None else set()) | (engine_ids if engines is None else set()),
        positions if engines is None else np.zeros(0, dtype=np.int64),
    )
    engine_wanted = engine_ids | set(drawn_now)
    stash: list[tuple[str, str]] = []
    if runs is None:
        runs = DocumentStats.build(
            _routed(texts, run_ids, engine_wanted if engines is None else set(), stash), analyzer, n_jobs=n_jobs
        )
        with atomic_folder(run_entry) as staging:
            runs.write_files(staging)
        texts = stash
    if engines is None:
        drawn = drawn_now
        engines = DocumentStats.build(((d, t) for d, t in texts if d in engine_wanted), analyzer, n_jobs=n_jobs)
        with atomic_folder(engine_entry) as staging:
            engines.write_files(staging)
            (staging / DRAWN_IDS).write_text(json.dumps(drawn), encoding="utf-8")
    return NeededStats(runs, engines, drawn)
