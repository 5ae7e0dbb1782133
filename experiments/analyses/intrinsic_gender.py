"""Fig. 12 (§4.2.5): the intrinsic gender of retrieved documents (gendered-entity words and first names) and
whether a system over-represents male or female documents compared with the perfect engine, by g(q) bin."""

from __future__ import annotations

import bisect
import importlib.resources
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from experiments.analyses.common import AnalysisError, panel_grid
from experiments.registry import ANALYSES, AnalysisType
from experiments.tables import write_table
from gsr.baselines import relevant_counts
from gsr.io import Run, read_json
from gsr.numeric import finite
from gsr.params import Param, ParamError
from gsr.plots import FEMALE_COLOUR, MALE_COLOUR, NEUTRAL_COLOUR, save_figure

FEMALE, MALE, NEUTRAL = "female", "male", "neutral"
GENDERED_ENTITIES = Path(__file__).resolve().parents[1] / "wordlists" / "gendered_entities.json"
# Inner edges of the g(q) bins of Fig. 12: the paper names an outer bin g(q) < -0.1 and one with g(q) > 0.1; the
# 0.05-wide bins in between are our reconstruction (bins are [low, high), the outer ones open-ended).
PAPER_GAP_BIN_EDGES = (-0.1, -0.05, 0.0, 0.05, 0.1)


def load_gendered_entities(path: str | Path | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """Appendix B: (female, male) words naming gendered entities, lowercased, from a JSON file with those two lists."""
    path = Path(path) if path is not None else GENDERED_ENTITIES
    data = read_json(path, error=AnalysisError)
    lists = []
    for key in (FEMALE, MALE):
        words = data.get(key) if isinstance(data, dict) else None
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise AnalysisError(f"{path}: '{key}' must be a list of non-empty words")
        lists.append(frozenset(w.strip().lower() for w in words))
    female, male = lists
    both = sorted(female & male)
    if both:
        raise AnalysisError(f"{path}: {both[0]!r} is listed as both female and male")
    return female, male


def _census_names(path) -> dict[str, float]:
    names = {}
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            parts = line.split()
            if not parts:
                continue
            try:
                names[parts[0].lower()] = float(parts[1])
            except (IndexError, ValueError):
                raise AnalysisError(f"{path}:{lineno}: expected 'NAME FREQUENCY CUMULATIVE RANK'") from None
    return names


@lru_cache(maxsize=1)
def load_first_names() -> tuple[frozenset[str], frozenset[str]]:
    """(female, male) lowercase first names of the 1990 US census (PyPI `names`); a name on both lists goes to the
    list where its frequency (% of people of that sex) is higher and is dropped when the two are equal."""
    try:
        folder = importlib.resources.files("names")
    except ModuleNotFoundError:
        raise AnalysisError("the first-name lists need the PyPI package 'names' (pip install names)") from None
    female = _census_names(folder / "dist.female.first")
    male = _census_names(folder / "dist.male.first")
    for name in set(female) & set(male):
        f, m = female.pop(name), male.pop(name)
        if f > m:
            female[name] = f
        elif m > f:
            male[name] = m
    return frozenset(female), frozenset(male)


def gendered_mention_words(entities: str | Path | None = None, names: bool = True
                           ) -> tuple[frozenset[str], frozenset[str]]:
    """(female, male) words that mention a person (§4.2.5): Appendix B's entities plus census first names; an entity
    word wins over a first name of the other sex (the census lists 'man' and 'pa' as female names, 'ma' as male)."""
    female, male = load_gendered_entities(entities)
    if names:
        female_names, male_names = load_first_names()
        female, male = female | (female_names - male), male | (male_names - female)
    return frozenset(female), frozenset(male)


def document_intrinsic_gender(tokens: Iterable[str], female: frozenset[str], male: frozenset[str]) -> str:
    """§4.2.5: 'male' with more male than female mentions (every occurrence counts), 'female' with more female ones,
    'neutral' on a tie (none included). Tokens are matched as given: lowercase them like the word lists."""
    f = m = 0
    for token in tokens:
        if token in female:
            f += 1
        if token in male:
            m += 1
    return MALE if m > f else FEMALE if f > m else NEUTRAL


def gender_gap(labels: Sequence[str], smoothing: float = 1.0) -> float | None:
    """§4.2.5's gap(q) = m(q)/f(q) over a list's intrinsic genders, add-`smoothing` smoothed: (m + s)/(f + s).

    Smoothing keeps the ratio defined when no document is female (f = 0), which would otherwise drop the queries
    with the most male-leaning lists. With smoothing 0 the raw ratio is returned, None when f = 0. An empty list
    has no gap (None).
    """
    if smoothing < 0:
        raise AnalysisError(f"gender_gap: smoothing must be >= 0, not {smoothing!r}")
    f = m = 0
    for label in labels:
        if label == FEMALE:
            f += 1
        elif label == MALE:
            m += 1
        elif label != NEUTRAL:
            raise AnalysisError(f"gender_gap: unknown label {label!r} (expected female, male or neutral)")
    if not labels or f + smoothing == 0:
        return None
    return (m + smoothing) / (f + smoothing)


@dataclass
class DeltaGap:
    """Δgap(q) of the queries where it is defined (`values`); `skipped` lists the others by reason and `counts`
    holds each measured query's (m, f) for the system and the perfect engine."""

    values: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"values": self.values, "skipped": self.skipped,
                "counts": {q: {k: list(v) for k, v in c.items()} for q, c in self.counts.items()}}


