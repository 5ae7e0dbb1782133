"""Document statistics read from a DocumentSource and cached through gsr.store: of a whole collection, or of only
the documents measured runs and the reference engines need.

The needed documents are kept as two cache entries, because they change at different paces: the runs' documents
(keyed by the ids the cut runs retrieved) and the engines' documents (the perfect engine's relevant documents and
the random engine's draw, keyed by those ids and the drawn positions), which every run scored against the same
qrels and seed shares. Both are read from the source in one pass when both are missing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gsr.documents.base import DocumentSource
from gsr.documents.opening import open_documents
from gsr.documents.stats import DocumentStats
from gsr.infra.store import atomic_folder, cache_dir, cached_folder, content_key, reusable
from gsr.text.analyzer import Analyzer

DRAWN_IDS = "drawn-ids.json"  # in an engines entry: the ids at the random engine's positions


def _stats_entry(*key) -> Path:
    return cache_dir() / "document-stats" / content_key(*key)


def cached_document_stats(source, analyzer: Analyzer, n_jobs: int | None = None,
                          progress: bool = False) -> DocumentStats:
    """DocumentStats of a whole collection (anything gsr.documents.open_documents reads), built once per
    (collection version, stop list) and reused from the cache.

    The cache entry is written atomically and verified on reuse (gsr.store.cached_folder).
    """
    source = open_documents(source, progress=progress)
    built = []

    def build(staging: Path) -> None:
        built.append(DocumentStats.build(iter(source), analyzer, n_jobs=n_jobs, progress=progress))
        built[0].write_files(staging)

    folder, reused = cached_folder(_stats_entry("all", source.version(), sorted(analyzer.stopwords)), build)
    if reused and progress:
        print(f"document statistics of {source.name}: reused from {folder}", file=sys.stderr)
    return built[0] if built else DocumentStats.load(folder)


@dataclass
class NeededStats:
    """Statistics of the documents one scoring needs, and the ids at the random engine's positions."""

    runs: DocumentStats  # the documents the measured runs retrieved (after the cut-off)
    engines: DocumentStats  # the perfect engine's and the random engine's documents
    drawn: list[str]


def _routed(texts: Iterable[tuple[str, str]], keep: set[str], stash_ids: set[str],
            stash: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """The documents of `keep`; those of `stash_ids` are put aside into `stash` for a second build."""
    for docid, text in texts:
        if docid in stash_ids:
            stash.append((docid, text))
        if docid in keep:
            yield docid, text


def needed_document_stats(source: DocumentSource, run_ids: set[str], engine_ids: set[str], positions: np.ndarray,
                          analyzer: Analyzer, n_jobs: int | None = None, progress: bool = False) -> NeededStats:
    """Statistics of the `run_ids` documents, and of the `engine_ids` documents plus those at `positions`.

    Whatever the cache lacks is read in one DocumentSource.fetch; the engines' documents (bounded by the qrels,
    not by the collection) are the only texts held while the runs' statistics are built.
    """
    positions = np.asarray(positions, dtype=np.int64)
    stop, version = sorted(analyzer.stopwords), source.version()  # a listed source stats every one of its files
    run_entry = _stats_entry("needed-runs", version, stop, sorted(run_ids))
    engine_entry = _stats_entry("needed-engines", version, stop, sorted(engine_ids), positions.tolist())
    runs = DocumentStats.load(run_entry) if reusable(run_entry) else None
    engines = drawn = None
    if reusable(engine_entry):
        engines = DocumentStats.load(engine_entry)
        drawn = json.loads((engine_entry / DRAWN_IDS).read_text(encoding="utf-8"))
    if progress:
        reused = [what for what, stats in (("runs'", runs), ("engines'", engines)) if stats is not None]
        print(f"documents of {source.name}: {len(run_ids):,} retrieved, {len(engine_ids):,} judged, "
              f"{len(positions):,} drawn{'; the ' + ' and '.join(reused) + ' reused from the cache' if reused else ''}",
              file=sys.stderr)
    if runs is not None and engines is not None:
        return NeededStats(runs, engines, drawn)
    drawn_now, texts = source.fetch((run_ids if runs is None else set()) | (engine_ids if engines is None else set()),
                                    positions if engines is None else np.zeros(0, dtype=np.int64))
    engine_wanted = engine_ids | set(drawn_now)
    stash: list[tuple[str, str]] = []
    if runs is None:
        runs = DocumentStats.build(_routed(texts, run_ids, engine_wanted if engines is None else set(), stash),
                                   analyzer, n_jobs=n_jobs, progress=progress)
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
