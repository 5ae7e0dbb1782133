"""Re-rankers and the label-based measures inside `gsr run`: config sweeps and checks, the side-by-side table, the
re-rankers' tests against their upstream run, seeds summarised, the trade-off plot and the adversarial probe —
every number recomputed from the runs through the library."""

from __future__ import annotations

import statistics
import tomllib

import pytest
from matplotlib.colors import to_hex

from experiments.analyses.adversarial_probe import AdversarialProbe, plot_probe, probe_figure
from experiments.analyses.label_bias import LabelBias, plot_tradeoff, tradeoff_figure
from experiments.config.experiment import BUILTIN_CONFIGS, load_config, parse_config
from experiments.config.params import ConfigError
from experiments.experiment_result import PERFECT, RANDOM
from experiments.report import write_report
from experiments.runner import Experiment
from gsr.equations import query_genderedness
from gsr.evaluate import relative_to_perfect
from gsr.fairness import BiasMeasures, BiasSettings, FaiRRMeasures, FaiRRSettings, gendered_word_counts
from tests.support.configs import config_with, robust04_config
from tests.support.figures import ORANGE_MALE, PURPLE_FEMALE, assert_png, colours, legend_labels, panels, points, texts

RERANKERS = [
    {
        "name": "EG",
        "model": "rerank",
        "rerank": "w2v_add",
        "method": "epsilon_greedy",
        "epsilon": [0.2, 0.6],
        "seed": [0, 1],
    },
    {"name": "FG", "model": "rerank", "rerank": "w2v_add", "method": "fairness_greedy"},
    {"name": "Dash", "model": "rerank", "rerank": "w2v_add", "method": "dash", "w_r": 0.3},
]


def test_sweeps_name_one_system_per_value_and_record_the_values():
    config = parse_config(config_with(systems=[*config_with()["systems"], *RERANKERS]))
    names = [s.name for s in config.systems]
    assert names[2:6] == [
        "EG (epsilon=0.2, seed=0)",
        "EG (epsilon=0.2, seed=1)",
        "EG (epsilon=0.6, seed=0)",
        "EG (epsilon=0.6, seed=1)",
    ]
    assert config.systems[4].sweep == {"epsilon": 0.6, "seed": 0} and config.systems[6].sweep == {}
    assert config.systems[4].params == {"method": "epsilon_greedy", "epsilon": 0.6, "seed": 0, "depth": 100}
    assert config.systems[6].params["labels"] == "auto" and config.systems[6].params["target"] == "collection"
    assert config.systems[7].params["target"] == "retrieved" and config.systems[7].rerank == "w2v_add"
    one = parse_config(
        config_with(systems=[{"name": "BM25", "model": "bm25"}, {**RERANKERS[2], "rerank": "BM25", "w_r": [0.4]}])
    )
    assert [s.name for s in one.systems] == ["BM25", "Dash"] and one.systems[1].params["w_r"] == 0.4


@pytest.mark.parametrize(
    "system, message",
    [
        ({"name": "X", "model": "rerank"}, "systems[1].method is required"),
        ({"name": "X", "model": "rerank", "method": "shuffle"}, "systems[1].method must be one of"),
        ({"name": "X", "model": "rerank", "method": "epsilon_greedy", "rho": 0.5}, "unknown key 'systems[1].rho'"),
        ({"name": "X", "model": "rerank", "method": "dash", "target": "relevant"}, "would feed the test qrels"),
        ({"name": "X", "model": "rerank", "method": "dash", "labels": "genderedness"}, "needs a threshold"),
        ({"name": "X", "model": "rerank", "method": "fairness_greedy", "labels": "gold"}, "labels must be auto"),
        ({"name": "X", "model": "rerank", "method": "dash", "rerank": "nope"}, "rerank 'nope' is not a system"),
    ],
)
def test_reranker_mistakes_name_the_key(system, message):
    with pytest.raises(ConfigError) as err:
        parse_config(config_with(systems=[{"name": "BM25", "model": "bm25"}, system]))
    assert message in str(err.value)


