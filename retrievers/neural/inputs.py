"""What both re-rankers read, computed once per run: every (query, top-`depth` candidate) pair as rows of a
unit-vector table, the query terms' IDF and the relevance grades.

Terms are looked up in the embedding with the project's policy (gsr.lexicon.vocabulary_key: as written, lowercase,
Title-case, UPPER case); terms it has no form of are dropped.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from gsr.infra.numeric import unit_rows
from gsr.io.types import Qrels
from gsr.lexicon import vocabulary_key
from retrievers.neural.errors import NeuralRankerError


@dataclass
class RankingData:
    """Every (query, top-`depth` candidate) pair of a run, as embedding rows with OOV terms dropped.

    Row 0 of `unit_vectors` is the all-zero padding vector; vocabulary word `words[i]` has row i + 1.
    Pairs of one query are contiguous and in the run's order (`query_pairs[qid]`).
    """

    words: list[str]
    unit_vectors: np.ndarray  # [V + 1, dim] float32, rows of unit length
    qids: list[str]  # queries with at least one in-vocabulary term, in the order given
    query_terms: list[np.ndarray]  # per query in `qids`: embedding rows of its terms, in query order
    query_idf: list[np.ndarray]  # per query in `qids`: IDF of each of its terms
    doc_ids: list[str]
    doc_terms: list[np.ndarray]  # per document: embedding rows of its terms, in text order
    pair_query: np.ndarray  # [P] index into qids
    pair_doc: np.ndarray  # [P] index into doc_ids
    pair_grade: np.ndarray  # [P] relevance grade from the qrels, 0 when unjudged
    query_pairs: dict[str, slice]
    relevant_grades: dict[str, np.ndarray]  # qid -> grades > 0 of every judged document (ideal nDCG)
    candidates: dict[str, list[tuple[str, float]]]  # the full candidate lists, for what lies below depth
    depth: int
    unscorable: list[str]  # queries none of whose terms is in the embedding; they keep the run's order

    def pairs_of(self, qids: Iterable[str]) -> np.ndarray:
        """Indices of every pair of the given (scorable) queries."""
        parts = [np.arange(self.query_pairs[q].start, self.query_pairs[q].stop) for q in qids if q in self.query_pairs]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def digest(self) -> str:
        """A fingerprint of everything the models read, so that a checkpoint is reused only for the same inputs."""
        h = hashlib.blake2b(digest_size=16)
        for word in self.words:
            h.update(word.encode("utf-8") + b"\0")
        h.update(np.ascontiguousarray(self.unit_vectors).tobytes())
        for qid, terms, idf in zip(self.qids, self.query_terms, self.query_idf):
            h.update(qid.encode("utf-8") + b"\0" + terms.tobytes() + idf.astype(np.float64).tobytes())
        for docid, terms in zip(self.doc_ids, self.doc_terms):
            h.update(docid.encode("utf-8") + b"\0" + terms.tobytes())
        for array in (self.pair_query, self.pair_doc, self.pair_grade):
            h.update(array.tobytes())
        for qid in sorted(self.relevant_grades):
            h.update(qid.encode("utf-8") + b"\0" + self.relevant_grades[qid].tobytes())
        for qid in sorted(self.candidates):
            h.update(repr((qid, self.candidates[qid])).encode("utf-8"))
        h.update(repr((self.depth, self.unscorable)).encode("utf-8"))
        return h.hexdigest()


def default_tokenizer() -> Callable[[str], list[str]]:
    """The project's analyzer: lowercase word runs, stop words out, gendered pronouns kept."""
    from gsr.text.analyzer import Analyzer

    return Analyzer().tokens


def smoothed_idf(document_frequency: int, n_docs: int) -> float:
    """Smoothed inverse document frequency log((N + 1) / (df + 0.5)): finite for a term no document holds."""
    return math.log((n_docs + 1) / (document_frequency + 0.5))


def collection_idf(terms: Iterable[str], document_frequency: Mapping[str, int], n_docs: int) -> dict[str, float]:
    """smoothed_idf of each term over a whole collection (DRMM's term gating reads the collection's IDF, Guo et al.
    2016); a term no document holds gets df = 0."""
    return {t: smoothed_idf(document_frequency.get(t, 0), n_docs) for t in terms}


def candidate_pool_idf(doc_terms: Iterable[Sequence[str]]) -> Callable[[str], float]:
    """smoothed_idf over the re-ranked candidate documents only (for callers without collection statistics)."""
    docs = list(doc_terms)
    n_docs = len(docs)
    df = Counter(chain.from_iterable(map(set, docs)))
    return lambda term: smoothed_idf(df.get(term, 0), n_docs)


