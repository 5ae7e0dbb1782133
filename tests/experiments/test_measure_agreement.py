"""The measure_agreement analysis and NFaiRR in label_bias (issue 38) inside `gsr run`: the keys are checked when the
config is read (a background that is no system, a bad measure list: one line, before any work), the values are the
library's (FaiRRMeasures, BiasMeasures, gsr.fairness.agreement) recomputed here from the runs, the table is
agreement.py's numbers, and report.html holds its section and chart; the built-in MS MARCO and Grep-BiasIR configs
report NFaiRR@10 beside GSR@10 and RaB/ARaB@10 and compare the measures."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from experiments.analyses.measure_agreement import DEFAULT_MEASURES
from experiments.cli import main
from experiments.config.experiment import load_config, parse_config
from experiments.config.params import ConfigError
from experiments.report.agreement import agreement_rows
from experiments.runner import Experiment
from gsr.fairness import BiasMeasures, BiasSettings, FaiRRMeasures, FaiRRSettings, gendered_word_counts
from gsr.fairness.agreement import AgreementMeasure, measure_agreement
from gsr.fairness.evaluate import per_query_value
from gsr.fairness.labels import read_labels_file
from gsr.io.runs import read_trec_run
from tests.support.configs import config_with
from tests.support.report_page import embedded_data
from tests.support.toy_collection import DOCS, RUN, SHUFFLED_RUN, write_run, write_toy

RUNS = {"first": RUN, "second": {q: list(reversed(d)) for q, d in RUN.items()}, "third": SHUFFLED_RUN}
LABELS = {"m1": "male", "m2": "male", "m3": "male", "f1": "female", "f2": "female", "f3": "female", "x1": "female"}


def _config(folder: Path, **analyses) -> Path:
    for name, run in RUNS.items():
        write_run(folder / f"{name}.run", run, name)
    (folder / "labels.tsv").write_text("".join(f"{d}\t{g}\n" for d, g in LABELS.items()))
    systems = "".join(f'[[systems]]\nname = "{n}"\nmodel = "run"\npath = "{n}.run"\n' for n in RUNS)
    options = {"label_bias": True, "measure_agreement": True, "bias_k": 3, "bias_labels": "file:labels.tsv", **analyses}
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in options.items())
    (folder / "agreement.toml").write_text(f"""threads = 1