def _text_source(texts) -> Callable[[str], str]:
    if callable(texts):
        return texts
    if isinstance(texts, Mapping):
        return texts.__getitem__
    raise AnalysisError(f"texts must be a mapping docid -> text or a callable, not {type(texts).__name__}")


def delta_gap(system: Run, perfect: Run, texts: Mapping[str, str] | Callable[[str], str],
              cutoff: Mapping[str, int] | int, tokenizer: Callable[[str], list[str]] | None = None,
              female: frozenset[str] | None = None, male: frozenset[str] | None = None,
              smoothing: float = 1.0) -> DeltaGap:
    """§4.2.5: Δgap(q) = gap_system(q) − gap_perfect(q) over each list's top K (K per query, e.g. its number of
    relevant documents); positive favours intrinsically male documents, negative female ones.

    Queries are those of the perfect run. tokenizer defaults to gsr.text.Analyzer with no stop words (pronouns and
    titles must be kept); female/male default to gendered_mention_words(). A document with no text is an error.
    """
    if not perfect:
        raise AnalysisError("delta_gap: the perfect run is empty")
    if not system:
        raise AnalysisError("delta_gap: the system run is empty")
    if not set(system) & set(perfect):
        raise AnalysisError(f"delta_gap: the system run shares no query with the perfect run "
                            f"(e.g. {sorted(system)[0]} vs {sorted(perfect)[0]})")
    if tokenizer is None:
        from gsr.text import Analyzer

        tokenizer = Analyzer(stopwords=frozenset()).tokens
    if female is None or male is None:
        default_female, default_male = gendered_mention_words()
        female = default_female if female is None else female
        male = default_male if male is None else male
    text_of = _text_source(texts)
    labels: dict[str, str] = {}

    def label(docid: str, qid: str) -> str:
        if docid not in labels:
            try:
                text = text_of(docid)
            except KeyError:
                raise AnalysisError(f"delta_gap: no text for document {docid} (retrieved for query {qid})") from None
            labels[docid] = document_intrinsic_gender(tokenizer(text), female, male)
        return labels[docid]

    result = DeltaGap()
    for qid in sorted(perfect):
        k = cutoff if isinstance(cutoff, int) else cutoff.get(qid)
        if not k or k < 1:
            result.skipped.setdefault("no_cutoff", []).append(qid)
            continue
        retrieved = system.get(qid, [])[:k]
        if not retrieved:
            result.skipped.setdefault("nothing_retrieved", []).append(qid)
            continue
        sys_labels = [label(d, qid) for d, _ in retrieved]
        perfect_labels = [label(d, qid) for d, _ in perfect[qid][:k]]
        gap_system, gap_perfect = gender_gap(sys_labels, smoothing), gender_gap(perfect_labels, smoothing)
        if gap_system is None or gap_perfect is None:
            result.skipped.setdefault("gap_undefined", []).append(qid)
            continue
        result.values[qid] = gap_system - gap_perfect
        result.counts[qid] = {"system": (sys_labels.count(MALE), sys_labels.count(FEMALE)),
                              "perfect": (perfect_labels.count(MALE), perfect_labels.count(FEMALE))}
    for qid in sorted(set(system) - set(perfect)):
        result.skipped.setdefault("not_in_perfect", []).append(qid)
    return result


