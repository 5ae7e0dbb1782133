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
from experiments.config_params import (
    DEBIAS_PARAMS,
    EVALUATION_PARAMS,
    GSR_PARAMS,
    PLOTS_PARAMS,
    TOP_PARAMS,
)
from gsr.io import InputError, read_text
from gsr.params import Param, ParamError, check_params

EXPERIMENTS_FOLDER = Path(__file__).resolve().parent
BUILTIN_CONFIGS = {"demo": EXPERIMENTS_FOLDER / "demo.toml", "robust04": EXPERIMENTS_FOLDER / "robust04.toml",
                   "grepbiasir": EXPERIMENTS_FOLDER / "grepbiasir.toml"}
RESERVED_SYSTEM_NAMES = ("perfect", "random")  # the reference engines every table adds

TOP_KEYS = ("name", "output", "depth", "threads", "collection", "embeddings", "systems", "evaluation", "gsr", "plots",
            "debias", "analyses")
DEBIAS_VARIANTS = {"debiased": "regular", "strong": "strong"}  # variant label -> debias.METHODS key
EMBEDDING_KEYS = ("source", "train", *(p.name for p in TRAINING_PARAMS))
SYSTEM_KEYS = ("name", "model")


class ConfigError(InputError):
    """A config file that cannot be run; the message names the file and the offending key."""


def _names(declared) -> tuple[str, ...]:
    return tuple(p.name for p in declared)


def _checked(declared, table: dict, where: str, source: str) -> dict:
    """check_params for one config table, its errors as ConfigErrors naming the file and the key."""
    try:
        return check_params(declared, table, where)
    except ParamError as err:
        raise ConfigError(f"{source}: {err}") from None


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
    sweep: dict = field(default_factory=dict)  # the values this system takes of its config's swept (list) parameters


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
    stopwords: Path | str | None = None  # a stop-list file, or a name of gsr.text.STOP_LISTS; None: the default
    exclusion: str = "lemma"  # gsr.text.EXCLUSION_MODES: how g_q(d) matches document words to query terms
    extra_cutoffs: list = field(default_factory=list)  # further GSR@K measures of [evaluation] measures
    definitional: Path | None = None
    random_seed: int = 0
    depth: int = 1000
    threads: int = 2
    plots: bool = True
    debias_variants: list[str] = field(default_factory=list)
    debias_lists: dict = field(default_factory=dict)  # word-list files given in [debias], by key
    debias_list_set: str = "debiaswe"  # [debias] lists: the named defaults (debias.words.LIST_SETS)
    analyses: dict[str, dict] = field(default_factory=dict)  # enabled analysis -> its checked options
    test: str = "t"  # [evaluation]: paired test of effectiveness, correction, bootstrap/randomisation settings
    correction: str = "holm"
    resamples: int = 1000
    level: float = 0.95
    seed: int = 0

    def gsr_columns(self) -> list[tuple[str, str, str | int]]:
        """(label, measuring embedding, cut-off) of every GSR column: each measuring embedding at the main cut-off
        (labelled by the embedding's name), then at each further GSR@K of the measures list ('glove@100')."""
        columns = [(name, name, self.cutoff) for name in self.measuring]
        for cutoff in self.extra_cutoffs:
            suffix = "rel" if cutoff == "relevant" else cutoff
            columns += [(f"{name}@{suffix}", name, cutoff) for name in self.measuring]
        return columns

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
    if text.startswith(("pyserini:", "irds:")):  # names, not paths
        return text
    path = Path(text).expanduser()
    return str(path if path.is_absolute() else base / path)


