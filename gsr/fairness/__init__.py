"""Gender-bias measures next to GSR: Feng & Shah's KL bias (Eq. 1), Dash's NDKL (Eq. 3), Lipani et al.'s
representation bias β@n with MB / SB / MAB, Rekabsaz & Schedl's RaB / ARaB, Rekabsaz, Kopeinik & Schedl's FaiRR /
NFaiRR, the document labels and word lists they read, and how far the measures agree.

`equations` holds one function per paper equation on a ranked list of labels; `labels` the label sources (a
labels file, §4.2.5's intrinsic rule, the sign of g(d) beyond a threshold); `fairr` FaiRR's equations, `neutrality`
its representative-word counts and `fairr_runs` FaiRR of whole runs; `evaluate` the measures of whole runs
(BiasMeasures → BiasReport); `agreement` Kendall τ between the system orderings of several measures and the queries
behind a disagreement; gsr.integrations.ir_measures_bias offers the per-query means as ir_measures measures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gsr.infra.lazy import lazy_names, names_of

# the lazy names as type checkers and IDEs see them (the modules of _LAZY; tests/test_api_reference.py)
if TYPE_CHECKING:
    from gsr.fairness.agreement import MORE_BIASED as MORE_BIASED
    from gsr.fairness.agreement import AgreementMeasure as AgreementMeasure
    from gsr.fairness.agreement import AgreementReport as AgreementReport
    from gsr.fairness.agreement import Disagreement as Disagreement
    from gsr.fairness.agreement import Driver as Driver
    from gsr.fairness.agreement import QueryCorrelation as QueryCorrelation
    from gsr.fairness.agreement import Tau as Tau
    from gsr.fairness.agreement import bias_direction as bias_direction
    from gsr.fairness.agreement import kendall_tau as kendall_tau
    from gsr.fairness.agreement import measure_agreement as measure_agreement
    from gsr.fairness.equations import DEFAULT_EPSILON as DEFAULT_EPSILON
    from gsr.fairness.equations import NEUTRAL_POLICIES as NEUTRAL_POLICIES
    from gsr.fairness.equations import TARGETS as TARGETS
    from gsr.fairness.equations import BiasError as BiasError
    from gsr.fairness.equations import average_rank_bias as average_rank_bias
    from gsr.fairness.equations import bias_aggregates as bias_aggregates
    from gsr.fairness.equations import check_target as check_target
    from gsr.fairness.equations import feng_shah_bias as feng_shah_bias
    from gsr.fairness.equations import kl_divergence as kl_divergence
    from gsr.fairness.equations import lipani_target_count as lipani_target_count
    from gsr.fairness.equations import ndkl as ndkl
    from gsr.fairness.equations import rank_bias as rank_bias
    from gsr.fairness.equations import representation_bias as representation_bias
    from gsr.fairness.equations import top_k_kl as top_k_kl
    from gsr.fairness.evaluate import BiasMeasures as BiasMeasures
    from gsr.fairness.evaluate import BiasReport as BiasReport
    from gsr.fairness.evaluate import BiasSettings as BiasSettings
    from gsr.fairness.evaluate import QueryBias as QueryBias
    from gsr.fairness.evaluate import measure_names as measure_names
    from gsr.fairness.fairr import FaiRRError as FaiRRError
    from gsr.fairness.fairr import document_neutrality as document_neutrality
    from gsr.fairness.fairr import fairr as fairr
    from gsr.fairness.fairr import ideal_fairr as ideal_fairr
    from gsr.fairness.fairr import nfairr as nfairr
    from gsr.fairness.fairr import position_weights as position_weights
    from gsr.fairness.fairr import ranker_agnostic_fairr as ranker_agnostic_fairr
    from gsr.fairness.fairr_runs import FaiRRMeasures as FaiRRMeasures
    from gsr.fairness.fairr_runs import FaiRRResult as FaiRRResult
    from gsr.fairness.fairr_runs import FaiRRSettings as FaiRRSettings
    from gsr.fairness.labels import DocumentLabels as DocumentLabels
    from gsr.fairness.labels import LabelSourceError as LabelSourceError
    from gsr.fairness.labels import document_genderedness as document_genderedness
    from gsr.fairness.labels import gendered_word_counts as gendered_word_counts
    from gsr.fairness.labels import genderedness_labels as genderedness_labels
    from gsr.fairness.labels import intrinsic_labels as intrinsic_labels
    from gsr.fairness.labels import parse_label_source as parse_label_source
    from gsr.fairness.labels import read_labels_file as read_labels_file
    from gsr.fairness.neutrality import GroupWords as GroupWords
    from gsr.fairness.neutrality import group_words as group_words
    from gsr.fairness.neutrality import read_group_words as read_group_words

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
