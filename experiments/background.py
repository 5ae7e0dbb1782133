"""What an experiment hands to forked processes while it goes on, one core each (config.threads counts the
experiment's own process): the embeddings it trains on its collection, from the start, and the runs of long,
self-contained systems (SystemType.runs_aside: the neural re-rankers) once the embedding and the run they read are
ready. Each process computes what the experiment would have computed itself, to the bit (one thread, same seeds),
into the cache, where the experiment reads it. Both kinds are shared resources of the experiment (and of those
derived from it): stopped when it ends, on an error or Ctrl-C included.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from gsr.infra import logs
from gsr.infra.parallel import BackgroundProcesses

if TYPE_CHECKING:
    from experiments.config.systems import SystemSpec
    from experiments.runner import Experiment

log = logs.get("run")
TRAINING = "embeddings training in the background"
RUNS = "runs computed in the background"


class TrainingJobs:
    """The BackgroundProcesses training the experiment's embeddings (None: nothing trains aside); closed with it."""

    def __init__(self):
        self.jobs: BackgroundProcesses | None = None

    def close(self) -> None:
        if self.jobs is not None:
            self.jobs.stop()


def start_training(experiment: Experiment) -> None:
    """The embeddings the experiment trains on its collection, started side by side in the background; the Lucene
    index and the systems that need none of them run meanwhile, and the first use of one waits for it
    (training_done)."""
    from embeddings.training import TrainingSettings, start_training

    config = experiment.config
    names = sorted(config.trained_embeddings())
    trained = [TrainingSettings(**(config.embeddings[name].train or {})) for name in names]
    jobs = start_training(experiment.collection.documents, experiment.collection.key, trained, config.threads or 1)
    if jobs is not None:  # held by the experiment, which stops it, before anything else may be interrupted
        experiment.shared(TRAINING, TrainingJobs).jobs = jobs
        log.info("training the collection's embeddings in the background …")


def training_done(experiment: Experiment, name: str, wait: bool = False) -> bool:
    """Whether the trained embedding `name` is not (or no longer) training in the background; with `wait`, waits
    until it is done."""
    from embeddings.training import TrainingSettings

    jobs = experiment.shared(TRAINING, TrainingJobs).jobs
    settings = TrainingSettings(**(experiment.config.embeddings[name].train or {}))
    if jobs is None or settings not in jobs.items:
        return True
    index = jobs.items.index(settings)
    if wait and not jobs.done(index):
        with experiment.step(f"waiting for {name}, training in the background"):
            jobs.wait(index)
    if not jobs.done(index):
        return False
    experiment.timings.setdefault(f"training {name}, in the background", jobs.seconds[index])
    return True


class RunsAside(dict):
    """Run cache key -> the BackgroundProcesses computing that run; closed with the experiment."""

    def close(self) -> None:
        for jobs in self.values():
            jobs.stop()


def _busy(experiment: Experiment) -> int:
    """Background processes at work now: embeddings still training, runs still computed."""
    training = experiment.shared(TRAINING, TrainingJobs).jobs
    done = [] if training is None else [training.done(i) for i in range(len(training.items))]
    done += [jobs.done(0) for jobs in experiment.shared(RUNS, RunsAside).values()]
    return done.count(False)


def run_aside(experiment: Experiment, system: SystemSpec) -> bool:
    """Starts computing `system`'s run in a forked process, where its type runs aside, its run is not cached and a
    core is free; True when started (Experiment.system_run then waits for it), False when the caller runs it."""
    from experiments.registry import SYSTEMS

    key = experiment.system_key(system)
    aside = experiment.shared(RUNS, RunsAside)
    may_run_aside = SYSTEMS.get(system.model).runs_aside
    # a cached run is verified once, by Experiment.system_run, which rebuilds it here if it is damaged
    if may_run_aside is None or key in aside or experiment.run_file(system).exists():
        return False
    if _busy(experiment) + 1 >= max(experiment.config.threads, 1) or not may_run_aside(experiment, system):
        return False
    # what the run reads is made here first: the forked process finds it in memory, and waits for no training
    if system.rerank:
        experiment.system_run(experiment.upstream(system))
    if system.embedding:
        experiment.embedding(system.embedding)
    experiment.document_stats()
    log.info("run %s, in the background …", system.name)
    aside[key] = BackgroundProcesses(_computed_here, [(experiment, [system])], 1)
    return True


def _computed_here(job: tuple) -> None:
    """A forked process's job: the runs, computed and cached as the experiment would. The workers it inherited
    (training, a Lucene session) are its parent's: it forgets them, never closes them, and starts its own if need be."""
    experiment, systems = job
    torch = sys.modules.get("torch")
    if torch is not None:  # one thread: a forked process must not enter the OpenMP pool of its parent, which would
        torch.set_num_threads(1)  # hang it (what PyTorch's DataLoader does in its forked workers); one core each
    experiment.forget_workers()
    for system in systems:
        experiment.system_run(system)


def finished_aside(experiment: Experiment, system: SystemSpec) -> float | None:
    """Seconds the forked process took for `system`'s run, once it is done (waits for it; its error is raised
    here); None where the run was not computed aside."""
    jobs = experiment.shared(RUNS, RunsAside).get(experiment.system_key(system))
    if jobs is None:
        return None
    jobs.wait(0)
    return jobs.seconds[0]
