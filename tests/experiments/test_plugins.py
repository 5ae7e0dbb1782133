"""Plugins: modules other distributions declare under the entry point groups gsr.systems, gsr.analyses,
gsr.collections and gsr.document_sources (issue 35.8-9).

* They are code the results depend on: a plugin system's run is cached under a key that covers its distribution's
  files, and the output folder's fingerprint covers every plugin's, so editing one recomputes what it computed
  (`--force` included) and going back to the old code finds the old entries again.
* One contract for every group: a plugin that fails when imported or when called is one warning naming its
  distribution, its entry point and the error, never a traceback; plugins are imported only by a command that needs
  them (`gsr score` on JSONL documents imports none, not even the Lucene reader).
* Built-ins are declared once, in their packages' BUILTIN_MODULES; entry points are for other distributions.

Each test runs `python -m experiments.cli` in a subprocess whose path holds a plugin distribution made here
(tests.support.plugins), as pip would have installed it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.plugins import GSR, REPOSITORY, plugin_distribution, plugin_environment
from tests.support.toy_collection import config_with_systems, score_args, write_toy

BY_ID = '''
"""Every query gets the collection's documents in id order, every STEP-th one, scored by position."""
from experiments.registry import SYSTEMS, SystemType

STEP = 1


def by_id(experiment, system):
    from experiments.collections import collection_docids

    docids = sorted(collection_docids(experiment.collection.documents))[::STEP][:5]
    return {q: [(d, float(len(docids) - i)) for i, d in enumerate(docids)] for q in experiment.collection.queries}