def test_builtin_configs_include_the_rerankers_and_the_bias_analyses():
    for name in ("demo", "grepbiasir"):
        config = load_config(name)
        methods = {s.params["method"] for s in config.systems if s.model == "rerank"}
        assert methods == {"epsilon_greedy", "relevance_swap", "fairness_greedy", "dash"}
        assert {"label_bias", "adversarial_probe"} <= set(config.analyses)
        swept = [s for s in config.systems if s.params.get("method") == "epsilon_greedy"]
        assert sorted({s.sweep["epsilon"] for s in swept}) == [0.1, 0.3, 0.5] and len(swept) == 9
    assert load_config("grepbiasir").analyses["label_bias"]["bias_labels"] == "collection"


def test_the_bias_analyses_are_off_unless_switched_on():
    assert not {"adversarial_probe", "label_bias"} & set(parse_config(config_with()).analyses)
    assert parse_config(config_with(analyses={"label_bias": True})).analyses["label_bias"]["bias_k"] == 10
    on = parse_config(config_with(analyses={"adversarial_probe": True, "probe_words": ["UK"]}))
    assert on.analyses["adversarial_probe"]["probe_words"] == ["UK"]
    with pytest.raises(ConfigError, match="probe_queries must be occupations, all or category:NAME"):
        parse_config(config_with(analyses={"adversarial_probe": True, "probe_queries": "jobs"}))


def _config(tmp_path):
    first = robust04_config(tmp_path, systems={"w2v_add"})
    raw = tomllib.loads(BUILTIN_CONFIGS["robust04"].read_text())
    raw["collection"].update(first.collection)
    raw["embeddings"] = {name: {"source": first.embeddings[name].source} for name in ("w2v", "ftt")}
    raw.pop("debias", None)
    raw.update(
        systems=[{"name": "w2v_add", "model": "add", "embedding": "w2v"}, *RERANKERS],
        output=str(tmp_path / "out"),
        depth=50,
        evaluation={"baseline": "w2v_add", "resamples": 200},
        analyses={
            "rank_change": False,
            "reliability": False,
            "intrinsic_gender": False,
            "label_bias": True,
            "bias_k": 5,
            "adversarial_probe": True,
            "probe_queries": "all",
            "probe_words": ["report"],
        },
    )
    return parse_config(raw, BUILTIN_CONFIGS["robust04"])


