"""Gender-bias measures next to GSR: Feng & Shah's KL bias (Eq. 1), Dash's NDKL (Eq. 3), Lipani et al.'s
representation bias β@n with MB / SB / MAB, Rekabsaz & Schedl's RaB / ARaB, Rekabsaz, Kopeinik & Schedl's FaiRR /
NFaiRR, the document labels and word lists they read, and how far the measures agree.

`label_measures` holds one function per paper equation on a ranked list of labels; `labels` the label sources (a
labels file, §4.2.5's intrinsic rule, the sign of g(d) beyond a threshold); `fairr` FaiRR's equations, `neutrality`
its representative-word counts and `fairr_runs` FaiRR of whole runs; `evaluate` the measures of whole runs
(BiasMeasures → BiasReport); `agreement` Kendall τ between the system orderings of several measures and the queries
behind a disagreement; gsr.integrations.bias_measures offers the per-query means as ir_measures measures.
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
        "gsr.fairness.label_measures",
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
    **names_of(
        "gsr.fairness.fairr",
        "FaiRRError",
        "document_neutrality",
        "fairr",
        "ideal_fairr",
        "nfairr",
        "position_weights",
        "ranker_agnostic_fairr",
    ),
    **names_of("gsr.fairness.fairr_runs", "FaiRRMeasures", "FaiRRResult", "FaiRRSettings"),
    **names_of("gsr.fairness.neutrality", "GroupWords", "group_words", "read_group_words"),
    **names_of(
        "gsr.fairness.agreement",
        "MORE_BIASED",
        "AgreementMeasure",
        "AgreementReport",
        "Disagreement",
        "Driver",
        "QueryCorrelation",
        "Tau",
        "bias_direction",
        "kendall_tau",
        "measure_agreement",
    ),
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
