"""Experiment configs (TOML): collection, named embeddings, systems, measures, GSR settings, analyses, output.

Everything is checked before any work starts, against the declarations in experiments.registry (collection kinds,
system types and their parameters, analyses and theirs): an unknown key, model, embedding, measure or analysis, a
value of the wrong type or out of range fails naming the key. Relative paths are resolved against the config
file's folder.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from embeddings.training import TRAINING_PARAMS
from experiments.registry import ANALYSES, COLLECTION_KINDS, SYSTEMS, RegistryError
from gsr.io import InputError
from gsr.params import Param, ParamError, check_params

EXPERIMENTS_FOLDER = Path(__file__).resolve().parent
BUILTIN_CONFIGS = {"demo": EXPERIMENTS_FOLDER / "demo.toml", "robust04": EXPERIMENTS_FOLDER / "robust04.toml"}
RESERVED_SYSTEM_NAMES = ("perfect", "random")  # the reference engines every table adds

TOP_KEYS = ("name", "output", "depth", "threads", "collection", "embeddings", "systems", "evaluation", "gsr", "plots",
            "debias", "analyses")
TOP_PARAMS = (Param("depth", int, 1000, "documents retrieved per query", minimum=1),
              Param("threads", int, 2, "threads and processes for indexing, search and statistics", minimum=1))
DEBIAS_KEYS = ("variants", "systems", "definitional", "gender_specific", "equalize")
DEBIAS_VARIANTS = {"debiased": "regular", "strong": "strong"}  # variant label -> debias.METHODS key
EMBEDDING_KEYS = ("source", "train", *(p.name for p in TRAINING_PARAMS))
EVALUATION_KEYS = ("measures", "baseline")
GSR_KEYS = ("measuring", "cutoff", "stopwords", "definitional", "random_seed")
PLOTS_KEYS = ("enabled",)
SYSTEM_KEYS = ("name", "model")


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
    """One retrieval system of the results table: its model (a registered SystemType) and checked parameters."""

    name: str
    model: str
    embedding: str | None = None
    params: dict = field(default_factory=dict)
    rerank: str | None = None  # the system whose run this one re-ranks (SystemType.reranks)
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
    analyses: dict[str, dict] = field(default_factory=dict)  # enabled analysis -> its checked options

    def variants_of(self, system: str) -> dict[str, SystemSpec]:
        """variant label -> system, for a regular system and its debiased copies."""
        return {s.variant: s for s in self.systems if s.name == system or s.base_system == system}


def output_name(system: str) -> str:
    """The file name stem a system's outputs get (runs/NAME.run): letters, digits, '-', '_' and '.' kept."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in system)