def build_ranking_data(
    queries: Mapping[str, str],
    texts: Mapping[str, str],
    candidates: Mapping[str, list[tuple[str, float]]],
    qrels: Qrels,
    kv,
    *,
    qids: Sequence[str] | None = None,
    depth: int = 100,
    tokenize: Callable[[str], list[str]] | None = None,
    idf: Mapping[str, float] | None = None,
) -> RankingData:
    """Tokenizes queries and their top-`depth` candidates once and maps their terms to unit word vectors.

    `idf` maps tokens to IDF values (e.g. collection_idf over the collection); without it, IDF is computed over the
    candidate pool.
    A query term missing from a given `idf` mapping gets the mapping's largest value (it is at least that rare).
    """
    if depth < 1:
        raise NeuralRankerError(f"depth must be at least 1, got {depth}")
    tokenize = tokenize or default_tokenizer()
    qids = list(queries) if qids is None else list(qids)
    _check_candidates(qids, queries, candidates)

    vocabulary = _Vocabulary(kv)

    doc_index: dict[str, int] = {}
    doc_ids: list[str] = []
    doc_terms: list[np.ndarray] = []
    doc_tokens: list[list[str]] = []
    for qid in qids:
        for docid, _ in candidates[qid][:depth]:
            if docid in doc_index:
                continue
            try:
                text = texts[docid]
            except KeyError:
                raise NeuralRankerError(f"no text for candidate document {docid!r} of query {qid!r}") from None
            tokens = tokenize(text)
            doc_index[docid] = len(doc_ids)
            doc_ids.append(docid)
            rows = vocabulary.rows(tokens)
            doc_terms.append(rows[rows > 0])
            doc_tokens.append(tokens)
    idf_of = candidate_pool_idf(doc_tokens) if idf is None else _mapping_idf(idf)
    del doc_tokens

    kept_qids: list[str] = []
    query_terms: list = []
    query_idf: list = []
    unscorable: list[str] = []
    pair_query: list[int] = []
    pair_doc: list[int] = []
    pair_grade: list[int] = []
    query_pairs: dict = {}
    for qid in qids:
        tokens = tokenize(queries[qid])
        rows = vocabulary.rows(tokens)
        terms, tokens = rows[rows > 0], [t for t, r in zip(tokens, rows) if r > 0]
        if len(terms) == 0:
            unscorable.append(qid)
            continue
        judged = qrels.get(qid, {})
        top = candidates[qid][:depth]
        start = len(pair_doc)
        query_pairs[qid] = slice(start, start + len(top))
        pair_query.extend([len(kept_qids)] * len(top))
        pair_doc.extend(doc_index[docid] for docid, _ in top)
        pair_grade.extend(int(judged.get(docid, 0)) for docid, _ in top)
        kept_qids.append(qid)
        query_terms.append(terms)
        query_idf.append(np.asarray([idf_of(t) for t in tokens], dtype=np.float32))
    if unscorable:
        warnings.warn(
            f"{len(unscorable)} queries have no term in the embedding and keep the run's order: "
            f"{', '.join(map(repr, unscorable[:5]))}{' ...' if len(unscorable) > 5 else ''}",
            stacklevel=2,
        )

    return RankingData(
        words=vocabulary.keys,
        unit_vectors=_unit_vectors(kv, vocabulary.keys),
        qids=kept_qids,
        query_terms=query_terms,
        query_idf=query_idf,
        doc_ids=doc_ids,
        doc_terms=doc_terms,
        pair_query=np.asarray(pair_query, dtype=np.int64),
        pair_doc=np.asarray(pair_doc, dtype=np.int64),
        pair_grade=np.asarray(pair_grade, dtype=np.int64),
        query_pairs=query_pairs,
        relevant_grades={
            q: np.sort(np.asarray([g for g in qrels.get(q, {}).values() if g > 0], dtype=np.int64))[::-1] for q in qids
        },
        candidates={q: list(candidates[q]) for q in qids},
        depth=depth,
        unscorable=unscorable,
    )


class _Vocabulary:
    """Embedding rows handed out in first-seen order, so runs are reproducible; row 0 for tokens not embedded."""

    def __init__(self, kv):
        self.kv = kv
        self.keys: list[str] = []
        self._row_of_key: dict[str, int] = {}
        self._row_of_token: dict[str, int] = {}

    def rows(self, tokens: list[str]) -> np.ndarray:
        """The row of every token, 0 where the embedding has no form of it (see gsr.lexicon.vocabulary_key)."""
        known = self._row_of_token
        for token in dict.fromkeys(tokens):
            if token not in known:
                known[token] = self._new_row(token)
        return np.fromiter(map(known.__getitem__, tokens), dtype=np.int32, count=len(tokens))

    def _new_row(self, token: str) -> int:
        key = vocabulary_key(self.kv.key_to_index, token)
        if key is None:
            return 0
        if key not in self._row_of_key:
            self.keys.append(key)
            self._row_of_key[key] = len(self.keys)
        return self._row_of_key[key]


def _check_candidates(qids, queries, candidates) -> None:
    missing_text = [q for q in qids if q not in queries]
    if missing_text:
        raise NeuralRankerError(f"no query text for query ids {missing_text[:5]}")
    without = [q for q in qids if not candidates.get(q)]
    if without:
        raise NeuralRankerError(f"{len(without)} queries have no candidate documents in the run: {without[:5]}")


def _mapping_idf(idf: Mapping[str, float]) -> Callable[[str], float]:
    rarest = max(idf.values(), default=0.0)
    return lambda term: float(idf.get(term, rarest))


def _unit_vectors(kv, keys: list[str]) -> np.ndarray:
    """The vocabulary's vectors scaled to unit length, after an all-zero padding row (row 0)."""
    vectors = np.zeros((len(keys) + 1, kv.vector_size), dtype=np.float32)
    if keys:
        vectors[1:] = kv.vectors[[kv.key_to_index[k] for k in keys]]
    return unit_rows(vectors, in_place=True)
