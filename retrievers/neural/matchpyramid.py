"""MatchPyramid of Pang et al. (2016): 2-D convolutions over the query-document cosine matching matrix, dynamic
max pooling to a fixed size over each pair's real extent, then an MLP.

Queries are cut to their first 10 terms and documents to their first 500. The embeddings are frozen, so each
pair's matrix is the same in every epoch: PyramidInputs computes them once and pads a batch's only to its
longest document.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from retrievers.neural.inputs import RankingData

PYRAMID_QUERY_TERMS = 10
PYRAMID_DOC_TERMS = 500


def _pool_last_axis(x: torch.Tensor, lengths: torch.Tensor, size: int) -> torch.Tensor:
    """Max over `size` near-equal regions of the first `lengths[b]` positions of the last axis of x [B, C, H, L].

    Where no gradient is wanted (scoring), _pool_by_length computes the same maxima; training keeps this one, whose
    gradients are the ones every checkpoint was trained with."""
    if not (torch.is_grad_enabled() and x.requires_grad):
        return _pool_by_length(x, lengths, size)
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


def _pool_by_length(x: torch.Tensor, lengths: torch.Tensor, size: int) -> torch.Tensor:
    """_pool_last_axis's maxima, one adaptive max pooling per distinct length over only the real positions: a
    region of length L is [floor(r L / size), ceil((r + 1) L / size)), as _pool_last_axis's, and a maximum is exact
    whatever the order it is taken in. About 3 times faster when a batch's lengths vary (no gather over its padding)."""
    lengths = lengths.clamp(min=1).to(x.device)
    pooled = x.new_empty(*x.shape[:-1], size)
    for length in torch.unique(lengths).tolist():
        pairs = (lengths == length).nonzero().squeeze(1)
        pooled[pairs] = nn.functional.adaptive_max_pool2d(x[pairs, ..., :length], (x.shape[-2], size))
    return pooled


def dynamic_max_pool(
    x: torch.Tensor, query_lengths: torch.Tensor, doc_lengths: torch.Tensor, size: tuple[int, int]
) -> torch.Tensor:
    """Dynamic max pooling of maps [B, C, H, W] to [B, C, *size] over each pair's real extent (Pang et al. 2016).

    Padding never enters a pooling region, so a pair's output does not depend on how far its batch was padded.
    """
    by_doc = _pool_last_axis(x, doc_lengths, size[1])  # [B, C, H, size[1]]
    by_query = _pool_last_axis(by_doc.transpose(-1, -2), query_lengths, size[0])  # [B, C, size[1], size[0]]
    return by_query.transpose(-1, -2)


def cosine_matching_matrices(
    unit_vectors: torch.Tensor, query_rows: torch.Tensor, doc_rows: torch.Tensor
) -> torch.Tensor:
    """Matching matrices M_ij = cos(q_i, d_j) [B, Lq, Ld] by one batched matmul (Pang et al. 2016)."""
    return torch.bmm(unit_vectors[query_rows], unit_vectors[doc_rows].transpose(1, 2))


class MatchPyramid(nn.Module):
    """MatchPyramid: 2-D convolutions over the cosine matching matrix, dynamic max pooling, then an MLP."""

    def __init__(
        self,
        kernels: Sequence[int] = (16,),
        kernel_size: tuple[int, int] = (3, 3),
        pool_size: tuple[int, int] = (3, 10),
        hidden: int = 32,
    ):
        super().__init__()
        layers, channels = [], 1
        for count in kernels:
            layers += [nn.Conv2d(channels, count, kernel_size, padding="same"), nn.ReLU()]
            channels = count
        self.convolutions = nn.Sequential(*layers)
        self.pool_size = (int(pool_size[0]), int(pool_size[1]))
        self.mlp = nn.Sequential(
            nn.Linear(channels * pool_size[0] * pool_size[1], hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )

    def forward(self, matrices: torch.Tensor, query_lengths: torch.Tensor, doc_lengths: torch.Tensor) -> torch.Tensor:
        """Scores [B] from matching matrices [B, Lq, Ld] zero-padded beyond each pair's real lengths."""
        maps = self.convolutions(matrices.unsqueeze(1))
        pooled = dynamic_max_pool(maps, query_lengths, doc_lengths, self.pool_size)
        return self.mlp(pooled.flatten(1)).squeeze(-1)


class PyramidInputs:
    """MatchPyramid's inputs: every pair's cosine matching matrix (query cut to 10 terms, document to 500), computed
    once, `chunk` pairs at a time; a batch's are zero-padded to its longest document."""

    def __init__(
        self,
        data: RankingData,
        max_query_terms: int = PYRAMID_QUERY_TERMS,
        max_doc_terms: int = PYRAMID_DOC_TERMS,
        chunk: int = 512,
    ):
        unit_vectors = torch.from_numpy(data.unit_vectors)
        query_rows, self.query_lengths = _padded([t[:max_query_terms] for t in data.query_terms])
        doc_rows, self.doc_lengths = _padded([t[:max_doc_terms] for t in data.doc_terms])
        self.pair_query = torch.from_numpy(data.pair_query)
        self.pair_doc = torch.from_numpy(data.pair_doc)
        self.matrices: list[torch.Tensor] = []  # pair -> [document length, query terms]: pad_sequence's layout
        for start in range(0, len(self.pair_doc), chunk):
            query, doc = self.pair_query[start : start + chunk], self.pair_doc[start : start + chunk]
            lengths = self.doc_lengths[doc].clamp(min=1)
            matrices = cosine_matching_matrices(
                unit_vectors, query_rows[query].long(), doc_rows[doc, : int(lengths.max())].long()
            )
            self.matrices.extend(m[:, :n].T.clone() for m, n in zip(matrices, lengths.tolist()))

    def batch(self, pairs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The forward arguments of MatchPyramid for a 1-D tensor of pair indices, padded to the batch's longest."""
        query, doc = self.pair_query[pairs], self.pair_doc[pairs]
        if not len(pairs):
            return torch.zeros((0, 1, 1)), self.query_lengths[query], self.doc_lengths[doc]
        matrices = pad_sequence([self.matrices[p] for p in pairs.tolist()], batch_first=True).transpose(1, 2)
        return matrices, self.query_lengths[query], self.doc_lengths[doc]


def _padded(rows: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), max(width, 1)), dtype=np.int32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return torch.from_numpy(out), torch.as_tensor([len(r) for r in rows], dtype=torch.int64)