SYSTEMS.register(SystemType("by_id", "documents in id order (a plugin)", by_id))
'''


def _gsr(env: dict, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*GSR, *args], capture_output=True, text=True, env=env, cwd=cwd or REPOSITORY)


def _warnings(stderr: str, about: str) -> list[str]:
    return [line for line in stderr.splitlines() if about in line]


def test_editing_a_plugin_systems_code_recomputes_its_run_and_the_outputs(tmp_path):
    site = tmp_path / "site"
    plugin_distribution(site, "gsr-by-id", {"gsr_by_id/__init__.py": BY_ID}, {"gsr.systems": {"by_id": "gsr_by_id"}})
    module = site / "gsr_by_id" / "__init__.py"
    env = {**plugin_environment(site, tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    folder = write_toy(tmp_path / "toy")
    config = config_with_systems(folder, '[[systems]]\nname = "ById"\nmodel = "by_id"\n')
    run = ["run", str(config), "--out", str(tmp_path / "out")]
    written = tmp_path / "out" / "runs" / "ById.run"

    first = _gsr(env, *run)
    assert first.returncode == 0, first.stderr
    original = written.read_bytes()
    recorded = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))["environment"]["plugins"]
    assert [(p["group"], p["name"], p["distribution"]) for p in recorded] == [("gsr.systems", "by_id", "gsr-by-id 0.1")]
    assert "is up to date" in _gsr(env, *run).stderr  # nothing changed: nothing recomputed

    module.write_text(BY_ID.replace("STEP = 1", "STEP = 2"), encoding="utf-8")
    edited = _gsr(env, *run, "--force")
    assert edited.returncode == 0, edited.stderr
    assert "reused run ById" not in edited.stderr and written.read_bytes() != original

    module.write_text(BY_ID, encoding="utf-8")  # the first code again: its run is in the cache under its key
    back = _gsr(env, *run)
    assert back.returncode == 0, back.stderr
    assert "is up to date" not in back.stderr and "reused run ById" in back.stderr
    assert written.read_bytes() == original


BROKEN_AT_IMPORT = 'raise RuntimeError("this plugin cannot start\\nsecond line")\n'
GROUPS = ("gsr.systems", "gsr.analyses", "gsr.collections", "gsr.document_sources")


def _broken_everywhere(site: Path) -> None:
    """gsr-broken 0.3: one module per group, each failing when imported."""
    modules = {f"broken_{group.split('.')[1]}.py": BROKEN_AT_IMPORT for group in GROUPS}
    entry_points = {group: {"broken": f"broken_{group.split('.')[1]}"} for group in GROUPS}
    entry_points["gsr.document_sources"]["broken"] += ":resolve"
    plugin_distribution(site, "gsr-broken", modules, entry_points, version="0.3")


@pytest.mark.parametrize(
    "what, group", [("systems", "gsr.systems"), ("analyses", "gsr.analyses"), ("collections", "gsr.collections")]
)
def test_a_plugin_failing_at_import_is_one_warning_naming_it(tmp_path, what, group):
    site = tmp_path / "site"
    _broken_everywhere(site)
    listed = _gsr(plugin_environment(site, tmp_path / "cache"), "list", what)
    assert listed.returncode == 0, listed.stderr
    warnings = _warnings(listed.stderr, "gsr-broken")
    assert len(warnings) == 1, listed.stderr
    assert group in warnings[0] and "'broken'" in warnings[0] and f"broken_{what}" in warnings[0]
    assert "gsr-broken 0.3" in warnings[0] and "RuntimeError: this plugin cannot start" in warnings[0]
    assert "Traceback" not in listed.stderr and "second line" not in listed.stderr
    builtin = {"systems": "bm25", "analyses": "rank_change", "collections": "trec-sgml"}[what]
    assert builtin in listed.stdout


def test_gsr_score_on_jsonl_documents_imports_no_plugin(tmp_path):
    """Broken plugins in every group: `gsr score` on JSONL documents names none of them (it imports none), and the
    Lucene reader, the built-in document source, is not imported either."""
    site = tmp_path / "site"
    _broken_everywhere(site)
    folder = write_toy(tmp_path / "toy")
    driver = (
        "import sys\nfrom experiments.cli import main\nstatus = main(sys.argv[1:])\n"
        "print('lucene imported' if 'retrievers.lucene.source' in sys.modules else 'lucene not imported', "
        "file=sys.stderr)\nsys.exit(status)\n"
    )
    scored = subprocess.run(
        [GSR[0], "-c", driver, *score_args(folder)],
        capture_output=True,
        text=True,
        env=plugin_environment(site, tmp_path / "cache"),
        cwd=REPOSITORY,
    )
    assert scored.returncode == 0, scored.stderr
    assert "gsr-broken" not in scored.stderr and "lucene not imported" in scored.stderr


def _score_unnamed_documents(site: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """`gsr score` on the toy files, its documents (JSON lines) in `docs.data`, a name no built-in reader knows; it
    must succeed."""
    folder = write_toy(tmp_path / "toy")
    (folder / "docs.data").write_bytes((folder / "docs.jsonl").read_bytes())
    args = [a if not a.endswith("docs.jsonl") else str(folder / "docs.data") for a in score_args(folder)]
    scored = _gsr(plugin_environment(site, tmp_path / "cache"), *args)
    assert scored.returncode == 0, scored.stderr
    return scored


def test_documents_no_built_in_reader_knows_by_name_ask_the_document_sources(tmp_path):
    """A documents file whose name no built-in reader knows asks the registered sources: the broken one is one
    warning, and the file is read as its content says (JSON lines)."""
    site = tmp_path / "site"
    _broken_everywhere(site)
    scored = _score_unnamed_documents(site, tmp_path)
    warnings = _warnings(scored.stderr, "gsr-broken")
    assert len(warnings) == 1 and "gsr.document_sources" in warnings[0], scored.stderr
    assert "broken_document_sources:resolve" in warnings[0]


FAILING_RESOLVER = """
def resolve(path):
    raise OSError(f"cannot read {path} today")
"""


def test_a_document_source_failing_at_call_is_one_warning(tmp_path):
    site = tmp_path / "site"
    plugin_distribution(
        site, "gsr-flaky", {"flaky.py": FAILING_RESOLVER}, {"gsr.document_sources": {"flaky": "flaky:resolve"}}
    )
    scored = _score_unnamed_documents(site, tmp_path)
    warnings = _warnings(scored.stderr, "gsr-flaky")
    assert len(warnings) == 1, scored.stderr
    assert "OSError: cannot read" in warnings[0] and "Traceback" not in scored.stderr


FAILING_SYSTEM = """
from experiments.registry import SYSTEMS, SystemType


def crash(experiment, system):
    return 1 / 0


SYSTEMS.register(SystemType("crash", "fails when run", crash))
"""
FAILING_ANALYSIS = """
from experiments.registry import ANALYSES, AnalysisType


def compute(experiment, result, options):
    raise KeyError("no such column")


def write(value, folder, plots):
    raise OSError("the table cannot be drawn")


ANALYSES.register(AnalysisType("crashing", "fails when computed", compute, lambda value, folder, plots: {}))
ANALYSES.register(AnalysisType("unwritable", "fails when written", lambda *args: {"x": 1}, write))
"""
FAILING_COLLECTION = """
from experiments.registry import COLLECTION_KINDS, CollectionKind


def load(spec):
    raise ValueError("the collection is not there")


COLLECTION_KINDS.register(CollectionKind("crashing", "fails when loaded", load))
"""


def test_plugins_failing_at_call_name_themselves_in_one_line(tmp_path):
    """A system or collection kind the config asks for that fails is one error line naming the plugin (the
    experiment cannot go on without it), status 2; an analysis that fails is one warning, and the rest is written."""
    site = tmp_path / "site"
    modules = {"crash_system.py": FAILING_SYSTEM, "crash_analysis.py": FAILING_ANALYSIS}
    modules["crash_collection.py"] = FAILING_COLLECTION
    entry_points = {
        "gsr.systems": {"crash": "crash_system"},
        "gsr.analyses": {"crashing": "crash_analysis"},
        "gsr.collections": {"crashing": "crash_collection"},
    }
    plugin_distribution(site, "gsr-crash", modules, entry_points, version="2.0")
    env = plugin_environment(site, tmp_path / "cache")
    folder = write_toy(tmp_path / "toy")
    bm25_free = '[[systems]]\nname = "add"\nmodel = "add"\nembedding = "tiny"\n'

    analysed = _gsr(env, "run", str(config_with_systems(folder, bm25_free)), "--out", str(tmp_path / "a"))
    assert analysed.returncode == 0, analysed.stderr
    warnings = _warnings(analysed.stderr, "gsr-crash")
    assert len(warnings) == 2 and all("gsr.analyses" in w for w in warnings), analysed.stderr
    assert "compute() of analysis 'crashing': KeyError" in warnings[0]
    assert "write() of analysis 'unwritable': OSError: the table cannot be drawn" in warnings[1]
    assert (tmp_path / "a" / "results.md").is_file()
    recorded = json.loads((tmp_path / "a" / "results.json").read_text(encoding="utf-8"))
    assert set(recorded["analysis_errors"]) == {"crashing", "unwritable"}

    system = '[[systems]]\nname = "Crash"\nmodel = "crash"\n'
    crashed = _gsr(env, "run", str(config_with_systems(folder, system)), "--out", str(tmp_path / "s"))
    assert crashed.returncode == 2 and "Traceback" not in crashed.stderr, crashed.stderr
    errors = _warnings(crashed.stderr, "gsr: error:")
    assert len(errors) == 1 and "gsr-crash 2.0" in errors[0] and "'crash'" in errors[0]
    assert "ZeroDivisionError: division by zero" in errors[0]

    config = config_with_systems(folder, bm25_free).read_text(encoding="utf-8")
    head, rest = config.split("[embeddings.tiny]", 1)
    (folder / "kind.toml").write_text('threads = 1\n[collection]\nkind = "crashing"\n[embeddings.tiny]' + rest)
    unloaded = _gsr(env, "run", str(folder / "kind.toml"), "--out", str(tmp_path / "c"))
    assert unloaded.returncode == 2 and "Traceback" not in unloaded.stderr, unloaded.stderr
    errors = _warnings(unloaded.stderr, "gsr: error:")
    assert (
        len(errors) == 1 and "gsr.collections" in errors[0] and "ValueError: the collection is not there" in errors[0]
    )


def test_builtins_are_declared_once():
    """The built-in modules are their packages' BUILTIN_MODULES; pyproject.toml declares none of them under the entry
    point groups a plugin uses (an entry point naming a module of gsr-bench, as metadata installed from an older
    pyproject.toml may, is skipped: its package imports it)."""
    import tomllib

    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["project"].get("entry-points", {})
    assert not {"gsr.systems", "gsr.analyses", "gsr.collections"} & set(declared)
    assert declared["gsr.document_sources"] == {"lucene": "retrievers.lucene.source:open_lucene_index"}


def test_a_plugin_collection_kinds_documents_are_cached_under_its_code(own_cache):
    """The converted documents a plugin's collection kind writes (canonical_documents, called from its code) are
    named by its code key too: an edited reader does not find the documents its old code converted."""
    from importlib.metadata import EntryPoint

    from experiments.collections.base import canonical_documents
    from gsr.infra import plugins

    plugin = plugins.Plugin(EntryPoint("support", "tests.support.plugins", "gsr.collections"))
    plain, _ = canonical_documents("same-source", lambda: [("d1", "she sings")])
    with plugins.calling(plugin):
        converted, _ = canonical_documents("same-source", lambda: [("d1", "she sings")])
    assert plain.parent.name == "same-source" and converted.parent.name == f"same-source-{plugin.code_key}"
