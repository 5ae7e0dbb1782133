"""GSR and the label-based bias measures inside other IR tools: ir_measures measures (`calc_aggregate`, `calc`,
evaluators) and PyTerrier's `Experiment`, with aggregates that are exactly Eq. 3 (`measures`), and the per-query
means of the label-based measures (`bias_measures`)."""

from gsr.infra.lazy import lazy_names, names_of

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
