"""Embedding retrievers of Vulić & Moens (2015): w2v_add / ftt_add (sum of word vectors) and w2v_si (sum weighted
by self-information), documents ranked by cosine with the query; exact top-k over the whole collection.

Documents are read from the collection's DocumentStats (the same bag of words GSR uses), so no text is re-tokenised;
the gendered pronouns and titles GSR keeps are stop words here, as in any retrieval stop list. Words are looked up
in the embedding with the project's policy (gsr.lexicon.vocabulary_key: as written, lowercase, Title, UPPER case).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gsr.documents.stats import DocumentStats
from gsr.errors import ParamError
from gsr.infra import logs
from gsr.infra.digests import content_key
from gsr.infra.numeric import unit_rows
from gsr.infra.progress import progress
from gsr.infra.store import cache_dir, cached_file
from gsr.io.types import Run
from gsr.lexicon import vocabulary_key
from gsr.text.analyzer import GENDERED_KEEP_WORDS, Analyzer

log = logs.get("vectors")

WEIGHTINGS = ("add", "si")


def self_information(collection_frequency: np.ndarray) -> np.ndarray:
    """−log p(w) with p(w) the add-one smoothed share of w among the collection's tokens (Vulić & Moens, Eq. 2)."""
    counts = np.asarray(collection_frequency, dtype=np.float64)
    return -np.log((counts + 1.0) / (counts.sum() + len(counts)))


