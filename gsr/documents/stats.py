"""Per-document term statistics, so that g_q(d) costs O(|q|) per document instead of re-reading the text.

g_q(d) = (Σ_t c_dt g(t) − Σ_{t∈q} c_dt g(t)) / (Σ_t c_dt − Σ_{t∈q} c_dt), summed over in-vocabulary terms;
the counts c_dt are built once (in parallel shards, embedding-independent) and the sums once per embedding.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Sized
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from gsr.errors import InputError
from gsr.infra.numeric import mean_or_nan
from gsr.infra.parallel import document_shards, map_in_processes
from gsr.infra.progress import progress
from gsr.infra.store import atomic_folder
from gsr.text.analyzer import Analyzer, default_analyzer

if TYPE_CHECKING:
    from gsr.lexicon import GenderLexicon


def count_shard(shard: list[tuple[str, str]], analyzer: Analyzer):
    """Map step: one shard of (docid, text) → (docids, local vocabulary, CSR arrays of term counts)."""
    vocabulary: dict[str, int] = {}
    rows: list[int] = []
    columns: list[int] = []
    docids = []
    for row, (docid, text) in enumerate(shard):
        docids.append(docid)
        ids = [vocabulary.setdefault(t, len(vocabulary)) for t in analyzer.tokens(text or "")]
        columns.extend(ids)
        rows.extend([row] * len(ids))
    data = np.ones(len(columns), dtype=np.int32)
    matrix = sparse.csr_matrix(
        (data, (np.array(rows, dtype=np.int64), np.array(columns, dtype=np.int64))),
        shape=(len(docids), len(vocabulary)),
    )
    matrix.sum_duplicates()
    return docids, list(vocabulary), matrix


class DocumentStats:
    """Bag-of-words counts of a collection after the paper's text handling: documents × terms.

    Args:
        docids: The document ids, one per row.
        vocabulary: The terms, one per column.
        counts: How often each term occurs in each document (a sparse matrix).

    Raises:
        InputError: If the shapes disagree or a document id appears twice.

    Example:
        >>> stats = DocumentStats.build([("d1", "She sings, he sings."), ("d2", "He writes.")], n_jobs=1)
        >>> stats.vocabulary, stats.counts.toarray().tolist()
        (['she', 'sings', 'he', 'writes'], [[1, 2, 1, 0], [0, 0, 1, 1]])
    """

    def __init__(self, docids: list[str], vocabulary: list[str], counts: sparse.csr_matrix):
        if counts.shape != (len(docids), len(vocabulary)):
            raise InputError(f"counts of shape {counts.shape} for {len(docids)} documents × {len(vocabulary)} terms")
        self.docids = list(docids)
        self.vocabulary = list(vocabulary)
        self.counts = counts.tocsr()
        self.doc_index = {d: i for i, d in enumerate(self.docids)}
        if len(self.doc_index) != len(self.docids):
            duplicate = next(d for i, d in enumerate(self.docids) if self.doc_index[d] != i)
            raise InputError(f"document id {duplicate} appears more than once in the collection")

    def __len__(self) -> int:
        return len(self.docids)

    @functools.cached_property
    def term_index(self) -> dict[str, int]:
        """The vocabulary's term -> column."""
        return {t: i for i, t in enumerate(self.vocabulary)}

    @classmethod
    def build(
        cls,
        documents: Iterable[tuple[str, str]],
        analyzer: Analyzer | None = None,
        n_jobs: int | None = None,
        shard_size: int = 10_000,
    ) -> DocumentStats:
        """Map over shards of (docid, text) in `n_jobs` processes (default: all cores), then merge.

        Args:
            documents: (docid, text) pairs.
            analyzer: The text handling (default: default_analyzer()).
            n_jobs: Processes (default: every core; 1: none started).
            shard_size: Documents per shard.

        Returns:
            The counts of every document.

        Raises:
            InputError: If a document id appears twice.
        """
        analyzer = analyzer or default_analyzer()
        n_jobs = n_jobs or os.cpu_count() or 1
        total = len(documents) if isinstance(documents, Sized) else None  # an ETA where the count is known
        shards = document_shards(documents, shard_size)
        if n_jobs == 1:
            parts = (count_shard(s, analyzer) for s in shards)
            return cls._merge(parts, total)
        return cls._merge(map_in_processes(functools.partial(count_shard, analyzer=analyzer), shards, n_jobs), total)

    @classmethod
    def _merge(cls, parts, total: int | None = None) -> DocumentStats:
        """Reduce step: put each shard's local term ids onto one shared vocabulary."""
        vocabulary: dict[str, int] = {}
        docids: list[str] = []
        blocks = []
        with progress(total=total, desc="document statistics", unit="doc", unit_scale=True) as bar:
            for shard_docids, shard_vocabulary, matrix in parts:
                mapping = np.fromiter(
                    (vocabulary.setdefault(t, len(vocabulary)) for t in shard_vocabulary),
                    dtype=np.int32,
                    count=len(shard_vocabulary),
                )
                blocks.append((np.diff(matrix.indptr), mapping[matrix.indices], matrix.data))
                docids.extend(shard_docids)
                bar.update(len(shard_docids))
        # int32 indices (as scipy would choose) keep the merge's peak memory near the final matrix's size.
        nnz = sum(len(b[1]) for b in blocks)
        index_dtype = np.int32 if max(nnz, len(vocabulary)) < np.iinfo(np.int32).max else np.int64
        indptr = np.zeros(len(docids) + 1, dtype=index_dtype)
        if blocks:
            np.cumsum(np.concatenate([b[0] for b in blocks]), out=indptr[1:])
        indices = (
            np.concatenate([b[1] for b in blocks]).astype(index_dtype, copy=False)
            if blocks
            else np.zeros(0, dtype=index_dtype)
        )
        data = np.concatenate([b[2] for b in blocks]) if blocks else np.zeros(0, dtype=np.int32)
        blocks.clear()
        counts = sparse.csr_matrix((data, indices, indptr), shape=(len(docids), len(vocabulary)))
        counts.sort_indices()
        return cls(docids, list(vocabulary), counts)

    def save(self, folder: str | os.PathLike) -> None:
        """Write to `folder` atomically, with a manifest (gsr.infra.store.atomic_folder).

        Args:
            folder: The folder written (replaced whole).

        Raises:
            StorageError: If the folder cannot be written.
        """
        with atomic_folder(folder) as staging:
            self.write_files(staging)

    def write_files(self, folder: Path) -> None:
        """The three files `load` reads, written into an existing folder.

        Args:
            folder: The folder.
        """
        sparse.save_npz(folder / "counts.npz", self.counts)
        (folder / "docids.json").write_text(json.dumps(self.docids), encoding="utf-8")
        (folder / "vocabulary.json").write_text(json.dumps(self.vocabulary), encoding="utf-8")

    @classmethod
    def load(cls, folder: str | os.PathLike) -> DocumentStats:
        """Read what `save` wrote.

        Args:
            folder: The folder `save` wrote.

        Returns:
            The counts.
        """
        folder = Path(folder)
        docids = json.loads((folder / "docids.json").read_text(encoding="utf-8"))
        vocabulary = json.loads((folder / "vocabulary.json").read_text(encoding="utf-8"))
        return cls(docids, vocabulary, sparse.load_npz(folder / "counts.npz"))

    def gendered(self, lexicon: GenderLexicon, analyzer: Analyzer | None = None) -> GenderedDocuments:
        """Per-document genderedness sums under one lexicon (one sparse product).

        Args:
            lexicon: g of each word (Eq. 1).
            analyzer: The text handling, which decides the query terms' inflections (default: default_analyzer()).

        Returns:
            The sums.
        """
        return GenderedDocuments(self, lexicon, analyzer or default_analyzer())


