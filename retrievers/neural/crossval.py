"""Cross-validated re-ranking: queries dealt into folds, one model trained per test fold on the others (the next
fold validates), each finished fold checkpointed so an interrupted run resumes where it stopped."""

from __future__ import annotations

import hashlib
import os
import random
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numpy as np
import torch

from gsr.infra import logs
from gsr.infra.store import atomic_write, entry_lock, record_file, reusable
from gsr.io.types import Run
from retrievers.device import resolve_device
from retrievers.neural.errors import NeuralRankerError
from retrievers.neural.inputs import build_ranking_data
from retrievers.neural.models import AUTO_DEPTH, LEARNING_RATES, MODELS, model_inputs, new_model, rerank_depth
from retrievers.neural.training import rerank, train_ranker

log = logs.get("neural")

CHECKPOINT_FORMAT = 1
DEFAULT_FOLDS = 5


def seeded_folds(qids: Iterable[str], n_folds: int = DEFAULT_FOLDS, seed: int = 0) -> list[list[str]]:
    """Query ids shuffled with `seed` (from sorted order, so input order does not matter) and dealt into n folds."""
    ordered = sorted(set(qids))
    if n_folds < 2 or len(ordered) < n_folds:
        raise NeuralRankerError(
            f"cannot split {len(ordered)} queries into {n_folds} folds (need >= 2 folds and "
            f"at least one query per fold)"
        )
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


def _load_checkpoint(path: Path, fingerprint: str, test_qids: list[str]) -> tuple[Run, dict] | None:
    """The fold's stored test run and model weights, or None when the file is absent, damaged, unreadable, partial or
    from other inputs.

    The file is verified against its manifest first (gsr.infra.store.reusable: size and content hash), so a truncated or
    overwritten checkpoint is reported by path and removed, never read.
    """
    if not reusable(path):
        return None
    try:
        stored = torch.load(path, map_location="cpu", weights_only=True)
        if stored.get("format") != CHECKPOINT_FORMAT or stored.get("fingerprint") != fingerprint:
            warnings.warn(f"{path}: checkpoint is from other inputs or settings; retraining this fold", stacklevel=3)
            return None
        run = {qid: [(str(d), float(s)) for d, s in ranked] for qid, ranked in stored["run"].items()}
        if sorted(run) != sorted(test_qids):
            raise ValueError("its run does not cover the fold's queries")
        return run, stored["model_state"]
    except Exception as err:  # a torn or foreign file of any kind: rebuild rather than fail
        warnings.warn(
            f"{path}: unreadable checkpoint ({type(err).__name__}: {err}); retraining this fold", stacklevel=3
        )
        return None


def _save_checkpoint(path: Path, content: dict) -> None:
    """Written atomically (gsr.infra.store.atomic_write), so readers never see half a file, with its manifest; under the
    entry's build lock until the manifest is written, so a reader never takes the file for a corrupt one."""
    with entry_lock(path):
        with atomic_write(path, binary=True) as out:
            torch.save(content, out)
        record_file(path)


