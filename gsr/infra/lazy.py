"""Packages whose public names load on first use (PEP 562), so that importing a package, or one light module of it,
never pulls in the heavy libraries another of its modules needs (the `gsr` command starts in a tenth of a second)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_names(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose names {name: module} are imported from their module when
    first asked for (and kept in the package after)."""

    def __getattr__(name: str):
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__


def names_of(module: str, *names: str) -> dict[str, str]:
    """{name: module} for several names of one module (the shape lazy_names takes)."""
    return dict.fromkeys(names, module)
