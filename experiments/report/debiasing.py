"""Tables 2 and 3 of the paper (§4.2.3): GSR and effectiveness of each embedding system with regular, debiased
and strong-debiased embeddings, each debiased variant tested against the same system with the regular embedding."""

from __future__ import annotations

from typing import Any

from experiments.config.experiment import ExperimentConfig
from experiments.experiment_result import PERFECT, ExperimentResult
from experiments.per_system import cached_gsr_test
from experiments.report.results_table import REFERENCE_ROWS
from gsr.effectiveness.evaluate import correct_p_columns, marks_note, paired_test
from gsr.errors import UndefinedMeasureError
from gsr.evaluate import relative_interval, relative_to_perfect
from gsr.infra.numeric import finite


def table2_note(config: ExperimentConfig) -> str:
    return (
        "GSR measured with each measuring embedding (always the regular one); the column's variant is the "
        "embedding the system retrieves with. rel. GSR = (GSR − GSR_perfect) / |GSR_perfect| × 100, empty "
        "where GSR_perfect is zero up to rounding (results.md says why); its interval is empty where the perfect "
        "engine's own interval includes 0 (a ratio's interval is then unbounded; the CSV and JSON say why). "
        f"[low, high]: {config.level:.0%} percentile bootstrap interval over queries ({config.resamples} "
        "resamples). "
        + marks_note(
            "randomization",
            config.correction,
            "of the variant's GSR against the same system's with the regular embedding",
        )
    )


def table3_note(config: ExperimentConfig) -> str:
    return "change % = (variant − regular) / regular × 100. " + marks_note(
        config.test, config.correction, "against the same system with the regular embedding"
    )


def _variant_rows(result: ExperimentResult) -> list[tuple[str, dict]]:
    """(regular system, {variant: system spec}) for every regular system, in config order."""
    config = result.config
    return [(s.name, config.variants_of(s.name)) for s in config.systems if s.variant == "regular"]


def _gsr_cells(result: ExperimentResult, label: str, name: str | None, regular: str | None, variant: str) -> dict:
    """Columns of one (measuring column, variant) cell of Table 2: GSR, interval, relative GSR and its interval, and
    for a debiased variant the randomisation test against the regular system."""
    config = result.config
    per_system = result.system_gsr[label]
    perfect = per_system[PERFECT]
    measured = per_system[name] if name else None
    value = finite(measured.gsr) if measured else None
    key = f"GSR ({label}) {variant}"
    relative = relative_to_perfect(measured, perfect)[0] if measured else None
    ci = measured.ci.to_list() if measured and measured.ci else [None, None]
    interval = relative_interval(measured, perfect) if measured and name != PERFECT else None
    relative_ci = interval.to_list() if interval else [None, None]
    cells: dict[str, Any] = {key: value, f"{key} ci low": ci[0], f"{key} ci high": ci[1]}
    if variant != "regular":
        p = None
        if measured is not None and regular is not None and value is not None:
            try:
                p = cached_gsr_test(measured, per_system[regular], config.resamples, config.seed).p_value
            except UndefinedMeasureError:
                p = None
        cells[f"{key} p"] = p
    cells.update(
        {
            f"rel. GSR ({label}) {variant} %": relative,
            f"rel. GSR ({label}) {variant} % ci low": relative_ci[0],
            f"rel. GSR ({label}) {variant} % ci high": relative_ci[1],
            f"rel. GSR ({label}) {variant} % ci error": interval.reason if interval else None,
        }
    )
    return cells


def debias_gsr_rows(result: ExperimentResult) -> list[dict]:
    """Table 2: GSR of each system with the regular, debiased and strong-debiased embedding, per measuring column,
    absolute and relative to the perfect engine, with bootstrap intervals and a corrected test of each variant
    against the regular system (systems without an embedding have one value, the regular one)."""
    variants = ["regular", *result.config.debias_variants]
    rows = []
    for name, specs in _variant_rows(result):
        row = {"system": name}
        for label in result.system_gsr:
            for variant in variants:
                spec = specs.get(variant)
                row.update(_gsr_cells(result, label, spec.name if spec else None, name, variant))
        rows.append(row)
    for reference in REFERENCE_ROWS:
        row = {"system": reference}
        for label in result.system_gsr:
            for variant in variants:
                row.update(_gsr_cells(result, label, reference if variant == "regular" else None, None, variant))
        rows.append(row)
    correct_p_columns(rows, result.config.correction)
    return rows


def debias_effectiveness_rows(result: ExperimentResult) -> list[dict]:
    """Table 3: each measure with the regular embedding, and per debiased variant its % change against regular with
    the configured paired test against the regular system, corrected over the table (marks †/‡)."""
    config = result.config
    rows = []
    for name, specs in _variant_rows(result):
        if len(specs) < 2:
            continue
        regular = result.effectiveness[name]
        row: dict[str, Any] = {"system": name}
        for measure in config.measures:
            label = str(measure)
            base = regular.mean(label)
            row[f"{label} regular"] = finite(base)
            for variant in config.debias_variants:
                other = result.effectiveness[specs[variant].name]
                value = other.mean(label)
                row[f"{label} {variant}"] = finite(value)
                row[f"{label} {variant} change %"] = finite((value - base) / base * 100) if base else None
                row[f"{label} {variant} change % p"] = paired_test(
                    other.per_query[label], regular.per_query[label], config.test, config.resamples, config.seed
                )
        rows.append(row)
    correct_p_columns(rows, config.correction)
    return rows