class VectorAverageRetriever:
    """Bag-of-embeddings ranking: text vector = Σ weight(w)·v(w) / Σ weight(w) over in-vocabulary words, cosine score.

    weighting "add": weight 1 (w2v_add, ftt_add); "si": weight −log p(w) estimated on the collection (w2v_si).
    Word vectors are used as given; the harness gives unit-normalised ones (experiments.runner.Experiment.embedding),
    so that a regular system and its debiased variants (unit rows, as debiaswe writes them) differ only by
    debiasing. With a
    `cache_key`, the document vectors are cached (gsr.infra.store.cached_file: verified before reuse, rebuilt when
    corrupt) and memory-mapped.
    """

    def __init__(
        self,
        kv,
        stats: DocumentStats,
        weighting: str = "add",
        analyzer: Analyzer | None = None,
        cache_key: str | None = None,
    ):
        if weighting not in WEIGHTINGS:
            raise ParamError(f"weighting {weighting!r} is unknown; choose one of {', '.join(WEIGHTINGS)}")
        self.kv = kv
        self.stats = stats
        self.weighting = weighting
        self.analyzer = analyzer or Analyzer()
        vocabulary = stats.vocabulary
        self._term_index = {t: i for i, t in enumerate(vocabulary)}
        frequency = np.asarray(stats.counts.sum(axis=0)).ravel()
        self._si = self_information(frequency) if weighting == "si" else None
        self._unseen_si = float(-np.log(1.0 / (frequency.sum() + len(frequency)))) if weighting == "si" else 1.0
        self.documents = self._cached_document_matrix(cache_key)

    def _embedding_row(self, term: str) -> int | None:
        """The embedding row of `term` under the project's lookup policy; None for stop words and unknown words."""
        if term in GENDERED_KEEP_WORDS:
            return None
        key = vocabulary_key(self.kv.key_to_index, term)
        return None if key is None else self.kv.key_to_index[key]

    def _term_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """Per collection term: its row in the embedding (−1 when absent or a stop word) and its weight."""
        rows = np.array(
            [-1 if (row := self._embedding_row(t)) is None else row for t in self.stats.vocabulary], dtype=np.int64
        )
        weights = np.where(rows >= 0, self._si if self._si is not None else 1.0, 0.0)
        return rows, weights

    def document_matrix(self) -> np.ndarray:
        """Unit-length document vectors (float32, one row per document; zero rows for documents with no known word)."""
        rows, weights = self._term_weights()
        known = np.flatnonzero(rows >= 0)
        vectors = np.asarray(self.kv.vectors[rows[known]], dtype=np.float32) * weights[known, None].astype(np.float32)
        counts = self.stats.counts[:, known].astype(np.float32)
        matrix = np.empty((len(self.stats), vectors.shape[1]), dtype=np.float32)
        step = 50_000
        for start in progress(range(0, len(self.stats), step), desc="document vectors", unit="block"):
            matrix[start : start + step] = counts[start : start + step] @ vectors
        return unit_rows(matrix, in_place=True)  # cosine ignores the Σ weight denominator, so the sum suffices

    def _cached_document_matrix(self, cache_key: str | None) -> np.ndarray:
        if cache_key is None:
            return self.document_matrix()
        key = content_key(cache_key, self.weighting, sorted(GENDERED_KEEP_WORDS))
        target = cache_dir() / "document-vectors" / f"{key}.npy"

        def build(staging: Path) -> None:
            with open(staging, "wb") as out:  # a file object: np.save would add ".npy" to a path not ending in it
                np.save(out, self.document_matrix())

        path, reused = cached_file(target, build)
        if reused:
            log.info("document vectors: reused %s", path)
        return np.load(path, mmap_mode="r")

    def query_vector(self, text: str) -> np.ndarray | None:
        """The query's unit vector, or None when none of its words is in the embedding."""
        total = np.zeros(self.kv.vector_size, dtype=np.float64)
        found = False
        for term in self.analyzer.tokens(text):
            row = self._embedding_row(term)
            if row is None:
                continue
            found = True
            if self._si is not None:
                column = self._term_index.get(term)
                weight = self._si[column] if column is not None else self._unseen_si
            else:
                weight = 1.0
            total += weight * np.asarray(self.kv.vectors[row], dtype=np.float64)
        norm = np.linalg.norm(total)
        return total / norm if found and norm > 0 else None

    def search(self, queries: dict[str, str], k: int = 1000) -> Run:
        """Exact top-k by cosine for every query (ties: lower document row first); empty list for OOV queries."""
        qids = [q for q in queries]
        vectors = [self.query_vector(queries[q]) for q in qids]
        usable = [i for i, v in enumerate(vectors) if v is not None]
        run: Run = {q: [] for q in qids}
        if not usable:
            return run
        matrix = np.stack([v for v in vectors if v is not None]).astype(np.float32)
        best_scores, best_rows = top_k_inner_products(self.documents, matrix, k)
        docids = self.stats.docids
        for j, i in enumerate(usable):
            run[qids[i]] = [(docids[r], float(s)) for r, s in zip(best_rows[j], best_scores[j]) if r >= 0]
        return run


def top_k_inner_products(
    documents: np.ndarray, queries: np.ndarray, k: int, step: int = 65_536
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k rows of documents·queryᵀ per query, scanned in blocks so memory stays O(step × queries)."""
    n_queries = len(queries)
    k = min(k, len(documents))
    best_scores = np.full((n_queries, 0), -np.inf, dtype=np.float32)
    best_rows = np.zeros((n_queries, 0), dtype=np.int64)
    for start in progress(range(0, len(documents), step), desc="scoring", unit="block"):
        block = np.asarray(documents[start : start + step], dtype=np.float32)
        scores = queries @ block.T  # queries × block
        rows = np.broadcast_to(np.arange(start, start + len(block)), scores.shape)
        scores = np.concatenate([best_scores, scores], axis=1)
        rows = np.concatenate([best_rows, rows], axis=1)
        if scores.shape[1] > k:
            keep = np.argpartition(-scores, k - 1, axis=1)[:, :k]
            scores = np.take_along_axis(scores, keep, axis=1)
            rows = np.take_along_axis(rows, keep, axis=1)
        best_scores, best_rows = scores, rows
    order = np.lexsort((best_rows, -best_scores), axis=1)
    return np.take_along_axis(best_scores, order, axis=1), np.take_along_axis(best_rows, order, axis=1)
