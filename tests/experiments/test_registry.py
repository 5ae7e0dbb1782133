"""The registries: the config reference tables generated from them (docs/experiments.md), the Extending example,
sweeps and declared-parameter checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from experiments.commands.listing import TABLES
from experiments.config.experiment import parse_config
from experiments.config.params import ConfigError
from experiments.registry import ANALYSES, COLLECTION_KINDS, SYSTEMS, Registry, RegistryError, SystemType

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"


@pytest.mark.parametrize("what", sorted(TABLES))
def test_reference_tables_are_the_registry_declarations(what):
    text = REFERENCE.read_text(encoding="utf-8")
    found = re.search(rf"<!-- gsr list {what} -->\n(.*?)\n<!-- end -->", text, re.S)
    assert found, f"docs/experiments.md has no generated '{what}' table"
    assert found.group(1).strip() == TABLES[what]().strip(), "run python docs/generate.py"


def test_registries_know_the_builtins():
    assert {"bm25", "qld", "tfidf", "add", "si", "drmm", "matchpyramid"} <= set(SYSTEMS.names())
    assert {"rank_change", "reliability", "intrinsic_gender"} <= set(ANALYSES.names())
    assert {"demo", "files", "trec-sgml", "lucene-index"} <= set(COLLECTION_KINDS.names())


def test_registry_refuses_unknown_and_duplicate_names():
    registry = Registry("model", "experiments.systems", "gsr.systems")
    entry = SystemType("x", "x", run=lambda experiment, system: {})
    registry.register(entry)
    with pytest.raises(RegistryError, match="two models are called 'x'"):
        registry.register(entry)
    with pytest.raises(RegistryError, match="model 'y' is unknown"):
        registry.get("y")


def _config(*systems, **extra):
    return {
        "collection": {"kind": "demo"},
        "embeddings": {"glove": {"source": "glove-6b-50d"}},
        "systems": list(systems),
        "gsr": {"measuring": ["glove"]},
        **extra,
    }


def test_list_values_of_a_scalar_parameter_sweep_into_one_system_each():
    config = parse_config(_config({"name": "BM25", "model": "bm25", "k1": [0.6, 1.2], "b": [0.4, 0.75]}))
    assert [s.name for s in config.systems] == [
        "BM25 (k1=0.6, b=0.4)",
        "BM25 (k1=0.6, b=0.75)",
        "BM25 (k1=1.2, b=0.4)",
        "BM25 (k1=1.2, b=0.75)",
    ]
    assert config.systems[3].params == {"k1": 1.2, "b": 0.75}


@pytest.mark.parametrize(
    "system, message",
    [
        ({"name": "B", "model": "bm25", "k1": True}, "systems[0].k1 must be a number, not True"),
        ({"name": "B", "model": "bm25", "b": 1.5}, "systems[0].b must be in [0, 1], not 1.5"),
        ({"name": "B", "model": "qld", "mu": "1000"}, "systems[0].mu must be a number, not '1000'"),
        ({"name": "B", "model": "qld", "mu": 0}, "systems[0].mu must be in (0, 10,000,000], not 0"),
        (
            {"name": "D", "model": "drmm", "embedding": "glove", "depth": 2.5},
            "systems[0].depth must be an integer in [1, 100,000] or 'auto', not 2.5",
        ),
        ({"name": "D", "model": "drmm", "embedding": "glove"}, "D re-ranks another system: give 'rerank = NAME'"),
        ({"name": "perfect", "model": "bm25"}, "system name 'perfect' is reserved"),
        ({"name": "Random", "model": "bm25"}, "system name 'Random' is reserved"),
    ],
)
def test_declared_parameters_and_names_are_checked_before_any_work(system, message):
    with pytest.raises(ConfigError) as err:
        parse_config(_config(system))
    assert message in str(err.value)


def test_systems_whose_outputs_would_collide_are_refused():
    with pytest.raises(ConfigError, match="'a b' and 'a_b' would both write runs/a_b.run"):
        parse_config(_config({"name": "a b", "model": "bm25"}, {"name": "a_b", "model": "qld"}))


def test_an_analysis_switched_on_without_what_it_needs_is_refused():
    with pytest.raises(ConfigError, match="analyses.rank_change needs \\[debias\\] variants"):
        parse_config(_config({"name": "B", "model": "bm25"}, analyses={"rank_change": True}))


def test_the_readme_extending_example_runs(tmp_path, monkeypatch):
    """The ten-line system of docs/extending.md registers and runs through the harness on toy 1; the registry is
    restored afterwards, so the config reference other tests generate never lists it."""
    from experiments.runner import Experiment

    extending = REFERENCE.parent / "extending.md"
    code = re.search(r"```python\n(.*?)```", extending.read_text(encoding="utf-8"), re.S).group(1)
    namespace: dict = {}
    if "boolean" in SYSTEMS:
        pytest.skip("the example system is already registered in this process")
    monkeypatch.setattr(SYSTEMS, "_entries", dict(SYSTEMS._entries))  # the built-ins loaded just above
    exec(compile(code, "README-extending", "exec"), namespace)
    config = parse_config(
        {
            "collection": {"kind": "toy1"},
            "embeddings": {"glove": {"source": "glove-6b-50d"}},
            "systems": [{"name": "Boolean", "model": "boolean", "depth": 5}],
            "gsr": {"measuring": ["glove"]},
            "output": str(tmp_path),
        }
    )
    result = Experiment(config).run()
    assert result.runs["Boolean"]["nurse"][0][0] in ("man_nurse", "woman_nurse")
    assert result.system_gsr["glove"]["Boolean"].gsr == pytest.approx(0.0, abs=1e-9)  # engine N of §3.4
    with pytest.raises(ConfigError, match="systems\\[0\\].depth must be ≥ 1, not 0"):
        parse_config({"collection": {"kind": "toy1"}, "systems": [{"name": "B", "model": "boolean", "depth": 0}]})


PLUGIN = '''
"""A third party's system type: every query gets the collection's documents in id order, scored by position."""
from experiments.registry import SYSTEMS, SystemType
from gsr.infra.params import Param


def by_id(experiment, system):
    from experiments.collections import collection_docids

    docids = sorted(collection_docids(experiment.collection.documents))[: system.params["depth"]]
    return {q: [(d, float(len(docids) - i)) for i, d in enumerate(docids)] for q in experiment.collection.queries}


DEPTH = Param("depth", int, 5, "documents per query", minimum=1)
SYSTEMS.register(SystemType("by_id", "documents in id order (a plugin)", by_id, params=(DEPTH,)))
'''


def test_a_plugin_distribution_registers_a_system_type_through_its_entry_point(tmp_path):
    """Issue 30.3: a package installed on the path (here: a folder with its dist-info, as pip would leave it) that
    declares a module under `gsr.systems` adds a model a config can name; `gsr list systems` lists it."""
    import subprocess
    import sys

    from tests.support.toy_collection import write_toy

    site = tmp_path / "site"
    (site / "gsr_by_id").mkdir(parents=True)
    (site / "gsr_by_id" / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "gsr_by_id-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gsr-by-id\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[gsr.systems]\nby_id = gsr_by_id\n", encoding="utf-8")
    folder = write_toy(tmp_path / "toy")
    config = (folder / "config.toml").read_text(encoding="utf-8")
    head, tail = config.split("[[systems]]", 1)[0], config[config.index("[gsr]") :]
    tail = tail.replace('[debias]\nvariants = ["debiased"]\n', "")
    (folder / "plugin.toml").write_text(head + '[[systems]]\nname = "ById"\nmodel = "by_id"\ndepth = 3\n' + tail)
    env = {**__import__("os").environ, "PYTHONPATH": str(site)}
    command = [sys.executable, "-m", "experiments.cli"]
    listed = subprocess.run([*command, "list", "systems"], capture_output=True, text=True, env=env)
    assert listed.returncode == 0 and "by_id" in listed.stdout, listed.stderr
    ran = subprocess.run(
        [*command, "-q", "run", str(folder / "plugin.toml"), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert ran.returncode == 0, ran.stderr
    assert "| ById |" in ran.stdout
