"""Neural re-rankers DRMM (Guo et al. 2016) and MatchPyramid (Pang et al. 2016) in PyTorch, cross-validated.

Both models read word vectors from a gensim KeyedVectors (the caller picks the variant: regular, debiased,
strong-debiased). The vectors are frozen, never fine-tuned, so that GSR differences between runs come from the
embedding variant and from the learned matching weights alone; frozen vectors also make every model input
constant, so DRMM's histograms are computed once per (query, document) pair. Terms missing from the embedding are
dropped (looked up as written, lowercase, Title-case and UPPER case, like the GSR lexicon).

Training is pairwise: each training group is one relevant candidate followed by `n` lower-graded candidates of the
same query, and the hinge loss reads `n` from the group tensor's shape, so sampler and loss cannot disagree.
MatchZoo-py is not used: it does not install on Python 3.11 and departs from both papers (no IDF gating, count
histograms, dot-product matching and average pooling in MatchPyramid).
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
import torch
from torch import nn

from embeddings.direction import lookup_word
from gsr.io import Qrels, Run, rank_order
from gsr.store import atomic_write

MODELS = ("drmm", "matchpyramid")
HISTOGRAM_BINS = 30  # DRMM's best setting: 29 cosine bins over [-1, 1) and one exact-match bin
PYRAMID_QUERY_TERMS = 10
PYRAMID_DOC_TERMS = 500
VALIDATION_CUTOFF = 20  # early stopping keeps the epoch with the best validation nDCG@20
CHECKPOINT_FORMAT = 1
DEFAULT_FOLDS = 5
LEARNING_RATES = {"drmm": 1e-2, "matchpyramid": 1e-3}


class NeuralRankerError(ValueError):
    """Bad input to a neural ranker: unknown model, bad folds, a query without candidates, a missing text."""


# --------------------------------------------------------------------------------------------------------------
# Inputs shared by both models
# --------------------------------------------------------------------------------------------------------------


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
    from gsr.text import Analyzer

    return Analyzer().tokens


def candidate_pool_idf(doc_terms: Iterable[Sequence[str]]) -> Callable[[str], float]:
    """Smoothed inverse document frequency log((N + 1) / (df + 0.5)) over the re-ranked candidate documents."""
    docs = list(doc_terms)
    n_docs = len(docs)
    df = Counter(chain.from_iterable(map(set, docs)))
    return lambda term: math.log((n_docs + 1) / (df.get(term, 0) + 0.5))


def build_ranking_data(queries: Mapping[str, str], texts: Mapping[str, str],
                       candidates: Mapping[str, list[tuple[str, float]]], qrels: Qrels, kv, *,
                       qids: Sequence[str] | None = None, depth: int = 100,
                       tokenize: Callable[[str], list[str]] | None = None,
                       idf: Mapping[str, float] | None = None) -> RankingData:
    """Tokenizes queries and their top-`depth` candidates once and maps their terms to unit word vectors.

    `idf` maps tokens to IDF values (e.g. from the index); without it, IDF is computed over the candidate pool.
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

    kept_qids, query_terms, query_idf, unscorable = [], [], [], []
    pair_query, pair_doc, pair_grade, query_pairs = [], [], [], {}
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
        warnings.warn(f"{len(unscorable)} queries have no term in the embedding and keep the run's order: "
                      f"{', '.join(map(repr, unscorable[:5]))}{' ...' if len(unscorable) > 5 else ''}", stacklevel=2)

    return RankingData(
        words=vocabulary.keys, unit_vectors=_unit_rows(kv, vocabulary.keys), qids=kept_qids, query_terms=query_terms,
        query_idf=query_idf, doc_ids=doc_ids, doc_terms=doc_terms,
        pair_query=np.asarray(pair_query, dtype=np.int64), pair_doc=np.asarray(pair_doc, dtype=np.int64),
        pair_grade=np.asarray(pair_grade, dtype=np.int64), query_pairs=query_pairs,
        relevant_grades={q: np.sort(np.asarray([g for g in qrels.get(q, {}).values() if g > 0], dtype=np.int64))[::-1]
                         for q in qids},
        candidates={q: list(candidates[q]) for q in qids}, depth=depth, unscorable=unscorable)


