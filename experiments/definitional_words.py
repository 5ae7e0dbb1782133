"""Before any training or retrieval (and in `gsr run --dry-run`): every embedding whose gender direction the run will
fit has the definitional words, each problem named by its config keys. Eq. 1 needs each measuring embedding to hold
the words of the measuring pairs (gsr.definitional, else Bolukbasi's ten) and 'she' and 'he' (which orient the
direction); debiasing needs each debiased embedding's base to hold the debiasing pairs. An embedding trained on the
collection will hold a word only if the collection has it at least min_count times: the words are counted in the
collection as training tokenises it, so a missing word is found before the training, not after it."""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from experiments.config.params import ConfigError
from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS, ORIENTATION_PAIR, load_word_pairs, vocabulary_key

if TYPE_CHECKING:
    from experiments.runner import Experiment

MAX_LISTED = 10


def check_definitional_words(experiment: Experiment, dry_run: bool = False) -> None:
    """A ConfigError naming every embedding that lacks definitional words, with the keys to change (all at once).

    Args:
        experiment: The experiment about to run (its collection is loaded for a trained embedding's words).
        dry_run: Write nothing to the cache (a collection without a cached token corpus is counted in memory).

    Raises:
        ConfigError: If an embedding lacks a definitional word.
    """
    config = experiment.config
    where = config.path or "config"
    vocabularies: dict[str, Vocabulary] = {}
    checked: set[tuple[str, tuple]] = set()
    problems = []
    measuring_pairs, measuring_key = _measuring_pairs(experiment)
    wanted = {name: [(measuring_pairs, measuring_key, True)] for name in config.measuring}
    used = {s.embedding for s in config.systems if s.embedding} | set(config.measuring)
    debiased_bases = sorted({base for name in used if (base := config.embeddings[name].base) is not None})
    if debiased_bases:
        debias_pairs, debias_key = _debias_pairs(experiment)
        for base in debiased_bases:
            wanted.setdefault(base, []).append((debias_pairs, debias_key, False))
    for name, needs in wanted.items():
        source = _vocabulary_source(experiment, name)
        if source not in vocabularies:
            vocabularies[source] = _vocabulary(experiment, source, dry_run)
        for pairs, key, orient in needs:
            if (source, pairs) in checked:  # debiasing with the measuring pairs: said once
                continue
            checked.add((source, pairs))
            words = [w for pair in pairs for w in pair] + (list(ORIENTATION_PAIR) if orient else [])
            missing = [w for w in dict.fromkeys(words) if vocabularies[source].lacks(w)]
            if missing:
                problems.append(_problem(name, source, key, vocabularies[source], missing))
    if problems:
        raise ConfigError(f"{where}: " + "; ".join(problems))


def _measuring_pairs(experiment: Experiment) -> tuple[tuple[tuple[str, str], ...], str]:
    definitional = experiment.config.definitional
    if definitional is None:
        return (
            DEFAULT_DEFINITIONAL_PAIRS,
            "the default definitional pairs (Bolukbasi's ten; gsr.definitional gives others)",
        )
    return tuple(load_word_pairs(definitional)), f"gsr.definitional ({definitional})"


def _debias_pairs(experiment: Experiment) -> tuple[tuple[tuple[str, str], ...], str]:
    from debias.words import default_definitional_pairs

    config = experiment.config
    if "definitional" in config.debias_lists:
        path = config.debias_lists["definitional"]
        return tuple(load_word_pairs(path)), f"debias.definitional ({path})"
    if config.definitional is not None:
        pairs = tuple(load_word_pairs(config.definitional))
        return pairs, f"gsr.definitional ({config.definitional}), which debiasing uses"
    return (
        default_definitional_pairs(config.debias_list_set),
        f"the {config.debias_list_set} lists' definitional pairs (debias.lists; debias.definitional gives others)",
    )


def _vocabulary_source(experiment: Experiment, name: str) -> str:
    """The embedding whose words `name` has: itself, or the embedding a debiased one was made from."""
    spec = experiment.config.embeddings[name]
    while spec.base is not None:  # debiasing changes vectors, never the vocabulary
        spec = experiment.config.embeddings[spec.base]
    return spec.name


@dataclass(frozen=True)
class Vocabulary:
    """The words an embedding has (or, trained on the collection, will have) and, for a trained one, the collection's
    word counts and the min_count that decides them."""

    words: Container[str]
    counts: Mapping[str, int] | None = None
    min_count: int = 0

    def lacks(self, word: str) -> bool:
        """No case form of `word` is in the vocabulary (gsr.lexicon.vocabulary_key, the lookup Eq. 1 uses)."""
        return vocabulary_key(self.words, word) is None

    def seen(self, word: str) -> str:
        """How often the collection has `word` (in any case form the lookup accepts)."""
        key = vocabulary_key(self.counts or {}, word)
        times = (self.counts or {}).get(key, 0) if key is not None else 0
        return f"{word} {times} time{'s' if times != 1 else ''}"


def _vocabulary(experiment: Experiment, name: str, dry_run: bool) -> Vocabulary:
    spec = experiment.config.embeddings[name]
    cached = _cached_words(experiment, name) if dry_run or spec.train is not None else None
    if cached is not None:
        return Vocabulary(cached)
    if spec.train is not None:
        from embeddings.training import TrainingSettings, collection_word_counts

        min_count = TrainingSettings(**spec.train).min_count
        collection = experiment.collection
        counts = collection_word_counts(
            Path(collection.documents), collection.key, write=not dry_run, n_jobs=experiment.config.threads
        )
        return Vocabulary({w for w, c in counts.items() if c >= min_count}, counts, min_count)
    if not dry_run:  # loaded as the run loads it (and keeps it)
        return Vocabulary(experiment.source_embedding(name).kv.key_to_index)
    from gsr.vectors.loading import load_embedding

    assert spec.source is not None  # neither trained nor debiased: a file or a built-in name
    return Vocabulary(load_embedding(spec.source, cache=False, allow_pickle=spec.allow_pickle).key_to_index)


def _cached_words(experiment: Experiment, name: str) -> set[str] | None:
    """The words of an embedding's cache entry, read without verifying or writing it; None where there is none (or
    it is unreadable: a run verifies the entry, and rebuilds it, when it uses it)."""
    from experiments.plan import source_embedding_key
    from gsr.infra.store import cache_dir
    from gsr.vectors.loading import BUILTIN_EMBEDDINGS, CACHE_FORMAT

    key = source_embedding_key(experiment, name)
    key = f"builtin-{key}" if key in BUILTIN_EMBEDDINGS else key
    try:
        words = json.loads((cache_dir() / "embeddings" / f"{key}-v{CACHE_FORMAT}" / "words.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return set(words) if isinstance(words, list) else None


def _problem(name: str, source: str, key: str, vocabulary: Vocabulary, missing: list[str]) -> str:
    via = f" (made from embeddings.{source})" if source != name else ""
    more = f" … and {len(missing) - MAX_LISTED} more" if len(missing) > MAX_LISTED else ""
    if vocabulary.counts is None:
        return f"embeddings.{name}{via} lacks definitional words of {key}: {', '.join(missing[:MAX_LISTED])}{more}"
    seen = ", ".join(vocabulary.seen(w) for w in missing[:MAX_LISTED])
    return (
        f"embeddings.{name}{via}, trained on the collection (min_count {vocabulary.min_count}), will lack definitional "
        f"words of {key}: the collection has {seen}{more}; give pairs whose words it has at least min_count times, "
        f"or lower embeddings.{source}.min_count"
    )
