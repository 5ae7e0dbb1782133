"""Fig. 12 (§4.2.5): the intrinsic gender of retrieved documents (gendered-entity words and first names) and
whether a system over-represents male or female documents compared with the perfect engine, by g(q) bin."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from experiments.analyses.common import AnalysisError, panel_grid
from experiments.parts import cached_parts
from experiments.registry import ANALYSES, AnalysisType
from experiments.report.plotly_charts import gap_shares_chart
from experiments.report.png_figures import FEMALE_COLOUR, MALE_COLOUR, NEUTRAL_COLOUR, draw_figure
from experiments.report.tables import write_table
from gsr.baselines import relevant_counts
from gsr.infra.numeric import finite
from gsr.infra.params import Param, ParamError
from gsr.io.types import Run
from gsr.text.intrinsic_gender import FEMALE, LABELS, MALE, MentionWords, default_mention_words, intrinsic_gender

# Inner edges of the g(q) bins of Fig. 12: the paper names an outer bin g(q) < -0.1 and one with g(q) > 0.1; the
# 0.05-wide bins in between are our reconstruction (bins are [low, high), the outer ones open-ended).
PAPER_GAP_BIN_EDGES = (-0.1, -0.05, 0.0, 0.05, 0.1)
# gap(q): the paper's m(q)/f(q) ("ratio", with the rule below for f(q) = 0), or the add-one smoothed (m + 1)/(f + 1).
GAP_RULES = ("ratio", "add-one")


def _gender_counts(labels: Sequence[str]) -> tuple[int, int]:
    """(m, f): intrinsically male and female documents among `labels`."""
    for label in labels:
        if label not in LABELS:
            raise AnalysisError(f"unknown label {label!r} (expected female, male or neutral)")
    return sum(1 for label in labels if label == MALE), sum(1 for label in labels if label == FEMALE)


def gender_gap(labels: Sequence[str], rule: str = "ratio") -> float | None:
    """§4.2.5's gap(q) = m(q)/f(q) over a list's intrinsic genders.

    rule 'ratio' (the paper's): m/f; +inf when f = 0 < m (only male documents among the gendered ones, the most male
    list there is); None when m = f = 0 (no gendered document). rule 'add-one': (m + 1)/(f + 1). An empty list has
    no gap (None).
    """
    if rule not in GAP_RULES:
        raise AnalysisError(f"gender_gap: rule must be one of {', '.join(GAP_RULES)}, not {rule!r}")
    m, f = _gender_counts(labels)
    if not labels:
        return None
    if rule == "add-one":
        return (m + 1) / (f + 1)
    if f == 0:
        return math.inf if m > 0 else None
    return m / f


def gap_difference(system: tuple[int, int], perfect: tuple[int, int], rule: str = "ratio") -> float | None:
    """Δgap(q) = gap(q)^sys − gap(q)^P (§4.2.5) from each list's (m, f); > 0: more male documents than the perfect
    engine shows, < 0: more female ones.

    Under 'ratio', a list with f = 0 < m has gap +inf, so Δgap is +inf when only the system's list has no female
    document and -inf when only the perfect engine's has none; when both have none, both gaps are +inf and Δgap
    takes the sign of m_sys − m_P (±inf, or 0 when equal): the list with more male documents over-represents men.
    Δgap is 0 when neither list holds a gendered document, and None (undefined) when only one of them does.
    """
    (m_s, f_s), (m_p, f_p) = system, perfect
    if rule == "add-one":
        return (m_s + 1) / (f_s + 1) - (m_p + 1) / (f_p + 1)
    if m_s + f_s == 0 or m_p + f_p == 0:
        return 0.0 if m_s + f_s == m_p + f_p else None
    if f_s == 0 and f_p == 0:
        return math.copysign(math.inf, m_s - m_p) if m_s != m_p else 0.0
    if f_s == 0:
        return math.inf
    if f_p == 0:
        return -math.inf
    return m_s / f_s - m_p / f_p


def _json_number(value: float):
    """A float for JSON: ±inf as the strings '+inf' / '-inf' (JSON has no infinity)."""
    return value if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


@dataclass
class DeltaGap:
    """Δgap(q) of the queries where it is defined (`values`, ±inf under the ratio rule's f = 0 case); `skipped`
    lists the others by reason, `counts` holds each measured query's (m, f) for the system and the perfect engine,
    and `zero_female` the queries whose Δgap needed the f(q) = 0 rule (f = 0 < m in either list)."""

    values: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    zero_female: list[str] = field(default_factory=list)
    rule: str = "ratio"

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "values": {q: _json_number(v) for q, v in self.values.items()},
            "skipped": self.skipped,
            "zero_female": self.zero_female,
            "counts": {q: {k: list(v) for k, v in c.items()} for q, c in self.counts.items()},
        }


class DocumentLabels:
    """Documents' intrinsic genders by id, each labelled once: a label depends on its text and `words` only, so every
    system's delta_gap shares one (labelling per system, of mostly the same documents, was most of Fig. 12's time)."""

    def __init__(self, texts: Mapping[str, str] | Callable[[str], str], words: MentionWords | None = None):
        if not callable(texts) and not isinstance(texts, Mapping):
            raise AnalysisError(f"texts must be a mapping docid -> text or a callable, not {type(texts).__name__}")
        self.text_of = texts if callable(texts) else texts.__getitem__
        self.words = words or default_mention_words()
        self._labels: dict[str, str] = {}

    def __call__(self, docid: str, qid: str) -> str:
        """The label of `docid`; `qid`, the query it was retrieved for, only names it in the error."""
        if docid not in self._labels:
            try:
                text = self.text_of(docid)
            except KeyError:
                raise AnalysisError(f"delta_gap: no text for document {docid} (retrieved for query {qid})") from None
            self._labels[docid] = intrinsic_gender(text, self.words).label
        return self._labels[docid]


def delta_gap(
    system: Run,
    perfect: Run,
    texts: Mapping[str, str] | Callable[[str], str] | DocumentLabels,
    cutoff: Mapping[str, int] | int,
    words: MentionWords | None = None,
    rule: str = "ratio",
) -> DeltaGap:
    """§4.2.5: Δgap(q) = gap_system(q) − gap_perfect(q) over each list's top K (K per query, e.g. its number of
    relevant documents); positive favours intrinsically male documents, negative female ones (gap_difference).

    Queries are those of the perfect run. Documents are labelled by gsr.text.intrinsic_gender.intrinsic_gender with
    `words` (default: gsr.text.intrinsic_gender.default_mention_words()), or by `texts` where it is a
    DocumentLabels (calls sharing one label each document once). A document with no text is an error.
    """
    if rule not in GAP_RULES:
        raise AnalysisError(f"delta_gap: rule must be one of {', '.join(GAP_RULES)}, not {rule!r}")
    if not perfect:
        raise AnalysisError("delta_gap: the perfect run is empty")
    if not system:
        raise AnalysisError("delta_gap: the system run is empty")
    if not set(system) & set(perfect):
        raise AnalysisError(
            f"delta_gap: the system run shares no query with the perfect run "
            f"(e.g. {sorted(system)[0]} vs {sorted(perfect)[0]})"
        )
    if isinstance(texts, DocumentLabels) and words not in (None, texts.words):
        raise AnalysisError("delta_gap: `words` differ from those of the DocumentLabels given as texts")
    label = texts if isinstance(texts, DocumentLabels) else DocumentLabels(texts, words)
    result = DeltaGap(rule=rule)
    for qid in sorted(perfect):
        k = cutoff if isinstance(cutoff, int) else cutoff.get(qid)
        if not k or k < 1:
            result.skipped.setdefault("no_cutoff", []).append(qid)
            continue
        retrieved = system.get(qid, [])[:k]
        if not retrieved:
            result.skipped.setdefault("nothing_retrieved", []).append(qid)
            continue
        counts = {
            "system": _gender_counts([label(d, qid) for d, _ in retrieved]),
            "perfect": _gender_counts([label(d, qid) for d, _ in perfect[qid][:k]]),
        }
        value = gap_difference(counts["system"], counts["perfect"], rule)
        if value is None:
            result.skipped.setdefault("no_gendered_document", []).append(qid)
            continue
        result.values[qid] = value
        result.counts[qid] = counts
        if rule == "ratio" and any(f == 0 < m for m, f in counts.values()):
            result.zero_female.append(qid)
    for qid in sorted(set(system) - set(perfect)):
        result.skipped.setdefault("not_in_perfect", []).append(qid)
    return result


def _bin_edges(bins, values: list[float]) -> tuple[list[float], list[tuple[float, float, str]]]:
    """(inner edges, [(low, high, label)]) for an int (equal-width bins over the values' range) or inner edges."""
    if isinstance(bins, int) and not isinstance(bins, bool):
        if bins < 1:
            raise AnalysisError(f"favoured_share_by_bin: bins must be >= 1, not {bins}")
        edges = list(np.linspace(min(values), max(values), bins + 1))
        spans = [
            (lo, hi, f"[{lo:.3g}, {hi:.3g}{']' if i == bins - 1 else ')'}")
            for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:]))
        ]
        return edges[1:-1], spans
    inner = [float(e) for e in bins]
    if not inner or any(b <= a for a, b in zip(inner, inner[1:])):
        raise AnalysisError(f"favoured_share_by_bin: bin edges must be strictly increasing, not {list(bins)}")
    spans = [(-math.inf, inner[0], f"g < {inner[0]:.3g}")]
    spans += [(lo, hi, f"[{lo:.3g}, {hi:.3g})") for lo, hi in zip(inner[:-1], inner[1:])]
    spans.append((inner[-1], math.inf, f"g ≥ {inner[-1]:.3g}"))
    return inner, spans


