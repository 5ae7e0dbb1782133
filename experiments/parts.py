"""The cached parts of an experiment: every value computed from a few inputs (one system's effectiveness, its GSR
under one measuring column, its row of an analysis, one figure) is stored in the cache under a key made of exactly
those inputs, so a rerun after a change recomputes only the parts the change reaches.

A part's key is content_key(kind, its inputs, the code key): its inputs are digests of what it reads (a run file's
content digest, the collection's key, the qrels, the settings it uses), never a whole config, so changing one system
leaves every other system's parts as they were. The code key (the five packages' source digest, every installed
distribution's version and the NLTK word lists found, as the output folder's fingerprint has them:
experiments.code_version) makes any change of the code or of a library a new key for every part: a part is never
reused by code that might compute it otherwise.

Parts are pickled into files under `$GSR_CACHE/parts/KIND/`, through gsr.infra.store (written atomically, verified
against their manifest before reuse, rebuilt when damaged). A value is always handed back as unpickled, whether it
was computed now or read, so a rerun that reuses a part and one that computes it see the same objects, to the bit.
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from experiments.code_version import found_word_lists, installed_versions, source_digest
from gsr.infra.digests import content_key, fast_digest_of_bytes
from gsr.infra.store import cache_dir, cached_file, verified_bytes

PARTS_FOLDER = "parts"
PARTS_FORMAT = 1  # bump when the way parts are stored changes
T = TypeVar("T")


@functools.cache
def code_key() -> str:
    """What every part's key holds beside its inputs: the code (the five packages and every plugin's,
    gsr.infra.plugins.code_keys), the installed libraries and the NLTK word lists found (computed once a process: none
    of them changes while it runs)."""
    from gsr.infra.plugins import code_keys

    return content_key(PARTS_FORMAT, source_digest(), code_keys(), installed_versions(), found_word_lists())


def value_key(value) -> str:
    """A key of a value's content (the digest of its pickle), for a part computed from values already in memory (a
    test between two GSR results): equal values pickle alike under the same code."""
    return fast_digest_of_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def part_entry(kind: str, *inputs) -> Path:
    """The cache file of the part `kind` computed from `inputs` (JSON-serialisable: digests, names, settings)."""
    folder = cache_dir() / PARTS_FOLDER / kind.replace(" ", "-")
    return folder / f"{content_key(kind, inputs, code_key(), length=24)}.pickle"


class PartCounts:
    """How many parts a process computed and reused, by kind (`gsr run` logs them once the report is written)."""

    def __init__(self) -> None:
        self.computed: dict[str, int] = {}
        self.reused: dict[str, int] = {}

    def reset(self) -> None:
        self.computed.clear()
        self.reused.clear()

    def count(self, kind: str, reused: bool) -> None:
        counts = self.reused if reused else self.computed
        counts[kind] = counts.get(kind, 0) + 1

    def summary(self) -> str:
        """'effectiveness 1 of 33, figure 6 of 9, …': the parts computed of those each kind needed."""
        kinds = sorted(set(self.computed) | set(self.reused))
        totals = {kind: self.computed.get(kind, 0) + self.reused.get(kind, 0) for kind in kinds}
        return ", ".join(f"{kind} {self.computed.get(kind, 0)} of {totals[kind]}" for kind in kinds) or "none"


COUNTS = PartCounts()


MISSING = object()  # what _found returns for a part not in the cache (None is a value a part may have)


def _found(kind: str, entry: Path):
    """The part stored at `entry`, unpickled, where it is there and verifies; else MISSING."""
    data = verified_bytes(entry)
    if data is None:
        return MISSING
    COUNTS.count(kind, True)
    return pickle.loads(data)


def cached_part(kind: str, inputs: tuple, compute: Callable[[], T]) -> T:
    """compute()'s value, from the cache when the part `kind` was computed from these `inputs` by this code."""
    entry = part_entry(kind, *inputs)
    found = _found(kind, entry)
    if found is not MISSING:
        return found
    made: dict[str, bytes] = {}

    def build(staging: Path) -> None:
        made["bytes"] = pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL)
        staging.write_bytes(made["bytes"])

    path, reused = cached_file(entry, build)  # built here, or by another process meanwhile (it held the entry's lock)
    COUNTS.count(kind, reused)
    # the cache's bytes, however the part was found: one that is computed and one that is reused are the same objects
    return pickle.loads(made["bytes"] if "bytes" in made else path.read_bytes())


def cached_parts(kind: str, inputs: dict[str, tuple], compute: Callable[[list[str]], dict[str, T]]) -> dict[str, T]:
    """{name: value} of the parts `kind` of each name's `inputs`; those missing are computed together by
    `compute(missing names)` ({name: value}), which shares what they have in common (one pass over the documents, the
    perfect engine every system's GSR report holds)."""
    found = {name: _found(kind, part_entry(kind, *key)) for name, key in inputs.items()}
    missing = [name for name, value in found.items() if value is MISSING]
    if missing:
        computed = compute(missing)
        for name in missing:
            found[name] = cached_part(kind, inputs[name], functools.partial(computed.__getitem__, name))
    return found
