"""The extras of gsr-bench a config needs (gsr.infra.extras): its collection kind's, its systems' and those of its
embeddings (trained ones, and word2vec binary, fastText and gensim .kv files, which gensim reads). Checked when the
config is read, so a missing extra stops `gsr run` before any work, in one line that names it."""

from __future__ import annotations

from experiments.registry import COLLECTION_KINDS, SYSTEMS
from gsr.infra.extras import needing, require_all

GENSIM_FILES = (".bin", ".kv")  # embedding files gsr.vectors.loading reads with gensim


def needed_extras(config) -> dict[str, str]:
    """{extra: what of `config` needs it, with its verb} for every extra the config needs, installed or not."""
    needs: dict[str, dict[str, list[str]]] = {}

    def need(extra: str | None, kind: str, name: str) -> None:
        if extra is not None:
            needs.setdefault(extra, {}).setdefault(kind, []).append(name)

    kind = config.collection["kind"]
    need(COLLECTION_KINDS.get(kind).extra, "collection kind", kind)
    for name, spec in config.embeddings.items():
        if spec.train is not None or (spec.source and str(spec.source).lower().endswith(GENSIM_FILES)):
            need("train", "embedding", name)
    for system in config.systems:
        if system.base_system is None:  # a debiased variant needs what its regular system needs
            need(SYSTEMS.get(system.model).extra, "system", system.name)
    return {extra: needing(named) for extra, named in needs.items()}


def check_extras(config, source: str) -> None:
    """MissingExtraError (one line, naming every missing extra and the pip command) unless the config's extras are
    installed."""
    require_all(needed_extras(config), source)
