"""How much gender a debiased encoder still holds: for each debiased variant of a dense system, what was removed and
what is left (debias.sent_debias.EncoderDebiasReport), beside the variant's GSR change."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from experiments.registry import ANALYSES, AnalysisType
from experiments.report.tables import write_table

NOTE = (
    "Gender subspace estimated in the encoder's output space from the definitional pairs in SEAT's bleached "
    "templates (PCA of pair differences, SENT-DEBIAS; Liang et al. 2020): debiased removes the first component, "
    "strong the first k. removed share: the pair differences' variance along the removed components. |proj| "
    "before/after: the definitional texts' mean absolute projection on the first removed component (after: zero "
    "up to float32 rounding; max |proj| after over every removed component). difference left: mean "
    "‖f' − m'‖² / ‖f − m‖² of the pairs. residual share: the variance share of the first component re-estimated "
    "in the debiased space. probe: cross-validated accuracy of a logistic-regression probe telling female from "
    "male texts of held-out gendered pairs (debiaswe's equalize pairs not among the definitional ones; 0.5 = "
    "none linearly decodable)."
)


@dataclass
class EncoderDebiasing:
    rows: list[dict]

    def to_dict(self) -> dict:
        return {"rows": self.rows}


def applicable(config) -> bool:
    return any(s.model == "dense" and s.variant != "regular" for s in config.systems)


def compute(experiment, result, options: dict) -> EncoderDebiasing:
    """One row per debiased dense system: its debiasing report (cached with the debiasing itself)."""
    from experiments.systems.dense import encoder_debiasing

    rows = []
    for system in experiment.config.systems:
        if system.model != "dense" or system.variant == "regular":
            continue
        _, report, _ = encoder_debiasing(experiment, system)
        rows.append(
            {
                "system": system.name,
                "encoder": report["encoder"],
                "method": report["method"],
                "components": report["components"],
                "pairs": report["pairs"],
                "templates": report["templates"],
                "removed share": report["removed_share"],
                "|proj| before": report["projection_before"][0],
                "|proj| after": report["projection_after"][0],
                "max |proj| after": report["max_projection_after"],
                "difference left": report["difference_left"],
                "residual share": report["residual_share"],
                "probe pairs": report["probe_pairs"],
                "probe before": report["probe_before"],
                "probe after": report["probe_after"],
            }
        )
    return EncoderDebiasing(rows)


def write(value: EncoderDebiasing, out: Path, plots: bool) -> dict[str, Path]:
    return write_table(out, "encoder_debiasing", "Gender left in the debiased encoders' output space", value.rows, NOTE)


ANALYSES.register(
    AnalysisType(
        "encoder_debiasing",
        "how much gender each debiased dense encoder still holds: the definitional texts' projection "
        "on the removed components before and after, pair differences left, a re-estimated residual direction, "
        "a linear probe on held-out gendered pairs",
        compute,
        write,
        needs="[debias] variants and a dense system",
        applicable=applicable,
        writes=("encoder_debiasing",),
    )
)
