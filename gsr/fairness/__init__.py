"""Label-based gender-bias measures next to GSR: Feng & Shah's KL bias (Eq. 1), Dash's NDKL (Eq. 3), Lipani et al.'s
representation bias β@n with MB / SB / MAB, Rekabsaz & Schedl's RaB / ARaB, and the document labels they read.

`measures` holds one function per paper equation on a ranked list of labels; `labels` the label sources (a labels
file, §4.2.5's intrinsic rule, the sign of g(d) beyond a threshold); `evaluate` the measures of whole runs
(BiasMeasures → BiasReport); gsr.integrations.ir_measures_bias offers the per-query means as ir_measures measures.
"""

from gsr.infra.lazy import lazy_names, names_of

_LAZY = {
    **names_of("gsr.fairness.evaluate", "BiasMeasures", "BiasReport", "BiasSettings", "QueryBias", "measure_names"),
    **names_of(
        "gsr.fairness.labels",
        "DocumentLabels",
        "LabelSourceError",
        "document_genderedness",
        "gendered_word_counts",
        "genderedness_labels",
        "intrinsic_labels",
        "parse_label_source",
        "read_labels_file",
    ),
    **names_of(
        "gsr.fairness.equations",
        "DEFAULT_EPSILON",
        "NEUTRAL_POLICIES",
        "TARGETS",
        "BiasError",
        "average_rank_bias",
        "bias_aggregates",
        "check_target",
        "feng_shah_bias",
        "kl_divergence",
        "lipani_target_count",
        "ndkl",
        "rank_bias",
        "representation_bias",
        "top_k_kl",
    ),
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