def _unknown(table: dict, allowed, where: str, source: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{source}: unknown key '{where}{key}' (allowed: {', '.join(allowed)})")


def _table(value, where: str, source: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: '{where}' must be a table")
    return value


def _resolve(base: Path, value):
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
    try:
        top = check_params(TOP_PARAMS, {p.name: raw[p.name] for p in TOP_PARAMS if p.name in raw})
    except ParamError as err:
        raise ConfigError(f"{source}: {err}") from None
    collection = _collection(raw["collection"], base, source)
    embeddings = _embeddings(raw.get("embeddings", {}), base, source)
    systems = _systems(raw["systems"], embeddings, source)
    names = [s.name for s in systems]

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
    if not (cutoff == "relevant" or (isinstance(cutoff, int) and not isinstance(cutoff, bool) and cutoff > 0)):
        raise ConfigError(f"{source}: gsr.cutoff must be 'relevant' or a positive integer, not {cutoff!r}")

    plots = _table(raw.get("plots", {}), "plots", source)
    _unknown(plots, PLOTS_KEYS, "plots.", source)
    variants, lists = _debias_variants(raw, embeddings, systems, base, source)
    _check_names(systems, source)
    stem = path.stem if path else "experiment"
    config = ExperimentConfig(
        path=path, name=str(raw.get("name", stem)), output=Path(raw.get("output", Path("out") / stem)),
        collection=collection, embeddings=embeddings, systems=systems, measures=measures, baseline=baseline,
        measuring=list(measuring), cutoff=cutoff,
        stopwords=Path(_resolve(base, gsr["stopwords"])) if "stopwords" in gsr else None,
        definitional=Path(_resolve(base, gsr["definitional"])) if "definitional" in gsr else None,
        random_seed=int(gsr.get("random_seed", 0)), depth=top["depth"], threads=top["threads"],
        plots=bool(plots.get("enabled", True)), debias_variants=variants, debias_lists=lists)
    config.analyses = _analyses(raw.get("analyses", {}), config, source)
    return config


def _collection(raw, base: Path, source: str) -> dict:
    collection = dict(_table(raw, "collection", source))
    kind = collection.get("kind")
    try:
        declared = COLLECTION_KINDS.get(kind)
    except RegistryError:
        raise ConfigError(f"{source}: collection.kind {kind!r} is unknown (choose one of "
                          f"{', '.join(COLLECTION_KINDS.names())})") from None
    _unknown(collection, ("kind", "name", *declared.required, *declared.optional), "collection.", source)
    for key in declared.required:
        if key not in collection:
            raise ConfigError(f"{source}: collection.{key} is required for kind '{kind}'")
    for key in declared.path_keys:
        if key in collection:
            collection[key] = _resolve(base, collection[key])
    return collection


def _embeddings(raw, base: Path, source: str) -> dict[str, EmbeddingSpec]:
    embeddings = {}
    for name, table in _table(raw, "embeddings", source).items():
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
    return embeddings


def _sweep(declared: tuple[Param, ...], given: dict) -> list[dict]:
    """One parameter dict per combination of the values given as lists for scalar parameters (a sweep)."""
    kinds = {p.name: p.kind for p in declared}
    swept = [k for k, v in given.items() if isinstance(v, list) and kinds.get(k) in (int, float, str, bool)]
    if not swept:
        return [given]
    return [{**given, **dict(zip(swept, values))} for values in itertools.product(*(given[k] for k in swept))]


def _systems(raw_systems, embeddings: dict, source: str) -> list[SystemSpec]:
    if not isinstance(raw_systems, list) or not raw_systems:
        raise ConfigError(f"{source}: 'systems' must be a non-empty array of tables ([[systems]])")
    systems = []
    for i, table in enumerate(raw_systems):
        where = f"systems[{i}]"
        table = _table(table, where, source)
        name, model = table.get("name"), table.get("model")
        if not name or not isinstance(name, str):
            raise ConfigError(f"{source}: {where}.name is required (a string)")
        try:
            system_type = SYSTEMS.get(model)
        except RegistryError:
            raise ConfigError(f"{source}: {where}.model {model!r} is unknown (choose one of "
                              f"{', '.join(SYSTEMS.names())})") from None
        declared = system_type.declared_params(table)
        structural = (*SYSTEM_KEYS, *(("embedding",) if system_type.needs_embedding else ()),
                      *(("rerank",) if system_type.reranks else ()))
        _unknown(table, (*structural, *(p.name for p in declared)), f"{where}.", source)
        embedding = table.get("embedding")
        if system_type.needs_embedding:
            if embedding is None:
                raise ConfigError(f"{source}: {where}.embedding is required for model '{model}'")
            if embedding not in embeddings:
                raise ConfigError(f"{source}: {where}.embedding {embedding!r} is not defined under [embeddings]")
        given = {k: v for k, v in table.items() if k not in structural}
        combinations = _sweep(declared, given)
        for values in combinations:
            try:
                params = check_params(declared, values, where=f"{where}.")
            except ParamError as err:
                raise ConfigError(f"{source}: {err}") from None
            label = name if len(combinations) == 1 else \
                f"{name} ({', '.join(f'{k}={values[k]}' for k in given if isinstance(given[k], list))})"
            systems.append(SystemSpec(label, model, embedding, params, rerank=table.get("rerank")))
    _resolve_reranking(systems, source)
    return systems


def _resolve_reranking(systems: list[SystemSpec], source: str) -> None:
    """Every re-ranker names an existing system (explicitly, or its type's default upstream model's first system)."""
    names = [s.name for s in systems]
    for system in systems:
        system_type = SYSTEMS.get(system.model)
        if not system_type.reranks:
            continue
        if system.rerank is None:
            system.rerank = next((s.name for s in systems if s.model == system_type.default_upstream), None)
            if system.rerank is None:
                raise ConfigError(f"{source}: {system.name} re-ranks another system: give 'rerank = NAME' "
                                  f"(or add a {system_type.default_upstream} system)")
        elif system.rerank not in names:
            raise ConfigError(f"{source}: {system.name}.rerank {system.rerank!r} is not a system of this config")
        elif system.rerank == system.name:
            raise ConfigError(f"{source}: {system.name}.rerank names the system itself")


def _check_names(systems: list[SystemSpec], source: str) -> None:
    """System names are unique, distinct from the reference engines and from each other's output file names."""
    seen: dict[str, str] = {}
    for system in systems:
        if system.name.lower() in RESERVED_SYSTEM_NAMES:
            raise ConfigError(f"{source}: system name {system.name!r} is reserved for the reference engine every "
                              "table adds; choose another name")
        if system.name in seen.values():
            raise ConfigError(f"{source}: system name {system.name!r} is used twice")
        stem = output_name(system.name)
        if stem in seen:
            raise ConfigError(f"{source}: systems {seen[stem]!r} and {system.name!r} would both write runs/{stem}.run; "
                              "rename one")
        seen[stem] = system.name


def _analyses(raw, config: ExperimentConfig, source: str) -> dict[str, dict]:
    """Enabled analyses and their checked options; each is on by default where it applies."""
    table = _table(raw, "analyses", source)
    analyses = list(ANALYSES)
    _unknown(table, [a.name for a in analyses] + [p.name for a in analyses for p in a.params], "analyses.", source)
    enabled = {}
    for analysis in analyses:
        switch = table.get(analysis.name)
        if switch is not None and not isinstance(switch, bool):
            raise ConfigError(f"{source}: analyses.{analysis.name} must be true or false, not {switch!r}")
        applicable = analysis.applicable(config)
        if switch and not applicable:
            raise ConfigError(f"{source}: analyses.{analysis.name} needs {analysis.needs}")
        if switch is False or not applicable:
            continue
        try:
            enabled[analysis.name] = check_params(
                analysis.params, {p.name: table[p.name] for p in analysis.params if p.name in table}, "analyses.")
        except ParamError as err:
            raise ConfigError(f"{source}: {err}") from None
    return enabled


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
                                      rerank=system.rerank, variant=variant, base_system=system.name))
    return list(variants), lists