@pytest.mark.slow
def test_label_bias_and_the_probe_in_an_experiment(tmp_path, nltk_data):
    config = _config(tmp_path)
    experiment = Experiment(config)
    result = experiment.run()
    assert set(result.analyses) == {"label_bias", "adversarial_probe"}, result.analysis_errors
    bias = result.analyses["label_bias"]
    rows = {row["system"]: row for row in bias.rows}
    names = [s.name for s in config.systems]
    assert list(rows) == names + [PERFECT, RANDOM] and bias.settings["labels"] == "intrinsic"

    # every value recomputed from the runs through the library (labels: §4.2.5's rule on the collection's texts)
    from gsr.fairness import intrinsic_labels

    labels = intrinsic_labels(result.collection.documents)
    counts = gendered_word_counts(result.collection.documents)
    direct = {
        name: BiasMeasures(labels, BiasSettings(k=5), counts).evaluate(result.runs[name], result.collection.qrels)
        for name in rows
    }
    for name, row in rows.items():
        for measure in ("KL@5", "FSKL@5", "NDKL@5", "MAB_female@5", "RaB@5", "ARaB@5"):
            assert row[measure] == pytest.approx(direct[name].measures[measure]), (name, measure)
        nfairr = FaiRRMeasures(result.collection.documents, FaiRRSettings(cutoffs=[5]))
        queries = result.evaluated_queries
        assert row["NFaiRR@5"] == pytest.approx(
            nfairr.evaluate(result.runs[name], None, queries).measures()["NFaiRR@5"]
        )
        assert row["GSR (w2v)"] == result.system_gsr["w2v"][name].gsr
    fg, upstream = direct["FG"], direct["w2v_add"]
    assert fg.measures["FSKL@5"] < upstream.measures["FSKL@5"]  # fairness-greedy moves every prefix towards T

    reranked = {row["system"]: row for row in bias.rerank_rows}
    assert set(reranked) == {n for n in names if n != "w2v_add"}
    ndkl_fg, ndkl_up = fg.values("NDKL@5"), upstream.values("NDKL@5")
    shared = sorted(set(ndkl_fg) & set(ndkl_up))
    assert reranked["FG"]["Δ NDKL@5"] == pytest.approx(statistics.fmean(ndkl_fg[q] - ndkl_up[q] for q in shared))
    assert reranked["FG"]["Δ GSR (w2v)"] == pytest.approx(rows["FG"]["GSR (w2v)"] - rows["w2v_add"]["GSR (w2v)"])
    # the raw p-values from the tests themselves, on the per-query values both systems have
    from scipy.stats import ttest_rel

    from gsr.evaluate import gsr_difference_test

    assert config.test == "t"
    ndkl_p = ttest_rel([ndkl_fg[q] for q in shared], [ndkl_up[q] for q in shared]).pvalue
    assert reranked["FG"]["Δ NDKL@5 p"] == pytest.approx(ndkl_p, rel=1e-9)
    gsr_p = gsr_difference_test(
        result.system_gsr["w2v"]["FG"], result.system_gsr["w2v"]["w2v_add"], config.resamples, config.seed
    ).p_value
    assert reranked["FG"]["Δ GSR (w2v) p"] == gsr_p
    # Holm over every p of the table as one family, written out here: the i-th smallest times (m − i), running max
    raw = [(row["system"], c[:-2]) for row in bias.rerank_rows for c in row if c.endswith(" p") and row[c] is not None]
    by_key = {(row["system"], c[:-2]): row for row in bias.rerank_rows for c in row if c.endswith(" p")}
    ordered = sorted(raw, key=lambda key: by_key[key][f"{key[1]} p"])
    running = 0.0
    for i, key in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - i) * by_key[key][f"{key[1]} p"]))
        assert by_key[key][f"{key[1]} p adjusted"] == pytest.approx(running), key
        mark = "‡" if running < 0.01 else "†" if running < 0.05 else ""
        assert by_key[key][f"{key[1]} mark"] == mark, key
    assert len(ordered) > len(bias.rerank_rows)  # several tests per row, corrected together

    from scipy.stats import spearmanr

    agreement = {(row["measure"], row["GSR"]): row for row in bias.agreement_rows}
    x, y = [rows[n]["NDKL@5"] for n in names], [rows[n]["GSR (ftt)"] for n in names]
    assert agreement[("NDKL@5", "GSR (ftt)")]["Spearman ρ"] == pytest.approx(spearmanr(x, y)[0])
    assert agreement[("NDKL@5", "GSR (ftt)")]["systems"] == len(names)

    seeds = {row["systems"]: row for row in bias.seed_rows}
    assert set(seeds) == {"EG (epsilon=0.2)", "EG (epsilon=0.6)"} and seeds["EG (epsilon=0.2)"]["seeds"] == 2
    pair = [rows[f"EG (epsilon=0.2, seed={s})"]["NDKL@5"] for s in (0, 1)]
    assert seeds["EG (epsilon=0.2)"]["NDKL@5"] == pytest.approx(statistics.fmean(pair))
    assert seeds["EG (epsilon=0.2)"]["sd NDKL@5"] == pytest.approx(statistics.stdev(pair))

    axes = panels(tradeoff_figure(bias))
    assert [ax.get_title() for ax in axes] == [
        "KL@5",
        "FSKL@5",
        "NDKL@5",
        "MAB_female@5",
        "ARaB@5",
        "NFaiRR@5",
        "GSR (w2v)",
    ]
    assert bias.effectiveness == "nDCG@100" and all(ax.get_ylabel() == "nDCG@100" for ax in axes)
    for ax in axes:  # one point per system (reference engines left out), re-rankers as triangles
        assert len(points(ax)) == len(names)
        assert len(ax.lines) == len(names) - 1  # each re-ranker joined to the run it re-ranks

    probe = result.analyses["adversarial_probe"]
    assert probe.words == ["report"] and probe.queries == result.evaluated_queries
    by_system = {row["system"]: row for row in probe.rows}
    assert list(by_system) == [PERFECT] + names
    assert by_system["w2v_add"]["GSR"] == pytest.approx(result.system_gsr["w2v"]["w2v_add"].gsr)
    relative = relative_to_perfect(result.system_gsr["w2v"]["w2v_add"], result.system_gsr["w2v"][PERFECT])[0]
    assert by_system["w2v_add"]["rel. GSR %"] == pytest.approx(relative) and by_system[PERFECT]["rel. GSR %"] == 0
    lexicon, tokens = experiment.lexicon("w2v"), experiment.analyzer.tokens
    queries = result.collection.queries
    change = statistics.fmean(
        query_genderedness(tokens(queries[q] + " report"), lexicon) - query_genderedness(tokens(queries[q]), lexicon)
        for q in probe.queries
    )
    assert by_system["w2v_add"]["Δg(q)"] == pytest.approx(change)
    assert by_system[PERFECT]["ΔNDKL@5"] == 0 and by_system[PERFECT]["GSR′"] != by_system[PERFECT]["GSR"]
    # the probe runs only the probed queries, with what was trained on the originals
    modified = experiment.with_queries({q: queries[q] + " report" for q in probe.queries}, reuse_training=True)
    after = BiasMeasures(labels, BiasSettings(k=5), counts).evaluate(
        modified.system_run(config.systems[0]), result.collection.qrels
    )
    assert by_system["w2v_add"]["NDKL@5′"] == pytest.approx(after.measures["NDKL@5"])
    assert "run w2v_add" in modified.reused  # the probe's runs are cached under the modified queries

    from experiments.report.plotly_charts import probe_chart, tradeoff_chart

    chart = tradeoff_chart(bias)  # report.html's: one panel at a time from a menu, systems named on hover
    assert [b["label"] for b in chart.layout.updatemenus[0].buttons] == list(bias.points)
    plain, reranked = chart.data[:2]
    shown = {c[0]: (x, y) for trace in (plain, reranked) for c, x, y in zip(trace.customdata, trace.x, trace.y)}
    assert shown == {name: (x, y) for name, x, y, _ in bias.points[next(iter(bias.points))]}
    assert {c[0] for c in reranked.customdata} == {n for n, *_, up in bias.points["KL@5"] if up is not None}
    chart = probe_chart(probe)
    assert list(chart.data[0].y) == [PERFECT] + names
    assert chart.data[0].x[1] == pytest.approx(by_system["w2v_add"]["ΔGSR"])

    axes = panels(probe_figure(probe))
    assert [ax.get_title() for ax in axes] == [
        "ΔGSR",
        "Δrel. GSR %",
        "ΔKL@5",
        "ΔFSKL@5",
        "ΔNDKL@5",
        "ΔMB_female@5",
        "ΔMAB_female@5",
        "ΔARaB@5",
    ]
    bars = [patch.get_width() for patch in axes[0].patches]
    assert len(bars) == len(names) + 1 and bars[1] == pytest.approx(by_system["w2v_add"]["ΔGSR"])

    written = write_report(result, config.output)
    for stem in (
        "label_bias",
        "label_bias_rerankers",
        "label_bias_seeds",
        "label_bias_agreement",
        "adversarial_probe",
        "adversarial_probe_values",
    ):
        assert (config.output / f"{stem}.md").exists() and (config.output / f"{stem}.csv").exists()
    assert written["label_bias_tradeoff"].stat().st_size > 10_000
    assert "Labels: intrinsic." in (config.output / "label_bias.md").read_text()


