"""Experiment configs (TOML): collection, named embeddings, systems, measures, GSR settings, output.

Everything is checked before any work starts: an unknown key, model, embedding or measure fails naming the key.
Relative paths in the config are resolved against the config file's folder.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from experiments.collections import SOURCE_KEYS
from gsr.io import InputError

EXPERIMENTS_FOLDER = Path(__file__).resolve().parent
BUILTIN_CONFIGS = {"demo": EXPERIMENTS_FOLDER / "demo.toml", "robust04": EXPERIMENTS_FOLDER / "robust04.toml"}

LEXICAL_MODELS = {"bm25": {"k1": 0.9, "b": 0.4}, "qld": {"mu": 1000.0}, "tfidf": {}}
VECTOR_MODELS = ("add", "si")
NEURAL_MODELS = ("drmm", "matchpyramid")
MODELS = (*LEXICAL_MODELS, *VECTOR_MODELS, *NEURAL_MODELS)
NEURAL_KEYS = ("depth", "epochs", "seed", "rerank")

TOP_KEYS = ("name", "output", "depth", "threads", "collection", "embeddings", "systems", "evaluation", "gsr", "plots",
            "debias", "analyses")
DEBIAS_KEYS = ("variants", "systems", "definitional", "gender_specific", "equalize")
DEBIAS_VARIANTS = {"debiased": "regular", "strong": "strong"}  # variant label -> debias.METHODS key
ANALYSES_KEYS = ("rank_change", "rank_depth", "reliability", "intrinsic_gender", "gap_bins")
EMBEDDING_KEYS = ("source", "train", "dim", "window", "min_count", "epochs", "seed")
EVALUATION_KEYS = ("measures", "baseline")
GSR_KEYS = ("measuring", "cutoff", "stopwords", "definitional", "random_seed")
PLOTS_KEYS = ("enabled",)


class ConfigError(InputError):
    """A config file that cannot be run; the message names the file and the offending key."""


@dataclass
class EmbeddingSpec:
    """A named embedding: a built-in name or a vectors file (`source`), or one trained on the collection (`train`)."""

    name: str
    source: str | None = None
    train: dict | None = None
    base: str | None = None  # a debiased variant of this embedding …
    debias: str | None = None  # … by this debias.METHODS method


@dataclass
class SystemSpec:
    """One retrieval system of the results table."""

    name: str
    model: str
    embedding: str | None = None
    params: dict = field(default_factory=dict)
    variant: str = "regular"  # "regular", or the debiased variant this row retrieves with
    base_system: str | None = None  # the regular system this variant is compared with (Tables 2 and 3)


@dataclass
class ExperimentConfig:
    path: Path | None
    name: str
    output: Path
    collection: dict
    embeddings: dict[str, EmbeddingSpec]
    systems: list[SystemSpec]
    measures: list[str]
    baseline: str | None
    measuring: list[str]
    cutoff: str | int | None = "relevant"
    stopwords: Path | None = None
    definitional: Path | None = None
    random_seed: int = 0
    depth: int = 1000
    threads: int = 2
    plots: bool = True
    debias_variants: list[str] = field(default_factory=list)
    debias_lists: dict = field(default_factory=dict)
    analyses: dict = field(default_factory=dict)

    def variants_of(self, system: str) -> dict[str, SystemSpec]:
        """variant label -> system, for a regular system and its debiased copies."""
        return {s.variant: s for s in self.systems if s.name == system or s.base_system == system}


def _unknown(table: dict, allowed, where: str, source: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{source}: unknown key '{where}{key}' (allowed: {', '.join(allowed)})")


def _table(value, where: str, source: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: '{where}' must be a table")
    return value


def _resolve(base: Path, value) -> str:
    if isinstance(value, list):
        return [_resolve(base, v) for v in value]
    text = str(value)
    if text.startswith("pyserini:"):
        return text
    path = Path(text).expanduser()
    return str(path if path.is_absolute() else base / path)


def load_config(path_or_name: str | Path) -> ExperimentConfig:
    """Read and check a config file, or a built-in config by name ('demo', 'robust04')."""
    path = BUILTIN_CONFIGS.get(str(path_or_name), Path(path_or_name))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file (built-in configs: {', '.join(BUILTIN_CONFIGS)})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err})") from None
    return parse_config(raw, path)


def parse_config(raw: dict, path: Path | None = None) -> ExperimentConfig:
    """Check a config's tables and build the ExperimentConfig (see load_config)."""
    source = str(path) if path else "config"
    base = path.resolve().parent if path else Path.cwd()
    _unknown(raw, TOP_KEYS, "", source)
    for required in ("collection", "systems"):
        if required not in raw:
            raise ConfigError(f"{source}: missing '{required}'")

    collection = dict(_table(raw["collection"], "collection", source))
    kind = collection.get("kind")
    if kind not in SOURCE_KEYS:
        raise ConfigError(f"{source}: collection.kind {kind!r} is unknown (choose one of {', '.join(SOURCE_KEYS)})")
    required, optional = SOURCE_KEYS[kind]
    _unknown(collection, ("kind", "name", *required, *optional), "collection.", source)
    for key in required:
        if key not in collection:
            raise ConfigError(f"{source}: collection.{key} is required for kind '{kind}'")
    for key in ("documents", "topics", "qrels", "path", "index", "folds"):
        if key in collection:
            collection[key] = _resolve(base, collection[key])

    embeddings = {}
    for name, table in _table(raw.get("embeddings", {}), "embeddings", source).items():
        table = _table(table, f"embeddings.{name}", source)
        _unknown(table, EMBEDDING_KEYS, f"embeddings.{name}.", source)
        if ("source" in table) == ("train" in table):
            raise ConfigError(f"{source}: embeddings.{name} needs exactly one of 'source' (a built-in name or file) "
                              "or 'train' ('word2vec' or 'fasttext')")
        if "source" in table:
            extra = sorted(set(table) - {"source"})
            if extra:
                raise ConfigError(f"{source}: embeddings.{name}.{extra[0]} only applies to trained embeddings")
            from embeddings.loading import BUILTIN_EMBEDDINGS

            value = table["source"]
            embeddings[name] = EmbeddingSpec(name, value if value in BUILTIN_EMBEDDINGS else _resolve(base, value))
        else:
            from embeddings.training import TrainingSettings

            settings = {"method": table["train"], **{k: v for k, v in table.items() if k != "train"}}
            try:
                TrainingSettings(**settings)
            except (ValueError, TypeError) as err:
                raise ConfigError(f"{source}: embeddings.{name}: {err}") from None
            embeddings[name] = EmbeddingSpec(name, train=settings)

    systems = []
    raw_systems = raw["systems"]
    if not isinstance(raw_systems, list) or not raw_systems:
        raise ConfigError(f"{source}: 'systems' must be a non-empty array of tables ([[systems]])")
    for i, table in enumerate(raw_systems):
        where = f"systems[{i}]"
        table = _table(table, where, source)
        name, model = table.get("name"), table.get("model")
        if not name:
            raise ConfigError(f"{source}: {where}.name is required")
        if model not in MODELS:
            raise ConfigError(f"{source}: {where}.model {model!r} is unknown (choose one of {', '.join(MODELS)})")
        if model in LEXICAL_MODELS:
            allowed = ("name", "model", *LEXICAL_MODELS[model])
        elif model in VECTOR_MODELS:
            allowed = ("name", "model", "embedding")
        else:
            allowed = ("name", "model", "embedding", *NEURAL_KEYS)
        _unknown(table, allowed, f"{where}.", source)
        embedding = table.get("embedding")
        if model not in LEXICAL_MODELS:
            if embedding is None:
                raise ConfigError(f"{source}: {where}.embedding is required for model '{model}'")
            if embedding not in embeddings:
                raise ConfigError(f"{source}: {where}.embedding {embedding!r} is not defined under [embeddings]")
        params = {k: v for k, v in table.items() if k not in ("name", "model", "embedding")}
        if model in LEXICAL_MODELS:
            params = {**LEXICAL_MODELS[model], **params}
        systems.append(SystemSpec(name, model, embedding, params))
    names = [s.name for s in systems]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ConfigError(f"{source}: system name {duplicate!r} is used twice")
    for system in systems:
        rerank = system.params.get("rerank")
        if system.model in NEURAL_MODELS and rerank is not None and rerank not in names:
            raise ConfigError(f"{source}: {system.name}.rerank {rerank!r} is not a system of this config")

    evaluation = _table(raw.get("evaluation", {}), "evaluation", source)
    _unknown(evaluation, EVALUATION_KEYS, "evaluation.", source)
    from experiments.effectiveness import DEFAULT_MEASURES, parse_measures

    measures = [str(m) for m in evaluation.get("measures", DEFAULT_MEASURES)]
    try:
        parse_measures(measures)
    except InputError as err:
        raise ConfigError(f"{source}: evaluation.measures: {err}") from None
    baseline = evaluation.get("baseline", names[0])
    if baseline is not None and baseline not in names:
        raise ConfigError(f"{source}: evaluation.baseline {baseline!r} is not a system of this config")

    gsr = _table(raw.get("gsr", {}), "gsr", source)
    _unknown(gsr, GSR_KEYS, "gsr.", source)
    measuring = gsr.get("measuring", [])
    if isinstance(measuring, str):
        measuring = [measuring]
    for name in measuring:
        if name not in embeddings:
            raise ConfigError(f"{source}: gsr.measuring {name!r} is not defined under [embeddings]")
    cutoff = gsr.get("cutoff", "relevant")
    if not (cutoff == "relevant" or (isinstance(cutoff, int) and cutoff > 0)):
        raise ConfigError(f"{source}: gsr.cutoff must be 'relevant' or a positive integer, not {cutoff!r}")

    plots = _table(raw.get("plots", {}), "plots", source)
    _unknown(plots, PLOTS_KEYS, "plots.", source)
    for key in ("depth", "threads"):
        if key in raw and not (isinstance(raw[key], int) and raw[key] > 0):
            raise ConfigError(f"{source}: '{key}' must be a positive integer")
    variants, lists = _debias_variants(raw, embeddings, systems, base, source)
    analyses = _table(raw.get("analyses", {}), "analyses", source)
    _unknown(analyses, ANALYSES_KEYS, "analyses.", source)
    analyses = {"rank_change": bool(variants), "rank_depth": 100, "reliability": len(measuring) >= 2,
                "intrinsic_gender": True, **analyses}
    stem = path.stem if path else "experiment"
    return ExperimentConfig(
        path=path, name=str(raw.get("name", stem)), output=Path(raw.get("output", Path("out") / stem)),
        collection=collection, embeddings=embeddings, systems=systems, measures=measures, baseline=baseline,
        measuring=list(measuring), cutoff=cutoff,
        stopwords=Path(_resolve(base, gsr["stopwords"])) if "stopwords" in gsr else None,
        definitional=Path(_resolve(base, gsr["definitional"])) if "definitional" in gsr else None,
        random_seed=int(gsr.get("random_seed", 0)), depth=int(raw.get("depth", 1000)),
        threads=int(raw.get("threads", 2)), plots=bool(plots.get("enabled", True)),
        debias_variants=variants, debias_lists=lists, analyses=analyses)


