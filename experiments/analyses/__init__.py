"""The paper's analyses of an experiment (§4.2.3-§4.2.5): one module per figure, each registering in
experiments.registry.ANALYSES what it needs, how it is computed and what it writes. A new analysis is a module
here plus its name below."""

import importlib

BUILTIN_MODULES = (
    "rank_change",
    "reliability",
    "intrinsic_gender_shares",
    "gender_versions",
    "label_bias",
    "measure_agreement",
    "adversarial_probe",
    "encoder_debiasing",
)

for _module in BUILTIN_MODULES:
    importlib.import_module(f"{__name__}.{_module}")

from experiments.analyses.common import AnalysisError  # noqa: E402
from experiments.analyses.intrinsic_gender_shares import (  # noqa: E402
    GAP_RULES,
    PAPER_GAP_BIN_EDGES,
    DeltaGap,
    IntrinsicGender,
    delta_gap,
    favoured_share_by_bin,
    gap_difference,
    gap_shares_figure,
    gender_gap,
    plot_gap_shares,
)
from experiments.analyses.rank_change import (  # noqa: E402
    RankChange,
    RankChanges,
    kendall_tau_distance,
    plot_rank_change,
    rank_change_by_genderedness,
    rank_change_figure,
)
from experiments.analyses.reliability import (  # noqa: E402
    Agreement,
    Reliability,
    plot_reliability,
    query_genderedness_agreement,
    reliability_figure,
    system_ranking_agreement,
)

__all__ = [
    "GAP_RULES",
    "PAPER_GAP_BIN_EDGES",
    "Agreement",
    "AnalysisError",
    "DeltaGap",
    "IntrinsicGender",
    "RankChange",
    "RankChanges",
    "Reliability",
    "delta_gap",
    "favoured_share_by_bin",
    "gap_difference",
    "gap_shares_figure",
    "gender_gap",
    "kendall_tau_distance",
    "plot_gap_shares",
    "plot_rank_change",
    "plot_reliability",
    "query_genderedness_agreement",
    "rank_change_by_genderedness",
    "rank_change_figure",
    "reliability_figure",
    "system_ranking_agreement",
]
