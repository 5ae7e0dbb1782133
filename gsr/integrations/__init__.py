"""GSR and the label-based bias measures inside other IR tools: ir_measures measures (`calc_aggregate`, `calc`,
evaluators) and PyTerrier's `Experiment`, with aggregates that are exactly Eq. 3 (`measures`), and the per-query
means of the label-based measures (`bias_measures`)."""

from gsr.integrations.bias_measures import BiasIRMeasures
from gsr.integrations.measures import GSRMeasures, ir_measures_measures, is_gsr_measure, parse_measure_name

__all__ = ["BiasIRMeasures", "GSRMeasures", "ir_measures_measures", "is_gsr_measure", "parse_measure_name"]
