"""Ground-truth gender (Grep-BiasIR): how each system ranks the female, male and neutral versions of the same
document, per query category and overall — the share of queries whose version a ranks above version b, the mean
rank difference, their bootstrap intervals and a randomisation test of the difference, corrected over the table."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.analyses.common import AnalysisError, panel_grid
from experiments.parts import cached_part
from experiments.per_system import collection_key
from experiments.registry import ANALYSES, COLLECTION_KINDS, AnalysisType
from experiments.report.plotly_charts import gender_versions_chart
from experiments.report.png_figures import FEMALE_COLOUR, draw_figure
from experiments.report.tables import write_table
from gsr.infra.params import Param
from gsr.io.types import Run
from gsr.uncertainty import bootstrap_mean, sign_flip_test

VERSIONS = ("female", "male", "neutral")
PAIRS = (("female", "male"), ("neutral", "male"), ("neutral", "female"))
TESTED_PAIR = ("female", "male")  # the one pair tested (the others have intervals): a smaller family to correct
OVERALL = "all"
# Anserini rounds scores to 4 decimals and orders exact ties by document id, subtracting 1e-6 per document: the
# versions of a document, which a lexical system scores alike, would otherwise be ranked by their ids.
TIE_TOLERANCE = 2e-6


def document_ranks(
    ranked: list[tuple[str, float]], n_documents: int, tolerance: float = 0.0
) -> tuple[dict[str, float], float]:
    """({docid: rank}, rank of every document not retrieved): documents whose scores are tied share the mean of the
    positions they span (a tie runs on while each next score is within `tolerance` of the previous one); the
    unretrieved ones share the mean of the positions after the list, up to n_documents."""
    ranks: dict[str, float] = {}
    start = 0
    while start < len(ranked):
        end = start
        while end + 1 < len(ranked) and ranked[end][1] - ranked[end + 1][1] <= tolerance:
            end += 1
        for docid, _ in ranked[start : end + 1]:
            ranks[docid] = (start + end + 2) / 2
        start = end + 1
    return ranks, (len(ranked) + 1 + max(n_documents, len(ranked))) / 2


def version_ranks(
    run: Run,
    qrels: Mapping[str, Mapping[str, int]],
    genders: Mapping[str, str],
    n_documents: int,
    relevant: bool = True,
    tolerance: float = 0.0,
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Per query, the rank of each gendered version (female, male, neutral) of its relevant (or non-relevant)
    document: ({qid: {version: rank}}, queries skipped because they lack one version or have two)."""
    out, skipped = {}, []
    for qid in sorted(qrels):
        versions: dict[str, str] = {}
        for docid, grade in qrels[qid].items():
            if (grade > 0) == relevant and genders.get(docid) in VERSIONS:
                if genders[docid] in versions:
                    versions = {}
                    break
                versions[genders[docid]] = docid
        if set(versions) != set(VERSIONS):
            skipped.append(qid)
            continue
        ranks, unretrieved = document_ranks(run.get(qid, []), n_documents, tolerance)
        out[qid] = {version: ranks.get(docid, unretrieved) for version, docid in versions.items()}
    return out, skipped


def compare_versions(
    ranks: Mapping[str, Mapping[str, float]],
    a: str,
    b: str,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    test: bool = True,
) -> dict:
    """Version a against version b over the queries of `ranks`: the share of queries ranking a above b (a tie counts
    1/2), the mean rank difference rank(a) − rank(b) (negative: a ranked higher), their percentile bootstrap intervals
    and the p-value of a paired randomisation test of the mean difference (H0: the two versions are exchangeable)."""
    differences = np.array([ranks[q][a] - ranks[q][b] for q in sorted(ranks)], dtype=np.float64)
    above = np.where(differences < 0, 1.0, np.where(differences == 0, 0.5, 0.0))
    n = len(differences)
    entry: dict[str, Any] = {
        "queries": n,
        "share": None,
        "share_ci": None,
        "difference": None,
        "difference_ci": None,
        "p_value": None,
    }
    if n == 0:
        return entry
    share_ci, difference_ci = (bootstrap_mean(v, resamples, level, seed) for v in (above, differences))
    entry.update(
        share=float(above.mean()),
        share_ci=share_ci.to_list(),
        difference=float(differences.mean()),
        difference_ci=difference_ci.to_list(),
    )
    if test and differences.any():
        entry["p_value"] = sign_flip_test(differences / n, resamples, seed).p_value
    return entry


