"""GSR and the label-based bias measures inside other IR tools: ir_measures measures (`calc_aggregate`, `calc`,
evaluators) and PyTerrier's `Experiment`, with aggregates that are exactly Eq. 3 (`ir_measures_gsr`), and the
per-query means of the label-based measures (`ir_measures_bias`). They need pandas, which ir_measures hands these
measures the run and qrels in: the 'ir-measures' extra (pip install 'gsr-bench[ir-measures]')."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gsr.infra.lazy import lazy_names, names_of

# the lazy names as type checkers and IDEs see them (the modules of _LAZY; tests/test_api_reference.py)
if TYPE_CHECKING:
    from gsr.integrations.ir_measures_bias import BiasIRMeasures as BiasIRMeasures
    from gsr.integrations.ir_measures_gsr import GSRMeasures as GSRMeasures
    from gsr.integrations.ir_measures_gsr import ir_measures_measures as ir_measures_measures
    from gsr.integrations.ir_measures_gsr import is_gsr_measure as is_gsr_measure
    from gsr.integrations.ir_measures_gsr import parse_measure_name as parse_measure_name

_LAZY = {
    **names_of("gsr.integrations.ir_measures_bias", "BiasIRMeasures"),
    **names_of(
        "gsr.integrations.ir_measures_gsr",
        "GSRMeasures",
        "ir_measures_measures",
        "is_gsr_measure",
        "parse_measure_name",
    ),
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
