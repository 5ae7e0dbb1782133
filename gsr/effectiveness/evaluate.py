"""Effectiveness through ir_measures (its common measures computed from the run's arrays, to the same doubles:
gsr.effectiveness.native): per-query values, means, paired tests (t, Wilcoxon signed-rank, randomisation)
with the paper's marks († p<0.05, ‡ p<0.01) on p-values corrected for multiple comparisons across a table."""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass

from gsr.errors import InputError, ParamError
from gsr.infra.numeric import finite
from gsr.infra.params import Param, check_params
from gsr.io.types import Qrels, Run
from gsr.settings import CORRECTIONS, DEFAULT_RESAMPLES, LEVEL, RESAMPLES, SEED

DEFAULT_MEASURES = ("AP", "P@10", "nDCG@100")
DISPLAY_NAMES = {"AP": "MAP"}
TESTS = ("t", "wilcoxon", "randomization")
TEST_NAMES = {
    "t": "paired two-sided t-test",
    "wilcoxon": "two-sided Wilcoxon signed-rank test",
    "randomization": "paired two-sided randomisation test",
}
EVALUATION_PARAMS = (
    Param(
        "test",
        str,
        "t",
        "paired test of each measure against the baseline (results table) and the regular embedding (Table 3)",
        choices=TESTS,
    ),
    Param(
        "correction", str, "holm", "correction for multiple comparisons across each table's marks", choices=CORRECTIONS
    ),
    RESAMPLES,
    LEVEL,
    SEED,
)


def parse_measures(names) -> list:
    """ir_measures Measure objects for measure strings (e.g. 'AP', 'P@10', 'nDCG@100'), each checked by
    check_measure before anything is computed; a bad one names itself. GSR names (GSR@rel, GSR@100) are not
    ir_measures measures: the caller separates them (see is_gsr_measure)."""
    return [check_measure(str(name)) for name in names]


_NUMBER_LIKE = re.compile(r"[-+.0-9]")  # text after '@' read as a number (else left to ir_measures' parser)
_POSITIVE_INTEGER = re.compile(r"[1-9][0-9]*")


def check_measure(name: str):
    """The ir_measures Measure a measure string names, or InputError saying in one line what is wrong with it:
    an unknown name, a cut-off that is not a positive integer (written '@0', '@10.5', '@1e1', '@-1' or given as
    cutoff=…), a relevance level (rel=…) below 1, a missing or invalid parameter, or a measure no ir_measures provider
    installed here computes (tried on a one-query toy qrels and run, its stderr silenced). The text is checked before
    ir_measures sees it: pytrec_eval aborts the process (SIGABRT) on a cut-off of 0."""
    import ir_measures

    from gsr.integrations.ir_measures_gsr import is_gsr_measure

    text = name.strip()
    if is_gsr_measure(text):
        raise InputError(f"measure {name!r} is a GSR measure, computed per measuring embedding, not by ir_measures")
    head, at, after = text.rpartition("@") if "@" in text else (text, "", "")
    base = head.partition("(")[0].strip()
    known = ir_measures.measures.registry.get(base)
    if known is None and at:
        raise InputError(f"measure {name!r} is not an ir_measures measure (measure not found: {base})")
    if (
        known is not None
        and at
        and known.AT_PARAM == "cutoff"
        and _NUMBER_LIKE.match(after.strip())
        and not _POSITIVE_INTEGER.fullmatch(after.strip())
    ):
        raise InputError(f"measure {name!r}: the cut-off must be a positive integer, not {after.strip()!r}")
    try:
        measure = ir_measures.parse_measure(text)
    except Exception as err:  # ValueError, NameError, AssertionError, … from its ast-based parser: all the user's
        raise InputError(f"measure {name!r} is not an ir_measures measure ({_one_line(err)})") from None
    _check_parameters(name, measure)
    problem = _provider_problem(measure)
    if problem:
        raise InputError(f"measure {name!r}: {problem}")
    return measure


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


