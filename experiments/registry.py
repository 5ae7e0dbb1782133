"""The registries: every kind of system, analysis and collection the harness knows, each declared once.

A declaration says what the thing is called, what parameters it takes (gsr.infra.params.Param: type, default, valid
range), what it needs and how it runs. The config checker, the runner, the benchmarks, `gsr list` and the
README's tables all read these declarations; nothing dispatches on names elsewhere. Adding a retriever,
re-ranker or analysis is one module that calls `register(...)` plus its name in its package's module list
(`experiments/systems/__init__.py`, `experiments/analyses/__init__.py`, `experiments/collections/__init__.py`), the one
place a built-in is declared; another distribution declares its module under the registry's entry point group
(docs/extending.md).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from gsr.errors import InputError
from gsr.infra import logs
from gsr.infra.params import Param
from gsr.infra.plugins import Plugin, guarded, load, third_party

log = logs.get("registry")

if TYPE_CHECKING:
    from experiments.collections import Collection
    from experiments.config.experiment import ExperimentConfig
    from experiments.config.systems import SystemSpec
    from experiments.estimates import Work
    from experiments.experiment_result import ExperimentResult
    from experiments.runner import Experiment
    from gsr.io.types import Run


class RegistryError(InputError):
    """A name no registry entry has, or two entries with one name."""


@dataclass(frozen=True)
class SystemType:
    """A kind of system a config names with `model = "..."`.

    run(experiment, system) returns the system's run over the collection's queries; the runner caches it under
    a key made of the collection, the queries, `name`, the checked parameters, the embedding's version, the
    re-ranked system's key, `cache_inputs` and `version` (bump it when the implementation changes its output).
    """

    name: str
    description: str
    run: Callable[[Experiment, SystemSpec], Run]
    params: tuple[Param, ...] = ()
    needs_embedding: bool = False
    reranks: bool = False  # takes another system's run as input (config key `rerank = "NAME"`)
    default_upstream: str | None = None  # model whose first system is re-ranked when `rerank` is not given
    params_of: Callable[[dict], tuple[Param, ...]] | None = None  # parameters chosen by the table (e.g. `method`)
    preflight: Callable[[Experiment, SystemSpec], None] | None = None  # checks made before any long work
    version: int = 1
    reference: str = ""
    path_params: tuple[str, ...] = ()  # parameters holding file paths: resolved against the config file's folder,
    # and the file's version (path, size, modification time) is part of the run's cache key
    cache_inputs: Callable[[Experiment, SystemSpec], object] | None = None  # what else the run depends on (e.g. the
    # version of the document labels a re-ranker reads): part of the run's cache key
    debiases_itself: bool = False  # [debias] variants apply to it without an embedding: it reads SystemSpec.variant
    # and removes gender from its own representation (a dense encoder's vectors)
    input_paths: Callable[[SystemSpec, Path], list[Path]] | None = None  # (system, the config's folder) -> files and
    # folders the run reads beyond path_params (an encoder's folder): inputs in results.json and the rerun fingerprint
    runs_aside: Callable[[Experiment, SystemSpec], bool] | None = None  # whether a long, self-contained run (training)
    # may be computed by a forked process while the experiment goes on, where a core is free (experiments.background)
    extra: str | None = None  # the extra of gsr-bench it needs (gsr.infra.extras.EXTRAS: "lucene", "neural", ...),
    # checked when a config is read; None: the core install runs it
    cost: Callable[[Experiment, SystemSpec], list[Work]] | None = None  # the work its run does, which `gsr run
    # --dry-run` turns into a time at the rates measured for it (experiments.estimates); None: no estimate

    def declared_params(self, table: dict) -> tuple[Param, ...]:
        """The parameters a config table of this type may set."""
        return self.params_of(table) if self.params_of else self.params


@dataclass(frozen=True)
class AnalysisType:
    """An analysis of an experiment's results, switched on in a config's [analyses] table by its name.

    compute(experiment, result, options) returns a result object with `to_dict()` (or None when it does not apply);
    write(result, folder, plots) writes its tables (and figures when `plots`) and returns {label: path}.
    charts(result), when given, returns {name of a figure's PNG file, without .png: the same figure as a Plotly
    chart}: report.html shows the chart (after the table of the same name), whether or not the PNG was drawn.
    """

    name: str
    description: str
    compute: Callable[[Experiment, ExperimentResult, dict], object | None]
    write: Callable[[Any, Path, bool], dict[str, Path]]  # (the result compute returned, folder, plots)
    params: tuple[Param, ...] = ()
    needs: str = ""
    applicable: Callable[[ExperimentConfig], bool] = lambda config: True
    writes: tuple[str, ...] = ()
    default: bool = True  # on unless switched off where applicable; False: off unless switched on (a costly one)
    charts: Callable[[Any], dict[str, Any]] | None = None
    check: Callable[[dict, ExperimentConfig], str | None] | None = None  # (checked options, config) -> what is wrong
    # with options that name other parts of the config (a system), said when the config is read; None: nothing


@dataclass(frozen=True)
class CollectionKind:
    """A source of documents, topics and qrels a config names with `[collection] kind = "..."`."""

    name: str
    description: str
    load: Callable[[dict], Collection]  # the config table (paths resolved) -> the collection
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    path_keys: tuple[str, ...] = ()  # keys holding paths, resolved against the config file's folder
    list_keys: tuple[str, ...] = ()  # keys that take a list of strings as well as a string (every other key: a string)
    provides: tuple[str, ...] = ()  # annotations beyond documents/topics/qrels, e.g. "document_gender" (analyses
    # that need them check here)
    extra: str | None = None  # the extra of gsr-bench it needs (gsr.infra.extras.EXTRAS), checked when a config is read
    input_paths: Callable[[dict], list[Path]] | None = None  # files or folders the kind reads that no path key
    # names (a data set shipped with gsr), recorded with the other inputs


Entry = TypeVar("Entry", SystemType, AnalysisType, CollectionKind)


class Registry(Generic[Entry]):
    """Entries by name: the built-ins, registered by the modules their package imports (BUILTIN_MODULES, the one
    place they are declared), then those of plugins, the modules other distributions declare under the entry point
    group; all loaded on first use, so registering never creates cycles and a command that never asks imports none.

    A plugin is held to gsr.infra.plugins' contract: one that fails to import is one warning naming it and is left
    out; its entries' functions, when they raise, raise a PluginError naming it (the runner makes a failing analysis
    a warning); `plugin_of(name)` says which plugin registered an entry, whose code key the caches of its results
    add (Experiment.system_key).
    """

    def __init__(self, what: str, package: str, group: str):
        self.what = what
        self.package = package
        self.group = group
        self._entries: dict[str, Entry] = {}
        self._plugins: dict[str, Plugin] = {}  # entry name -> the plugin that registered it
        self._loading: Plugin | None = None
        self._loaded = False

    def register(self, entry: Entry) -> Entry:
        """Add `entry`; a second entry with the same name is an error. Registered while a plugin is imported, its
        functions are guarded (gsr.infra.plugins.guarded) and the plugin recorded as its origin."""
        if entry.name in self._entries:
            raise RegistryError(f"two {self.what}s are called {entry.name!r}")
        if self._loading is not None:
            plugin = self._loading
            functions: dict[str, Any] = {
                field.name: guarded(value, plugin, f"{field.name}() of {self.what} {entry.name!r}")
                for field in dataclasses.fields(entry)
                if callable(value := getattr(entry, field.name))
            }
            entry = dataclasses.replace(entry, **functions)
            self._plugins[entry.name] = plugin
        self._entries[entry.name] = entry
        return entry

    def plugin_of(self, name: str) -> Plugin | None:
        """The plugin that registered the entry `name`; None for a built-in (or an entry registered by code)."""
        self._load()
        return self._plugins.get(name)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        importlib.import_module(self.package)
        for plugin in third_party(self.group):
            self._loading = plugin
            try:
                load(plugin)  # a module: importing it registers its entries (an imported one is not imported again)
            finally:
                self._loading = None

    def get(self, name: object) -> Entry:
        """The entry called `name`; RegistryError listing the known names otherwise."""
        self._load()
        if name not in self._entries:
            raise RegistryError(f"{self.what} {name!r} is unknown (choose one of {', '.join(self._entries)})")
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __iter__(self) -> Iterator[Entry]:
        self._load()
        return iter(list(self._entries.values()))

    def names(self) -> list[str]:
        """Every registered name, in registration order."""
        self._load()
        return list(self._entries)


SYSTEMS: Registry[SystemType] = Registry("model", "experiments.systems", "gsr.systems")
ANALYSES: Registry[AnalysisType] = Registry("analysis", "experiments.analyses", "gsr.analyses")
COLLECTION_KINDS: Registry[CollectionKind] = Registry("collection kind", "experiments.collections", "gsr.collections")