@dataclass
class GenderVersions:
    """Every system's comparison of the gendered versions, per category ('all': every query), and what was skipped."""

    documents: str  # "relevant" or "non-relevant": whose versions are compared
    comparisons: dict[str, dict[str, dict[str, dict]]]  # system -> category -> "a>b" -> compare_versions entry
    skipped: dict[str, list[str]]  # system -> queries without exactly one version of each gender
    correction: str = "holm"  # over every test of the table
    tie_tolerance: float = 0.0

    def to_dict(self) -> dict:
        return {
            "documents": self.documents,
            "tie_tolerance": self.tie_tolerance,
            "comparisons": self.comparisons,
            "skipped": self.skipped,
        }

    def rows(self) -> list[dict]:
        """One row per (system, category): per pair the share, the mean rank difference (with interval bounds), its
        p-value, corrected over the whole table ('p adjusted', 'mark')."""
        from gsr.effectiveness.evaluate import correct_p_columns

        rows = []
        for system, categories in self.comparisons.items():
            for category, pairs in categories.items():
                row = {"system": system, "category": category, "queries": next(iter(pairs.values()))["queries"]}
                for key, entry in pairs.items():
                    a, b = key.split(">")
                    share, rank = f"{a} above {b}", f"rank {a} − {b}"
                    row.update(
                        {
                            share: entry["share"],
                            f"{share} ci low": (entry["share_ci"] or [None])[0],
                            f"{share} ci high": (entry["share_ci"] or [None, None])[1],
                            rank: entry["difference"],
                            f"{rank} ci low": (entry["difference_ci"] or [None])[0],
                            f"{rank} ci high": (entry["difference_ci"] or [None, None])[1],
                        }
                    )
                    if (a, b) == TESTED_PAIR:
                        row[f"{rank} p"] = entry["p_value"]
                rows.append(row)
        correct_p_columns(rows, self.correction)
        return rows


def compute(experiment, result, options: dict) -> GenderVersions:
    """Each system's (and the perfect and random engines') ranks of the versions, compared per category."""
    from experiments.collections import collection_docids
    from experiments.experiment_result import PERFECT, RANDOM

    config, collection = experiment.config, result.collection
    if not collection.document_genders:
        raise AnalysisError(f"collection {collection.name} has no per-document gender labels")
    relevant = options["versions_of"] == "relevant"
    n_documents = len(collection_docids(collection.documents))
    judged = {q: collection.qrels[q] for q in collection.qrels if q in collection.queries}

    def compared(name: str) -> tuple[dict, list]:
        ranks, missing = version_ranks(
            result.runs[name], judged, collection.document_genders, n_documents, relevant, options["tie_tolerance"]
        )
        groups = {OVERALL: sorted(ranks)}
        for qid in sorted(ranks):
            groups.setdefault(collection.query_categories.get(qid, "uncategorised"), []).append(qid)
        comparison = {
            category: {
                f"{a}>{b}": compare_versions(
                    {q: ranks[q] for q in qids},
                    a,
                    b,
                    config.resamples,
                    config.level,
                    config.seed,
                    test=(a, b) == TESTED_PAIR,
                )
                for a, b in PAIRS
            }
            for category, qids in groups.items()
        }
        return comparison, missing

    # a system's part (experiments.parts): its run, the collection, the options and the statistics' settings
    shared = (
        collection_key(experiment),
        options["versions_of"],
        options["tie_tolerance"],
        [config.resamples, config.level, config.seed],
    )
    comparisons, skipped = {}, {}
    for name in [s.name for s in config.systems] + [PERFECT, RANDOM]:
        key = (*shared, result.run_keys[name])
        comparisons[name], skipped[name] = cached_part("gender versions", key, functools.partial(compared, name))
    return GenderVersions(options["versions_of"], comparisons, skipped, config.correction, options["tie_tolerance"])