def _check_parameters(name: str, measure) -> None:
    """Required parameters given, each valid for ir_measures; a cut-off a positive integer, rel at least 1."""
    supported = measure.SUPPORTED_PARAMS
    unknown = sorted(set(measure.params) - set(supported))
    if unknown:
        raise InputError(
            f"measure {name!r}: unknown parameter {', '.join(unknown)} (it takes {', '.join(supported) or 'none'})"
        )
    for key in ("cutoff", "rel"):
        value = measure.params.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            what = "the cut-off" if key == "cutoff" else "rel (the lowest grade counted relevant)"
            raise InputError(f"measure {name!r}: {what} must be a positive integer, not {value!r}")
    for key, info in supported.items():
        if info.required and key not in measure.params:
            example = f"{measure.NAME}@10" if key == measure.AT_PARAM else f"{measure.NAME}({key}=…)"
            raise InputError(f"measure {name!r}: needs the parameter {key} (e.g. {example})")
        if key in measure.params and not info.validate(measure.params[key]):
            raise InputError(f"measure {name!r}: invalid {key} {measure.params[key]!r}")


@functools.cache
def _provider_problem(measure) -> str | None:
    """Why no ir_measures provider installed here computes `measure`, or None: one that supports it computes it on a
    one-query toy qrels and run (some fail only then: gdeval's ERR needs a perl script that rejects its input)."""
    import ir_measures

    providers = [p for p in ir_measures.DefaultPipeline.providers if p.supports(measure)]
    available = [p for p in providers if p.is_available()]
    if not available:
        missing = "; ".join(
            f"{p.NAME} would ({p.install_instructions()})" if p.install_instructions() else f"{p.NAME} would"
            for p in providers
        )
        return "no ir_measures provider installed here computes it" + (f" ({missing})" if missing else "")
    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1, "d5": 0}}
    run = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0, "d6": 0.5}, "q2": {"d5": 2.0, "d4": 1.0}}
    with _silenced_stderr():  # a provider's tool (gdeval's perl) writes its complaint to the inherited stderr
        try:
            for metric in ir_measures.iter_calc([measure], qrels, run):
                float(metric.value)
        except Exception as err:
            why = _one_line(err)
            why = why if len(why) <= 120 else why[:119] + "…"
            return f"ir_measures' provider {available[0].NAME} fails on it here ({type(err).__name__}: {why})"
    return None


@contextmanager
def _silenced_stderr():
    """File descriptor 2 pointed at the null device for the block (nothing of it reaches the user)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to silence
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def evaluation_settings(table: dict) -> tuple[list[str], list, dict]:
    """A config's [evaluation] table as (ir_measures measure names, GSR cut-offs of its GSR / GSR@K measures in order
    (None for a bare GSR: the [gsr] cutoff), checked EVALUATION_PARAMS); InputError or ParamError naming the key
    otherwise."""
    statistics = check_params(
        EVALUATION_PARAMS, {k: v for k, v in table.items() if k not in ("measures", "baseline")}, "evaluation."
    )
    from gsr.integrations.ir_measures_gsr import is_gsr_measure, parse_measure_name

    if statistics["resamples"] == 0:  # gsr score takes 0 (no intervals, no tests); every table here is tested
        raise InputError(
            "evaluation.resamples must be ≥ 1 in an experiment: its tables mark randomisation tests "
            "drawn from it (0 means no intervals and no tests, which only gsr score offers)"
        )
    listed = [str(m) for m in table.get("measures", DEFAULT_MEASURES)]
    measures = [m for m in listed if not is_gsr_measure(m)]
    try:
        parse_measures(measures)
    except InputError as err:
        raise InputError(f"evaluation.measures: {err}") from None
    cutoffs = []
    for name in (m for m in listed if is_gsr_measure(m)):
        try:
            kind, cutoff = parse_measure_name(name)
        except InputError as err:
            raise InputError(f"evaluation.measures: {err}") from None
        if kind != "GSR":
            raise InputError(
                f"evaluation.measures: {name!r} is a per-query value (written to the per-query "
                "outputs), not a measure of the results table; use GSR@K"
            )
        cutoff = "relevant" if cutoff == "rel" else cutoff  # None: bare "GSR", the [gsr] cutoff
        if cutoff in cutoffs:
            raise InputError(f"evaluation.measures names {name!r} twice")
        cutoffs.append(cutoff)
    return measures, cutoffs, statistics


def display_name(measure) -> str:
    """The paper's column name of a measure (AP averaged over queries is MAP); machine-readable outputs keep
    ir_measures' name."""
    return DISPLAY_NAMES.get(str(measure), str(measure))