def favoured_share_by_bin(
    delta: Mapping[str, float],
    g_query: Mapping[str, float | None],
    bins: int | Sequence[float] = PAPER_GAP_BIN_EDGES,
    eps: float = 0.0,
) -> list[dict]:
    """Fig. 12: per g(q) bin, the share of queries whose Δgap favours male (Δ > eps), female (Δ < -eps) or neither.

    bins: inner edges (bins [low, high), the first and last open-ended) or a number of equal-width bins spanning the
    measured g(q). Each row: label, low, high, n, n_male, n_female, n_neither, and shares male/female/neither in
    [0, 1] (None for an empty bin). Queries lacking a g(q) are left out.
    """
    if eps < 0:
        raise AnalysisError(f"favoured_share_by_bin: eps must be >= 0, not {eps!r}")
    measured = [
        (qid, g, float(delta[qid]))
        for qid in sorted(delta)  # ±inf Δgap (f(q) = 0) keeps its sign
        if (g := finite(g_query.get(qid))) is not None and delta[qid] is not None and not math.isnan(delta[qid])
    ]
    if not measured:
        raise AnalysisError(f"favoured_share_by_bin: none of the {len(delta)} queries with a Δgap has a genderedness")
    inner, spans = _bin_edges(bins, [g for _, g, _ in measured])
    rows: list[dict[str, Any]] = [
        {"label": label, "low": lo, "high": hi, "n": 0, "n_male": 0, "n_female": 0, "n_neither": 0}
        for lo, hi, label in spans
    ]
    for _, g, d in measured:
        row = rows[bisect.bisect_right(inner, g)]
        row["n"] += 1
        row["n_male" if d > eps else "n_female" if d < -eps else "n_neither"] += 1
    for row in rows:
        for side in (MALE, FEMALE, "neither"):
            row[side] = row[f"n_{side}"] / row["n"] if row["n"] else None
    return rows


