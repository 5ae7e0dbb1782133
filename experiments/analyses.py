"""The analyses of §4.2.3-§4.2.5: how debiasing moves rankings (Fig. 10), agreement across measuring embeddings
(Fig. 11) and the intrinsic gender of retrieved documents (Fig. 12).

Pure functions over runs ({qid: [(docid, score)]}, best first) and per-query values; the runner feeds them and the
plots in experiments/analysis_plots.py draw them. Bad input raises AnalysisError (a ValueError) naming the query,
document or word at fault; quantities that are undefined for the data given come back as None, as documented.
"""

from __future__ import annotations

import bisect
import importlib.resources
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from gsr.io import Run

FEMALE, MALE, NEUTRAL = "female", "male", "neutral"
GENDERED_ENTITIES = Path(__file__).resolve().parent / "wordlists" / "gendered_entities.json"
# Inner edges of the g(q) bins of Fig. 12: the paper names an outer bin g(q) < -0.1 and one with g(q) > 0.1; the
# 0.05-wide bins in between are our reconstruction (bins are [low, high), the outer ones open-ended).
PAPER_GAP_BIN_EDGES = (-0.1, -0.05, 0.0, 0.05, 0.1)


class AnalysisError(ValueError):
    """Input an analysis cannot use; the message names the query, document, word or file at fault."""


