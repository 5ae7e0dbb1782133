"""Training and applying a re-ranker: pairwise hinge loss, sampling of training groups, batched scoring, nDCG
for early stopping, the training loop and the re-ranked run.

Training is pairwise: each training group is one relevant candidate followed by `n` lower-graded candidates of the
same query, and the hinge loss reads `n` from the group tensor's shape, so sampler and loss cannot disagree.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from gsr.infra import logs
from gsr.infra.progress import progress
from gsr.io.types import Run, rank_order
from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import RankingData

log = logs.get("neural")

VALIDATION_CUTOFF = 20  # early stopping keeps the epoch with the best validation nDCG@20


def pairwise_hinge_loss(scores: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """Hinge loss max(0, margin - s(q, d+) + s(q, d-)) (Guo et al. 2016) over scores [groups, 1 + n_neg].

    Column 0 holds the relevant document, the other columns its negatives; the number of negatives is read from
    the shape, never passed separately.
    """
    if scores.dim() != 2 or scores.shape[1] < 2:
        raise NeuralRankerError(
            f"scores must be shaped [groups, 1 + negatives] with at least one negative, got {tuple(scores.shape)}"
        )
    return torch.relu(margin - scores[:, :1] + scores[:, 1:]).mean()


def sample_training_groups(
    data: RankingData, qids: Iterable[str], negatives_per_positive: int, rng: np.random.Generator
) -> torch.Tensor:
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


def _on_model_device(model: nn.Module, tensors: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """A batch's tensors moved to the device the model's weights are on (a no-op on the CPU)."""
    device = next(model.parameters()).device
    return tensors if device.type == "cpu" else tuple(t.to(device, non_blocking=True) for t in tensors)


def score_pairs(model: nn.Module, inputs, pairs: np.ndarray | torch.Tensor, batch_size: int = 512) -> np.ndarray:
    """Model scores of the given pair indices, in evaluation mode without gradients."""
    pairs = torch.as_tensor(np.asarray(pairs), dtype=torch.int64)
    was_training = model.training
    model.eval()
    scores = []
    with torch.no_grad():
        for start in range(0, len(pairs), batch_size):
            scores.append(model(*_on_model_device(model, inputs.batch(pairs[start : start + batch_size]))).cpu())
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


def mean_ndcg(
    model: nn.Module, inputs, data: RankingData, qids: Iterable[str], cutoff: int = VALIDATION_CUTOFF
) -> float | None:
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
    return np.asarray(
        [by_id[d] for d, _ in rank_order((data.doc_ids[data.pair_doc[p]], s) for p, s in zip(pairs, scores))],
        dtype=np.int64,
    )


@dataclass
class TrainingReport:
    """What training did: mean loss and validation nDCG per epoch, and the epoch whose weights were kept."""

    losses: list[float]
    validation: list[float | None]
    best_epoch: int


def train_ranker(
    model: nn.Module,
    inputs,
    data: RankingData,
    train_qids: Sequence[str],
    valid_qids: Sequence[str] = (),
    *,
    epochs: int = 10,
    seed: int = 0,
    negatives_per_positive: int = 1,
    batch_size: int = 64,
    learning_rate: float = 1e-3,
    patience: int | None = None,
    label: str = "",
) -> TrainingReport:
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
            raise NeuralRankerError(
                f"{label or 'training'}: no training query has a relevant and a lower-graded "
                f"candidate in its top {data.depth}; nothing to learn from"
            )
        model.train()
        total = 0.0
        for start in progress(range(0, len(groups), batch_size), desc=f"training epoch {epoch}", unit="batch"):
            group = groups[start : start + batch_size]
            scores = model(*_on_model_device(model, inputs.batch(group.reshape(-1)))).view(group.shape)
            loss = pairwise_hinge_loss(scores)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(group)
        losses.append(total / len(groups))
        score = mean_ndcg(model, inputs, data, valid_qids)
        validation.append(score)
        log.info(
            "%s epoch %d/%d loss %.4f validation nDCG@%d %s (%.1fs)",
            label,
            epoch,
            epochs,
            losses[-1],
            VALIDATION_CUTOFF,
            "n/a" if score is None else f"{score:.4f}",
            time.perf_counter() - started,
        )
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
