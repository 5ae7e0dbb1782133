"""gsr.plan: a study plan from a pilot — the precision of GSR for n topics, the differences two runs paired over n
topics can show, and which topics of a pool to study (gsr.planning.precision, .power, .selection)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from itertools import combinations

import numpy as np

from gsr.equations import gsr_slope
from gsr.errors import InputError, ParamError, UndefinedMeasureError
from gsr.infra.numeric import finite
from gsr.planning.options import (
    ALPHA,
    DEFAULT_ALPHA,
    DEFAULT_POWER,
    DEFAULT_STUDIES,
    DEFAULT_TOPICS,
    DIFFERENCE,
    MIN_TOPICS,
    NEUTRAL_SHARE,
    POWER,
    SELECT,
    STRATA,
    STUDIES,
    TARGET_WIDTH,
    TOPICS,
)
from gsr.planning.power import Detection, MeanDifference, SlopeDifference, detection
from gsr.planning.precision import Precision, design_half_width, precision
from gsr.planning.selection import Selection, check_selection, measurable_pool, select_topics, spread_of
from gsr.planning.studies import StudyDraws
from gsr.settings import DEFAULT_LEVEL, LEVEL, SEED
from gsr.uncertainty import slope_standard_error

GSR_MEASURE = "GSR"  # the name a difference to detect in GSR goes by, beside the measures' names


@dataclass(frozen=True)
class PilotRun:
    """One run's pilot points: the topics where both g(q) and g_q(L) are defined, and their values."""

    queries: tuple[str, ...]
    x: np.ndarray
    y: np.ndarray

    def residual_sd(self) -> float:
        """σ̂ = √(Σe² / (n − 2)): the slope's standard error times √Σ(x − x̄)²."""
        standard_error = slope_standard_error(self.x, self.y)
        assert standard_error is not None  # checked by pilot_run
        return standard_error * math.sqrt(spread_of(self.x))


@dataclass(frozen=True)
class Plan:
    """A study plan: each run's precision, each pair's detectable differences in GSR and in the measures asked
    for, the chosen topics of a pool, and the settings they were computed with.

    Args:
        settings: level, alpha, power, resamples, seed, topics, target_width, difference.
        runs: {run: Precision}.
        pairs: The GSR Detection of every pair of runs.
        measures: {measure: the Detection of every pair of runs}.
        selection: The chosen topics, with a pool.
    """

    settings: dict
    runs: dict[str, Precision]
    pairs: list[Detection]
    measures: dict[str, list[Detection]] = field(default_factory=dict)
    selection: Selection | None = None

    def to_dict(self) -> dict:
        """The plan as `gsr plan --json` writes it: study sizes as strings of integers, None where undefined, with
        the reason in `why`.

        Returns:
            {settings, runs, pairs, measures, selection}.
        """
        return {
            "settings": self.settings,
            "runs": {name: _precision_dict(p) for name, p in self.runs.items()},
            "pairs": [_detection_dict(d) for d in self.pairs],
            "measures": {m: [_detection_dict(d) for d in found] for m, found in self.measures.items()},
            "selection": None if self.selection is None else _selection_dict(self.selection),
        }


def _by_size(values: Mapping[int, float | None] | None):
    return None if values is None else {str(n): finite(v) for n, v in values.items()}


def _precision_dict(p: Precision) -> dict:
    why = {}
    if p.n_for_target_width is None and p.why:
        why["n_for_target_width"] = p.why
    lost = [n for n, w in p.half_width.items() if w is None]
    if lost:
        why["half_width"] = f"fewer than two simulated studies of n = {', '.join(map(str, lost))} had a slope"
    return {
        "n_pilot": p.n_pilot,
        "half_width": _by_size(p.half_width),
        "half_width_analytic": _by_size(p.half_width_analytic),
        "undefined_studies": {str(n): k for n, k in p.undefined_studies.items()},
        "n_for_target_width": p.n_for_target_width,
        "method": p.method,
        "method_why": p.method_why,
        "why": why,
    }


def _detection_dict(d: Detection) -> dict:
    return {
        "a": d.a,
        "b": d.b,
        "measure": d.measure,
        "test": d.test,
        "n_pilot": d.n_pilot,
        "observed_difference": finite(d.observed),
        "difference": d.difference,
        "power": _by_size(d.power),
        "power_analytic": _by_size(d.power_analytic),
        "minimal_detectable_difference": finite(d.minimal_detectable_difference),
        "n_for_difference": d.n_for_difference,
        "method": d.method or None,
        "method_why": d.method_why or None,
        "why": d.why,
    }


def _selection_dict(s: Selection) -> dict:
    out = asdict(s)
    out["queries"] = [{"qid": qid, "g_query": g} for qid, g in s.queries]
    return out


