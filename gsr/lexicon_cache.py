"""Lexicons (g(w) of Eq. 1 for a whole vocabulary) computed once per embedding version and definitional pairs and
kept in the cache as arrays, so that scoring a run needs neither the vectors nor gensim: loading a lexicon of
400,000 words takes a tenth of a second, where loading the embedding and fitting the direction take two."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gsr.errors import EmbeddingError
from gsr.infra import logs
from gsr.infra.digests import content_key
from gsr.infra.store import cache_dir, cached_folder
from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS, GenderDirection, GenderLexicon
from gsr.vectors.loading import embedding_version, load_embedding

LEXICON_FORMAT = 2  # 2: direction.json records the rounding bound of g(w) (gsr.lexicon.genderedness_rounding)


DEBIAS_RECORD_SUFFIX = ".debias.json"  # beside a file `gsr debias` wrote: what it was debiased from, and how
log = logs.get("lexicon")


def debiasing_record(spec: str | os.PathLike) -> dict | None:
    """What `gsr debias` recorded beside the embedding file `spec` (source, method), or None for any other file."""
    path = Path(str(spec)).expanduser()
    try:
        record = json.loads(path.with_name(path.name + DEBIAS_RECORD_SUFFIX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def note_debiased_measuring(spec: str | os.PathLike) -> None:
    """One line when a measuring embedding is a debiased copy: Eq. 1's direction is fitted again on it, so GSR
    measures the gender that debiasing left, not the original direction's (docs: the paper and its choices)."""
    record = debiasing_record(spec)
    if record is not None:
        log.info(
            "measuring with %s, a %s-debiased copy of %s: its gender direction is estimated again from what "
            "debiasing left",
            spec,
            record.get("method", "?"),
            record.get("source", "another embedding"),
        )


def cached_lexicon(
    spec: str | os.PathLike,
    pairs: Sequence[tuple[str, str]] | None = None,
    name: str | None = None,
    allow_pickle: bool = False,
) -> GenderLexicon:
    """GenderLexicon.from_embedding(load_embedding(spec), pairs), computed the first time and read from the cache
    (verified) afterwards. `pairs` default to Bolukbasi's ten."""
    pairs = tuple((female, male) for female, male in (pairs if pairs is not None else DEFAULT_DEFINITIONAL_PAIRS))
    key = content_key(embedding_version(spec, allow_pickle), pairs, LEXICON_FORMAT)
    note_debiased_measuring(spec)

    def build(staging: Path) -> None:
        kv = load_embedding(spec, allow_pickle=allow_pickle)
        try:
            lexicon = GenderLexicon.from_embedding(kv, pairs)
        except EmbeddingError as err:  # which embedding the pairs failed on
            raise EmbeddingError(f"{spec}: {err}") from None
        direction = lexicon.direction
        assert direction is not None  # from_embedding fitted it
        np.save(staging / "values.npy", lexicon.vocabulary_values(), allow_pickle=False)
        np.save(staging / "direction.npy", direction.vector, allow_pickle=False)
        (staging / "words.json").write_text(json.dumps(list(kv.index_to_key)), encoding="utf-8")
        (staging / "direction.json").write_text(
            json.dumps(
                {
                    "explained_variance_ratios": list(direction.explained_variance_ratios),
                    "pairs": [list(p) for p in direction.pairs],
                    "rounding": lexicon.rounding,
                }
            ),
            encoding="utf-8",
        )

    folder, _ = cached_folder(cache_dir() / "lexicons" / key, build)
    words = json.loads((folder / "words.json").read_text(encoding="utf-8"))
    meta = json.loads((folder / "direction.json").read_text(encoding="utf-8"))
    ratios = tuple(meta["explained_variance_ratios"])
    direction = GenderDirection(
        np.load(folder / "direction.npy", allow_pickle=False), ratios[0], ratios, tuple(tuple(p) for p in meta["pairs"])
    )
    return GenderLexicon(
        dict(zip(words, range(len(words)))),
        np.load(folder / "values.npy", allow_pickle=False),
        name=name or str(spec),
        direction=direction,
        rounding=meta["rounding"],
    )
