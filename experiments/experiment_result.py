"""What an experiment produced, as the report, the analyses and the commands read it: the runs, effectiveness and
GSR of every system, next to the two reference engines every table adds (the perfect and the random engine)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.collections import Collection
from experiments.config.experiment import ExperimentConfig
from experiments.config.systems import PERFECT, RANDOM
from gsr.effectiveness.evaluate import Effectiveness
from gsr.evaluate import GSRReport, GSRResult
from gsr.io.types import Run

__all__ = ["PERFECT", "RANDOM", "ExperimentResult"]


@dataclass
class ExperimentResult:
    """Everything the report needs: runs, effectiveness per system, GSR per system and measuring embedding."""

    config: ExperimentConfig
    collection: Collection
    runs: Mapping[str, Run]  # read on first use (experiments.per_system.LazyRuns)
    effectiveness: dict[str, Effectiveness]
    gsr: dict[str, GSRReport]  # GSR column label -> report holding every system (see system_gsr)
    system_gsr: dict[str, dict[str, GSRResult]]  # GSR column label (the measuring embedding's name, 'name@K' for
    # further cut-offs) -> system name -> result (perfect/random included), with bootstrap intervals
    query_genderedness: dict[str, dict[str, float | None]] = field(default_factory=dict)
    evaluated_queries: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    reused: list[str] = field(default_factory=list)
    analyses: dict[str, Any] = field(default_factory=dict)  # analysis name -> its result (with to_dict)
    analysis_errors: dict[str, str] = field(default_factory=dict)  # analysis name -> why it could not be computed
    run_keys: dict[str, str] = field(default_factory=dict)  # name -> a key of its run's content (systems and engines):
    # what the cached parts computed from a run are keyed by (experiments.parts)
    run_files: dict[str, Path] = field(default_factory=dict)  # system -> its run's cache file

    def reference_genderedness(self) -> dict[str, float | None]:
        """g(q) under the first measuring embedding: the x axis of the paper's analyses."""
        return self.query_genderedness[self.config.measuring[0]]
