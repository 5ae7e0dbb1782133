"""Runs made by any other tool (SPLADE, ColBERT, a commercial engine): a TREC run file as a system of the config,
measured, tested and analysed like the built-in ones (it has no embedding, so it cannot be debiased)."""

from __future__ import annotations

from pathlib import Path

from experiments.estimates import Work
from experiments.registry import SYSTEMS, SystemType
from gsr.errors import InputError
from gsr.infra import logs
from gsr.infra.params import Param
from gsr.io.runs import read_trec_run

log = logs.get("run")


def read_run_file(experiment, system) -> dict:
    """The file's ranking of every collection topic, cut to the config's `depth`; topics it does not answer score
    0 on every measure and are skipped by GSR, like any system's."""
    path = Path(system.params["path"])
    run = read_trec_run(path)
    queries = experiment.collection.queries
    shared = set(run) & set(queries)
    if not shared:
        raise InputError(
            f"{path}: none of the run's {len(run)} query ids is a topic of the collection (run e.g. "
            f"{', '.join(sorted(run)[:3])}; topics e.g. {', '.join(sorted(queries)[:3])})"
        )
    unknown, unanswered = sorted(set(run) - shared), sorted(set(queries) - shared)
    if unknown or unanswered:
        log.warning(
            "%s: %d query ids of %s are not topics (ignored), %d topics are not in it",
            system.name,
            len(unknown),
            path.name,
            len(unanswered),
        )
    depth = experiment.config.depth
    return {q: ranked[:depth] for q, ranked in run.items() if q in shared}


def check_file(experiment, system) -> None:
    """The run file exists (checked before any long step)."""
    path = Path(system.params["path"])
    if not path.is_file():
        raise InputError(f"{system.name}: run file {path}: no such file")


def reading_cost(experiment, system) -> list[Work]:
    path = Path(system.params["path"])
    return [Work("run file", path.stat().st_size / 40 if path.is_file() else 0)]  # ~40 bytes a line


SYSTEMS.register(
    SystemType(
        "run",
        "a TREC run file from any tool (SPLADE, ColBERT, a commercial engine), cut to the config's `depth`",
        read_run_file,
        params=(Param("path", str, None, "the TREC run file (relative to the config file)"),),
        preflight=check_file,
        path_params=("path",),
        cost=reading_cost,
    )
)