def load_config(path_or_name: str | Path) -> ExperimentConfig:
    """Read and check a config file, or a built-in config by name ('demo', 'robust04')."""
    path = BUILTIN_CONFIGS.get(str(path_or_name), Path(path_or_name))
    if not path.exists():
        raise ConfigError(f"{path}: no such config file (built-in configs: {', '.join(BUILTIN_CONFIGS)})")
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder; give a config file (TOML)")
    try:
        text = read_text(path)  # UTF-8 with its byte-order mark skipped: tomllib refuses one
    except InputError as err:
        raise ConfigError(str(err)) from None
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
    top = _checked(TOP_PARAMS, {p.name: raw[p.name] for p in TOP_PARAMS if p.name in raw}, "", source)
    collection = _collection(raw["collection"], base, source)
    embeddings = _embeddings(raw.get("embeddings", {}), base, source)
    systems = _systems(raw["systems"], embeddings, source, base)
    names = [s.name for s in systems]

    evaluation = _table(raw.get("evaluation", {}), "evaluation", source)
    from experiments.effectiveness import EVALUATION_PARAMS as STATISTICS_PARAMS, evaluation_settings

    _unknown(evaluation, (*_names(EVALUATION_PARAMS), *_names(STATISTICS_PARAMS)), "evaluation.", source)
    listed = _checked(EVALUATION_PARAMS, {k: v for k, v in evaluation.items() if k in _names(EVALUATION_PARAMS)},
                      "evaluation.", source)
    settings = {k: v for k, v in evaluation.items() if k not in _names(EVALUATION_PARAMS)}
    if listed["measures"] is not None:
        settings["measures"] = listed["measures"]
    try:
        measures, cutoffs, statistics = evaluation_settings(settings)
    except (InputError, ParamError) as err:
        raise ConfigError(f"{source}: {err}") from None
    baseline = listed["baseline"] if listed["baseline"] is not None else names[0]
    if baseline not in names:
        raise ConfigError(f"{source}: evaluation.baseline {baseline!r} is not a system of this config")

    gsr_table = _table(raw.get("gsr", {}), "gsr", source)
    _unknown(gsr_table, _names(GSR_PARAMS), "gsr.", source)
    gsr = _checked(GSR_PARAMS, gsr_table, "gsr.", source)
    _check_measuring(gsr["measuring"], embeddings, source)
    cutoff = gsr["cutoff"]
    cutoffs = [cutoff if c is None else c for c in cutoffs]  # a bare "GSR" is the [gsr] cutoff
    if len(set(map(str, cutoffs))) < len(cutoffs):
        raise ConfigError(f"{source}: evaluation.measures names the same GSR cut-off twice")
    if cutoffs:
        if "cutoff" in gsr_table and gsr_table["cutoff"] != cutoffs[0]:
            raise ConfigError(f"{source}: gsr.cutoff {gsr_table['cutoff']!r} disagrees with the first GSR measure of "
                              "evaluation.measures; give the cut-off in one place")
        cutoff = cutoffs[0]

    from gsr.text import STOP_LISTS

    stopwords = gsr["stopwords"]
    if stopwords is not None and stopwords not in STOP_LISTS:
        stopwords = Path(_resolve(base, stopwords))

    plots = _table(raw.get("plots", {}), "plots", source)
    _unknown(plots, _names(PLOTS_PARAMS), "plots.", source)
    plots = _checked(PLOTS_PARAMS, plots, "plots.", source)
    variants, lists, list_set = _debias_variants(raw, embeddings, systems, base, source)
    _check_names(systems, source)
    stem = path.stem if path else "experiment"
    config = ExperimentConfig(
        path=path, name=top["name"] or stem, output=Path(top["output"] or Path("out") / stem),
        collection=collection, embeddings=embeddings, systems=systems, measures=measures, baseline=baseline,
        measuring=gsr["measuring"], cutoff=cutoff, stopwords=stopwords, exclusion=gsr["exclusion"],
        definitional=Path(_resolve(base, gsr["definitional"])) if gsr["definitional"] else None,
        random_seed=gsr["random_seed"], depth=top["depth"], threads=top["threads"],
        plots=plots["enabled"], debias_variants=variants, debias_lists=lists, debias_list_set=list_set,
        extra_cutoffs=cutoffs[1:], **statistics)
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
    for key, value in collection.items():
        several = key in declared.list_keys and isinstance(value, list) and value
        if not isinstance(value, str) and not (several and all(isinstance(v, str) for v in value)):
            wanted = "a string or a list of strings" if key in declared.list_keys else "a string"
            raise ConfigError(f"{source}: collection.{key} must be {wanted}, not {value!r}")
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
            if not isinstance(table["source"], str):
                raise ConfigError(f"{source}: embeddings.{name}.source must be a string (a built-in name or a "
                                  f"file), not {table['source']!r}")
            extra = sorted(set(table) - {"source"})
            if extra:
                raise ConfigError(f"{source}: embeddings.{name}.{extra[0]} only applies to trained embeddings")
            from embeddings.loading import BUILTIN_EMBEDDINGS

            value = table["source"]
            embeddings[name] = EmbeddingSpec(name, value if value in BUILTIN_EMBEDDINGS else _resolve(base, value))
        else:
            from embeddings.training import TRAINING_PARAMS, TrainingSettings

            given = {k: v for k, v in table.items() if k != "train"}
            _checked(TRAINING_PARAMS, given, f"embeddings.{name}.", source)
            settings = {"method": table["train"], **given}
            try:
                TrainingSettings(**settings)
            except (ValueError, TypeError) as err:
                raise ConfigError(f"{source}: embeddings.{name}: {err}") from None
            embeddings[name] = EmbeddingSpec(name, train=settings)
    return embeddings


def _swept_keys(declared: tuple[Param, ...], given: dict) -> list[str]:
    """The parameters given as lists whose declared type is a scalar: each value is one system (a sweep)."""
    kinds = {p.name: p.kind for p in declared}
    return [k for k, v in given.items() if isinstance(v, list) and kinds.get(k) in (int, float, str, bool)]


def _sweep(declared: tuple[Param, ...], given: dict) -> list[dict]:
    """One parameter dict per combination of the values given as lists for scalar parameters (a sweep)."""
    swept = _swept_keys(declared, given)
    if not swept:
        return [given]
    return [{**given, **dict(zip(swept, values))} for values in itertools.product(*(given[k] for k in swept))]


