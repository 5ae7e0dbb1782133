"""DRMM, the Deep Relevance Matching Model of Guo et al. (2016): per query term, a histogram of its cosines with
the document's terms (log counts, an exact-match bin), a feed-forward net over it, and IDF term gating.

The word vectors are frozen, so every histogram is computed once per (query, document) pair (DrmmInputs).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from retrievers.neural.inputs import RankingData

HISTOGRAM_BINS = 30  # DRMM's best setting: 29 cosine bins over [-1, 1) and one exact-match bin


def histogram_bins(cosines: np.ndarray, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """Bin of each cosine among `bins - 1` equal bins over [-1, 1); the last bin is exact matches (Guo et al. 2016)."""
    index = np.floor((np.asarray(cosines, dtype=np.float64) + 1.0) / 2.0 * (bins - 1)).astype(np.int64)
    return np.clip(index, 0, bins - 2)


def log_count_histogram(counts: np.ndarray) -> np.ndarray:
    """Logarithm-count histogram LCH = log(1 + count), DRMM's best histogram mapping (Guo et al. 2016)."""
    return np.log1p(counts).astype(np.float32)


def matching_histograms(
    query_rows: np.ndarray, doc_rows: Sequence[np.ndarray], unit_vectors: np.ndarray, bins: int = HISTOGRAM_BINS
) -> np.ndarray:
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
