"""Plugins: the modules other distributions declare under gsr-bench's entry point groups, all under one contract.

* **Imported only when needed**: a group's plugins are imported the first time a command asks for that group (the
  registries of experiments.registry on first use; document sources only for a path no built-in reader knows by its
  name), never at start-up.
* **A failing plugin is one warning**: one that cannot be imported, or whose code raises when it is called, is one
  warning naming its distribution, entry point and error (its first line), and is left out; the command goes on
  (or, where what failed is what the user asked for, ends with one error line naming it; never a traceback).
* **Its code is part of the results**: `code_key` names the content of every file of its distribution (from the
  RECORD pip writes, the files of the module it names included, wherever an editable install keeps them) and of the
  modules outside site-packages and the standard library that these import (a user's helper module); the
  output folder's fingerprint covers every plugin's key, and caches of what a plugin computed cover its own, so
  editing a plugin recomputes what it computed.
* **Built-ins are not plugins**: gsr-bench's own modules are declared once, in their packages' BUILTIN_MODULES (the
  Lucene document source, which gsr cannot import, by its entry point); an entry point naming a module of
  gsr-bench's packages (as metadata installed from an older pyproject.toml does) is gsr-bench's code, covered by
  its source digest, and registries skip it.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import logging
import sys
import sysconfig
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from gsr.errors import GSRError, PluginError
from gsr.infra.digests import content_key, file_content_key

GROUPS = ("gsr.systems", "gsr.analyses", "gsr.collections", "gsr.document_sources")
PROJECT_PACKAGES = ("gsr", "embeddings", "debias", "retrievers", "experiments")

log = logging.getLogger("gsr.plugins")
_warned: set[tuple[str, str, str]] = set()
_calling: list[Plugin] = []  # the plugins whose code runs now, innermost last (see calling)


@dataclass(frozen=True)
class Plugin:
    """An entry point of one of GROUPS, with the distribution that declares it."""

    entry_point: EntryPoint

    @property
    def group(self) -> str:
        return self.entry_point.group

    @property
    def name(self) -> str:
        return self.entry_point.name

    @property
    def distribution(self) -> str:
        """The declaring distribution's name and version ('?' where unknown)."""
        dist = self.entry_point.dist
        if dist is None:
            return "?"
        return f"{dist.metadata['Name'] or '?'} {dist.version}"

    def describe(self) -> str:
        """How a message names it: group, entry point, module and distribution."""
        return (
            f"the {self.group} plugin {self.name!r} ({self.entry_point.value}, from the distribution "
            f"{self.distribution})"
        )

    def is_builtin(self) -> bool:
        """Whether the entry point names a module of gsr-bench itself."""
        return self.entry_point.module.split(".")[0] in PROJECT_PACKAGES

    @functools.cached_property
    def code_key(self) -> str:
        """A key of the content of the plugin's code: every file its distribution's RECORD lists and every file of
        the top-level package of the module it names (an editable install's RECORD lists only a path hook), and of
        the user's own modules these import (_own_imports), by name, compiled bytecode left out. Computed once per
        process, from the files as the plugin was imported (the code that runs is the code imported)."""
        files: dict[str, Path] = {}
        dist = self.entry_point.dist
        for listed in (dist.files if dist is not None else None) or []:
            path = Path(str(listed.locate()))
            if path.is_file() and "__pycache__" not in listed.parts and path.suffix != ".pyc":
                files.setdefault(listed.as_posix(), path)
        for name, path in _module_files(self.entry_point.module.split(".")[0]).items():
            files.setdefault(name, path)
        for name, path in _own_imports(list(files.values())).items():
            files.setdefault(f"imports/{name}", path)
        return content_key(self.group, self.name, sorted((name, file_content_key(p)) for name, p in files.items()))

    def warn(self, when: str, err: BaseException) -> None:
        """One warning (once per process) that the plugin failed `when` ('to import', 'when called'), left out."""
        key = (self.group, self.name, when)
        if key not in _warned:
            _warned.add(key)
            log.warning("%s failed %s: %s; it is left out", self.describe(), when, one_line(err))


