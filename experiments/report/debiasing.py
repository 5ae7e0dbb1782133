"""Tables 2 and 3 of the paper (§4.2.3): GSR and effectiveness of each embedding system with regular, debiased
and strong-debiased embeddings."""

from __future__ import annotations

from experiments.effectiveness import display_name, paired_t_test, significance_mark
from experiments.report.results import REFERENCE_ROWS
from experiments.runner import PERFECT, ExperimentResult
from gsr.evaluate import relative_to_perfect
from gsr.numeric import finite

TABLE2_NOTE = ("GSR measured with each measuring embedding (always the regular one); the column's variant is the "
               "embedding the system retrieves with. rel. GSR = (GSR − GSR_perfect) / |GSR_perfect| × 100; empty "
               "where GSR_perfect is zero up to rounding (results.md says why).")
TABLE3_NOTE = ("change % = (variant − regular) / regular × 100; † / ‡: paired two-sided t-test against the same "
               "system with the regular embedding, p < 0.05 / p < 0.01.")


def _variant_rows(result: ExperimentResult) -> list[tuple[str, dict]]:
    """(regular system, {variant: system spec}) for every regular system, in config order."""
    config = result.config
    return [(s.name, config.variants_of(s.name)) for s in config.systems if s.variant == "regular"]


def debias_gsr_rows(result: ExperimentResult) -> list[dict]:
    """Table 2: GSR of each system with the regular, debiased and strong-debiased embedding, per measuring embedding,
    absolute and relative to the perfect engine (systems without an embedding have one value, the regular one)."""
    variants = ["regular", *result.config.debias_variants]
    rows = []
    for name, specs in _variant_rows(result):
        row = {"system": name}
        for measuring, per_system in result.system_gsr.items():
            for variant in variants:
                spec = specs.get(variant)
                value = per_system[spec.name] if spec else None
                row[f"GSR ({measuring}) {variant}"] = finite(value.gsr) if value else None
                row[f"rel. GSR ({measuring}) {variant} %"] = (
                    relative_to_perfect(value, per_system[PERFECT])[0] if value else None)
        rows.append(row)
    for reference in REFERENCE_ROWS:
        row = {"system": reference}
        for measuring, per_system in result.system_gsr.items():
            value = per_system[reference]
            for variant in variants:
                regular = variant == "regular"
                row[f"GSR ({measuring}) {variant}"] = finite(value.gsr) if regular else None
                row[f"rel. GSR ({measuring}) {variant} %"] = (
                    relative_to_perfect(value, per_system[PERFECT])[0] if regular else None)
        rows.append(row)
    return rows


def debias_effectiveness_rows(result: ExperimentResult) -> list[dict]:
    """Table 3: each measure with the regular embedding, and per debiased variant its % change against regular with
    the paired t-test mark (†/‡) against the regular system."""
    rows = []
    for name, specs in _variant_rows(result):
        if len(specs) < 2:
            continue
        regular = result.effectiveness[name]
        row = {"system": name}
        for measure in result.config.measures:
            label = display_name(measure)
            base = regular.mean(measure)
            row[f"{label} regular"] = finite(base)
            for variant in result.config.debias_variants:
                other = result.effectiveness[specs[variant].name]
                value = other.mean(measure)
                p = paired_t_test(other.per_query[measure], regular.per_query[measure])
                row[f"{label} {variant}"] = finite(value)
                row[f"{label} {variant} change %"] = finite((value - base) / base * 100) if base else None
                row[f"{label} {variant} p"] = p
                row[f"{label} {variant} mark"] = significance_mark(p)
        rows.append(row)
    return rows
