"""Feng & Shah's adversarial query probe (§3): occupation queries with a location word appended ('CEO' → 'CEO United
States'), run through every system again, and how GSR and the label-based measures move — a robustness check of a
system's stereotype behaviour under an innocuous query edit.

The paper appends 'United States' to each occupation (every experiment) and 'UK' to 'CEO' (Fig. 1); those are the
default words. The modified queries run through the same machinery as the originals (Experiment.with_queries: the
probed queries keep their ids and get the word; runs are cached under the new queries), so re-rankers see the edit as
any user's query would, and trained rankers score it with the models they trained on the original queries, as a
deployed ranker meets an edited query (nothing is retrained; before 2026-11 the probe retrained them on the edited
queries, which changed the model as well as the query). The appended words also change g(q), which GSR regresses on: the
table reports the mean change of g(q) (Δg) and the perfect engine's GSR on both query sets, whose difference comes
from that alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.analyses.common import AnalysisError, mean_paired_difference, panel_grid
from experiments.analyses.probe_queries import ALL, CATEGORY_PREFIX, OCCUPATION_QUERIES, probe_queries
from experiments.document_labels import BIAS_PARAMS, bias_settings, cached_bias_of_runs, collection_labels
from experiments.parts import cached_parts
from experiments.per_system import lazy_runs
from experiments.registry import ANALYSES, AnalysisType
from experiments.report.plotly_charts import probe_chart
from experiments.report.png_figures import draw_figure
from experiments.report.tables import write_table
from gsr.errors import InputError
from gsr.evaluate import GSR, relative_to_perfect
from gsr.fairness.evaluate import per_query_value
from gsr.infra.numeric import finite
from gsr.infra.params import Param, ParamError
from gsr.infra.progress import progress
from gsr.io.types import run_subset

PAPER_WORDS = ("United States", "UK")
PROBE_MEASURES = ("KL", "FSKL", "NDKL", "MB_female", "MAB_female", "ARaB")
WORD_COLOURS = ("#e66101", "#5e3c99", "#1b9e77", "#377eb8", "#999999")


def appended(queries: dict[str, str], probed: list[str], word: str) -> dict[str, str]:
    """Every query, the probed ones with `word` appended (Feng & Shah's 'occupation + country')."""
    return {q: f"{text} {word}" if q in probed else text for q, text in queries.items()}


@dataclass
class AdversarialProbe:
    """Per (system, appended word): GSR before and after, Δg(q), and each label-based measure before, after and its
    mean per-query change; the probed queries and the settings."""

    words: list[str]
    queries: list[str]
    selection: str
    settings: dict
    rows: list[dict]

    def to_dict(self) -> dict:
        return {
            "words": self.words,
            "queries": self.queries,
            "selection": self.selection,
            "settings": self.settings,
            "rows": self.rows,
        }


def _gsr_values(measure: GSR, runs: dict, queries, gendered, qrels, probed) -> dict[str, tuple]:
    """{system: (its GSR, the perfect engine's GSR, {qid: g(q)})} over the probed queries; the engines are measured
    once for all systems (GSR.evaluate_many)."""
    reports = measure.evaluate_many(
        {name: run_subset(run, probed) for name, run in runs.items()},
        {q: queries[q] for q in probed},
        gendered,
        {q: qrels[q] for q in probed if q in qrels},
    )
    values = {}
    for name, report in reports.items():
        perfect = report.perfect
        assert perfect is not None  # measured: qrels were given
        values[name] = (report.system, perfect, {p.qid: p.g_query for p in perfect.per_query if p.g_query is not None})
    return values


def _cached_gsr_values(experiment, measuring: str, runs, keys: dict[str, str], queries, probed) -> dict[str, tuple]:
    """_gsr_values of the runs `keys` names ({name: the run's content key}) on `queries`, one cached part per run
    (experiments.parts), keyed by the run, the probed queries' texts, the measuring lexicon, the text handling, the
    cut-off and the collection."""
    from experiments.per_system import analyzer_key, collection_key, lexicon_key

    config, collection = experiment.config, experiment.collection
    settings = (
        collection_key(experiment),
        lexicon_key(experiment, measuring),
        analyzer_key(experiment),
        config.cutoff,
        config.random_seed,
        [(q, queries[q]) for q in probed],
    )

    def measured(missing: list[str]) -> dict[str, tuple]:
        measure = GSR(
            experiment.lexicon(measuring),
            experiment.analyzer,
            cutoff=config.cutoff,
            random_seed=config.random_seed,
            resamples=0,  # the probe reports point values only: 10,000 resamples per system and word cost ~15 s
        )
        missing_runs = {name: runs[name] for name in missing}
        return _gsr_values(measure, missing_runs, queries, experiment.gendered(measuring), collection.qrels, probed)

    return cached_parts("probe gsr", {name: (*settings, key) for name, key in keys.items()}, measured)


def compute(experiment, result, options: dict) -> AdversarialProbe:
    """Every probed system's runs on the modified queries, and the measures' changes."""
    from experiments.experiment_result import PERFECT

    config, collection = result.config, result.collection
    occupations = options["probe_occupations"]
    if occupations is not None and not Path(occupations).is_absolute() and config.path is not None:
        occupations = config.path.resolve().parent / occupations
    try:
        probed = probe_queries(collection, result.evaluated_queries, options["probe_queries"], occupations)
    except InputError as err:
        raise AnalysisError(str(err)) from None
    if not probed:
        raise AnalysisError(
            f"no {options['probe_queries']} query among the {len(result.evaluated_queries)} judged topics to probe"
        )
    wanted = options["probe_systems"]
    systems = [s for s in config.systems if wanted == ALL or s.name in wanted]
    unknown = [] if wanted == ALL else sorted(set(wanted) - {s.name for s in config.systems})
    if unknown:
        raise AnalysisError(f"probe_systems names no system of the config: {', '.join(unknown)}")
    names = [s.name for s in systems]
    measuring = config.measuring[0]
    k = bias_settings(options).k
    try:
        labels = collection_labels(experiment, options["bias_labels"])
        engine_and_systems = {name: result.run_keys[name] for name in [PERFECT, *names]}
        before_bias = cached_bias_of_runs(experiment, result.runs, engine_and_systems, probed, options)
    except InputError as err:
        raise AnalysisError(str(err)) from None
    keys = {name: result.run_keys[name] for name in names}
    before = _cached_gsr_values(experiment, measuring, result.runs, keys, collection.queries, probed)
    rows = []
    for word in options["probe_words"]:
        queries = appended(collection.queries, probed, word)
        # only the probed queries change; every system ranks each query on its own, and trained ones keep the models
        # they trained on the original queries
        derived = experiment.with_queries({q: queries[q] for q in probed}, reuse_training=True)
        with experiment.step(f"adversarial probe: queries + {word!r}"):
            probing = progress(systems, desc=f"adversarial probe: queries + {word!r}", unit="system")
            keys = {s.name: derived.run_digest(s) for s in probing}
        runs = lazy_runs(derived, systems)
        try:
            after_bias = cached_bias_of_runs(derived, runs, keys, probed, options)
        except InputError as err:
            raise AnalysisError(str(err)) from None
        after = _cached_gsr_values(experiment, measuring, runs, keys, queries, probed)
        for index, system in enumerate(systems):
            gsr_before, perfect_before, g_before = before[system.name]
            gsr_after, perfect_after, g_after = after[system.name]
            perfect = (perfect_before, perfect_after)
            if index == 0:
                # the perfect engine's documents do not change: only g(q) moves its GSR
                rows.append(
                    _row(
                        PERFECT,
                        word,
                        probed,
                        (perfect_before, perfect_after),
                        perfect,
                        (g_before, g_after),
                        (before_bias[PERFECT], before_bias[PERFECT]),
                        k,
                    )
                )
            rows.append(
                _row(
                    system.name,
                    word,
                    probed,
                    (gsr_before, gsr_after),
                    perfect,
                    (g_before, g_after),
                    (before_bias[system.name], after_bias[system.name]),
                    k,
                )
            )
    return AdversarialProbe(
        list(options["probe_words"]),
        probed,
        options["probe_queries"],
        {"labels": labels.source, "k": k, "measuring": measuring},
        rows,
    )


def _row(system: str, word: str, probed, gsr: tuple, perfect: tuple, g: tuple, bias: tuple, k: int) -> dict:
    """One (system, word) row: GSR and relative GSR before (X) and after (X′) the edit, Δg(q), and each label-based
    measure before, after and its mean per-query change."""
    (before, after), (bias_before, bias_after) = gsr, bias
    relative = [relative_to_perfect(result, reference)[0] for result, reference in zip(gsr, perfect)]
    row = {
        "system": system,
        "appended": word,
        "queries": len(probed),
        "GSR": finite(before.gsr),
        "GSR′": finite(after.gsr),
        "ΔGSR": None if before.gsr is None or after.gsr is None else after.gsr - before.gsr,
        "rel. GSR %": relative[0],
        "rel. GSR′ %": relative[1],
        "Δrel. GSR %": None if relative[0] is None or relative[1] is None else relative[1] - relative[0],
        "Δg(q)": mean_paired_difference(g[1], g[0]),
    }
    for kind in PROBE_MEASURES:
        name = f"{kind}@{k}"
        if name not in bias_before.measures:
            continue
        value_of = per_query_value(name)
        values = [
            {q.qid: value_of(q) for q in report.per_query if value_of(q) is not None}
            for report in (bias_before, bias_after)
        ]
        row.update(
            {
                name: bias_before.measures[name],
                f"{name}′": bias_after.measures[name],
                f"Δ{name}": mean_paired_difference(values[1], values[0]),
            }
        )
    return row


def probe_figure(probe: AdversarialProbe, columns: int = 4):
    """One panel per measure (ΔGSR, Δ of each label-based measure): a horizontal bar per system and appended word."""
    panels = [c for c in probe.rows[0] if c.startswith("Δ") and c != "Δg(q)"] if probe.rows else []
    if not panels:
        raise AnalysisError("plot_probe: nothing to plot")
    systems = list(dict.fromkeys(row["system"] for row in probe.rows))
    fig, axes = panel_grid(len(panels), columns, 3.4, 0.2 * len(systems) + 1.2)
    height = 0.8 / max(1, len(probe.words))
    for panel_index, (ax, panel) in enumerate(zip(axes, panels)):
        for w, word in enumerate(probe.words):
            values = {row["system"]: row.get(panel) for row in probe.rows if row["appended"] == word}
            y = np.arange(len(systems))[::-1] + w * height
            x = [np.nan if values.get(s) is None else values[s] for s in systems]
            ax.barh(y, x, height=height, color=WORD_COLOURS[w % len(WORD_COLOURS)], label=f"+ {word}")
        ax.axvline(0, color="#777777", lw=0.7)
        ticks = np.arange(len(systems))[::-1] + height * (len(probe.words) - 1) / 2
        ax.set_yticks(ticks, systems if panel_index % columns == 0 else [""] * len(systems), fontsize=7)
        ax.set_title(panel, fontsize=9)
        ax.grid(axis="x", alpha=0.25)
    axes[0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def plot_probe(probe: AdversarialProbe, path, columns: int = 4) -> Path:
    """The probe's figure as a PNG at `path` (probe_figure)."""
    return draw_figure(probe_figure, (probe, columns), path)


def write(probe: AdversarialProbe, out: Path, plots: bool) -> dict[str, Path]:
    """adversarial_probe.* (the changes), adversarial_probe_values.* (every value) and, with plots, its PNG."""
    note = (
        f"Feng & Shah §3: each of the {len(probe.queries)} probed queries ({probe.selection}) with a word "
        f"appended; X: the measure on the original queries, X′: on the modified ones, ΔX: X′ − X (for the "
        "label-based measures the mean per-query change over the queries where both are defined). GSR over the "
        f"probed queries under {probe.settings['measuring']}; Δg(q): mean change of the queries' genderedness, "
        "which moves GSR by itself (see the perfect engine's row: its documents do not change); rel. GSR, "
        "against the perfect engine on the same queries, takes that out. Labels: "
        f"{probe.settings['labels']}, k = {probe.settings['k']}. Words beyond 'United States' and 'UK' are "
        "gsr-bench's extension of the paper's probe."
    )
    changes = [
        {
            c: v
            for c, v in row.items()
            if c in ("system", "appended", "queries", "GSR", "GSR′", "rel. GSR %", "rel. GSR′ %") or c.startswith("Δ")
        }
        for row in probe.rows
    ]
    written = write_table(
        out,
        "adversarial_probe",
        "Adversarial query probe: occupation queries with a location word appended",
        changes,
        note,
    )
    written.update(
        write_table(
            out,
            "adversarial_probe_values",
            "Adversarial query probe: every measure before (X) and after (X′) the edit",
            probe.rows,
            note,
        )
    )
    if plots and probe.rows:
        written["adversarial_probe"] = plot_probe(probe, out / "adversarial_probe.png")
    return written


def _words(value, label: str) -> list[str]:
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return [" ".join(v.split()) for v in value]
    raise ParamError(f"{label} must be a non-empty list of words or phrases, not {value!r}")


def _selection(value, label: str) -> str:
    if isinstance(value, str) and (
        value in (OCCUPATION_QUERIES, ALL) or (value.startswith(CATEGORY_PREFIX) and value[len(CATEGORY_PREFIX) :])
    ):
        return value
    raise ParamError(f"{label} must be occupations, all or category:NAME, not {value!r}")


def _systems(value, label: str) -> list[str] | str:
    if value == ALL:
        return ALL
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise ParamError(f"{label} must be 'all' or a list of system names, not {value!r}")


ANALYSES.register(
    AnalysisType(
        "adversarial_probe",
        "Feng & Shah's adversarial query probe: occupation queries with a location word appended "
        "('United States', 'UK'), every system run again; the change of GSR, g(q) and the label-based measures",
        compute,
        write,
        params=(
            Param(
                "probe_words",
                object,
                list(PAPER_WORDS),
                "words appended to each probed query (the paper's: United States, UK)",
                validator=_words,
                range_help="a list of words or phrases",
            ),
            Param(
                "probe_queries",
                object,
                OCCUPATION_QUERIES,
                "the probed queries: those naming an occupation, all, or category:NAME",
                validator=_selection,
                range_help="occupations, all or category:NAME",
            ),
            Param(
                "probe_occupations",
                str,
                None,
                "occupation list, one per line, relative to the config file "
                "(default: the project's, experiments/wordlists/occupations.txt)",
            ),
            Param(
                "probe_systems",
                object,
                ALL,
                "the systems probed: all, or a list of names (re-run on the "
                "modified queries; trained ones score them with the models trained on the originals)",
                validator=_systems,
                range_help="all or names",
            ),
            *BIAS_PARAMS,
        ),
        default=False,
        needs="switched on (adversarial_probe = true): it runs every probed system again per word",
        writes=("adversarial_probe", "adversarial_probe_values"),
        charts=lambda value: {"adversarial_probe": probe_chart(value)},
    )
)