@dataclass
class IntrinsicGender:
    """Fig. 12 for every system: Δgap per query, and per g(q) bin the shares favouring male / female / neither; the
    gap rule and the first-name list used."""

    delta_gap: dict[str, DeltaGap]
    shares: dict[str, list[dict]]
    rule: str = "ratio"
    names_source: str = "nltk"

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "names": self.names_source,
            "delta_gap": {name: d.to_dict() for name, d in self.delta_gap.items()},
            "shares": self.shares,
        }

    def note(self) -> str:
        """What the table rests on: the labelling lists, the gap rule and how many queries needed its f(q) = 0 case."""
        names = {
            "nltk": "NLTK's names corpus",
            "census": "the 1990 US census first names (NLTK's names corpus is not installed)",
        }.get(self.names_source, self.names_source)
        text = f"Intrinsic gender from Appendix B's entity words and {names}. "
        if self.rule == "add-one":
            return text + "gap(q) = (m + 1)/(f + 1) (add-one)."
        needed = ", ".join(f"{name} {len(d.zero_female)}" for name, d in self.delta_gap.items())
        return text + (
            "gap(q) = m/f; with f(q) = 0 < m(q) gap is +inf (when both lists have f = 0, Δgap takes the "
            f"sign of m_sys − m_P). Queries that needed this rule: {needed}."
        )