def pilot_run(name: str, run) -> PilotRun:
    """A run's pilot points from a GSRReport, a GSRResult or {qid: (g(q), g_q(L))}; InputError naming the run when
    fewer than three topics have both values, or when their g(q) have no spread (the test Eq. 3 itself applies,
    gsr.equations.gsr_slope: a variance at the level of float64 rounding of the values is none)."""
    run = getattr(run, "system", run)
    if hasattr(run, "per_query"):
        pairs = {q.qid: (q.g_query, q.g_list) for q in run.per_query}
    elif isinstance(run, Mapping):
        pairs = dict(run)
    else:
        raise InputError(f"pilot run {name}: give a GSRReport, a GSRResult or {{qid: (g(q), g_q(L))}}")
    defined = [(str(q), finite(g), finite(l)) for q, (g, l) in pairs.items()]
    kept = [(q, g, l) for q, g, l in defined if g is not None and l is not None]
    x = np.array([g for _, g, _ in kept], dtype=np.float64)
    y = np.array([l for _, _, l in kept], dtype=np.float64)
    check_pilot(f"pilot run {name}", x, y)
    return PilotRun(tuple(q for q, _, _ in kept), x, y)


def check_pilot(label: str, x: np.ndarray, y: np.ndarray) -> None:
    """InputError starting with `label` when fewer than three topics are given or their g(q) have no spread."""
    if len(x) < MIN_TOPICS:
        raise InputError(f"{label}: {len(x)} topics with both g(q) and g_q(L); a plan needs at least {MIN_TOPICS}")
    try:
        gsr_slope(x, y)
    except UndefinedMeasureError as err:
        raise InputError(f"{label}: {err}") from None


def slope_pair(a: str, pilot_a: PilotRun, b: str, pilot_b: PilotRun) -> SlopeDifference:
    """GSR_a − GSR_b as a paired design on the two runs' common topics; InputError naming both runs when fewer than
    three of them are common or their g(q) have no spread."""
    common = sorted(set(pilot_a.queries) & set(pilot_b.queries))
    points_a = dict(zip(pilot_a.queries, zip(pilot_a.x, pilot_a.y)))
    points_b = dict(zip(pilot_b.queries, zip(pilot_b.x, pilot_b.y)))
    x = np.array([points_a[q][0] for q in common])
    y_a, y_b = np.array([points_a[q][1] for q in common]), np.array([points_b[q][1] for q in common])
    check_pilot(f"pilot runs {a} and {b} on their common topics", x, y_a)
    return SlopeDifference(x, y_a, y_b)


def _differences(difference, measures: Iterable[str]) -> dict[str, float]:
    """{GSR or measure: the difference to detect} from a number (GSR's) or a mapping."""
    if difference is None:
        return {}
    if not isinstance(difference, Mapping):
        difference = {GSR_MEASURE: difference}
    known = {GSR_MEASURE, *measures}
    out = {}
    for name, value in difference.items():
        if name not in known:
            raise ParamError(f"difference: {name!r} is not GSR nor one of the measures ({', '.join(sorted(known))})")
        out[name] = DIFFERENCE.check(value, "difference ")
    return out


def _measure_pairs(measure: str, values: Mapping[str, Mapping[str, float]]):
    """Each pair of runs' common topics (at least three) and their values of `measure`."""
    runs = {run: {q: v for q, v in per.items() if finite(v) is not None} for run, per in values.items()}
    for a, b in combinations(runs, 2):
        common = sorted(set(runs[a]) & set(runs[b]))
        if len(common) < MIN_TOPICS:
            raise InputError(
                f"measure {measure}: runs {a} and {b} share only {len(common)} topic(s) with a value; a plan needs at "
                f"least {MIN_TOPICS}"
            )
        yield a, b, np.array([runs[a][q] for q in common]), np.array([runs[b][q] for q in common])