def _finite(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _correlation(method: str, x: Sequence[float], y: Sequence[float]) -> tuple[float | None, float | None]:
    """(coefficient, two-sided p) of Pearson or Spearman; None for fewer than 3 points or a constant variable."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    from scipy import stats

    result = stats.pearsonr(x, y) if method == "pearson" else stats.spearmanr(x, y)
    return _finite(result[0]), _finite(result[1])


# ---------------------------------------------------------------- Fig. 10 (§4.2.3): rank change after debiasing

def _top(ranking: Iterable[str], depth: int, which: str) -> list[str]:
    docs = [d[0] if isinstance(d, (tuple, list)) else d for d in ranking][:depth]
    if not docs:
        raise AnalysisError(f"kendall_tau_distance: the {which} ranking is empty")
    seen = set()
    for d in docs:
        if d in seen:
            raise AnalysisError(f"kendall_tau_distance: document {d} appears twice in the {which} ranking")
        seen.add(d)
    return docs


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def kendall_tau_distance(before: Sequence[str], after: Sequence[str], depth: int = 100, p: float = 0.5) -> float:
    """Fig. 10's Kendall tau distance: Fagin et al.'s (2003) K^(p) between two top-`depth` lists, normalised to [0, 1].

    Over every pair of documents in the union of the two lists, K^(p) charges 1 when both lists hold both documents
    in opposite orders; 1 when one list holds both, the other only one of them, and the first list ranks the missing
    one higher; 1 when each list holds a different one of the two; p when both are missing from one list; else 0.
    The sum is divided by what the same pairs would cost if no pair were placed alike (1 per pair, p for the pairs
    missing from one list), so identical lists are at 0 and a reversed list or one with no shared document at 1.
    A list that is a prefix of the other is at 0 (the shorter list says nothing about the documents it lacks).
    Items may be document ids or (docid, score) pairs; only the order counts.
    """
    if not isinstance(depth, int) or depth < 1:
        raise AnalysisError(f"kendall_tau_distance: depth must be a positive integer, not {depth!r}")
    if not 0.0 <= p <= 1.0:
        raise AnalysisError(f"kendall_tau_distance: p must lie in [0, 1], not {p!r}")
    a, b = _top(before, depth, "before"), _top(after, depth, "after")
    pos_a = {d: i for i, d in enumerate(a)}
    pos_b = {d: i for i, d in enumerate(b)}
    common_in_a = np.array([pos_a[d] for d in a if d in pos_b])            # ascending
    common_in_b = np.array(sorted(pos_b[d] for d in b if d in pos_a))
    only_a = [pos_a[d] for d in a if d not in pos_b]
    only_b = [pos_b[d] for d in b if d not in pos_a]
    c, na, nb = len(common_in_a), len(only_a), len(only_b)
    order_in_b = np.array([pos_b[d] for d in a if d in pos_b])             # shared documents in a's order
    discordant = int(np.triu(order_in_b[:, None] > order_in_b[None, :], 1).sum()) if c > 1 else 0
    # A document missing from b that a ranks above a shared one: b implicitly ranks it below, so the pair flips.
    flipped_a = sum(c - int(np.searchsorted(common_in_a, i)) for i in only_a)
    flipped_b = sum(c - int(np.searchsorted(common_in_b, i)) for i in only_b)
    unshared = _pairs(na) + _pairs(nb)
    penalty = discordant + flipped_a + flipped_b + na * nb + p * unshared
    worst = _pairs(c) + c * (na + nb) + na * nb + p * unshared
    return 0.0 if worst == 0 else float(penalty / worst)


@dataclass
class RankChangePoint:
    """One query of Fig. 10: its genderedness and how far debiasing moved its ranking."""

    qid: str
    g_query: float
    abs_g: float
    distance: float


@dataclass
class RankChange:
    """Fig. 10 for one system: per-query points, Pearson's r (p) between |g(q)| and the distance, skipped queries."""

    points: list[RankChangePoint]
    r: float | None
    p_value: float | None
    depth: int
    skipped: dict[str, list[str]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.points)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(|g(q)|, distance) of every measured query."""
        return (np.array([q.abs_g for q in self.points], dtype=float),
                np.array([q.distance for q in self.points], dtype=float))

    def to_dict(self) -> dict:
        return {"r": self.r, "p_value": self.p_value, "n": self.n, "depth": self.depth, "skipped": self.skipped,
                "per_query": [vars(q).copy() for q in self.points]}


def rank_change_by_genderedness(before: Run, after: Run, g_query: Mapping[str, float | None], depth: int = 100,
                                p: float = 0.5) -> RankChange:
    """Fig. 10: per query, |g(q)| against the Kendall tau distance of its top-`depth` lists before and after debiasing.

    Queries without a genderedness (None, NaN or absent from g_query) or with an empty or missing list in either run
    are listed in `skipped` by reason; r and p are None for fewer than 3 points or a constant variable.
    """
    points, skipped = [], {}
    for qid in sorted(set(before) | set(after) | set(g_query)):
        g = _finite(g_query.get(qid))
        if g is None:
            skipped.setdefault("no_genderedness", []).append(qid)
        elif not before.get(qid):
            skipped.setdefault("empty_before", []).append(qid)
        elif not after.get(qid):
            skipped.setdefault("empty_after", []).append(qid)
        else:
            distance = kendall_tau_distance(before[qid], after[qid], depth=depth, p=p)
            points.append(RankChangePoint(qid, g, abs(g), distance))
    if not points:
        counts = ", ".join(f"{reason}: {len(q)}" for reason, q in skipped.items()) or "no query at all"
        raise AnalysisError(f"rank change: no query has a genderedness and a ranking in both runs ({counts})")
    r, p_value = _correlation("pearson", [q.abs_g for q in points], [q.distance for q in points])
    return RankChange(points, r, p_value, depth, skipped)


# ---------------------------------------------------------------- Fig. 11 (§4.2.4): reliability across embeddings

@dataclass
class Agreement:
    """Correlation of one quantity measured two ways: (key, a, b) points, coefficient, two-sided p."""

    method: str  # "pearson" or "spearman"
    coefficient: float | None
    p_value: float | None
    points: list[tuple[str, float, float]]
    skipped: list[str] = field(default_factory=list)
    names: tuple[str, str] = ("a", "b")

    @property
    def n(self) -> int:
        return len(self.points)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([a for _, a, _ in self.points], dtype=float),
                np.array([b for _, _, b in self.points], dtype=float))

    def to_dict(self) -> dict:
        return {"method": self.method, "coefficient": self.coefficient, "p_value": self.p_value, "n": self.n,
                "names": list(self.names), "skipped": self.skipped,
                "points": [{"key": k, self.names[0]: a, self.names[1]: b} for k, a, b in self.points]}


def _agreement(method: str, a: Mapping[str, float | None], b: Mapping[str, float | None], names, what: str):
    points, skipped = [], []
    for key in sorted(set(a) | set(b), key=str):
        va, vb = _finite(a.get(key)), _finite(b.get(key))
        if va is None or vb is None:
            skipped.append(key)
        else:
            points.append((key, va, vb))
    if not points:
        raise AnalysisError(f"{what}: no key has a value under both {names[0]} and {names[1]} "
                            f"({len(a)} and {len(b)} keys given)")
    coefficient, p_value = _correlation(method, [v for _, v, _ in points], [v for _, _, v in points])
    return Agreement(method, coefficient, p_value, points, skipped, tuple(names))


def query_genderedness_agreement(g_a: Mapping[str, float | None], g_b: Mapping[str, float | None],
                                 names: tuple[str, str] = ("a", "b")) -> Agreement:
    """Fig. 11: Pearson's r between g(q) measured with two embeddings, over queries measured by both."""
    return _agreement("pearson", g_a, g_b, names, "query genderedness agreement")


def system_ranking_agreement(gsr_a: Mapping[str, float | None], gsr_b: Mapping[str, float | None],
                             names: tuple[str, str] = ("a", "b")) -> Agreement:
    """§4.2.4 (Table 2): Spearman's rho between systems' GSR measured with two embeddings."""
    return _agreement("spearman", gsr_a, gsr_b, names, "system ranking agreement")


# ---------------------------------------------------------------- Fig. 12 (§4.2.5): intrinsic gender of documents

def load_gendered_entities(path: str | Path | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """Appendix B: (female, male) words naming gendered entities, lowercased, from a JSON file with those two lists."""
    path = Path(path) if path is not None else GENDERED_ENTITIES
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AnalysisError(f"{path}: no such file") from None
    except json.JSONDecodeError as err:
        raise AnalysisError(f"{path}:{err.lineno}: invalid JSON ({err.msg})") from None
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


class DeltaGap(dict):
    """{qid: Δgap(q)} of the queries where it is defined; `skipped` lists the others by reason and `counts` holds
    each measured query's (m, f) for the system and the perfect engine."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.skipped: dict[str, list[str]] = {}
        self.counts: dict[str, dict[str, tuple[int, int]]] = {}


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
        result[qid] = gap_system - gap_perfect
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
                if (g := _finite(g_query.get(qid))) is not None and _finite(delta[qid]) is not None]
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
