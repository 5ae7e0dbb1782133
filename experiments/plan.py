"""What a config would compute and what it would reuse from the cache, known without computing anything: the version
keys of its embeddings (loaded, trained or debiased) and the cache entries of its systems' runs. `gsr run --dry-run`
prints it, so a batch scheduler can split a grid of configs into jobs (docs: experiments, on a cluster)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from experiments.registry import SYSTEMS
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
    """A step of a run that a cache entry can spare: what it is, whether its entry is there (verified), where, and
    for a step to compute its estimated time on this machine (experiments.estimates; None: no measured rate) and,
    where that is hours, what to do instead."""

    what: str
    reused: bool
    entry: Path
    seconds: float | None = None
    advice: str | None = None


def dry_run(experiment: Experiment) -> list[PlannedStep]:
    """The document statistics, the trained and debiased embeddings the config uses and every system's run, each with
    its cache entry, whether that entry is there and verifies and, where not, its estimated time. Loading the
    collection is the one step it takes (its keys need it)."""
    from experiments.estimates import Work, collection_size, seconds, slowdown
    from gsr.documents.needed_stats import document_stats_entry
    from gsr.vectors.loading import CACHE_FORMAT

    config = experiment.config
    size, slower, counted = collection_size(experiment), slowdown(experiment), set[str]()

    def planned(what: str, entry: Path, work: list[Work] | None) -> PlannedStep:
        if reusable(entry):
            return PlannedStep(what, True, entry)
        advice = next((item.advice for item in work or () if item.advice), None)
        return PlannedStep(what, False, entry, None if work is None else seconds(work, slower, counted), advice)

    entry = document_stats_entry(experiment.collection.documents, experiment.analyzer)
    steps = [planned("document statistics", entry, [Work("document statistics", size.words)])]
    used = {s.embedding for s in config.systems if s.embedding} | set(config.measuring)
    for name in sorted(used):
        spec = config.embeddings[name]
        if spec.train is None and spec.base is None:
            continue
        entry = cache_dir() / "embeddings" / f"{source_embedding_key(experiment, name)}-v{CACHE_FORMAT}"
        if spec.train is not None:
            from embeddings.training import TrainingSettings

            settings = TrainingSettings(**spec.train)
            advice = "train fewer epochs, or give pretrained vectors (source = FILE): see docs/cluster.md"
            work = [Work(settings.method, size.words * settings.epochs, advice=advice)]
            steps.append(planned(f"embedding {name} (trained)", entry, work))
        else:
            values = min(size.words / 20, 3e6) * 300  # the vocabulary × dimensions, at most a GoogleNews file's
            steps.append(
                planned(f"embedding {name} ({spec.debias}-debiased {spec.base})", entry, [Work("debiasing", values)])
            )
    for system in config.systems:
        cost = SYSTEMS.get(system.model).cost
        entry = cache_dir() / "runs" / f"{experiment.system_key(system)}.run"
        steps.append(
            planned(f"run {system.name} ({system.model})", entry, None if cost is None else cost(experiment, system))
        )
    return steps


def report_seconds(experiment: Experiment, steps: list[PlannedStep]) -> float:
    """The estimated time of the measures, analyses and report of the systems whose runs are computed (the others'
    are cached parts), at the rate measured for them."""
    from experiments.estimates import Work, collection_size, seconds, slowdown

    computed = sum(1 for step in steps if step.what.startswith("run ") and not step.reused)
    queries = collection_size(experiment).queries
    return seconds([Work("measures and report", queries * (computed + 2))], slowdown(experiment), set())