class _Vocabulary:
    """Embedding rows handed out in first-seen order, so runs are reproducible; row 0 for tokens not embedded."""

    def __init__(self, kv):
        self.kv = kv
        self.keys: list[str] = []
        self._row_of_key: dict[str, int] = {}
        self._row_of_token: dict[str, int] = {}

    def rows(self, tokens: list[str]) -> np.ndarray:
        """The row of every token, 0 where the embedding has no form of it (see embeddings.direction.lookup_word)."""
        known = self._row_of_token
        for token in dict.fromkeys(tokens):
            if token not in known:
                known[token] = self._new_row(token)
        return np.fromiter(map(known.__getitem__, tokens), dtype=np.int32, count=len(tokens))

    def _new_row(self, token: str) -> int:
        key = lookup_word(self.kv, token)
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


def _unit_rows(kv, keys: list[str]) -> np.ndarray:
    """The vocabulary's vectors scaled to unit length, after an all-zero padding row."""
    vectors = np.zeros((len(keys) + 1, kv.vector_size), dtype=np.float32)
    if keys:
        vectors[1:] = kv.vectors[[kv.key_to_index[k] for k in keys]]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


# --------------------------------------------------------------------------------------------------------------
# DRMM (Guo et al. 2016)
# --------------------------------------------------------------------------------------------------------------