def _systems(raw_systems, embeddings: dict, source: str, base: Path) -> list[SystemSpec]:
    if not isinstance(raw_systems, list) or not raw_systems:
        raise ConfigError(f"{source}: 'systems' must be a non-empty array of tables ([[systems]])")
    systems = []
    for i, table in enumerate(raw_systems):
        where = f"systems[{i}]"
        table = _table(table, where, source)
        name, model = table.get("name"), table.get("model")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{source}: {where}.name is required (a non-blank string)")
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
            for key in system_type.path_params:
                if params[key] is None:
                    raise ConfigError(f"{source}: {where}.{key} is required for model '{model}'")
                params[key] = _resolve(base, params[key])
            swept = {k: values[k] for k in _swept_keys(declared, given)} if len(combinations) > 1 else {}
            label = name if not swept else f"{name} ({', '.join(f'{k}={v}' for k, v in swept.items())})"
            systems.append(SystemSpec(label, model, embedding, params, rerank=table.get("rerank"), sweep=swept))
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
        if output_name(system.name).casefold() in RESERVED_SYSTEM_NAMES:
            raise ConfigError(f"{source}: system name {system.name!r} is reserved for the reference engine every "
                              "table adds; choose another name")
        if system.name in seen.values():
            raise ConfigError(f"{source}: system name {system.name!r} is used twice")
        # compared ignoring case: on macOS and Windows runs/A.run and runs/a.run are one file
        stem = output_name(system.name)
        if stem.casefold() in seen:
            raise ConfigError(f"{source}: systems {seen[stem.casefold()]!r} and {system.name!r} would both write "
                              f"runs/{stem}.run (file names compared ignoring case); rename one")
        seen[stem.casefold()] = system.name


def _check_measuring(measuring: list[str], embeddings: dict, source: str) -> None:
    """At least one measuring embedding, each defined, no two drawn into the same gsr_NAME.png."""
    if not measuring:
        defined = ", ".join(embeddings) or "none yet"
        raise ConfigError(f"{source}: gsr.measuring names no embedding, so GSR would measure nothing; set "
                          f"[gsr] measuring = [\"NAME\"] with NAME under [embeddings] (defined: {defined})")
    plots: dict[str, str] = {}
    for name in measuring:
        if name not in embeddings:
            raise ConfigError(f"{source}: gsr.measuring {name!r} is not defined under [embeddings]")
        stem = output_name(name).casefold()
        if stem in plots:
            raise ConfigError(f"{source}: gsr.measuring {plots[stem]!r} and {name!r} would both write "
                              f"gsr_{output_name(name)}.png; rename one")
        plots[stem] = name


def _analyses(raw, config: ExperimentConfig, source: str) -> dict[str, dict]:
    """Enabled analyses and their checked options; each is on by default where it applies (those declared with
    default=False only when switched on)."""
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
        if switch is False or not applicable or (switch is None and not analysis.default):
            continue
        try:
            enabled[analysis.name] = check_params(
                analysis.params, {p.name: table[p.name] for p in analysis.params if p.name in table}, "analyses.")
        except ParamError as err:
            raise ConfigError(f"{source}: {err}") from None
    return enabled


def _debias_variants(raw: dict, embeddings: dict, systems: list, base: Path, source: str):
    """Expand [debias]: each listed embedding system gets a copy per variant, retrieving with a debiased embedding."""
    from debias.words import DEFAULT_LISTS

    if "debias" not in raw:
        return [], {}, DEFAULT_LISTS
    table = _table(raw["debias"], "debias", source)
    _unknown(table, _names(DEBIAS_PARAMS), "debias.", source)
    table = {k: v for k, v in _checked(DEBIAS_PARAMS, table, "debias.", source).items() if v is not None}
    list_set = table.get("lists", DEFAULT_LISTS)
    variants = table.get("variants", list(DEBIAS_VARIANTS))
    for variant in variants:
        if variant not in DEBIAS_VARIANTS:
            raise ConfigError(f"{source}: debias.variants {variant!r} is unknown (choose from "
                              f"{', '.join(DEBIAS_VARIANTS)})")
    with_embedding = [s for s in systems if s.embedding is not None]
    names = table.get("systems", [s.name for s in with_embedding])
    for name in names:
        if name not in {s.name for s in with_embedding}:
            model = next((s.model for s in systems if s.name == name), None)
            if model == "run":
                raise ConfigError(f"{source}: debias.systems {name!r} is a run file (model = \"run\"): a run "
                                  "cannot be debiased, only a system that retrieves with an embedding")
            raise ConfigError(f"{source}: debias.systems {name!r} is not a system with an embedding")
    lists = {k: Path(_resolve(base, table[k])) for k in ("definitional", "gender_specific", "equalize") if k in table}
    for system in [s for s in with_embedding if s.name in names]:
        for variant in variants:
            embedding = f"{system.embedding}:{variant}"
            embeddings.setdefault(embedding, EmbeddingSpec(embedding, base=system.embedding,
                                                           debias=DEBIAS_VARIANTS[variant]))
            systems.append(SystemSpec(f"{system.name} ({variant})", system.model, embedding, dict(system.params),
                                      rerank=system.rerank, variant=variant, base_system=system.name))
    return list(variants), lists, list_set
