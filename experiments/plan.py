"""What a config would compute and what it would reuse from the cache, known without computing anything: the version
keys of its embeddings (loaded, trained or debiased) and the cache entries of its systems' runs. `gsr run --dry-run`
prints it, so a batch scheduler can split a grid of configs into jobs (docs: experiments, on a cluster)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gsr.infra.digests import content_key
from gsr.infra.store import cache_dir, reusable

if TYPE_CHECKING:
    from experiments.runner import Experiment


def embedding_key(experiment: Experiment, name: str) -> str:
    """The version key of experiment.embedding(name) (unit rows of a regular embedding; a debiased one as it is)."""
    spec = experiment.config.embeddings[name]
    if spec.base is not None:
        return source_embedding_key(experiment, name)
    loaded = experiment._unit_embeddings.get(name)
    return loaded.key if loaded is not None else "unit-" + content_key(source_embedding_key(experiment, name))


def source_embedding_key(experiment: Experiment, name: str) -> str:
    """The version key of experiment.source_embedding(name), without loading, training or debiasing it."""
    loaded = experiment._embeddings.get(name)
    if loaded is not None:
        return loaded.key
    spec = experiment.config.embeddings[name]
    if spec.base is not None:
        from experiments.debiased import debiased_key

        assert spec.debias is not None  # the config checker pairs base with debias
        return debiased_key(source_embedding_key(experiment, spec.base), spec.debias, experiment.config)[0]
    if spec.source is not None:
        from gsr.vectors.loading import embedding_version

        return embedding_version(spec.source, allow_pickle=spec.allow_pickle)
    from embeddings.training import TrainingSettings, trained_key

    return trained_key(experiment.collection.key, TrainingSettings(**(spec.train or {})))


@dataclass(frozen=True)
class PlannedStep:
    """A step of a run that a cache entry can spare: what it is, whether its entry is there (verified), where."""

    what: str
    reused: bool
    entry: Path


def dry_run(experiment: Experiment) -> list[PlannedStep]:
    """The trained and debiased embeddings the config uses and every system's run, each with its cache entry and
    whether that entry is there and verifies. Loading the collection is the one step it takes (its keys need it)."""
    from gsr.vectors.loading import CACHE_FORMAT

    config = experiment.config
    used = {s.embedding for s in config.systems if s.embedding} | set(config.measuring)
    steps = []
    for name in sorted(used):
        spec = config.embeddings[name]
        if spec.train is None and spec.base is None:
            continue
        entry = cache_dir() / "embeddings" / f"{source_embedding_key(experiment, name)}-v{CACHE_FORMAT}"
        how = "trained" if spec.train is not None else f"{spec.debias}-debiased {spec.base}"
        steps.append(PlannedStep(f"embedding {name} ({how})", reusable(entry), entry))
    for system in config.systems:
        entry = cache_dir() / "runs" / f"{experiment.system_key(system)}.run"
        steps.append(PlannedStep(f"run {system.name} ({system.model})", reusable(entry), entry))
    return steps