# ----------------------------------------------------------------------------------------------- the figures


def _label_bias() -> LabelBias:
    """Two panels; BM25 and w2v_add plain systems, FG re-ranking w2v_add."""
    points_of = {
        "NDKL@5": [("BM25", 0.30, 0.40, None), ("w2v_add", 0.25, 0.38, None), ("FG", 0.10, 0.35, "w2v_add")],
        "RaB@5": [("BM25", 0.02, 0.40, None), ("w2v_add", -0.01, 0.38, None), ("FG", 0.0, 0.35, "w2v_add")],
    }
    return LabelBias({}, "nDCG@10", [], [], [], points_of)


def _probe() -> AdversarialProbe:
    """Two systems, two appended words, two changes (Δg(q) is a column, not a panel)."""
    rows = [
        {"system": system, "appended": word, "Δg(q)": 0.1, "ΔGSR": gsr, "ΔNDKL@5": ndkl}
        for system, word, gsr, ndkl in (
            ("perfect", "report", 0.01, 0.0),
            ("BM25", "report", 0.05, -0.02),
            ("perfect", "he", -0.03, 0.0),
            ("BM25", "he", -0.08, 0.04),
        )
    ]
    return AdversarialProbe(["report", "he"], ["q1", "q2"], "all", {}, rows)