class GenderedDocuments:
    """Σ g and count of in-vocabulary tokens per document, and g_q(d) for any query by subtraction.

    The subtraction needs c_dt of the query's terms (and their inflections) in the retrieved documents. For
    many queries at once (query_document_genderedness_many) those terms' columns are copied out of the counts
    once (grown when new terms are asked for), so that scoring a run is a few array operations over the
    retrieved documents' entries for the queries' terms.

    Args:
        stats: The collection's counts.
        lexicon: g of each word (Eq. 1).
        analyzer: The text handling the counts were made with.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"she": 0.5, "he": -0.5, "nurse": 0.25})
        >>> documents = DocumentStats.build([("d1", "she is a nurse"), ("d2", "he")], n_jobs=1).gendered(lexicon)
        >>> documents.query_document_genderedness(["nurse"], [0, 1]).tolist()  # g_q(d) without the query's terms
        [0.5, -0.5]
    """

    def __init__(self, stats: DocumentStats, lexicon: GenderLexicon, analyzer: Analyzer):
        self.stats = stats
        self.lexicon = lexicon
        self.analyzer = analyzer
        term_g = lexicon.values(stats.vocabulary)
        self._known = ~np.isnan(term_g)
        self.known_terms = np.flatnonzero(self._known)
        self.term_g = np.where(np.isnan(term_g), 0.0, term_g)
        known = np.zeros(len(term_g))
        known[self.known_terms] = 1.0
        self.doc_sum = stats.counts @ self.term_g
        self.doc_count = stats.counts @ known
        self._terms_by_class: dict[str, np.ndarray] | None = None
        self._term_slots: dict[int, int] = {}  # collection term id -> column of _term_counts
        self._term_counts: sparse.csr_matrix | None = None  # documents × the query terms asked for so far
        self._term_count_g: tuple[np.ndarray, np.ndarray] | None = None  # (c_dt g(t), c_dt) of each entry
        self._excluded_slots: dict[tuple[str, ...], np.ndarray] = {}  # query terms -> their excluded columns
        self._excluded_ids: dict[tuple[str, ...], np.ndarray] = {}  # query terms -> excluded_terms' (read-only) ids

    def _class_index(self) -> dict[str, np.ndarray]:
        if self._terms_by_class is None:
            words = [self.stats.vocabulary[i] for i in self.known_terms]
            groups: dict[str, list[int]] = {}
            for term_id, cls in zip(self.known_terms, self.analyzer.inflection_classes(words)):
                groups.setdefault(cls, []).append(int(term_id))
            self._terms_by_class = {k: np.array(v, dtype=np.int64) for k, v in groups.items()}
        return self._terms_by_class

    def excluded_terms(self, query_terms: Iterable[str]) -> np.ndarray:
        """Collection term ids (of the lexicon's words) that are a query term or one of its inflections.

        Args:
            query_terms: The query's terms.

        Returns:
            The term ids, ascending; read-only, as they are kept for the next call with these terms (looking up the
            inflections is the costly step, and the report asks once per query and lexicon, then for its words).
        """
        key = tuple(sorted(set(query_terms)))
        if key not in self._excluded_ids:
            found = [ids for ids in self._class_term_ids(list(key)).values() if len(ids)]
            ids = np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
            ids.flags.writeable = False
            self._excluded_ids[key] = ids
        return self._excluded_ids[key]

    def _class_term_ids(self, terms: list[str]) -> dict[str, np.ndarray]:
        """Each term's class as collection term ids of the lexicon's words: the members the analyzer can list
        ('exact', 'lemma') looked up in the vocabulary, else the vocabulary grouped by class once ('stem')."""
        listed = self.analyzer.class_members(terms)
        if listed is not None:
            index, known = self.stats.term_index, self._known
            return {
                term: np.array(sorted({index[m] for m in members if m in index and known[index[m]]}), dtype=np.int64)
                for term, members in zip(terms, listed)
            }
        by_class = self._class_index()
        empty = np.zeros(0, dtype=np.int64)
        return {term: by_class.get(cls, empty) for term, cls in zip(terms, self.analyzer.inflection_classes(terms))}

    def query_document_genderedness(self, query_terms: Iterable[str], rows: np.ndarray) -> np.ndarray:
        """g_q(d) for documents at `rows`; NaN where no in-vocabulary non-query term is left.

        Args:
            query_terms: The query's terms.
            rows: The documents' rows.

        Returns:
            g_q(d) of each document.
        """
        rows = np.asarray(rows, dtype=np.int64)
        total = self.doc_sum[rows]
        count = self.doc_count[rows]
        excluded = self.excluded_terms(query_terms)
        if len(excluded) and len(rows):
            sub = self.stats.counts[rows][:, excluded]  # the retrieved rows only: cheap for one short list
            total = total - sub @ self.term_g[excluded]
            count = count - np.asarray(sub.sum(axis=1)).ravel()
        return mean_or_nan(total, count)

    def query_document_genderedness_many(
        self, query_terms: list[list[str]], rows: np.ndarray, offsets: np.ndarray, chunk_pairs: int = 1 << 18
    ) -> np.ndarray:
        """g_q(d) for many queries at once: query i's documents are rows[offsets[i]:offsets[i+1]].

        Equal to query_document_genderedness per query. Work and memory grow with the retrieved documents'
        entries for the queries' terms, not with the collection; lists are taken ~`chunk_pairs` documents at a time.

        Args:
            query_terms: Each query's terms.
            rows: The documents' rows, query by query.
            offsets: Where each query's documents begin and end in `rows` (one more than the queries).
            chunk_pairs: Documents taken at a time.

        Returns:
            g_q(d) of each document of `rows`.
        """
        rows = np.asarray(rows, dtype=np.int64)
        offsets = np.asarray(offsets, dtype=np.int64)
        slots = self._excluded_columns(query_terms)
        removed_sum, removed_count = np.zeros(len(rows)), np.zeros(len(rows))
        first = 0
        while first < len(slots):
            last = int(np.searchsorted(offsets, offsets[first] + chunk_pairs, side="right")) - 1
            last = min(max(first + 1, last), len(slots))
            part = slice(int(offsets[first]), int(offsets[last]))
            removed_sum[part], removed_count[part] = self._removed(
                rows[part], offsets[first : last + 1] - offsets[first], slots[first:last]
            )
            first = last
        return mean_or_nan(self.doc_sum[rows] - removed_sum, self.doc_count[rows] - removed_count)

    def _excluded_columns(self, query_terms: list[list[str]]) -> list[np.ndarray]:
        """Per query, the columns of _term_counts that hold its excluded terms (see excluded_terms).

        The columns of terms not asked for before are copied out of the counts in one pass; the earlier columns
        keep their places, so earlier answers stay valid as the table grows.
        """
        keys = [tuple(sorted(set(terms))) for terms in query_terms]
        new_keys = [key for key in set(keys) if key not in self._excluded_slots]
        per_term = self._class_term_ids(sorted({t for key in new_keys for t in key}))  # one batch for every query
        empty = np.zeros(0, dtype=np.int64)
        new = {key: np.unique(np.concatenate([per_term[t] for t in key])) if key else empty for key in new_keys}
        wanted = dict.fromkeys(int(t) for terms in new.values() for t in terms)
        missing = [t for t in wanted if t not in self._term_slots]
        if missing or self._term_counts is None:
            for term in missing:
                self._term_slots[term] = len(self._term_slots)
            terms = np.fromiter(self._term_slots, dtype=np.int64, count=len(self._term_slots))
            self._term_counts = self.stats.counts[:, terms].tocsr()  # one pass over the collection's counts
            counts = self._term_counts.data.astype(np.float64)
            self._term_count_g = counts * self.term_g[terms[self._term_counts.indices]], counts
        for key, terms in new.items():
            self._excluded_slots[key] = np.array([self._term_slots[int(t)] for t in terms], dtype=np.int64)
        return [self._excluded_slots[key] for key in keys]

    def _removed(self, rows: np.ndarray, offsets: np.ndarray, slots: list[np.ndarray]):
        """Σ c_dt g(t) and Σ c_dt over each query's excluded terms t (columns `slots`) for the documents at `rows`."""
        assert self._term_counts is not None and self._term_count_g is not None  # _excluded_columns filled them
        selected = self._term_counts[rows]  # the retrieved documents' entries for every query's terms
        bounds = selected.indptr[offsets].tolist()
        excluded = np.zeros(selected.shape[1], dtype=bool)
        found = [np.zeros(0, dtype=np.int64)]
        for query_slots, begin, end in zip(slots, bounds[:-1], bounds[1:]):
            excluded[query_slots] = True
            found.append(np.flatnonzero(excluded[selected.indices[begin:end]]) + begin)
            excluded[query_slots] = False
        hits = np.concatenate(found)
        pair = np.searchsorted(selected.indptr, hits, side="right") - 1
        entry = self._term_counts.indptr[rows[pair]] + (hits - selected.indptr[pair])  # positions in _term_counts
        weighted, counts = self._term_count_g
        return (
            np.bincount(pair, weights=weighted[entry], minlength=len(rows)),
            np.bincount(pair, weights=counts[entry], minlength=len(rows)),
        )
