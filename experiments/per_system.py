"""Each system's effectiveness and GSR, one cached part per system (experiments.parts): a rerun after a change to one
system reads, checks and measures that system's run alone, and takes every other system's values from the cache.

A part's inputs are the run's content digest (Experiment.run_digest) and the settings the value is computed from:
the qrels and evaluated topics, the measures, the measuring embedding's version, the definitional pairs, GSR's text
handling and the statistics' settings. The runs themselves are read only where a part is computed (LazyRuns).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from experiments.parts import cached_part, cached_parts, value_key
from gsr.effectiveness.evaluate import NATIVE_VARIABLE, Effectiveness, check_run_ids, evaluate_run
from gsr.infra.digests import content_key, file_content_key
from gsr.infra.progress import progress
from gsr.io.types import Run

if TYPE_CHECKING:
    from experiments.runner import Experiment
    from gsr.evaluate import GSRReport


class LazyRuns(Mapping[str, Run]):
    """{name: run}, each run read (from its cache file) the first time it is looked up, then kept."""

    def __init__(self, readers: dict[str, Callable[[], Run]]):
        self._readers = dict(readers)
        self._read: dict[str, Run] = {}

    def __getitem__(self, name: str) -> Run:
        if name not in self._read:
            self._read[name] = self._readers[name]()
        return self._read[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._readers)

    def __len__(self) -> int:
        return len(self._readers)

    def add(self, name: str, run: Run) -> None:
        """A run known already (the perfect and random engines, made in memory)."""
        self._readers[name] = lambda: run
        self._read[name] = run


def lazy_runs(experiment: Experiment, systems) -> LazyRuns:
    """The systems' runs in `experiment`, each read where it is first looked up (Experiment.system_run)."""
    return LazyRuns({system.name: functools.partial(experiment.system_run, system) for system in systems})


def collection_key(experiment: Experiment) -> str:
    """A key of the collection as the parts read it: its documents, topics, judgments, folds and annotations (query
    categories, document genders); made once per experiment."""
    collection = experiment.collection

    def key() -> str:
        return content_key(
            collection.key,
            sorted(collection.queries.items()),
            sorted((q, sorted(judged.items())) for q, judged in collection.qrels.items()),
            collection.folds,
            sorted(collection.query_categories.items()),
            sorted(collection.document_genders.items()),
        )

    if "collection" not in experiment.part_keys:  # not a shared resource: an experiment on other queries has its own
        experiment.part_keys["collection"] = key()
    return experiment.part_keys["collection"]


def analyzer_key(experiment: Experiment) -> list:
    """GSR's text handling as a key: the stop words and the rule that excludes query terms."""
    analyzer = experiment.analyzer
    return [sorted(analyzer.stopwords or ()), analyzer.exclusion]


def lexicon_key(experiment: Experiment, name: str) -> str:
    """A key of Experiment.lexicon(name) without loading it: the measuring embedding's version and the definitional
    pairs it is read with."""
    from experiments.plan import source_embedding_key

    definitional = experiment.config.definitional
    pairs = file_content_key(Path(definitional)) if definitional else None
    return content_key(source_embedding_key(experiment, name), pairs)


def checked_run_ids(experiment: Experiment, runs: Mapping[str, Run], keys: dict[str, str]) -> None:
    """check_run_ids of every run, each run once per (collection, run content): a passed check is a cached part."""
    from experiments.collections import collection_docids

    collection = experiment.collection
    for name, key in keys.items():

        def check(name: str = name) -> bool:
            check_run_ids(runs[name], collection_docids(collection.documents), name)
            return True

        cached_part("run ids", (collection.key, key), check)


def effectiveness_of(
    experiment: Experiment, runs: Mapping[str, Run], keys: dict[str, str], measures, judged: list[str]
) -> dict[str, Effectiveness]:
    """Each run's per-query values of `measures` over the `judged` topics (evaluate_run), one part per run."""
    import os

    qrels = experiment.collection.qrels
    settings = (collection_key(experiment), [str(m) for m in measures], judged, os.environ.get(NATIVE_VARIABLE, "1"))

    def evaluated(name: str) -> Callable[[], Effectiveness]:
        return lambda: evaluate_run(runs[name], qrels, measures, judged)

    return {
        name: cached_part("effectiveness", (*settings, key), evaluated(name))
        for name, key in progress(keys.items(), total=len(keys), desc="effectiveness", unit="run")
    }


def gsr_of(
    experiment: Experiment, name: str, cutoff, runs: Mapping[str, Run], keys: dict[str, str]
) -> dict[str, GSRReport]:
    """Each run's GSR report (with the perfect and random engines, intervals included) under the measuring embedding
    `name` at `cutoff`, one part per run; the missing ones are measured together (GSR.evaluate_many: each report
    resamples its own queries, so a report is the same whichever runs share the call). The embedding is loaded only
    where a report is missing."""
    from gsr.evaluate import GSR

    config, collection = experiment.config, experiment.collection
    statistics = [config.random_seed, config.resamples, config.level, config.seed]
    settings = (collection_key(experiment), lexicon_key(experiment, name), analyzer_key(experiment), cutoff, statistics)

    def measured(missing: list[str]) -> dict[str, GSRReport]:
        measure = GSR(
            experiment.lexicon(name),
            experiment.analyzer,
            cutoff=cutoff,
            random_seed=config.random_seed,
            resamples=config.resamples,
            level=config.level,
            seed=config.seed,
        )
        missing_runs = {system: runs[system] for system in missing}
        return measure.evaluate_many(missing_runs, collection.queries, experiment.gendered(name), collection.qrels)

    return cached_parts("gsr", {system: (*settings, key) for system, key in keys.items()}, measured)


def cached_gsr_test(measured, reference, resamples: int, seed: int):
    """gsr_difference_test of two GSR results (a system against the perfect engine, a debiased variant against its
    regular system), a cached part keyed by both results' content and the test's settings."""
    from gsr.evaluate import gsr_difference_test

    return cached_part(
        "gsr test",
        (value_key(measured), value_key(reference), resamples, seed),
        lambda: gsr_difference_test(measured, reference, resamples, seed),
    )
