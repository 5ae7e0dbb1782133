"""The bias measures inside ir_measures (and so PyTerrier's Experiment): each measure that is a per-query mean.

KL@k, FSKL@k, NDKL@k, MB_<group>@k (per query β), MAB_<group>@k (per query |β|), RaB@k and ARaB@k (and their
_female / _male components), FaiRR@k, NFaiRR@k, FaiRR_agnostic@k and NFaiRR_agnostic@k are means over queries, so
ir_measures' per-query values and aggregate are theirs. SB (a standard deviation) and β's min and max are not
means: BiasReport gives them, ir_measures cannot. FaiRR's background set is the run ir_measures passes (the run
itself) unless a background run is given.

Two things ir_measures does that these measures undo: it gives a topic without a value the measure's DEFAULT and
averages it in (here DEFAULT is NaN and the aggregate is the mean over the defined topics, as BiasReport's), and its
runtime provider sorts runs with an unstable sort; the measures re-sort in trec_eval's order (score, then document
id, descending) and apply the cut-off themselves.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from gsr.errors import InputError
from gsr.fairness.evaluate import BiasMeasures, BiasSettings, per_query_value
from gsr.fairness.fairr_runs import KINDS, FaiRRMeasures
from gsr.fairness.labels import DocumentLabels
from gsr.integrations.ir_measures_gsr import defined_mean, require_pandas
from gsr.io.convert import as_qrels, as_run

if TYPE_CHECKING:
    import pandas as pd

NOT_PER_QUERY_MEANS = ("SB", "min_beta", "max_beta")


def mean_measure_kinds(settings: BiasSettings, rab: bool = True, labels: bool = True, fairr: bool = False) -> list[str]:
    """The measures (without cut-off) whose system value is a mean of per-query values."""
    kinds = ["KL", "FSKL", "NDKL"] + [f"{a}_{g}" for a in ("MB", "MAB") for g in settings.groups] if labels else []
    if rab:
        kinds += [f"{m}{part}" for m in ("RaB", "ARaB") for part in ("", "_female", "_male")]
    return kinds + (list(KINDS) if fairr else [])


class BiasIRMeasures(Mapping):
    """ir_measures measures of one label source and settings, by name: `NDKL@10`, `FSKL@20`, `MAB_female@10`,
    `ARaB@5`, `NFaiRR@10`, ... (a name without @ uses the settings' k). A topic where a measure is undefined has no
    value.

    Args:
        labels: The documents' labels (None: only RaB/ARaB and FaiRR/NFaiRR).
        settings: The settings (default: BiasSettings()).
        mentions: {docid: (female, male) entity-word counts}, for RaB and ARaB.
        prefix: Put before the measures' names.
        gender_words: The name of the word list `mentions` counts.
        fairr: FaiRR/NFaiRR's documents, words and settings (their cut-offs are the measures' own).
        background (object): FaiRR's background run (default: each run ir_measures passes).

    Example:
        >>> import ir_measures
        >>> measures = BiasIRMeasures(DocumentLabels({"d1": "female", "d2": "male"}, "example"))
        >>> run, qrels = {"q1": {"d1": 2, "d2": 1}}, {"q1": {"d1": 1}}
        >>> round(ir_measures.calc_aggregate([measures["NDKL@2"]], qrels, run)[measures["NDKL@2"]], 3)
        0.425
    """

    def __init__(
        self,
        labels: DocumentLabels,
        settings: BiasSettings | None = None,
        mentions: Mapping[str, tuple[int, int]] | None = None,
        prefix: str = "",
        gender_words: str | None = None,
        fairr: FaiRRMeasures | None = None,
        background=None,
    ):
        require_pandas()
        from ir_measures.measures.base import Measure, ParamInfo

        self.settings = settings or BiasSettings()
        self.prefix = prefix
        self.background = background
        owner = self
        self.evaluator = BiasMeasures(labels, self.settings, mentions, gender_words, fairr)
        self.kinds = mean_measure_kinds(self.settings, self.evaluator.with_rab, labels is not None, fairr is not None)
        self._last: tuple | None = None  # (cutoff, qrels frame, run frame, report) of the latest evaluation

        def measure_class(kind: str):
            class BiasMeasure(Measure):
                NAME = f"{prefix}{kind}"
                __name__ = NAME
                SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=False, desc="rank cut-off k")}
                DEFAULT = math.nan  # a topic without a value is left out of the mean, not averaged in as 0
                SHORT_DESC = f"gender bias ({kind})"

                def runtime_impl(self, qrels, run):
                    import ir_measures

                    cutoff = self.params.get("cutoff") or owner.settings.k
                    for qid, value in owner.per_query(kind, cutoff, qrels, run):
                        yield ir_measures.Metric(qid, self, value)

                def aggregator(self):
                    return defined_mean()

            return BiasMeasure

        self._base = {kind: measure_class(kind)() for kind in self.kinds}

    def _report(self, cutoff: int, qrels_frame, run_frame):
        """Every measure @cutoff of one run: ir_measures asks once per measure with the same two frames, so the
        latest report is kept (with the frames themselves, so that a new frame never matches by a reused id)."""
        last = self._last
        if last is not None and last[0] == cutoff and last[1] is qrels_frame and last[2] is run_frame:
            return last[3]
        base = self.evaluator
        fairr = None
        if base.fairr is not None:
            fairr_settings = replace(base.fairr.settings, cutoffs=(cutoff,))
            fairr = FaiRRMeasures(base.fairr.documents, fairr_settings, base.fairr.words, base.fairr.n_jobs)
        evaluator = BiasMeasures(base.labels, replace(self.settings, k=cutoff), base.mentions, base.gender_words, fairr)
        qrels = as_qrels(qrels_frame) if len(qrels_frame) else None
        report = evaluator.evaluate(as_run(run_frame) if len(run_frame) else {}, qrels, background=self.background)
        self._last = (cutoff, qrels_frame, run_frame, report)
        return report

    def per_query(
        self, kind: str, cutoff: int, qrels_frame: pd.DataFrame, run_frame: pd.DataFrame
    ) -> Iterator[tuple[str, float]]:
        """(qid, value) of the topics where `kind`@cutoff is defined, in one ir_measures call.

        Args:
            kind: The measure without its cut-off, e.g. 'NDKL'.
            cutoff: k.
            qrels_frame: The qrels ir_measures passes.
            run_frame: The run ir_measures passes.

        Returns:
            An iterator over the (qid, value) pairs.
        """
        report = self._report(cutoff, qrels_frame, run_frame)
        value_of = per_query_value(f"{kind}@{cutoff}")
        for query in report.per_query:
            value = value_of(query)
            if value is not None:
                yield query.qid, value

    def __getitem__(self, name: str):
        name = name[len(self.prefix) :] if name.startswith(self.prefix) else name
        kind, at, cutoff = name.partition("@")
        if kind not in self._base or (at and not cutoff.isdigit()) or cutoff == "0":
            hint = (
                " (a standard deviation, min or max: not a per-query mean)"
                if kind.startswith(NOT_PER_QUERY_MEANS)
                else ""
            )
            raise InputError(f"{name!r} is not one of these measures{hint}: {', '.join(self.kinds)}, each @k")
        return self._base[kind] @ (int(cutoff) if at else self.settings.k)

    def __iter__(self):
        return iter(self.kinds)

    def __len__(self) -> int:
        return len(self.kinds)