def test_tradeoff_figure_points_links_and_axes():
    ndkl, rab = panels(tradeoff_figure(_label_bias()))
    assert [ax.get_title() for ax in (ndkl, rab)] == ["NDKL@5", "RaB@5"]
    assert ndkl.get_xlabel() == "NDKL@5 (lower: less bias)"
    assert rab.get_xlabel() == "RaB@5 (0: balanced, > 0: male-leaning)" and ndkl.get_ylabel() == "nDCG@10"
    plain, reranked = ndkl.collections  # systems as orange dots, re-ranked ones as purple triangles
    assert points(plain).tolist() == [[0.30, 0.40], [0.25, 0.38]] and set(colours(plain)) == {ORANGE_MALE}
    assert points(reranked).tolist() == [[0.10, 0.35]] and set(colours(reranked)) == {PURPLE_FEMALE}
    (link,) = ndkl.lines  # FG joined to the run it re-ranks
    assert [list(v) for v in link.get_data()] == [[0.25, 0.10], [0.38, 0.35]]
    assert texts(ndkl) == ["BM25", "w2v_add", "FG"]
    assert legend_labels(ndkl) == ["system", "re-ranked"]


def test_probe_figure_bars_per_system_and_word():
    gsr, ndkl = panels(probe_figure(_probe()))
    assert [ax.get_title() for ax in (gsr, ndkl)] == ["ΔGSR", "ΔNDKL@5"]
    # per appended word, one bar per system: the bar's length is the change
    assert [bar.get_width() for bar in gsr.patches] == pytest.approx([0.01, 0.05, -0.03, -0.08])
    assert [bar.get_width() for bar in ndkl.patches] == pytest.approx([0.0, -0.02, 0.0, 0.04])
    assert [to_hex(bar.get_facecolor()) for bar in gsr.patches] == ["#e66101"] * 2 + ["#5e3c99"] * 2  # by word
    assert [t.get_text() for t in gsr.get_yticklabels()] == ["perfect", "BM25"]
    assert legend_labels(gsr) == ["+ report", "+ he"]


FIGURE_WRITERS = {
    "tradeoff": lambda path: plot_tradeoff(_label_bias(), path),
    "probe": lambda path: plot_probe(_probe(), path),
}


@pytest.mark.parametrize("write", FIGURE_WRITERS.values(), ids=FIGURE_WRITERS.keys())
def test_bias_figures_write_png_files(write, tmp_path):
    assert_png(write(tmp_path / "figure.png"), tmp_path / "figure.png")
