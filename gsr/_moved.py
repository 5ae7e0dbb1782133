"""Module names of earlier releases that moved, kept importable with a DeprecationWarning for at least one release.

`import gsr.statistics` (or `from gsr.statistics import Interval`) gives the module that now lives at
gsr.uncertainty, the same object, after a DeprecationWarning that names the new place. One table, one import hook,
so the package folders list only what is there now.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import FrameType

REMOVED_IN = "0.3"

MOVED_MODULES = {
    "gsr.textio": "gsr.io.files",
    "gsr.topics": "gsr.io.topics",
    "gsr.records": "gsr.io.records",
    "gsr.sources": "gsr.documents.base",
    "gsr.sgml": "gsr.documents.sgml",
    "gsr.irds": "gsr.documents.irds",
    "gsr.stats": "gsr.documents.stats",
    "gsr.source_stats": "gsr.documents.needed",
    "gsr.corpora": "gsr.text.corpora",
    "gsr.labels": "gsr.text.intrinsic_gender",
    "gsr.statistics": "gsr.uncertainty",
    "gsr.store": "gsr.infra.store",
    "gsr.params": "gsr.infra.params",
    "gsr.numeric": "gsr.infra.numeric",
    "gsr.plots": "experiments.report.plots",
    "gsr.stereotypes": "gsr.validation.stereotypes",
    "gsr.toys": "gsr.validation.toys",
    "gsr.fairness.integration": "gsr.integrations.bias_measures",
    "embeddings.direction": "gsr.lexicon",
    "experiments.config_params": "experiments.config.params",
    "experiments.config_systems": "experiments.config.systems",
    "experiments.tables": "experiments.report.tables",
    "experiments.fairness": "experiments.document_labels",
}


def _caller_stacklevel() -> int:
    """The stacklevel of the line that wrote the old name: the first frame outside this module, the import
    machinery and a package's `__getattr__` (warnings.warn itself does not count importlib's frames)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None:
        code = frame.f_code
        in_importlib = "importlib" in code.co_filename and "_bootstrap" in code.co_filename
        if not in_importlib and code.co_filename != __file__ and code.co_name != "__getattr__":
            return level
        if not in_importlib:
            level += 1
        frame = frame.f_back
    return level


def warn_moved(old: str, new: str) -> None:
    warnings.warn(
        f"{old} moved to {new}; import it from there ({old} goes away in gsr-bench {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=_caller_stacklevel(),
    )


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module at its new place."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = MOVED_MODULES[spec.name]
        warn_moved(spec.name, new)
        return importlib.import_module(new)

    def exec_module(self, module):  # the module at the new place is already executed
        pass


def install() -> None:
    """Put the finder on sys.meta_path once (gsr/__init__ calls it)."""
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedModules())