def _debias_variants(raw: dict, embeddings: dict, systems: list, base: Path, source: str):
    """Expand [debias]: each listed embedding system gets a copy per variant, retrieving with a debiased embedding."""
    if "debias" not in raw:
        return [], {}
    table = _table(raw["debias"], "debias", source)
    _unknown(table, DEBIAS_KEYS, "debias.", source)
    variants = table.get("variants", list(DEBIAS_VARIANTS))
    for variant in variants:
        if variant not in DEBIAS_VARIANTS:
            raise ConfigError(f"{source}: debias.variants {variant!r} is unknown (choose from "
                              f"{', '.join(DEBIAS_VARIANTS)})")
    with_embedding = [s for s in systems if s.embedding is not None]
    names = table.get("systems", [s.name for s in with_embedding])
    for name in names:
        if name not in {s.name for s in with_embedding}:
            raise ConfigError(f"{source}: debias.systems {name!r} is not a system with an embedding")
    lists = {k: Path(_resolve(base, table[k])) for k in ("definitional", "gender_specific", "equalize") if k in table}
    for system in [s for s in with_embedding if s.name in names]:
        for variant in variants:
            embedding = f"{system.embedding}:{variant}"
            embeddings.setdefault(embedding, EmbeddingSpec(embedding, base=system.embedding,
                                                           debias=DEBIAS_VARIANTS[variant]))
            systems.append(SystemSpec(f"{system.name} ({variant})", system.model, embedding, dict(system.params),
                                      variant=variant, base_system=system.name))
    return list(variants), lists
