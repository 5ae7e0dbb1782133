"""The debiased variants of a named embedding (a config's `[embeddings.NAME] base = ..., debias = ...`): Bolukbasi's
regular or strong hard debiasing (debias.hard) of the base vectors with the config's word lists, cached like any other
embedding under a key of everything that shapes the result."""

from __future__ import annotations

from pathlib import Path

from experiments.config.experiment import ExperimentConfig
from gsr.infra.digests import content_key, fast_digest, file_content_key

DEBIAS_VERSION = 2  # bump when debiasing changes its output (2: rows without a gender component keep their bits)


def debiased_embedding(base, method: str, config: ExperimentConfig) -> tuple[object, str]:
    """(KeyedVectors, key): `base` (a loaded embedding with .kv and .key) debiased by `method` ('regular' or 'strong')
    with the config's lists, computed once and cached (memory-mapped)."""
    from debias.hard import METHODS
    from gsr.vectors.loading import cached_embedding

    key, options = debiased_key(base.key, method, config)
    return cached_embedding(key, lambda: METHODS[method](**options).fit_transform(base.kv)), key


def debiased_key(base_key: str, method: str, config: ExperimentConfig) -> tuple[str, dict]:
    """(the cache key of the embedding with key `base_key` debiased by `method` with the config's lists, the
    debiaser's options): known without loading or debiasing anything (gsr run --dry-run)."""
    from debias.words import DEBIASWE_FILES, DEFAULT_EQUALIZE_FILE, DEFAULT_GENDER_SPECIFIC_FILE

    lists = dict(config.debias_lists)
    if config.definitional and "definitional" not in lists:
        lists["definitional"] = config.definitional
    options = {"definitional_pairs": lists.get("definitional"), "lists": config.debias_list_set}
    if method == "regular":
        options.update(gender_specific=lists.get("gender_specific"), equalize_pairs=lists.get("equalize"))
    # the default list files are part of the key, so editing a default list never serves a stale embedding
    defaults = [*DEBIASWE_FILES.values(), DEFAULT_EQUALIZE_FILE, DEFAULT_GENDER_SPECIFIC_FILE]
    key = "debiased-" + content_key(
        base_key,
        method,
        config.debias_list_set,
        {k: file_content_key(Path(v)) for k, v in lists.items()},
        [fast_digest(p) for p in defaults],
        DEBIAS_VERSION,
    )
    return key, options