def histogram_bins(cosines: np.ndarray, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """Bin of each cosine among `bins - 1` equal bins over [-1, 1); the last bin is exact matches (Guo et al. 2016)."""
    index = np.floor((np.asarray(cosines, dtype=np.float64) + 1.0) / 2.0 * (bins - 1)).astype(np.int64)
    return np.clip(index, 0, bins - 2)


def log_count_histogram(counts: np.ndarray) -> np.ndarray:
    """Logarithm-count histogram LCH = log(1 + count), DRMM's best histogram mapping (Guo et al. 2016)."""
    return np.log1p(counts).astype(np.float32)


def matching_histograms(query_rows: np.ndarray, doc_rows: Sequence[np.ndarray], unit_vectors: np.ndarray,
                        bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """Count histograms [n_docs, n_query_terms, bins] of query-term/document-term cosines (Guo et al. 2016).

    The exact-match bin counts occurrences of the query term itself (same embedding row), not a floating-point
    cosine equal to 1, which rounding would miss.
    """
    query_rows = np.asarray(query_rows, dtype=np.int64)
    n_docs, n_terms = len(doc_rows), len(query_rows)
    lengths = np.asarray([len(d) for d in doc_rows], dtype=np.int64)
    flat = np.concatenate([np.asarray(d, dtype=np.int64) for d in doc_rows]) if n_docs else np.zeros(0, np.int64)
    owner = np.repeat(np.arange(n_docs), lengths)
    cosines = unit_vectors[query_rows] @ unit_vectors[flat].T  # [n_terms, total doc terms], one matmul per query
    bin_of = histogram_bins(cosines, bins)
    bin_of[query_rows[:, None] == flat[None, :]] = bins - 1
    cell = (owner[None, :] * n_terms + np.arange(n_terms)[:, None]) * bins + bin_of
    counts = np.bincount(cell.ravel(), minlength=n_docs * n_terms * bins)
    return counts.reshape(n_docs, n_terms, bins)


def idf_term_gating(idf: torch.Tensor, mask: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Term gating g_i = softmax_i(w · idf_i) over the real query terms (Guo et al. 2016, IDF gating)."""
    logits = (weight * idf).masked_fill(~mask, torch.finfo(idf.dtype).min)
    return torch.softmax(logits, dim=-1) * mask


class DRMM(nn.Module):
    """Deep Relevance Matching Model: a feed-forward net per query term over its histogram, gated by IDF."""

    def __init__(self, bins: int = HISTOGRAM_BINS, hidden: int = 5):
        super().__init__()
        # The paper applies tanh at every layer of the matching network, the output layer included.
        self.feed_forward = nn.Sequential(nn.Linear(bins, hidden), nn.Tanh(), nn.Linear(hidden, 1), nn.Tanh())
        # Zero start: every real query term weighs the same until training says otherwise.
        self.gate_weight = nn.Parameter(torch.zeros(()))

    def forward(self, histograms: torch.Tensor, idf: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Scores [B] from LCH histograms [B, M, bins], term IDF [B, M] and real-term mask [B, M]."""
        per_term = self.feed_forward(histograms).squeeze(-1)
        return (idf_term_gating(idf, mask, self.gate_weight) * per_term).sum(-1)


class DrmmInputs:
    """DRMM's inputs for every pair, computed once: LCH histograms, and per query the terms' IDF and mask."""

    def __init__(self, data: RankingData, bins: int = HISTOGRAM_BINS):
        width = max((len(t) for t in data.query_terms), default=1)
        histograms = np.zeros((len(data.pair_doc), width, bins), dtype=np.float32)
        idf = np.zeros((len(data.qids), width), dtype=np.float32)
        mask = np.zeros((len(data.qids), width), dtype=bool)
        for index, qid in enumerate(data.qids):
            terms, pairs = data.query_terms[index], data.query_pairs[qid]
            docs = [data.doc_terms[d] for d in data.pair_doc[pairs]]
            counts = matching_histograms(terms, docs, data.unit_vectors, bins)
            histograms[pairs, : len(terms)] = log_count_histogram(counts)
            idf[index, : len(terms)] = data.query_idf[index]
            mask[index, : len(terms)] = True
        self.histograms = torch.from_numpy(histograms)
        self.idf = torch.from_numpy(idf)
        self.mask = torch.from_numpy(mask)
        self.pair_query = torch.from_numpy(data.pair_query)

    def batch(self, pairs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The forward arguments of DRMM for a 1-D tensor of pair indices."""
        query = self.pair_query[pairs]
        return self.histograms[pairs], self.idf[query], self.mask[query]


# --------------------------------------------------------------------------------------------------------------
# MatchPyramid (Pang et al. 2016)
# --------------------------------------------------------------------------------------------------------------


def _pool_last_axis(x: torch.Tensor, lengths: torch.Tensor, size: int) -> torch.Tensor:
    """Max over `size` near-equal regions of the first `lengths[b]` positions of the last axis of x [B, ..., L]."""
    lengths = lengths.clamp(min=1).to(x.device)[:, None]
    region = torch.arange(size, device=x.device)[None, :]
    start = torch.div(region * lengths, size, rounding_mode="floor")
    stop = torch.div((region + 1) * lengths + size - 1, size, rounding_mode="floor")
    stop = torch.maximum(stop, start + 1)  # shorter than `size`: regions repeat positions rather than go empty
    reach = int((stop - start).max())
    # Each region gathers `reach` positions, repeating its last one, so one gather and one max cover all regions.
    index = torch.minimum(start[..., None] + torch.arange(reach, device=x.device), stop[..., None] - 1)
    index = index.view(x.shape[0], *([1] * (x.dim() - 2)), size * reach).expand(*x.shape[:-1], size * reach)
    return x.gather(-1, index).view(*x.shape[:-1], size, reach).max(-1).values


def dynamic_max_pool(x: torch.Tensor, query_lengths: torch.Tensor, doc_lengths: torch.Tensor,
                     size: tuple[int, int]) -> torch.Tensor:
    """Dynamic max pooling of maps [B, C, H, W] to [B, C, *size] over each pair's real extent (Pang et al. 2016).

    Padding never enters a pooling region, so a pair's output does not depend on how far its batch was padded.
    """
    by_doc = _pool_last_axis(x, doc_lengths, size[1])  # [B, C, H, size[1]]
    by_query = _pool_last_axis(by_doc.transpose(-1, -2), query_lengths, size[0])  # [B, C, size[1], size[0]]
    return by_query.transpose(-1, -2)


def cosine_matching_matrices(unit_vectors: torch.Tensor, query_rows: torch.Tensor,
                             doc_rows: torch.Tensor) -> torch.Tensor:
    """Matching matrices M_ij = cos(q_i, d_j) [B, Lq, Ld] by one batched matmul (Pang et al. 2016)."""
    return torch.bmm(unit_vectors[query_rows], unit_vectors[doc_rows].transpose(1, 2))


class MatchPyramid(nn.Module):
    """MatchPyramid: 2-D convolutions over the cosine matching matrix, dynamic max pooling, then an MLP."""

    def __init__(self, kernels: Sequence[int] = (16,), kernel_size: tuple[int, int] = (3, 3),
                 pool_size: tuple[int, int] = (3, 10), hidden: int = 32):
        super().__init__()
        layers, channels = [], 1
        for count in kernels:
            layers += [nn.Conv2d(channels, count, kernel_size, padding="same"), nn.ReLU()]
            channels = count
        self.convolutions = nn.Sequential(*layers)
        self.pool_size = tuple(pool_size)
        self.mlp = nn.Sequential(nn.Linear(channels * pool_size[0] * pool_size[1], hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, matrices: torch.Tensor, query_lengths: torch.Tensor, doc_lengths: torch.Tensor) -> torch.Tensor:
        """Scores [B] from matching matrices [B, Lq, Ld] zero-padded beyond each pair's real lengths."""
        maps = self.convolutions(matrices.unsqueeze(1))
        pooled = dynamic_max_pool(maps, query_lengths, doc_lengths, self.pool_size)
        return self.mlp(pooled.flatten(1)).squeeze(-1)


class PyramidInputs:
    """MatchPyramid's inputs: padded term rows (query cut to 10 terms, document to 500); matrices built per batch."""

    def __init__(self, data: RankingData, max_query_terms: int = PYRAMID_QUERY_TERMS,
                 max_doc_terms: int = PYRAMID_DOC_TERMS):
        self.unit_vectors = torch.from_numpy(data.unit_vectors)
        self.query_rows, self.query_lengths = _padded([t[:max_query_terms] for t in data.query_terms])
        self.doc_rows, self.doc_lengths = _padded([t[:max_doc_terms] for t in data.doc_terms])
        self.pair_query = torch.from_numpy(data.pair_query)
        self.pair_doc = torch.from_numpy(data.pair_doc)

    def batch(self, pairs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The forward arguments of MatchPyramid for a 1-D tensor of pair indices, padded to the batch's longest."""
        query, doc = self.pair_query[pairs], self.pair_doc[pairs]
        query_lengths, doc_lengths = self.query_lengths[query], self.doc_lengths[doc]
        width = max(1, int(doc_lengths.max())) if len(pairs) else 1
        query_rows = self.query_rows[query].long()
        doc_rows = self.doc_rows[doc, :width].long()
        return cosine_matching_matrices(self.unit_vectors, query_rows, doc_rows), query_lengths, doc_lengths


def _padded(rows: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), max(width, 1)), dtype=np.int32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return torch.from_numpy(out), torch.as_tensor([len(r) for r in rows], dtype=torch.int64)


def new_model(name: str) -> nn.Module:
    """A freshly initialised model by name: 'drmm' or 'matchpyramid'."""
    if name == "drmm":
        return DRMM()
    if name == "matchpyramid":
        return MatchPyramid()
    raise NeuralRankerError(f"unknown neural model {name!r}; expected one of {', '.join(MODELS)}")


def model_inputs(name: str, data: RankingData):
    """The precomputed inputs a model of this name reads (DrmmInputs or PyramidInputs)."""
    if name == "drmm":
        return DrmmInputs(data)
    if name == "matchpyramid":
        return PyramidInputs(data)
    raise NeuralRankerError(f"unknown neural model {name!r}; expected one of {', '.join(MODELS)}")


# --------------------------------------------------------------------------------------------------------------
# Training and scoring
# --------------------------------------------------------------------------------------------------------------


def pairwise_hinge_loss(scores: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """Hinge loss max(0, margin - s(q, d+) + s(q, d-)) (Guo et al. 2016) over scores [groups, 1 + n_neg].

    Column 0 holds the relevant document, the other columns its negatives; the number of negatives is read from
    the shape, never passed separately.
    """
    if scores.dim() != 2 or scores.shape[1] < 2:
        raise NeuralRankerError(
            f"scores must be shaped [groups, 1 + negatives] with at least one negative, got {tuple(scores.shape)}")
    return torch.relu(margin - scores[:, :1] + scores[:, 1:]).mean()


def sample_training_groups(data: RankingData, qids: Iterable[str], negatives_per_positive: int,
                           rng: np.random.Generator) -> torch.Tensor:
    """Training groups [G, 1 + negatives_per_positive] of pair indices: a relevant candidate, then lower-graded ones.

    Every relevant candidate of every query gives one group; its negatives are drawn uniformly (with replacement)
    among the same query's candidates of lower grade, unjudged ones included.
    """
    if negatives_per_positive < 1:
        raise NeuralRankerError(f"negatives_per_positive must be at least 1, got {negatives_per_positive}")
    groups = []
    for qid in qids:
        if qid not in data.query_pairs:
            continue
        pairs = data.pairs_of([qid])
        grades = data.pair_grade[pairs]
        for grade in np.unique(grades[grades > 0]):
            positives, negatives = pairs[grades == grade], pairs[grades < grade]
            if len(negatives) == 0:
                continue
            drawn = negatives[rng.integers(0, len(negatives), size=(len(positives), negatives_per_positive))]
            groups.append(np.concatenate([positives[:, None], drawn], axis=1))
    if not groups:
        return torch.zeros((0, 1 + negatives_per_positive), dtype=torch.int64)
    stacked = np.concatenate(groups)
    return torch.from_numpy(stacked[rng.permutation(len(stacked))])


def score_pairs(model: nn.Module, inputs, pairs: np.ndarray | torch.Tensor, batch_size: int = 512) -> np.ndarray:
    """Model scores of the given pair indices, in evaluation mode without gradients."""
    pairs = torch.as_tensor(np.asarray(pairs), dtype=torch.int64)
    was_training = model.training
    model.eval()
    scores = []
    with torch.no_grad():
        for start in range(0, len(pairs), batch_size):
            scores.append(model(*inputs.batch(pairs[start : start + batch_size])))
    model.train(was_training)
    return torch.cat(scores).double().numpy() if scores else np.zeros(0)


def ndcg_at(grades_in_rank_order: np.ndarray, ideal_grades: np.ndarray, cutoff: int = VALIDATION_CUTOFF) -> float:
    """nDCG@k with linear gains and log2(rank + 1) discount (trec_eval's ndcg_cut); 0 without relevant documents."""
    discounts = 1.0 / np.log2(np.arange(2, cutoff + 2))
    gains = np.asarray(grades_in_rank_order[:cutoff], dtype=np.float64)
    ideal = np.asarray(ideal_grades[:cutoff], dtype=np.float64)
    ideal_dcg = float(ideal @ discounts[: len(ideal)])
    return float(gains @ discounts[: len(gains)]) / ideal_dcg if ideal_dcg > 0 else 0.0


def scores_by_query(model: nn.Module, inputs, data: RankingData, qids: Iterable[str]) -> dict[str, tuple]:
    """qid -> (pair indices, model scores) for the scorable given queries, scored in shared batches."""
    qids = [q for q in qids if q in data.query_pairs]
    scores = score_pairs(model, inputs, data.pairs_of(qids))
    result, start = {}, 0
    for qid in qids:
        pairs = data.pairs_of([qid])
        result[qid] = (pairs, scores[start : start + len(pairs)])
        start += len(pairs)
    return result


def mean_ndcg(model: nn.Module, inputs, data: RankingData, qids: Iterable[str],
              cutoff: int = VALIDATION_CUTOFF) -> float | None:
    """Mean nDCG@cutoff of the re-ranked candidates over queries with a relevant document; None if there are none."""
    judged = [q for q in qids if q in data.query_pairs and len(data.relevant_grades[q]) > 0]
    values = []
    for qid, (pairs, scores) in scores_by_query(model, inputs, data, judged).items():
        order = _ranked(pairs, scores, data)
        values.append(ndcg_at(data.pair_grade[order], data.relevant_grades[qid], cutoff))
    return float(np.mean(values)) if values else None


def _ranked(pairs: np.ndarray, scores: np.ndarray, data: RankingData) -> np.ndarray:
    """Pairs by score descending, ties by document id descending (trec_eval's order)."""
    by_id = {data.doc_ids[data.pair_doc[p]]: p for p in pairs}
    return np.asarray([by_id[d] for d, _ in rank_order((data.doc_ids[data.pair_doc[p]], s)
                                                        for p, s in zip(pairs, scores))], dtype=np.int64)


@dataclass
class TrainingReport:
    """What training did: mean loss and validation nDCG per epoch, and the epoch whose weights were kept."""

    losses: list[float]
    validation: list[float | None]
    best_epoch: int


def train_ranker(model: nn.Module, inputs, data: RankingData, train_qids: Sequence[str],
                 valid_qids: Sequence[str] = (), *, epochs: int = 10, seed: int = 0,
                 negatives_per_positive: int = 1, batch_size: int = 64, learning_rate: float = 1e-3,
                 patience: int | None = None, progress: bool = False, label: str = "") -> TrainingReport:
    """Trains `model` in place with Adam on pairwise hinge loss; keeps the weights of the best validation epoch.

    Without validation queries (or none with a relevant document) the last epoch's weights are kept. With
    `patience`, training stops after that many epochs without a better validation nDCG.
    """
    if epochs < 1:
        raise NeuralRankerError(f"epochs must be at least 1, got {epochs}")
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    losses, validation = [], []
    best_score, best_epoch, best_state, stale = -math.inf, epochs, None, 0
    for epoch in range(1, epochs + 1):
        started = time.perf_counter()
        groups = sample_training_groups(data, train_qids, negatives_per_positive, rng)
        if len(groups) == 0:
            raise NeuralRankerError(f"{label or 'training'}: no training query has a relevant and a lower-graded "
                                    f"candidate in its top {data.depth}; nothing to learn from")
        model.train()
        total = 0.0
        for start in range(0, len(groups), batch_size):
            group = groups[start : start + batch_size]
            scores = model(*inputs.batch(group.reshape(-1))).view(group.shape)
            loss = pairwise_hinge_loss(scores)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(group)
        losses.append(total / len(groups))
        score = mean_ndcg(model, inputs, data, valid_qids)
        validation.append(score)
        if progress:
            shown = "n/a" if score is None else f"{score:.4f}"
            print(f"{label} epoch {epoch}/{epochs} loss {losses[-1]:.4f} validation nDCG@{VALIDATION_CUTOFF} {shown} "
                  f"({time.perf_counter() - started:.1f}s)", file=sys.stderr, flush=True)
        if score is None:
            continue
        if score > best_score:
            best_score, best_epoch, stale = score, epoch, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            stale += 1
            if patience is not None and stale >= patience:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    else:
        best_epoch = len(losses)
    return TrainingReport(losses=losses, validation=validation, best_epoch=best_epoch)


def rerank(model: nn.Module, inputs, data: RankingData, qids: Iterable[str]) -> Run:
    """Re-ranked runs of the given queries: top-`depth` candidates by model score, the rest after them in run order.

    Candidates below depth keep their run order with scores below every re-ranked one; queries without a term in
    the embedding keep their candidates and scores unchanged.
    """
    qids = list(qids)
    scored = scores_by_query(model, inputs, data, qids)
    run: Run = {}
    for qid in qids:
        full = data.candidates[qid]
        if qid not in scored:
            run[qid] = [(d, float(s)) for d, s in full]
            continue
        pairs, scores = scored[qid]
        head = rank_order((data.doc_ids[data.pair_doc[p]], float(s)) for p, s in zip(pairs, scores))
        floor = head[-1][1]
        run[qid] = head + [(d, floor - 1.0 - i) for i, (d, _) in enumerate(full[data.depth :])]
    return run


# --------------------------------------------------------------------------------------------------------------
# Cross-validation with per-fold checkpoints
# --------------------------------------------------------------------------------------------------------------


def seeded_folds(qids: Iterable[str], n_folds: int = DEFAULT_FOLDS, seed: int = 0) -> list[list[str]]:
    """Query ids shuffled with `seed` (from sorted order, so input order does not matter) and dealt into n folds."""
    ordered = sorted(set(qids))
    if n_folds < 2 or len(ordered) < n_folds:
        raise NeuralRankerError(f"cannot split {len(ordered)} queries into {n_folds} folds (need >= 2 folds and "
                                f"at least one query per fold)")
    random.Random(seed).shuffle(ordered)
    return [ordered[k::n_folds] for k in range(n_folds)]


def _checked_folds(folds, queries, n_folds: int, seed: int) -> list[list[str]]:
    if folds is None:
        return seeded_folds(queries, n_folds, seed)
    folds = [list(f) for f in folds]
    if len(folds) < 2:
        raise NeuralRankerError(f"cross-validation needs at least 2 folds, got {len(folds)}")
    empty = [k for k, f in enumerate(folds) if not f]
    if empty:
        raise NeuralRankerError(f"folds {empty} are empty")
    seen: dict[str, int] = {}
    for k, fold in enumerate(folds):
        for qid in fold:
            if qid in seen:
                raise NeuralRankerError(f"query {qid!r} is in fold {seen[qid]} and fold {k}")
            seen[qid] = k
    unknown = [q for q in seen if q not in queries]
    if unknown:
        raise NeuralRankerError(f"fold query ids without query text: {unknown[:5]}")
    return folds


def _fold_roles(folds: list[list[str]], k: int) -> tuple[list[str], list[str]]:
    """Training and validation queries of test fold k: the next fold validates when two or more folds remain."""
    others = [j for j in range(len(folds)) if j != k]
    valid = (k + 1) % len(folds) if len(others) >= 2 else None
    train = [q for j in others if j != valid for q in folds[j]]
    return train, ([] if valid is None else list(folds[valid]))


def _fold_seed(seed: int, k: int) -> int:
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0])


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _checkpoint_path(checkpoint_dir: Path, model: str, k: int, n_folds: int) -> Path:
    return Path(checkpoint_dir) / f"{model}-fold{k + 1}of{n_folds}.pt"


def _load_checkpoint(path: Path, fingerprint: str, test_qids: list[str]) -> Run | None:
    """The fold's stored test run, or None when the file is absent, unreadable, partial or from other inputs."""
    if not path.exists():
        return None
    try:
        stored = torch.load(path, map_location="cpu", weights_only=True)
        if stored.get("format") != CHECKPOINT_FORMAT or stored.get("fingerprint") != fingerprint:
            warnings.warn(f"{path}: checkpoint is from other inputs or settings; retraining this fold", stacklevel=3)
            return None
        run = {qid: [(str(d), float(s)) for d, s in ranked] for qid, ranked in stored["run"].items()}
        if sorted(run) != sorted(test_qids):
            raise ValueError("its run does not cover the fold's queries")
        return run
    except Exception as err:  # a torn or foreign file of any kind: rebuild rather than fail
        warnings.warn(f"{path}: unreadable checkpoint ({type(err).__name__}: {err}); retraining this fold",
                      stacklevel=3)
        return None


def _save_checkpoint(path: Path, content: dict) -> None:
    """Written atomically (gsr.store.atomic_write), so readers never see half a file."""
    with atomic_write(path, binary=True) as out:
        torch.save(content, out)


def rerank_cross_validated(model: str, queries: dict[str, str], texts: Mapping[str, str],
                           candidates: dict[str, list[tuple[str, float]]], qrels: dict[str, dict[str, int]], kv,
                           *, folds: list[list[str]] | None = None, depth: int = 100, epochs: int = 10,
                           seed: int = 0, checkpoint_dir: Path | None = None, progress: bool = False,
                           tokenize: Callable[[str], list[str]] | None = None,
                           idf: Mapping[str, float] | None = None, n_folds: int = DEFAULT_FOLDS,
                           negatives_per_positive: int = 1, batch_size: int = 64,
                           learning_rate: float | None = None, patience: int | None = None,
                           threads: int | None = None) -> Run:
    """Re-ranks each fold's top-`depth` candidates with a model trained on the other folds; one run over all queries.

    For test fold k, fold k + 1 validates (early stopping on nDCG@20) and the remaining folds train; with only two
    folds there is no validation fold and the last epoch is kept. Without `folds`, the queries are dealt into
    `n_folds` folds after a shuffle seeded by `seed`. Each finished fold is checkpointed under `checkpoint_dir`
    (model weights and the fold's run) as `<model>-fold<k>of<n>.pt`, written atomically; a later call with the same
    inputs and settings reuses it, while a corrupt file or one from other inputs is retrained and replaced, so use
    one folder per (model, embedding variant). Each fold is seeded from (`seed`, k) alone, so a resumed call gives
    the run an uninterrupted one would. Torch uses `threads` threads (default: every core this process may use).

    The result holds every fold query in the order of `queries`: the top-`depth` candidates by model score, then
    the candidates below depth in run order with lower scores; a query none of whose terms is in the embedding
    keeps its candidates and scores.
    """
    if model not in MODELS:
        raise NeuralRankerError(f"unknown neural model {model!r}; expected one of {', '.join(MODELS)}")
    folds = _checked_folds(folds, queries, n_folds, seed)
    fold_qids = [q for fold in folds for q in fold]
    data = build_ranking_data(queries, texts, candidates, qrels, kv, qids=fold_qids, depth=depth,
                              tokenize=tokenize, idf=idf)
    inputs = model_inputs(model, data)
    learning_rate = LEARNING_RATES[model] if learning_rate is None else learning_rate
    settings = dict(model=model, depth=depth, epochs=epochs, seed=seed, folds=folds,
                    negatives_per_positive=negatives_per_positive, batch_size=batch_size,
                    learning_rate=learning_rate, patience=patience, data=data.digest())

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads or _available_cores())
    try:
        run: Run = {}
        for k, test_qids in enumerate(folds):
            label = f"[{model}] fold {k + 1}/{len(folds)}"
            fingerprint = hashlib.blake2b(repr(sorted({**settings, "fold": k}.items())).encode("utf-8"),
                                          digest_size=16).hexdigest()
            path = None if checkpoint_dir is None else _checkpoint_path(checkpoint_dir, model, k, len(folds))
            fold_run = None if path is None else _load_checkpoint(path, fingerprint, test_qids)
            if fold_run is not None:
                if progress:
                    print(f"{label}: reusing checkpoint {path}", file=sys.stderr, flush=True)
            else:
                fold_seed = _fold_seed(seed, k)
                _seed_everything(fold_seed)
                network = new_model(model)
                train_qids, valid_qids = _fold_roles(folds, k)
                report = train_ranker(network, inputs, data, train_qids, valid_qids, epochs=epochs, seed=fold_seed,
                                      negatives_per_positive=negatives_per_positive, batch_size=batch_size,
                                      learning_rate=learning_rate, patience=patience, progress=progress,
                                      label=label)
                fold_run = rerank(network, inputs, data, test_qids)
                if path is not None:
                    _save_checkpoint(path, {
                        "format": CHECKPOINT_FORMAT, "fingerprint": fingerprint, "model": model,
                        "model_state": network.state_dict(), "best_epoch": report.best_epoch,
                        "losses": report.losses,
                        "validation": [float("nan") if v is None else v for v in report.validation],
                        "run": {q: [[d, s] for d, s in ranked] for q, ranked in fold_run.items()},
                    })
            run.update(fold_run)
    finally:
        torch.set_num_threads(previous_threads)
    return {qid: run[qid] for qid in queries if qid in run}
