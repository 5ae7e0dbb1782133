"""Every kind of system a config can name with `model = "..."`: one module per family, each registering its
SystemTypes in experiments.registry.SYSTEMS when imported. A new family is a module here plus its name below."""

import importlib

BUILTIN_MODULES = ("lexical", "vector", "neural", "run_file", "fair_rerankers", "dense")

for _module in BUILTIN_MODULES:
    importlib.import_module(f"{__name__}.{_module}")