def plan(
    runs: Mapping[str, object],
    *,
    level: float = DEFAULT_LEVEL,
    topics: Iterable[int] = DEFAULT_TOPICS,
    target_width: float | None = None,
    difference: float | Mapping[str, float] | None = None,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    measures: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None,
    pool: Mapping[str, float] | None = None,
    select: int | None = None,
    neutral_share: float = 0.0,
    strata: int | None = None,
    resamples: int = DEFAULT_STUDIES,
    seed: int = 0,
) -> Plan:
    """A study plan from a pilot (docs/planning.md): for each run, the expected half-width of GSR's interval for n
    topics (resampled from the pilot, and analytic) and the topics a target half-width needs; for each pair of runs,
    the power of the paired test for a difference, the minimal detectable difference at the pilot's n and the topics
    a difference needs, in GSR and in each measure; with a pool, the topics that minimise the slope's standard error.

    Every setting and every input is checked before any work.

    Args:
        runs: {name: pilot}, a pilot being a GSRReport, a GSRResult or {qid: (g(q), g_q(L))}.
        level: The confidence level of GSR's interval, in (0, 1).
        topics: The study sizes to report (each ≥ 3); the pilot's own is added.
        target_width: The half-width a study should reach (> 0), or None.
        difference: The difference to detect: a number (GSR's) or {"GSR" or a measure: difference}; None: no power.
        alpha: The tests' two-sided significance level, in (0, 1).
        power: The power of a detectable difference, in (0, 1).
        measures: {measure: {run: {qid: value}}}: per-topic values of effectiveness or RaB/ARaB measures.
        pool: {qid: g(q)} of candidate topics (NaN where unmeasurable; see
            gsr.planning.selection.pool_genderedness).
        select: How many topics of the pool to choose.
        neutral_share: The share of neutral topics among them, in [0, 1).
        strata: Equal-count quantile strata of the pool's g(q) to choose evenly from, or None.
        resamples: Simulated studies per study size (≥ 100).
        seed: The seed of the simulated studies.

    Returns:
        The plan.

    Raises:
        ParamError: If a setting is out of range.
        InputError: If a pilot run has fewer than three topics or no spread in g(q), two runs of a measure share
            fewer than three topics, or the pool has no measurable topic (or fewer than `select`).

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(7)
        >>> x = rng.uniform(-0.3, 0.3, 120)
        >>> pilot = {"bm25": {f"q{i}": (x[i], 0.2 * x[i] + rng.normal(0, 0.03)) for i in range(120)}}
        >>> result = plan(pilot, topics=[50, 500], target_width=0.02, resamples=500)
        >>> {n: round(w, 3) for n, w in result.runs["bm25"].half_width_analytic.items()}
        {50: 0.046, 120: 0.029, 500: 0.014}
        >>> result.runs["bm25"].method, result.runs["bm25"].n_for_target_width
        ('analytic', 251)
    """
    settings = {
        "level": LEVEL.check(level),
        "alpha": ALPHA.check(alpha),
        "power": POWER.check(power),
        "resamples": STUDIES.check(resamples),
        "seed": SEED.check(seed),
        "topics": sorted({TOPICS.check(n) for n in topics}),
        "target_width": None if target_width is None else TARGET_WIDTH.check(target_width),
    }
    measures = measures or {}
    differences = _differences(difference, measures)
    settings["difference"] = differences or None
    if pool is None and (select is not None or neutral_share or strata is not None):
        raise ParamError("select, neutral_share and strata choose topics from a pool: give the pool")
    if pool is not None:
        if select is None:
            raise ParamError("a pool needs select: how many of its topics to choose")
        settings.update(select=SELECT.check(select), neutral_share=NEUTRAL_SHARE.check(neutral_share), strata=None)
        if strata is not None:
            settings["strata"] = STRATA.check(strata)
        qids, _ = measurable_pool(pool)
        check_selection(len(qids), settings["select"], settings["neutral_share"], settings["strata"])
    if not runs:
        raise InputError("a plan needs at least one pilot run")
    pilots = {name: pilot_run(name, run) for name, run in runs.items()}
    measure_pairs = {m: list(_measure_pairs(m, values)) for m, values in measures.items()}

    draws = StudyDraws(settings["resamples"], settings["seed"])
    sizes, level, alpha, power = settings["topics"], settings["level"], settings["alpha"], settings["power"]
    planned = {name: precision(p.x, p.y, sizes, level, settings["target_width"], draws) for name, p in pilots.items()}
    pairs = []
    for a, b in combinations(pilots, 2):
        design = slope_pair(a, pilots[a], b, pilots[b])
        pairs.append(detection(design, (a, b, GSR_MEASURE), sizes, differences.get(GSR_MEASURE), alpha, power, draws))
    measured = {
        m: [
            detection(MeanDifference(va, vb), (a, b, m), sizes, differences.get(m), alpha, power, draws)
            for a, b, va, vb in found
        ]
        for m, found in measure_pairs.items()
    }
    chosen = None
    if pool is not None:
        chosen = _selection(pool, settings, pilots)
    return Plan(settings, planned, pairs, measured, chosen)


def _selection(pool: Mapping[str, float], settings: dict, pilots: Mapping[str, PilotRun]) -> Selection:
    qids, values = measurable_pool(pool)
    n = settings["select"]
    chosen, neutral, bound = select_topics(pool, n, settings["neutral_share"], settings["strata"])
    spread = spread_of(np.array([pool[q] for q in chosen]))
    random_spread = (n - 1) * float(np.var(values, ddof=1)) if len(values) > 1 else 0.0
    level = settings["level"]
    half_width = {
        name: {
            "chosen": design_half_width(p.residual_sd(), spread, n, level),
            "random": design_half_width(p.residual_sd(), random_spread, n, level),
        }
        for name, p in pilots.items()
    }
    return Selection(
        [(q, float(pool[q])) for q in chosen],
        len(pool),
        len(qids),
        neutral,
        bound,
        settings["strata"],
        spread,
        random_spread,
        half_width,
    )