def _bin_edges(bins, values: list[float]) -> tuple[list[float], list[tuple[float, float, str]]]:
    """(inner edges, [(low, high, label)]) for an int (equal-width bins over the values' range) or inner edges."""
    if isinstance(bins, int) and not isinstance(bins, bool):
        if bins < 1:
            raise AnalysisError(f"favoured_share_by_bin: bins must be >= 1, not {bins}")
        edges = list(np.linspace(min(values), max(values), bins + 1))
        spans = [(lo, hi, f"[{lo:.3g}, {hi:.3g}{']' if i == bins - 1 else ')'}")
                 for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:]))]
        return edges[1:-1], spans
    inner = [float(e) for e in bins]
    if not inner or any(b <= a for a, b in zip(inner, inner[1:])):
        raise AnalysisError(f"favoured_share_by_bin: bin edges must be strictly increasing, not {list(bins)}")
    spans = [(-math.inf, inner[0], f"g < {inner[0]:.3g}")]
    spans += [(lo, hi, f"[{lo:.3g}, {hi:.3g})") for lo, hi in zip(inner[:-1], inner[1:])]
    spans.append((inner[-1], math.inf, f"g ≥ {inner[-1]:.3g}"))
    return inner, spans


def favoured_share_by_bin(delta: Mapping[str, float], g_query: Mapping[str, float | None],
                          bins: int | Sequence[float] = PAPER_GAP_BIN_EDGES, eps: float = 0.0) -> list[dict]:
    """Fig. 12: per g(q) bin, the share of queries whose Δgap favours male (Δ > eps), female (Δ < -eps) or neither.

    bins: inner edges (bins [low, high), the first and last open-ended) or a number of equal-width bins spanning the
    measured g(q). Each row: label, low, high, n, n_male, n_female, n_neither, and shares male/female/neither in
    [0, 1] (None for an empty bin). Queries lacking a g(q) are left out.
    """
    if eps < 0:
        raise AnalysisError(f"favoured_share_by_bin: eps must be >= 0, not {eps!r}")
    measured = [(qid, g, float(delta[qid])) for qid in sorted(delta)
                if (g := finite(g_query.get(qid))) is not None and finite(delta[qid]) is not None]
    if not measured:
        raise AnalysisError(f"favoured_share_by_bin: none of the {len(delta)} queries with a Δgap has a genderedness")
    inner, spans = _bin_edges(bins, [g for _, g, _ in measured])
    rows = [{"label": label, "low": lo, "high": hi, "n": 0, "n_male": 0, "n_female": 0, "n_neither": 0}
            for lo, hi, label in spans]
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
    """Fig. 12 for every system: Δgap per query, and per g(q) bin the shares favouring male / female / neither."""

    delta_gap: dict[str, DeltaGap]
    shares: dict[str, list[dict]]

    def to_dict(self) -> dict:
        return {"delta_gap": {name: d.to_dict() for name, d in self.delta_gap.items()}, "shares": self.shares}


