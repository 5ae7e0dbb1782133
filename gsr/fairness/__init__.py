"""Label-based gender-bias measures next to GSR: Feng & Shah's KL bias (Eq. 1), Dash's NDKL (Eq. 3), Lipani et al.'s
representation bias β@n with MB / SB / MAB, Rekabsaz & Schedl's RaB / ARaB, and the document labels they read.

`measures` holds one function per paper equation on a ranked list of labels; `labels` the label sources (a labels
file, §4.2.5's intrinsic rule, the sign of g(d) beyond a threshold); `evaluate` the measures of whole runs
(BiasMeasures → BiasReport); gsr.integrations.bias_measures offers the per-query means as ir_measures measures.
"""

from gsr.fairness.evaluate import TARGETS, BiasMeasures, BiasReport, BiasSettings, QueryBias, measure_names
from gsr.fairness.labels import (
    DocumentLabels,
    LabelSourceError,
    document_genderedness,
    gendered_word_counts,
    genderedness_labels,
    intrinsic_labels,
    parse_label_source,
    read_labels_file,
)
from gsr.fairness.measures import (
    DEFAULT_EPSILON,
    NEUTRAL_POLICIES,
    BiasError,
    average_rank_bias,
    bias_aggregates,
    check_target,
    feng_shah_bias,
    kl_divergence,
    lipani_target_count,
    ndkl,
    rank_bias,
    representation_bias,
    top_k_kl,
)

__all__ = ["DEFAULT_EPSILON", "NEUTRAL_POLICIES", "TARGETS", "BiasError", "BiasMeasures", "BiasReport", "BiasSettings",
           "DocumentLabels", "LabelSourceError", "QueryBias", "average_rank_bias", "bias_aggregates", "check_target",
           "document_genderedness", "feng_shah_bias", "gendered_word_counts", "genderedness_labels",
           "intrinsic_labels", "kl_divergence", "lipani_target_count", "measure_names", "ndkl", "parse_label_source",
           "rank_bias", "read_labels_file", "representation_bias", "top_k_kl"]