def rerank_cross_validated(
    model: str,
    queries: dict[str, str],
    texts: Mapping[str, str],
    candidates: dict[str, list[tuple[str, float]]],
    qrels: dict[str, dict[str, int]],
    kv,
    *,
    folds: list[list[str]] | None = None,
    depth: int | str = AUTO_DEPTH,
    epochs: int = 10,
    seed: int = 0,
    checkpoint_dir: Path | None = None,
    tokenize: Callable[[str], list[str]] | None = None,
    idf: Mapping[str, float] | None = None,
    n_folds: int = DEFAULT_FOLDS,
    negatives_per_positive: int = 1,
    batch_size: int = 64,
    learning_rate: float | None = None,
    patience: int | None = None,
    threads: int | None = None,
    device: str = "auto",
    fold_models: Callable[[int, list[str], torch.nn.Module], None] | None = None,
) -> Run:
    """Re-ranks each fold's top-`depth` candidates with a model trained on the other folds; one run over all queries.

    `depth` is a number of candidates, or 'auto': max(100, the largest number of relevant documents of a fold query)
    (models.rerank_depth). For test fold k, fold k + 1 validates (early stopping on nDCG@20) and the remaining folds
    train; with only two folds there is no validation fold and the last epoch is kept. Without `folds`, the queries are
    dealt into `n_folds` folds after a shuffle seeded by `seed`. Each finished fold is checkpointed under
    `checkpoint_dir` (model weights and the fold's run) as `<model>-fold<k>of<n>.pt`, written atomically; a later call
    with the same inputs and settings reuses it, while a corrupt file or one from other inputs is retrained and
    replaced, so use one folder per (model, embedding variant). Each fold is seeded from (`seed`, k) alone, so a
    resumed call gives the run an uninterrupted one would. Torch uses `threads` threads (default: every core this
    process may use); the model trains and scores on `device` ("auto": a CUDA GPU where PyTorch sees one, else the
    CPU; "cpu"; "cuda" or "cuda:N", refused where there is none; see retrievers.device).

    `fold_models`, when given, is called with (k, test fold k's queries, its trained model) once each fold's model is
    ready, trained or loaded from its checkpoint: the adversarial probe scores edited queries with the models trained
    on the originals, as a deployed ranker would see them.

    The result holds every fold query in the order of `queries`: the top-`depth` candidates by model score, then
    the candidates below depth in run order with lower scores; a query none of whose terms is in the embedding
    keeps its candidates and scores.
    """
    if model not in MODELS:
        raise NeuralRankerError(f"unknown neural model {model!r}; expected one of {', '.join(MODELS)}")
    device = resolve_device(device)
    folds = _checked_folds(folds, queries, n_folds, seed)
    fold_qids = [q for fold in folds for q in fold]
    depth = rerank_depth(depth, qrels, fold_qids)
    data = build_ranking_data(
        queries, texts, candidates, qrels, kv, qids=fold_qids, depth=depth, tokenize=tokenize, idf=idf
    )
    inputs = model_inputs(model, data)
    learning_rate = LEARNING_RATES[model] if learning_rate is None else learning_rate
    settings = dict(
        model=model,
        depth=depth,
        epochs=epochs,
        seed=seed,
        folds=folds,
        negatives_per_positive=negatives_per_positive,
        batch_size=batch_size,
        learning_rate=learning_rate,
        patience=patience,
        data=data.digest(),
    )

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads or _available_cores())
    try:
        run: Run = {}
        for k, test_qids in enumerate(folds):
            label = f"[{model}] fold {k + 1}/{len(folds)}"
            fingerprint = hashlib.blake2b(
                repr(sorted({**settings, "fold": k}.items())).encode("utf-8"), digest_size=16
            ).hexdigest()
            path = None if checkpoint_dir is None else _checkpoint_path(checkpoint_dir, model, k, len(folds))
            stored = None if path is None else _load_checkpoint(path, fingerprint, test_qids)
            if stored is not None:
                log.info("%s: reusing checkpoint %s", label, path)
                fold_run = stored[0]
                if fold_models is not None:
                    network = new_model(model)
                    network.load_state_dict(stored[1])
                    fold_models(k, test_qids, network.to(device))
            else:
                fold_seed = _fold_seed(seed, k)
                _seed_everything(fold_seed)
                network = new_model(model).to(device)
                train_qids, valid_qids = _fold_roles(folds, k)
                report = train_ranker(
                    network,
                    inputs,
                    data,
                    train_qids,
                    valid_qids,
                    epochs=epochs,
                    seed=fold_seed,
                    negatives_per_positive=negatives_per_positive,
                    batch_size=batch_size,
                    learning_rate=learning_rate,
                    patience=patience,
                    label=label,
                )
                fold_run = rerank(network, inputs, data, test_qids)
                if fold_models is not None:
                    fold_models(k, test_qids, network)
                if path is not None:
                    _save_checkpoint(
                        path,
                        {
                            "format": CHECKPOINT_FORMAT,
                            "fingerprint": fingerprint,
                            "model": model,
                            "model_state": network.state_dict(),
                            "best_epoch": report.best_epoch,
                            "losses": report.losses,
                            "validation": [float("nan") if v is None else v for v in report.validation],
                            "run": {q: [[d, s] for d, s in ranked] for q, ranked in fold_run.items()},
                        },
                    )
            run.update(fold_run)
    finally:
        torch.set_num_threads(previous_threads)
    return {qid: run[qid] for qid in queries if qid in run}