def compute(experiment, result, options: dict) -> IntrinsicGender:
    """Δgap of each system's (and the random engine's) top K against the perfect engine's, binned by g(q)."""
    from experiments.runner import PERFECT, RANDOM

    judged = set(result.evaluated_queries)
    cutoff = {q: k for q, k in relevant_counts(result.collection.qrels).items() if q in judged}
    systems = [s.name for s in experiment.config.systems] + [RANDOM]
    wanted = {d for name in systems + [PERFECT] for q, ranked in result.runs[name].items() if q in cutoff
              for d, _ in ranked[:cutoff[q]]}
    texts = result.collection.texts(wanted)
    female, male = gendered_mention_words()
    deltas = {name: delta_gap(result.runs[name], result.runs[PERFECT], texts, cutoff, female=female, male=male)
              for name in systems}
    g_query = result.reference_genderedness()
    return IntrinsicGender(deltas, {name: favoured_share_by_bin(d.values, g_query, bins=options["gap_bins"])
                                    for name, d in deltas.items()})


def plot_gap_shares(shares: dict, path, columns: int = 2) -> Path:
    """Fig. 12: per system, stacked bars over g(q) bins: % of queries over-representing intrinsically male documents
    (orange, bottom), neither (grey) and female (purple, top); n above each bar, empty bins marked."""
    if not shares:
        raise AnalysisError("plot_gap_shares: no system to plot")
    fig, axes = panel_grid(len(shares), columns, 4.6, 3.6)
    for ax, (name, rows) in zip(axes, shares.items()):
        positions = np.arange(len(rows))
        bottom = np.zeros(len(rows))
        for side, colour, label in (("male", MALE_COLOUR, "male favoured"), ("neither", NEUTRAL_COLOUR, "neither"),
                                    ("female", FEMALE_COLOUR, "female favoured")):
            heights = np.array([100.0 * (row[side] or 0.0) for row in rows])
            ax.bar(positions, heights, bottom=bottom, color=colour, width=0.75, label=label, edgecolor="white",
                   lw=0.5)
            bottom += heights
        for x, row in zip(positions, rows):
            ax.text(x, 101, f"n={row['n']}" if row["n"] else "empty", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(positions, [row["label"] for row in rows], rotation=30, ha="right", fontsize=7.5)
        ax.set_ylim(0, 110)
        ax.set_ylabel("queries (%)")
        ax.set_xlabel("$g(q)$ (female > 0)")
        ax.set_title(name, fontsize=10)
    fig.tight_layout()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False, fontsize=8)
    return save_figure(fig, path)


def write(gender: IntrinsicGender, out: Path, plots: bool) -> dict[str, Path]:
    """fig12_intrinsic_gender.{md,csv,json} (one row per system and bin) and, with plots, its PNG."""
    rows = [{"system": system, **row} for system, bins in gender.shares.items() for row in bins]
    written = write_table(out, "fig12_intrinsic_gender", "Fig. 12: share of queries whose Δgap favours male / female / "
                          "neither, per g(q) bin", rows)
    if plots:
        written["fig12"] = plot_gap_shares(gender.shares, out / "fig12_intrinsic_gender.png")
    return written


def _gap_bins(value, label: str):
    """An int (equal-width bins) or strictly increasing inner edges."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ParamError(f"{label} must be a positive number of bins or a list of increasing edges, not {value}")
        return value
    if (isinstance(value, list) and value and all(isinstance(e, (int, float)) and not isinstance(e, bool)
                                                  for e in value)
            and all(b > a for a, b in zip(value, value[1:]))):
        return [float(e) for e in value]
    raise ParamError(f"{label} must be a positive number of bins or a list of strictly increasing numbers, "
                     f"not {value!r}")


ANALYSES.register(AnalysisType(
    "intrinsic_gender", "Fig. 12: share of queries whose top K over-represents intrinsically male or female "
    "documents compared with the perfect engine, by g(q) bin", compute, write,
    params=(Param("gap_bins", object, list(PAPER_GAP_BIN_EDGES), "inner edges of the g(q) bins, or a number of "
                  "equal-width bins", validator=_gap_bins, range_help="int ≥ 1 or increasing numbers"),),
    writes=("fig12_intrinsic_gender",)))
