"""GSR inside other evaluation tools: ir_measures measures (and so PyTerrier's Experiment) whose aggregate is Eq. 3.

ir_measures gives every qrels topic a per-query value (the measure's default where none is computed) and averages
them; PyTerrier's Experiment takes the plain mean of the per-query values. Eq. 3 is a slope, not a mean of independent
per-query numbers, so GSR's per-query value is the topic's share of the slope: with N qrels topics in the call, M of
them measurable, topic i gets (N/M)(g(q_i) − μ_q)(g_qi(L_i) − μ_L)/σ² and a topic GSR cannot measure gets 0, so the
mean over the N topics is exactly Eq. 3 over the M. Each value also carries the topic's point (g(q), g_q(L)) (a float
subclass, `SlopeTerm`), and GSR's own aggregator refits the slope from the points it receives: exact however
ir_measures' per-query values were gathered. PyTerrier's Experiment with `batch_size` averages shares computed
batch by batch, which cannot give Eq. 3: it is refused with an error (detected from the calling PyTerrier frame, in
the PyTerrier versions of PYTERRIER_CHECKED).
Where the points are lost (per-query values turned into plain numbers) the aggregator refuses too.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from collections.abc import Iterator, Mapping
from types import FrameType
from typing import TYPE_CHECKING

import numpy as np

from gsr.baselines import cut_run, relevant_counts
from gsr.equations import gsr_slope, gsr_slope_terms
from gsr.errors import GSRError, InputError, UndefinedMeasureError
from gsr.evaluate import GSR, DocumentsInput, GSRResult, measure_run
from gsr.infra import extras
from gsr.io.convert import as_qrels, as_queries, as_run
from gsr.io.types import QueriesInput

if TYPE_CHECKING:
    import pandas as pd

MEASURE_NAME = re.compile(r"^(?P<kind>GSR|gL)(?:@(?P<cutoff>rel|\d+))?$")
RELEVANT = "rel"


class SlopeTerm(float):
    """A topic's share of Eq. 3 (see the module docstring) that also carries the topic's point (x, y) = (g(q), g_q(L))
    and the rounding bound of its g(q) (the lexicon's), so an aggregate over any set of shares can refit the slope
    exactly and tell a spread of g(q) from rounding noise (gsr.equations.check_query_spread)."""

    x: float
    y: float
    rounding: float

    def __new__(cls, value: float, x: float, y: float, rounding: float = 0.0):
        term = super().__new__(cls, value)
        term.x, term.y, term.rounding = x, y, rounding
        return term

    def __reduce__(self):
        return SlopeTerm, (float(self), self.x, self.y, self.rounding)


class Unmeasured(float):
    """The share of a topic GSR cannot measure: 0 in a mean, skipped by GSR's aggregator."""

    def __reduce__(self):
        return Unmeasured, (float(self),)


UNMEASURED = Unmeasured(0.0)


def require_pandas() -> None:
    """MissingExtraError in one line naming the 'ir-measures' extra unless pandas is installed: ir_measures gives a
    measure defined in Python (its runtime provider: GSR's, gL's and the label-based ones) the run and the qrels as
    pandas DataFrames, and the core install has no pandas. Asked when the measures are made, before ir_measures would
    fail deep inside a call."""
    if not extras.installed("ir-measures"):
        raise extras.MissingExtraError(
            "GSR and the label-based measures inside ir_measures or PyTerrier need pandas (ir_measures hands measures "
            "defined in Python the run and qrels as DataFrames), which the core install does not bring; the "
            f"'ir-measures' extra does: {extras.install_command(['ir-measures'])}"
        )


def _aggregators():
    from ir_measures.measures.base import Agg

    class SlopeAggregate(Agg):
        """Eq. 3 over the points of every SlopeTerm added; NaN (undefined topics) is skipped."""

        def __init__(self):
            self.x: list[float] = []
            self.y: list[float] = []
            self.rounding = 0.0
            self.plain = 0

        def add(self, value):
            if isinstance(value, SlopeTerm):
                self.x.append(value.x)
                self.y.append(value.y)
                self.rounding = max(self.rounding, value.rounding)
            elif not isinstance(value, Unmeasured) and not (isinstance(value, float) and math.isnan(value)):
                self.plain += 1

        def result(self):
            if self.plain:
                raise GSRError(
                    f"GSR's aggregate received {self.plain} plain per-query numbers instead of GSR's "
                    "per-query terms: Eq. 3 is a slope, not a mean, and cannot be recovered from them; "
                    "aggregate the values ir_measures returns directly"
                )
            try:
                return gsr_slope(self.x, self.y, query_rounding=self.rounding)
            except UndefinedMeasureError:
                return math.nan

    class DefinedMean(Agg):
        """Mean over the topics that have a value (NaN is skipped)."""

        def __init__(self):
            self.values: list[float] = []

        def add(self, value):
            if not math.isnan(value):
                self.values.append(float(value))

        def result(self):
            return math.fsum(self.values) / len(self.values) if self.values else math.nan

    return SlopeAggregate, DefinedMean


def defined_mean():
    """An ir_measures aggregator whose result is the mean over the topics that have a value (NaN, the default of a
    topic without one, is skipped): a mean over the defined topics, never over zeros filled in for the others."""
    return _aggregators()[1]()


def parse_measure_name(name: str) -> tuple[str, str | int | None]:
    """('GSR' or 'gL', cut-off) of a measure name: GSR, GSR@rel, GSR@100, gL, gL@rel, gL@10 (None: the GSR object's
    own cut-off; 'rel': K = the topic's number of relevant documents, §4.2.2).

    Args:
        name: The measure name.

    Returns:
        (kind, cut-off).

    Raises:
        InputError: If `name` is not a GSR measure name.

    Example:
        >>> parse_measure_name("GSR@rel"), parse_measure_name("gL@10"), parse_measure_name("GSR")
        (('GSR', 'rel'), ('gL', 10), ('GSR', None))
    """
    match = MEASURE_NAME.match(str(name).strip())
    if not match or match.group("cutoff") == "0":
        raise InputError(f"{name!r} is not a GSR measure name (GSR, GSR@rel, GSR@N, gL, gL@rel, gL@N with N ≥ 1)")
    cutoff = match.group("cutoff")
    return match.group("kind"), (int(cutoff) if cutoff and cutoff.isdigit() else cutoff)


def is_gsr_measure(name: object) -> bool:
    """Whether a measure-list entry names a GSR measure rather than an ir_measures one.

    Args:
        name: The entry (a name, or an ir_measures measure).

    Returns:
        True for GSR, GSR@rel, GSR@N, gL, gL@rel and gL@N.

    Example:
        >>> is_gsr_measure("GSR@100"), is_gsr_measure("nDCG@10")
        (True, False)
    """
    return bool(MEASURE_NAME.match(str(name).strip()))


def measured_queries(gsr: GSR, queries: dict[str, str], gendered, qrels, run, cutoff="default") -> GSRResult:
    """g(q) and g_q(L) per topic as `gsr score` measures them: with judgments, the judged topics (≥ 1 relevant
    document) cut at `cutoff` (default: the GSR object's); without, every topic the run answers."""
    cutoff = gsr.cutoff if cutoff == "default" else "relevant" if cutoff == RELEVANT else cutoff
    counts = relevant_counts(qrels) if qrels else {}
    if qrels:
        query_ids = sorted(q for q in queries if counts.get(q, 0) > 0)
        cut = counts if cutoff == "relevant" else cutoff
    else:
        query_ids = sorted(set(run) & set(queries))
        cut = None if cutoff == "relevant" else cutoff
    return measure_run(
        cut_run(run, cut, gsr.tie_scores), queries, gendered, query_ids=query_ids, tie_scores=gsr.tie_scores, cutoff=cut
    )


class GSRMeasures(Mapping):
    """ir_measures measures of one GSR configuration, by name: `GSR`, `gL`, and with a cut-off `GSR@rel`, `GSR@100`,
    `gL@10` (any name parse_measure_name accepts works as a key, and `measures["GSR"] @ 100` too).

    Args:
        gsr: The measure's configuration (lexicon, analyzer, cut-off, ties).
        queries: The topics, in any form gsr.io.as_queries reads.
        documents: The documents, in any form GSR.documents reads.
        prefix: Put before the measures' names (to tell several configurations apart).

    Example:
        >>> documents = DocumentStats.build([("d1", "she sings")], n_jobs=1)
        >>> measures = GSRMeasures(GSR(GenderLexicon.from_mapping({"she": 0.5})), {"q1": "nurse"}, documents)
        >>> list(measures), measures["GSR@rel"], measures["gL"] @ 10
        (['GSR', 'gL'], GSR@rel, gL@10)
    """

    def __init__(self, gsr: GSR, queries: QueriesInput, documents: DocumentsInput, prefix: str = ""):
        require_pandas()
        import ir_measures
        from ir_measures.measures.base import Measure, ParamInfo

        self.gsr = gsr
        self.queries = as_queries(queries)
        self.gendered = gsr.documents(documents)
        self.prefix = prefix
        slope_aggregate, defined_mean = _aggregators()
        owner = self

        def measure_class(kind: str):
            class GSRMeasure(Measure):
                NAME = f"{prefix}{kind}"
                __name__ = NAME
                SUPPORTED_PARAMS = {
                    "cutoff": ParamInfo(
                        dtype=(int, str), required=False, desc="'rel' (K = relevant documents) or a rank cut-off"
                    )
                }
                DEFAULT = UNMEASURED if kind == "GSR" else math.nan  # a topic without a value: share 0 / no g_q(L)
                SHORT_DESC = (
                    "gender stereotype reinforcement, Eq. 3"
                    if kind == "GSR"
                    else "genderedness of the ranked list, Eq. 2"
                )

                def runtime_impl(self, qrels, run):
                    cutoff = self.params.get("cutoff", "default")
                    for qid, value in owner.per_query(kind, qrels, run, cutoff):
                        yield ir_measures.Metric(qid, self, value)

                def aggregator(self):
                    return slope_aggregate() if kind == "GSR" else defined_mean()

            return GSRMeasure

        self._base = {kind: measure_class(kind)() for kind in ("GSR", "gL")}

    def per_query(
        self, kind: str, qrels_frame: pd.DataFrame, run_frame: pd.DataFrame, cutoff: str | int
    ) -> Iterator[tuple[str, float]]:
        """(qid, value) of every topic GSR measures in one ir_measures call: g_q(L) for gL, the topic's share of the
        slope for GSR (topics without a value get the measure's default from ir_measures).

        Args:
            kind: 'GSR' or 'gL'.
            qrels_frame: The qrels ir_measures passes.
            run_frame: The run ir_measures passes.
            cutoff: 'default' (the GSR object's), 'rel' or K.

        Returns:
            An iterator over the (qid, value) pairs.

        Raises:
            InputError: If the cut-off is neither 'rel' nor a positive integer.
            GSRError: If PyTerrier evaluates the topics in batches (which cannot give Eq. 3).
        """
        if cutoff not in ("default", RELEVANT) and not (isinstance(cutoff, int) and cutoff > 0):
            raise InputError(f"GSR cut-off must be 'rel' or a positive integer, not {cutoff!r}")
        run = as_run(run_frame)
        qrels = as_qrels(qrels_frame) if len(qrels_frame) else {}
        result = measured_queries(self.gsr, self.queries, self.gendered, qrels, run, cutoff)
        if kind == "gL":
            yield from ((q.qid, q.g_list) for q in result.per_query if q.g_list is not None)
            return
        batch_size = pyterrier_batch_size()
        if batch_size is not None:
            raise GSRError(
                f"PyTerrier evaluates these topics in batches (batch_size={batch_size}) and averages the "
                "per-query values of all batches, which cannot give Eq. 3 (a slope over every topic); run "
                "pt.Experiment without batch_size, or ir_measures.calc_aggregate on the whole run"
            )
        x, y = result.points(defined_only=False)
        rounding = getattr(self.gsr.lexicon, "rounding", 0.0)
        try:
            terms = gsr_slope_terms(x, y, query_rounding=rounding)
        except (
            UndefinedMeasureError
        ):  # fewer than two points here: the aggregate may still gather enough from other calls
            terms = np.full(len(x), math.nan)
        measured = result.n_queries
        scale = (len(qrels) / measured if qrels else 1.0) if measured else math.nan
        for q, term in zip(result.per_query, terms):
            if q.g_query is not None and q.g_list is not None:
                yield q.qid, SlopeTerm(scale * term, q.g_query, q.g_list, rounding)

    def __getitem__(self, name: str):
        kind, cutoff = parse_measure_name(name[len(self.prefix) :] if name.startswith(self.prefix) else name)
        measure = self._base[kind]
        return measure if cutoff is None else measure @ cutoff

    def __iter__(self):
        return iter(("GSR", "gL"))

    def __len__(self) -> int:
        return 2


# PyTerrier has no public way to tell a measure that its Experiment evaluates in batches: the batch size is read from
# the local variable `batch_size` of the pyterrier._evaluation frames calling us. That layout was checked in the
# source of PyTerrier 1.0.0 and 1.1.2, and the tests run pt.Experiment itself on the installed PyTerrier
# (tests/gsr/test_integrations.py fails when that one is outside this range); elsewhere a warning says so.
PYTERRIER_CHECKED = ((1, 0), (1, 2))  # PyTerrier versions [1.0, 1.2)
_warned_versions: set[str] = set()


def pyterrier_checked(version: str) -> bool:
    """Whether PyTerrier `version` ("1.1.2") is in PYTERRIER_CHECKED, where batched evaluation is found."""
    try:
        major_minor = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return False
    low, high = PYTERRIER_CHECKED
    return low <= major_minor < high


def pyterrier_batch_size() -> int | None:
    """The batch size of a PyTerrier evaluation that is calling us, found on the call stack (None when none is);
    called from a PyTerrier outside PYTERRIER_CHECKED, a warning says a batched evaluation may go unnoticed."""
    frame: FrameType | None = sys._getframe(1)
    inside = False
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module.startswith("pyterrier"):
            inside = True
            size = frame.f_locals.get("batch_size") if module.startswith("pyterrier._evaluation") else None
            if size is not None:
                return size
        frame = frame.f_back
    if inside:
        _check_pyterrier_version()
    return None


def _check_pyterrier_version() -> None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("pyterrier")
    except PackageNotFoundError:
        installed = "unknown"
    if pyterrier_checked(installed) or installed in _warned_versions:
        return
    _warned_versions.add(installed)
    low, high = (".".join(map(str, v)) for v in PYTERRIER_CHECKED)
    warnings.warn(
        f"GSR inside PyTerrier {installed}: gsr-bench finds a batched pt.Experiment (batch_size, which cannot give "
        f"Eq. 3) only in PyTerrier >={low},<{high}; run pt.Experiment without batch_size, or check the GSR it "
        "gives against ir_measures.calc_aggregate on the whole run",
        RuntimeWarning,
        stacklevel=3,
    )


def ir_measures_measures(gsr: GSR, queries: QueriesInput, documents: DocumentsInput, prefix: str = "") -> GSRMeasures:
    """ir_measures measures for `gsr` on these topics and documents: `GSR` (aggregate: Eq. 3 exactly) and `gL`
    (g_q(L) per topic, Eq. 2), also with cut-offs (`GSR@rel`, `GSR@100`). See GSRMeasures and the module docstring.

    GSR's per-query value is the topic's share of the slope: their mean over the qrels topics of one call (as
    ir_measures and PyTerrier average them) is Eq. 3; GSR's aggregator refits the slope from the topics' points.

    Args:
        gsr: The measure's configuration.
        queries: The topics, in any form gsr.io.as_queries reads.
        documents: The documents, in any form GSR.documents reads.
        prefix: Put before the measures' names.

    Returns:
        The measures, by name.

    Example:
        >>> import ir_measures
        >>> lexicon = GenderLexicon.from_mapping({"nurse": 0.5, "engineer": -0.5, "she": 0.5, "he": -0.5})
        >>> documents = DocumentStats.build([("d1", "she is here"), ("d2", "he is here")], n_jobs=1)
        >>> measures = ir_measures_measures(GSR(lexicon, cutoff=None), {"q1": "nurse", "q2": "engineer"}, documents)
        >>> run, qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d2": 2, "d1": 1}}, {"q1": {"d1": 1}, "q2": {"d2": 1}}
        >>> round(ir_measures.calc_aggregate([measures["GSR"]], qrels, run)[measures["GSR"]], 3)
        0.226
    """
    return GSRMeasures(gsr, queries, documents, prefix)