def display_column(column: str) -> str:
    """A table column as displayed: its leading measure name in the paper's spelling ('AP strong' → 'MAP strong')."""
    head, space, rest = column.partition(" ")
    return display_name(head) + space + rest


@dataclass
class Effectiveness:
    """One system's per-query values for each measure, over a fixed set of evaluated queries."""

    per_query: dict[str, dict[str, float]]  # measure -> qid -> value

    def mean(self, measure: str) -> float:
        values = self.per_query[measure]
        return sum(values.values()) / len(values) if values else math.nan


NATIVE_VARIABLE = "GSR_NATIVE_MEASURES"  # "0": every measure by ir_measures (what the tests compare the native ones to)


def evaluate_run(run, qrels: Qrels, measures, query_ids: list[str], native: bool | None = None) -> Effectiveness:
    """Per-query values of `measures` on `query_ids`; a query the run does not answer scores 0 (as trec_eval -c).

    `run` is a Run or a gsr.io.run_arrays.RunArrays. The measures gsr.effectiveness.native computes (P@k, R@k, RR,
    RR@k, AP, AP@k, nDCG, nDCG@k) are computed from the run's arrays, each value the double ir_measures gives; the
    others by ir_measures. `native` False (default: not when $GSR_NATIVE_MEASURES is 0): all by ir_measures."""
    wanted = set(query_ids)
    qrels_in = {q: qrels[q] for q in query_ids if q in qrels}
    per_query: dict[str, dict[str, float]] = {str(m): {q: 0.0 for q in query_ids} for m in measures}
    rest = list(measures)
    if native is None:
        native = os.environ.get(NATIVE_VARIABLE, "1") != "0"
    if native and rest:
        from gsr.effectiveness.native import evaluate_into

        rest = evaluate_into(run, qrels_in, rest, per_query)
    if rest:
        import ir_measures

        if not isinstance(run, dict):  # RunArrays
            from gsr.effectiveness.native import plain_run

            run = plain_run(run)
        run_in = {q: {d: float(s) for d, s in run.get(q, [])} for q in query_ids if run.get(q)}
        if run_in:
            for metric in ir_measures.iter_calc(rest, qrels_in, run_in):
                if metric.query_id in wanted:
                    per_query[str(metric.measure)][metric.query_id] = float(metric.value)
    return Effectiveness(per_query)


