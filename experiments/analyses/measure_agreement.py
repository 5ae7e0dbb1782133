"""Whether GSR and the field's other gender-bias measures agree about which systems are more biased: every system's
GSR (each GSR column), RaB/ARaB (tf and boolean magnitudes), NFaiRR and the label-based measures at bias_k, side by
side, with Kendall τ-b (and its bootstrap interval over queries) between the orders each pair of measures gives the
systems, per-query rank correlations, and the queries behind each pair of systems two measures order oppositely
(gsr.fairness.agreement, gsr.fairness.named)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from experiments.analyses.common import AnalysisError
from experiments.document_labels import (
    BIAS_PARAMS,
    FAIRR_PARAMS,
    bias_settings,
    check_background_system,
    collection_labels,
    word_list,
)
from experiments.registry import ANALYSES, AnalysisType
from experiments.report.agreement import TITLE, agreement_note, agreement_rows, drivers_markdown
from experiments.report.plotly_charts import agreement_chart
from experiments.report.tables import write_table, write_text
from gsr.errors import InputError, ParamError
from gsr.fairness.agreement import AgreementReport
from gsr.fairness.named import LABELS, RAB, known_kinds
from gsr.infra.params import Param

GSR_KIND = "GSR"  # every GSR column of the config (one per measuring embedding and cut-off)
DEFAULT_MEASURES = ("GSR", "RaB", "ARaB", "RaB_bool", "ARaB_bool", "NFaiRR", "KL", "FSKL", "NDKL", "MAB_female")


def _measure_kinds(value, label: str) -> list[str]:
    """agreement_measures of a config: two or more of GSR and the kinds of gsr.fairness.named, each once."""
    allowed = [GSR_KIND, *known_kinds()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParamError(f"{label} must be a list of measure kinds, e.g. {list(DEFAULT_MEASURES[:6])}")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise ParamError(f"{label}: {unknown[0]!r} is not a measure kind (choose from {', '.join(allowed)})")
    twice = sorted({v for v in value if value.count(v) > 1})
    if twice:
        raise ParamError(f"{label} names {twice[0]!r} twice")
    if len(value) < 2:
        raise ParamError(f"{label} must name at least two measures to compare, not {value!r}")
    return list(value)


AGREEMENT_MEASURES = Param(
    "agreement_measures",
    object,
    list(DEFAULT_MEASURES),
    "the measures compared, each at cut-off bias_k: GSR (every GSR column), RaB, ARaB (bias_rab's magnitudes), "
    "RaB_bool, ARaB_bool, RaB_tf, ARaB_tf, RaB_tc, ARaB_tc, FaiRR, NFaiRR, FaiRR_agnostic, NFaiRR_agnostic, and the "
    "label-based KL, FSKL, NDKL, MB_female, MB_male, MAB_female, MAB_male (labels: bias_labels)",
    validator=_measure_kinds,
    range_help="a list of two or more measure kinds",
)


DISAGREEMENTS_FILE = "measure_agreement_disagreements.json"
KEPT_DISAGREEMENTS = 5  # per pair of measures in results.json (every one is in DISAGREEMENTS_FILE)


@dataclass
class MeasureAgreement:
    """The agreement report and the measures' settings."""

    report: AgreementReport
    settings: dict

    def to_dict(self) -> dict:
        """The report as results.json holds it: with 31 systems and 10 measures thousands of pairs of systems are
        ordered oppositely (8 MB with their drivers), so only each pair of measures' clearest KEPT_DISAGREEMENTS
        are here, and every one in DISAGREEMENTS_FILE."""
        kept = [
            d.to_dict() for t in self.report.taus for d in self.report.disagreements_of(t.measures)[:KEPT_DISAGREEMENTS]
        ]
        return {
            **self.report.to_dict(),
            "disagreements": kept,
            "disagreements_total": len(self.report.disagreements),
            "disagreements_file": DISAGREEMENTS_FILE,
            "measure_settings": self.settings,
        }


def compute(experiment, result, options: dict) -> MeasureAgreement:
    """Every config system's measures over the judged topics, and how they agree."""
    from gsr.fairness.fairr_runs import FaiRRSettings
    from gsr.fairness.named import agreement_of, bias_values, parse_bias_measures

    config = result.config
    k = options["bias_k"]
    kinds = options["agreement_measures"]
    measures = parse_bias_measures([f"{kind}@{k}" for kind in kinds if kind != GSR_KIND])
    systems = [s.name for s in config.systems]
    if len(systems) < 2:
        raise AnalysisError("measure_agreement compares how measures order the systems: the config has one system")
    gsr = {f"GSR ({label})": result.system_gsr[label] for label in result.system_gsr} if GSR_KIND in kinds else {}
    settings = bias_settings(options)
    background = options["bias_background"]
    try:
        labels = collection_labels(experiment, options["bias_labels"]) if _needs_labels(measures, settings) else None
        values = bias_values(
            measures,
            {s: result.runs[s] for s in systems},
            experiment.collection.documents,
            result.evaluated_queries,
            gender_words=word_list(experiment, options["bias_gender_words"]),
            fairr=FaiRRSettings(background_depth=options["bias_background_depth"]),
            fairr_words=word_list(experiment, options["bias_fairr_words"]),
            background=result.runs[background] if background else None,
            background_name=background,
            labels=labels,
            label_settings=settings,
            qrels=experiment.collection.qrels,
            rab=settings.rab,
            n_jobs=config.threads,
        )
    except InputError as err:
        raise AnalysisError(f"measure_agreement: {err}") from None
    report = agreement_of(gsr, values, systems, config.resamples, config.level, config.seed)
    return MeasureAgreement(report, values.settings)


def _needs_labels(measures, settings) -> bool:
    from gsr.fairness.equations import LABEL_MAGNITUDES

    return any(
        m.family == LABELS or (m.family == RAB and (m.magnitude or settings.rab) == LABEL_MAGNITUDES) for m in measures
    )


def write(agreement: MeasureAgreement, out: Path, plots: bool) -> dict[str, Path]:
    """measure_agreement.* (one row per pair of measures), measure_agreement_drivers.md (each pair of measures' clearest
    disagreements with their queries) and DISAGREEMENTS_FILE (every disagreement); the chart is report.html's
    (charts)."""
    report = agreement.report
    written = write_table(out, "measure_agreement", TITLE, agreement_rows(report), agreement_note(report))
    written["measure_agreement_drivers.md"] = write_text(out / "measure_agreement_drivers.md", drivers_markdown(report))
    every = json.dumps([d.to_dict() for d in report.disagreements], ensure_ascii=False, separators=(",", ":"))
    written[DISAGREEMENTS_FILE] = write_text(out / DISAGREEMENTS_FILE, every + "\n")
    return written


ANALYSES.register(
    AnalysisType(
        "measure_agreement",
        "GSR, RaB/ARaB (tf and boolean), NFaiRR and the label-based measures side by side for every system: Kendall "
        "τ between the system orders of every pair of measures (with a bootstrap interval), per-query correlations, "
        "and the queries behind each pair of systems two measures order oppositely",
        compute,
        write,
        params=(AGREEMENT_MEASURES, *BIAS_PARAMS, *(p for p in FAIRR_PARAMS if p.name != "bias_fairr")),
        default=False,
        needs="switched on (measure_agreement = true): it reads the documents of every system's top lists (and, for "
        "the label-based measures, labels the collection)",
        writes=("measure_agreement", "measure_agreement_drivers", "measure_agreement_disagreements"),
        charts=lambda value: {"measure_agreement": agreement_chart(value.report)},
        check=check_background_system,
    )
)