output = {json.dumps(str(folder / "out"))}
[collection]
kind = "files"
documents = "docs.jsonl"
topics = "topics.tsv"
qrels = "qrels.txt"
[embeddings.tiny]
source = "vectors.txt"
{systems}[gsr]
measuring = "tiny"
[evaluation]
measures = ["AP"]
resamples = 300
[plots]
enabled = false
[analyses]
intrinsic_gender = false
rank_change = false
{lines}""")
    return folder / "agreement.toml"


def test_the_options_are_checked_when_the_config_is_read():
    on = parse_config(config_with(analyses={"measure_agreement": True}))
    assert on.analyses["measure_agreement"]["agreement_measures"] == list(DEFAULT_MEASURES)
    assert on.analyses["measure_agreement"]["bias_background"] is None
    assert "measure_agreement" not in parse_config(config_with()).analyses  # off unless switched on
    bad = {
        "agreement_measures": (["GSR", "nDCG"], "analyses.agreement_measures: 'nDCG' is not a measure kind"),
        "bias_fairr_words": ("gender", "analyses.bias_fairr_words must be gender-representative, appendix-b"),
        "bias_background_depth": (0, "analyses.bias_background_depth must be ≥ 1, not 0"),
    }
    for key, (value, message) in bad.items():
        with pytest.raises(ConfigError, match=message):
            parse_config(config_with(analyses={"measure_agreement": True, key: value}))
    for value, message in ((["GSR"], "at least two measures"), (["GSR", "RaB", "GSR"], "names 'GSR' twice")):
        with pytest.raises(ConfigError, match=message):
            parse_config(config_with(analyses={"measure_agreement": True, "agreement_measures": value}))
    for analysis in ("measure_agreement", "label_bias"):
        with pytest.raises(ConfigError, match=r"analyses.bias_background 'DRMM' is not a system of this config \("):
            parse_config(config_with(analyses={analysis: True, "bias_background": "DRMM"}))


def test_a_bad_background_stops_gsr_run_before_any_work(tmp_path, capsys, own_cache):
    folder = write_toy(tmp_path / "toy")
    config = _config(folder, bias_background="fourth")
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "analyses.bias_background 'fourth' is not a system of this config" in err[0]
    assert not list(Path(own_cache).glob("*"))


def _direct(folder: Path, result, k: int = 3, background: str | None = None):
    """Every measure of every system recomputed through the library (not gsr.fairness.named), GSR from the result."""
    docs = folder / "docs.jsonl"
    labels = read_labels_file(folder / "labels.tsv")
    runs = {n: read_trec_run(folder / f"{n}.run") for n in RUNS}
    queries = result.evaluated_queries
    counts = gendered_word_counts(DOCS)
    fairr = FaiRRMeasures(docs, FaiRRSettings(cutoffs=[k]))
    back = runs[background] if background else None
    table, per_query = {}, {}
    gsr = result.system_gsr["tiny"]
    table["GSR (tiny)"] = {n: gsr[n].gsr for n in RUNS}
    per_query["GSR (tiny)"] = {
        n: {p.qid: (p.g_query, p.g_list) for p in gsr[n].per_query if p.g_query is not None} for n in RUNS
    }
    reports = {}
    for n, run in runs.items():
        reports[n] = {
            "tf": BiasMeasures(labels, BiasSettings(k=k), counts, fairr=fairr).evaluate(
                run, result.collection.qrels, queries, back, background
            ),
            "bool": BiasMeasures(None, BiasSettings(k=k, rab="bool"), counts).evaluate(run, None, queries),
        }
    for kind in DEFAULT_MEASURES[1:]:
        name, magnitude = f"{kind}@{k}", "bool" if kind.endswith("_bool") else "tf"
        own = name.replace("_bool", "")
        table[name] = {n: reports[n][magnitude].measures[own] for n in RUNS}
        value_of = per_query_value(own)
        per_query[name] = {
            n: {q.qid: v for q in reports[n][magnitude].per_query if (v := value_of(q)) is not None} for n in RUNS
        }
    return table, per_query, reports


def test_the_analysis_is_the_library_on_the_same_runs(tmp_path, capsys, monkeypatch):
    folder = write_toy(tmp_path / "toy")
    config = load_config(_config(folder))
    experiment = Experiment(config)
    result = experiment.run()
    assert {"label_bias", "measure_agreement"} <= set(result.analyses), result.analysis_errors
    agreement = result.analyses["measure_agreement"].report
    table, per_query, reports = _direct(folder, result)
    measures = [AgreementMeasure.gsr("GSR (tiny)"), *list(table)[1:]]
    expected = measure_agreement(table, per_query, measures, resamples=300, level=0.95, seed=0)
    assert agreement.to_dict() == expected.to_dict()
    assert agreement.measures == ["GSR (tiny)", *(f"{kind}@3" for kind in DEFAULT_MEASURES[1:])]

    # label_bias's NFaiRR@3 column: FaiRRMeasures' values, each system against its own top 200
    rows = {row["system"]: row for row in result.analyses["label_bias"].rows}
    for name in RUNS:
        assert rows[name]["NFaiRR@3"] == reports[name]["tf"].measures["NFaiRR@3"]
    assert result.analyses["label_bias"].settings["fairr"]["background"] == "the run itself"

    # the written table: agreement_rows of that report, read back from its CSV
    from experiments.report import write_report

    write_report(result, config.output, experiment=experiment)
    with open(config.output / "measure_agreement.csv", encoding="utf-8", newline="") as handle:
        written = list(csv.DictReader(handle))
    for row, wanted in zip(written, agreement_rows(agreement), strict=True):
        for column, value in wanted.items():
            if isinstance(value, float):
                assert float(row[column]) == pytest.approx(value, rel=1e-12), column
            else:
                assert row[column] == ("" if value is None else str(value)), column
    assert "NFaiRR@3" in (config.output / "label_bias.md").read_text(encoding="utf-8")
    drivers = (config.output / "measure_agreement_drivers.md").read_text(encoding="utf-8")
    every = json.loads((config.output / "measure_agreement_disagreements.json").read_text(encoding="utf-8"))
    assert every == [d.to_dict() for d in agreement.disagreements]
    kept = json.loads((config.output / "results.json").read_text(encoding="utf-8"))["analyses"]["measure_agreement"]
    assert kept["disagreements_total"] == len(every) and kept["taus"] == [t.to_dict() for t in agreement.taus]
    import experiments.analyses.measure_agreement as analysis

    monkeypatch.setattr(analysis, "KEPT_DISAGREEMENTS", 1)  # results.json keeps each pair's clearest few
    clearest = [found[0].to_dict() for t in agreement.taus if (found := agreement.disagreements_of(t.measures))]
    assert result.analyses["measure_agreement"].to_dict()["disagreements"] == clearest
    monkeypatch.setattr(analysis, "KEPT_DISAGREEMENTS", 0)
    assert result.analyses["measure_agreement"].to_dict()["disagreements"] == []
    listed = [line for line in drivers.splitlines() if line.startswith("- ")]  # each listed disagreement
    assert len(listed) == sum(min(5, len(agreement.disagreements_of(t.measures))) for t in agreement.taus)
    assert agreement.disagreements and len(listed) == len(agreement.disagreements)  # here each pair has ≤ 5
    page = embedded_data(config.output / "report.html")
    section = next(a for a in page["analyses"] if a["name"] == "measure_agreement")
    assert section["figure"]["data"] and section["caption"].startswith("Measure agreement")
    assert [s["name"] for s in section["figure"]["data"]] == list(RUNS)
    assert len(section["table"]["cells"]) == math.comb(len(agreement.measures), 2)


def test_a_shared_background(tmp_path):
    folder = write_toy(tmp_path / "toy")
    config = load_config(_config(folder, bias_background="second", agreement_measures=["GSR", "NFaiRR"]))
    result = Experiment(config).run()
    _, _, reports = _direct(folder, result, background="second")
    rows = {row["system"]: row for row in result.analyses["label_bias"].rows}
    for name in RUNS:
        assert rows[name]["NFaiRR@3"] == reports[name]["tf"].measures["NFaiRR@3"]
    assert result.analyses["measure_agreement"].report.values["NFaiRR@3"] == {
        name: reports[name]["tf"].measures["NFaiRR@3"] for name in RUNS
    }
    assert result.analyses["measure_agreement"].settings["fairr"]["background"] == "second"


@pytest.mark.parametrize("name", ["msmarco", "grepbiasir"])
def test_the_builtin_configs_report_nfairr_beside_gsr_and_rab(name):
    config = load_config(name)
    label_bias, agreement = config.analyses["label_bias"], config.analyses["measure_agreement"]
    assert label_bias["bias_k"] == 10 and label_bias["bias_fairr"] and label_bias["bias_background"] == "BM25"
    assert agreement["bias_k"] == 10 and agreement["bias_background"] == "BM25"
    assert {"GSR", "RaB", "ARaB", "RaB_bool", "ARaB_bool", "NFaiRR"} <= set(agreement["agreement_measures"])