def paired_test(
    system: dict[str, float],
    baseline: dict[str, float],
    test: str = "t",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> float | None:
    """Two-sided p-value of a paired test over the queries both were evaluated on: "t" (Student's paired t-test),
    "wilcoxon" (signed-rank, zero differences dropped, exact for small samples as scipy decides) or "randomization"
    (sign flips of the per-query differences, gsr.uncertainty). None when no query differs or fewer than two are
    shared (nothing to test)."""
    if test not in TESTS:
        raise ParamError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    common = sorted(set(system) & set(baseline))
    if len(common) < 2:
        return None
    a = [system[q] for q in common]
    b = [baseline[q] for q in common]
    if all(x == y for x, y in zip(a, b)):
        return None
    if test == "t":
        p = paired_t_test(a, b)
    elif test == "wilcoxon":
        from scipy import stats

        p = stats.wilcoxon(a, b).pvalue
    else:
        from gsr.uncertainty import randomization_test

        p = randomization_test(a, b, resamples=resamples, seed=seed).p_value
    return None if math.isnan(p) else float(p)


def measure_entries(
    effectiveness: dict[str, Effectiveness],
    measures,
    baseline: str | None,
    tested,
    test: str = "t",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, dict]:
    """Each system's mean of each measure and, for the systems in `tested` other than the baseline, the p-value of
    `test` against the baseline over the evaluated queries: {system: {measure: {"mean", "p_value"}}}. The results
    table of `gsr run` and `gsr score --measures` both read their effectiveness columns from here."""
    reference = effectiveness.get(baseline) if baseline is not None else None
    entries: dict[str, dict] = {}
    for name, eff in effectiveness.items():
        entries[name] = {}
        for measure in map(str, measures):
            p = None
            if reference is not None and name in tested and name != baseline:
                p = paired_test(eff.per_query[measure], reference.per_query[measure], test, resamples, seed)
            entries[name][measure] = {"mean": finite(eff.mean(measure)), "p_value": p}
    return entries


def paired_t_test(a: list[float], b: list[float]) -> float:
    """Two-sided p-value of Student's paired t-test, computed as scipy.stats.ttest_rel computes it (a test holds them
    equal to the last bit): d = a − b, t = mean(d) / √(var(d, ddof=1) / n), p = 2 · stdtr(n − 1, −|t|). Written out
    because importing scipy.stats takes half a second, twice what the rest of `gsr score` takes."""
    import numpy as np
    from scipy.special import stdtr

    differences = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = len(differences)
    mean = np.mean(differences)
    variance = np.mean((differences - mean) ** 2) * (n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):  # equal differences: t = ±inf (p = 0), or NaN if all 0
        t = np.divide(mean, np.sqrt(variance / n))
    return float(2 * stdtr(n - 1, -np.abs(t)))


def significance_mark(p: float | None) -> str:
    """‡ for p < 0.01, † for p < 0.05 (the paper's Table 3 marks), '' otherwise."""
    if p is None:
        return ""
    return "‡" if p < 0.01 else "†" if p < 0.05 else ""


CORRECTED = {"holm": "Holm-corrected", "bonferroni": "Bonferroni-corrected", "none": "uncorrected"}  # as notes say it


def correct_family(entries: list[dict], correction: str) -> None:
    """Adjust the "p_value" of every entry (one family: the tests behind one table's marks) in place: each gets
    "p_adjusted" and the "mark" of its adjusted p-value."""
    from gsr.uncertainty import adjust_p_values  # numpy: not for the command-line parser, which reads TESTS

    for entry, adjusted in zip(entries, adjust_p_values([e["p_value"] for e in entries], correction)):
        entry["p_adjusted"] = adjusted
        entry["mark"] = significance_mark(adjusted)


def correct_p_columns(rows: list[dict], correction: str) -> None:
    """Every '… p' column of a table is one family (correct_family): each gets '… p adjusted' and '… mark'."""
    entries = [(row, key[:-2]) for row in rows for key in list(row) if key.endswith(" p")]
    family = [{"p_value": row[f"{stem} p"]} for row, stem in entries]
    correct_family(family, correction)
    for (row, stem), entry in zip(entries, family):
        row[f"{stem} p adjusted"] = entry["p_adjusted"]
        row[f"{stem} mark"] = entry["mark"]


def marks_note(test: str, correction: str, what: str) -> str:
    """The sentence a table's notes give about its marks: which test, against what, and which correction."""
    corrected = CORRECTED[correction]
    return (
        f"† / ‡: {TEST_NAMES[test]} {what}, {corrected} p < 0.05 / p < 0.01 "
        f"(correction over every test marked in this table)."
    )


def check_run_ids(run: Run, docids: set[str], name: str) -> None:
    """A run whose documents are mostly unknown to the collection was made on another collection."""
    retrieved = {d for ranked in run.values() for d, _ in ranked}
    if retrieved and not retrieved & docids:
        example = next(iter(sorted(retrieved)))
        raise InputError(f"run {name}: none of its documents is in the collection (e.g. {example})")