def _module_files(top: str) -> dict[str, Path]:
    """{name relative to its folder: file} of every file of top-level module `top` (bytecode left out)."""
    files: dict[str, Path] = {}
    for root in _module_roots(top):
        found = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in found:
            if "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.setdefault(path.relative_to(root.parent).as_posix(), path)
    return files


def _imported_modules(path: Path) -> set[str]:
    """The top-level modules a Python file's import statements name (absolute ones; none where it does not parse)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return set()
    tops: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def _installed(path: Path) -> bool:
    """Whether `path` lies where installed code lives (the standard library, site-packages): code whose version the
    fingerprint names, not a user's own folder."""
    places = {sysconfig.get_path(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    resolved = path.resolve()
    return any(place and resolved.is_relative_to(Path(place).resolve()) for place in places)


def _own_imports(plugin_files: Iterable[Path]) -> dict[str, Path]:
    """The files of the modules a plugin's Python files import, and those import in turn, that no installed
    distribution holds: a user's own helper module or package beside the plugin on sys.path, or installed editable
    from a project folder. Its version names none of their content, so without them an edited helper would leave
    the plugin's cached results "up to date". Found from the import statements (an import by importlib, at run time,
    is not seen); gsr-bench's packages, the standard library and site-packages are left out."""
    skipped = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | set(PROJECT_PACKAGES)
    queue = [p for p in plugin_files if p.suffix == ".py"]
    seen: set[str] = set()
    found: dict[str, Path] = {}
    while queue:
        for top in sorted(_imported_modules(queue.pop()) - skipped - seen):
            seen.add(top)
            roots = _module_roots(top)
            if not roots or any(_installed(root) for root in roots):
                continue
            own = _module_files(top)
            found.update(own)
            queue += [p for p in own.values() if p.suffix == ".py"]
    return found


def _module_roots(top: str) -> list[Path]:
    """The file or folders of top-level module `top`, found without importing it (empty where it is not found)."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(location) for location in spec.submodule_search_locations]
    return [Path(spec.origin)] if spec.origin and Path(spec.origin).is_file() else []


def one_line(err: BaseException) -> str:
    """An error as one line: its type and the first line of its message."""
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__


def plugins(group: str) -> list[Plugin]:
    """The entry points of `group` in every installed distribution (gsr-bench's own included: see is_builtin), in
    the order importlib.metadata lists them, one per (distribution, name)."""
    return [Plugin(entry) for entry in entry_points(group=group)]


def third_party(group: str) -> list[Plugin]:
    """The plugins of `group` that are not gsr-bench's own modules."""
    return [plugin for plugin in plugins(group) if not plugin.is_builtin()]


def load(plugin: Plugin) -> object | None:
    """The plugin's object (its module, or the attribute its entry point names), imported now; None, with one warning
    naming it, where it fails to import."""
    try:
        return plugin.entry_point.load()
    except Exception as err:  # a plugin's failure is its own: the built-ins and the other plugins still work
        plugin.warn("to import", err)
        return None


@contextmanager
def calling(plugin: Plugin) -> Iterator[None]:
    """Within the block, `plugin`'s code runs (current() names it): caches made meanwhile add its code key."""
    _calling.append(plugin)
    try:
        yield
    finally:
        _calling.pop()


def current() -> Plugin | None:
    """The plugin whose code runs now (innermost), or None."""
    return _calling[-1] if _calling else None


def guarded(function: Callable, plugin: Plugin, role: str) -> Callable:
    """`function`, a plugin's code, called within calling(plugin); an error that is not a GSRError (a plugin's own
    one-line message) becomes a PluginError naming the plugin, its `role` and the error in one line."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        with calling(plugin):
            try:
                return function(*args, **kwargs)
            except GSRError:
                raise
            except Exception as err:
                raise PluginError(f"{plugin.describe()} failed in {role}: {one_line(err)}", plugin) from err

    return call


def code_keys() -> list[tuple[str, str, str]]:
    """(group, entry point, code key) of every plugin of every group that is not gsr-bench's own, sorted: what an
    output folder's fingerprint covers (none is imported for it)."""
    return sorted((p.group, p.name, p.code_key) for group in GROUPS for p in third_party(group))