def gender_versions_figure(versions: GenderVersions, columns: int = 4):
    """Per category (first: all queries), each system's share of queries ranking the female version above the male
    one, with its bootstrap interval; the dashed line at 0.5 is no preference."""
    systems = list(versions.comparisons)
    categories = list(next(iter(versions.comparisons.values())))
    fig, axes = panel_grid(len(categories), columns, 3.4, 0.28 * len(systems) + 1.2)
    for index, (ax, category) in enumerate(zip(axes, categories)):
        entries = [versions.comparisons[s][category]["female>male"] for s in systems]
        shares = np.array([np.nan if e["share"] is None else e["share"] for e in entries])
        lows = np.array([np.nan if not e["share_ci"] else e["share_ci"][0] for e in entries])
        highs = np.array([np.nan if not e["share_ci"] else e["share_ci"][1] for e in entries])
        y = np.arange(len(systems))[::-1]
        ax.errorbar(
            shares,
            y,
            xerr=[shares - lows, highs - shares],
            fmt="o",
            color=FEMALE_COLOUR,
            ms=4,
            ecolor="#777777",
            elinewidth=1,
            capsize=2,
        )
        ax.axvline(0.5, color="#999999", ls="--", lw=0.8)
        ax.set_xlim(0, 1)
        ax.set_yticks(y, systems if index % columns == 0 else [""] * len(systems), fontsize=7)
        n = entries[0]["queries"]
        ax.set_title(f"{category} (n = {n})", fontsize=9)
        ax.set_xlabel("share: female version above male", fontsize=8)
        ax.grid(axis="x", alpha=0.25)
    fig.tight_layout()
    return fig


def plot_gender_versions(versions: GenderVersions, path, columns: int = 4) -> Path:
    """The gender versions' figure as a PNG at `path` (gender_versions_figure)."""
    return draw_figure(gender_versions_figure, (versions, columns), path)


def write(versions: GenderVersions, out: Path, plots: bool) -> dict[str, Path]:
    """gender_versions.{md,tex,csv,json} (one row per system and category) and, with plots, its PNG."""
    note = (
        f"Versions of each query's {versions.documents} document. 'a above b': share of queries whose a version "
        "ranks above its b version (ties 1/2); 'rank a − b': mean rank difference (negative: a ranked higher; a "
        "document not retrieved shares the mean of the positions below the list; scores within "
        f"{versions.tie_tolerance:g} of each other are tied). [low, high]: percentile "
        "bootstrap intervals over queries. † / ‡ on the female − male rank difference: paired randomisation test "
        f"of the mean difference (H0: the two versions are exchangeable), {versions.correction} correction over "
        "the table's tests, p < 0.05 / p < 0.01."
    )
    written = write_table(
        out,
        "gender_versions",
        "Ranks of the female, male and neutral versions of the same document (Grep-BiasIR)",
        versions.rows(),
        note,
    )
    if plots:
        written["gender_versions"] = plot_gender_versions(versions, out / "gender_versions.png")
    return written


ANALYSES.register(
    AnalysisType(
        "gender_versions",
        "how each system ranks the female, male and neutral versions of the same document, per query "
        "category and overall (share ranked above, mean rank difference, intervals, corrected tests)",
        compute,
        write,
        params=(
            Param(
                "versions_of",
                str,
                "relevant",
                "whose versions are compared: each query's relevant or non-relevant document",
                choices=("relevant", "non-relevant"),
            ),
            Param(
                "tie_tolerance",
                float,
                TIE_TOLERANCE,
                "scores this close to the next one are tied (Anserini breaks "
                "exact ties by document id, subtracting 1e-6 per document)",
                minimum=0,
            ),
        ),
        needs="a collection with per-document gender labels (kind grepbiasir)",
        applicable=lambda config: "document_gender" in COLLECTION_KINDS.get(config.collection["kind"]).provides,
        writes=("gender_versions",),
        charts=lambda value: {"gender_versions": gender_versions_chart(value)},
    )
)