def compute(experiment, result, options: dict) -> IntrinsicGender:
    """Δgap of each system's (and the random engine's) top K against the perfect engine's, binned by g(q)."""
    from experiments.experiment_result import PERFECT, RANDOM

    judged = set(result.evaluated_queries)
    cutoff = {q: k for q, k in relevant_counts(result.collection.qrels).items() if q in judged}
    systems = [s.name for s in experiment.config.systems] + [RANDOM]
    rule, words = options["gap"], experiment.mention_words()

    def measured(missing: list[str]) -> dict[str, DeltaGap]:
        wanted = {
            d
            for name in missing + [PERFECT]
            for q, ranked in result.runs[name].items()
            if q in cutoff
            for d, _ in ranked[: cutoff[q]]
        }
        labels = DocumentLabels(result.collection.texts(wanted), words)  # one for all the systems measured
        return {
            name: delta_gap(result.runs[name], result.runs[PERFECT], labels, cutoff, None, rule) for name in missing
        }

    # a system's part (experiments.parts): its run, the perfect engine's, the cut-offs, the rule and the word lists
    shared = (result.collection.key, result.run_keys[PERFECT], sorted(cutoff.items()), rule, words.names_source)
    deltas = cached_parts("intrinsic gender", {name: (*shared, result.run_keys[name]) for name in systems}, measured)
    g_query = result.reference_genderedness()
    return IntrinsicGender(
        deltas,
        {name: favoured_share_by_bin(d.values, g_query, bins=options["gap_bins"]) for name, d in deltas.items()},
        rule,
        words.names_source,
    )


def gap_shares_figure(shares: dict, columns: int = 4):
    """Fig. 12: per system, stacked bars over g(q) bins: % of queries over-representing intrinsically male documents
    (orange, bottom), neither (grey) and female (purple, top); n above each bar, empty bins marked."""
    if not shares:
        raise AnalysisError("plot_gap_shares: no system to plot")
    fig, axes = panel_grid(len(shares), columns, 4.6, 3.6)
    for ax, (name, rows) in zip(axes, shares.items()):
        positions = np.arange(len(rows))
        bottom = np.zeros(len(rows))
        for side, colour, label in (
            ("male", MALE_COLOUR, "male favoured"),
            ("neither", NEUTRAL_COLOUR, "neither"),
            ("female", FEMALE_COLOUR, "female favoured"),
        ):
            heights = np.array([100.0 * (row[side] or 0.0) for row in rows])
            ax.bar(positions, heights, bottom=bottom, color=colour, width=0.75, label=label, edgecolor="white", lw=0.5)
            bottom += heights
        for x, row in zip(positions, rows):
            ax.text(x, 101, f"n={row['n']}" if row["n"] else "empty", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(positions, [row["label"] for row in rows], rotation=30, ha="right", fontsize=7.5)
        ax.set_ylim(0, 110)
        ax.set_ylabel("queries (%)")
        ax.set_xlabel("$g(q)$ (female > 0)")
        ax.set_title(name, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))  # a strip on top for the one legend
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=8)
    return fig


def plot_gap_shares(shares: dict, path, columns: int = 4) -> Path:
    """Fig. 12 as a PNG at `path` (gap_shares_figure)."""
    return draw_figure(gap_shares_figure, (shares, columns), path)


def write(gender: IntrinsicGender, out: Path, plots: bool) -> dict[str, Path]:
    """fig12_intrinsic_gender.{md,csv,json} (one row per system and bin) and, with plots, its PNG."""
    rows = [{"system": system, **row} for system, bins in gender.shares.items() for row in bins]
    written = write_table(
        out,
        "fig12_intrinsic_gender",
        "Fig. 12: share of queries whose Δgap favours male / female / neither, per g(q) bin",
        rows,
        note=gender.note(),
    )
    if plots:
        written["fig12"] = plot_gap_shares(gender.shares, out / "fig12_intrinsic_gender.png")
    return written


def _gap_bins(value, label: str):
    """An int (equal-width bins) or strictly increasing inner edges."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ParamError(f"{label} must be a positive number of bins or a list of increasing edges, not {value}")
        return value
    if (
        isinstance(value, list)
        and value
        and all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in value)
        and all(b > a for a, b in zip(value, value[1:]))
    ):
        return [float(e) for e in value]
    raise ParamError(
        f"{label} must be a positive number of bins or a list of strictly increasing numbers, not {value!r}"
    )


ANALYSES.register(
    AnalysisType(
        "intrinsic_gender",
        "Fig. 12: share of queries whose top K over-represents intrinsically male or female "
        "documents compared with the perfect engine, by g(q) bin",
        compute,
        write,
        params=(
            Param(
                "gap_bins",
                object,
                list(PAPER_GAP_BIN_EDGES),
                "inner edges of the g(q) bins, or a number of equal-width bins",
                validator=_gap_bins,
                range_help="int ≥ 1 or increasing numbers",
            ),
            Param(
                "gap",
                str,
                "ratio",
                "gap(q): the paper's m/f (ratio; +inf when f = 0 < m) or (m + 1)/(f + 1) (add-one)",
                choices=GAP_RULES,
            ),
        ),
        writes=("fig12_intrinsic_gender",),
        charts=lambda value: {"fig12_intrinsic_gender": gap_shares_chart(value.shares)},
    )
)
