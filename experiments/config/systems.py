"""The [[systems]], [debias] and [analyses] tables of an experiment config: system specs, parameter sweeps,
re-ranking, system names, the debiased variants [debias] adds and the analyses that apply (experiments.config reads
the rest and re-exports these names)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from experiments.config.params import (
    DEBIAS_PARAMS,
    ConfigError,
    checked_table,
    config_table,
    declared_names,
    refuse_unknown,
    resolve_path,
)
from experiments.registry import ANALYSES, SYSTEMS, RegistryError
from gsr.infra.names import first_clash, folded, name_problem
from gsr.infra.params import Param, ParamError, check_params

PERFECT, RANDOM = "perfect", "random"  # the reference engines every table adds, by these names
RESERVED_SYSTEM_NAMES = (PERFECT, RANDOM)
DEBIAS_VARIANTS = {"debiased": "regular", "strong": "strong"}  # variant label -> debias.METHODS key
SYSTEM_KEYS = ("name", "model")


@dataclass
class EmbeddingSpec:
    """A named embedding: a built-in name or a vectors file (`source`), or one trained on the collection (`train`)."""

    name: str
    source: str | None = None
    train: dict | None = None
    base: str | None = None  # a debiased variant of this embedding …
    debias: str | None = None  # … by this debias.METHODS method
    allow_pickle: bool = False  # a gensim .kv source may be read (it is a pickle: runs code when loaded)


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
    where: str = ""  # the config table it comes from ('systems[2]'), as errors name it


def output_name(system: str) -> str:
    """The file name stem a system's outputs get (runs/NAME.run): letters, digits, '-', '_' and '.' kept, but never a
    leading '.' (a name such as '..' would write hidden files)."""
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in system)
    return "_" + stem[1:] if stem.startswith(".") else stem


def swept_keys(declared: tuple[Param, ...], given: dict) -> list[str]:
    """The parameters given as lists whose declared type is a scalar: each value is one system (a sweep)."""
    kinds = {p.name: p.kind for p in declared}
    return [k for k, v in given.items() if isinstance(v, list) and kinds.get(k) in (int, float, str, bool)]


def sweep(declared: tuple[Param, ...], given: dict) -> list[dict]:
    """One parameter dict per combination of the values given as lists for scalar parameters (a sweep)."""
    swept = swept_keys(declared, given)
    if not swept:
        return [given]
    return [{**given, **dict(zip(swept, values))} for values in itertools.product(*(given[k] for k in swept))]


def parse_systems(raw_systems, embeddings: dict, source: str, base: Path) -> list[SystemSpec]:
    if not isinstance(raw_systems, list) or not raw_systems:
        raise ConfigError(f"{source}: 'systems' must be a non-empty array of tables ([[systems]])")
    systems = []
    for i, table in enumerate(raw_systems):
        where = f"systems[{i}]"
        table = config_table(table, where, source)
        name, model = table.get("name"), table.get("model")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{source}: {where}.name is required (a non-blank string)")
        if name_problem(name):
            raise ConfigError(f"{source}: {where}.name {name!r} {name_problem(name)}")
        if not isinstance(model, str):
            raise ConfigError(f"{source}: {where}.model is required (one of {', '.join(SYSTEMS.names())})")
        try:
            system_type = SYSTEMS.get(model)
        except RegistryError:
            raise ConfigError(
                f"{source}: {where}.model {model!r} is unknown (choose one of {', '.join(SYSTEMS.names())})"
            ) from None
        declared = system_type.declared_params(table)
        structural = (
            *SYSTEM_KEYS,
            *(("embedding",) if system_type.needs_embedding else ()),
            *(("rerank",) if system_type.reranks else ()),
        )
        refuse_unknown(table, (*structural, *(p.name for p in declared)), f"{where}.", source)
        embedding = table.get("embedding")
        if system_type.needs_embedding:
            if embedding is None:
                raise ConfigError(f"{source}: {where}.embedding is required for model '{model}'")
            if embedding not in embeddings:
                raise ConfigError(f"{source}: {where}.embedding {embedding!r} is not defined under [embeddings]")
        given = {k: v for k, v in table.items() if k not in structural}
        combinations = sweep(declared, given)
        for values in combinations:
            try:
                params = check_params(declared, values, where=f"{where}.")
            except ParamError as err:
                raise ConfigError(f"{source}: {err}") from None
            for key in system_type.path_params:
                if params[key] is None:
                    raise ConfigError(f"{source}: {where}.{key} is required for model '{model}'")
                params[key] = resolve_path(base, params[key])
            swept = {k: values[k] for k in swept_keys(declared, given)} if len(combinations) > 1 else {}
            label = name if not swept else f"{name} ({', '.join(f'{k}={v}' for k, v in swept.items())})"
            if name_problem(label):  # a swept value is part of the name
                problem = name_problem(label)
                raise ConfigError(f"{source}: {where}: the system name {label!r} its swept values make {problem}")
            systems.append(
                SystemSpec(label, model, embedding, params, rerank=table.get("rerank"), sweep=swept, where=where)
            )
    resolve_reranking(systems, source)
    return systems


def resolve_reranking(systems: list[SystemSpec], source: str) -> None:
    """Every re-ranker names an existing system (explicitly, or its type's default upstream model's first system)."""
    names = [s.name for s in systems]
    for system in systems:
        system_type = SYSTEMS.get(system.model)
        if not system_type.reranks:
            continue
        if system.rerank is None:
            system.rerank = next((s.name for s in systems if s.model == system_type.default_upstream), None)
            if system.rerank is None:
                raise ConfigError(
                    f"{source}: {system.name} re-ranks another system: give 'rerank = NAME' "
                    f"(or add a {system_type.default_upstream} system)"
                )
        elif system.rerank not in names:
            raise ConfigError(f"{source}: {system.name}.rerank {system.rerank!r} is not a system of this config")
        elif system.rerank == system.name:
            raise ConfigError(f"{source}: {system.name}.rerank names the system itself")


def check_system_names(systems: list[SystemSpec], source: str) -> None:
    """System names are unique, distinct from the reference engines and from each other's output file names; names
    are compared as gsr.infra.names.folded compares them (ignoring case, width and invisible characters), file names
    ignoring case (on macOS and Windows runs/A.run and runs/a.run are one file)."""

    def key(system: SystemSpec) -> str:
        return f"{system.where}.name: " if system.where else ""

    for system in systems:
        reserved = next(
            (n for n in (folded(system.name), folded(output_name(system.name))) if n in RESERVED_SYSTEM_NAMES), None
        )
        if reserved is not None:
            reads = "" if system.name.casefold() == reserved else f" (it reads as {reserved!r})"
            raise ConfigError(
                f"{source}: {key(system)}system name {system.name!r} is reserved for the reference engine every "
                f"table adds{reads}; choose another name"
            )
    names = [system.name for system in systems]
    clash = first_clash(names)
    if clash is not None:
        name, other = clash
        system = next(s for s in systems[names.index(other) + 1 :] if s.name == name)
        if name == other:
            raise ConfigError(f"{source}: {key(system)}system name {name!r} is used twice")
        raise ConfigError(
            f"{source}: {key(system)}systems {other!r} and {name!r} would read as one name (names are compared "
            "ignoring case, width and invisible characters); rename one"
        )
    stems: dict[str, str] = {}
    for system in systems:
        stem = output_name(system.name)
        if folded(stem) in stems:
            raise ConfigError(
                f"{source}: {key(system)}systems {stems[folded(stem)]!r} and {system.name!r} would both write "
                f"runs/{stem}.run (file names compared ignoring case); rename one"
            )
        stems[folded(stem)] = system.name


def enabled_analyses(raw, config, source: str) -> dict[str, dict]:
    """Enabled analyses and their checked options; each is on by default where it applies (those declared with
    default=False only when switched on)."""
    table = config_table(raw, "analyses", source)
    analyses = list(ANALYSES)
    refuse_unknown(
        table, [a.name for a in analyses] + [p.name for a in analyses for p in a.params], "analyses.", source
    )
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
                analysis.params, {p.name: table[p.name] for p in analysis.params if p.name in table}, "analyses."
            )
        except ParamError as err:
            raise ConfigError(f"{source}: {err}") from None
        problem = analysis.check(enabled[analysis.name], config) if analysis.check is not None else None
        if problem:
            raise ConfigError(f"{source}: analyses.{problem}")
    return enabled


def debias_variants(raw: dict, embeddings: dict, systems: list, base: Path, source: str):
    """Expand [debias]: each listed embedding system gets a copy per variant, retrieving with a debiased embedding."""
    from debias.words import DEFAULT_LISTS

    if "debias" not in raw:
        return [], {}, DEFAULT_LISTS
    table = config_table(raw["debias"], "debias", source)
    refuse_unknown(table, declared_names(DEBIAS_PARAMS), "debias.", source)
    table = {k: v for k, v in checked_table(DEBIAS_PARAMS, table, "debias.", source).items() if v is not None}
    list_set = table.get("lists", DEFAULT_LISTS)
    variants = table.get("variants", list(DEBIAS_VARIANTS))
    for variant in variants:
        if variant not in DEBIAS_VARIANTS:
            raise ConfigError(
                f"{source}: debias.variants {variant!r} is unknown (choose from {', '.join(DEBIAS_VARIANTS)})"
            )
    with_embedding = [s for s in systems if s.embedding is not None or SYSTEMS.get(s.model).debiases_itself]
    names = table.get("systems", [s.name for s in with_embedding])
    for name in names:
        if name not in {s.name for s in with_embedding}:
            model = next((s.model for s in systems if s.name == name), None)
            if model == "run":
                raise ConfigError(
                    f'{source}: debias.systems {name!r} is a run file (model = "run"): a run '
                    "cannot be debiased, only a system that retrieves with an embedding"
                )
            raise ConfigError(
                f"{source}: debias.systems {name!r} is not a system with an embedding (or a dense encoder)"
            )
    lists = {
        k: Path(resolve_path(base, table[k])) for k in ("definitional", "gender_specific", "equalize") if k in table
    }
    for system in [s for s in with_embedding if s.name in names]:
        for variant in variants:
            embedding = None  # a system that debiases itself (SystemType.debiases_itself) reads the variant alone
            if system.embedding is not None:
                embedding = f"{system.embedding}:{variant}"
                embeddings.setdefault(
                    embedding, EmbeddingSpec(embedding, base=system.embedding, debias=DEBIAS_VARIANTS[variant])
                )
            systems.append(
                SystemSpec(
                    f"{system.name} ({variant})",
                    system.model,
                    embedding,
                    dict(system.params),
                    rerank=system.rerank,
                    variant=variant,
                    base_system=system.name,
                    where=system.where,
                )
            )
    return list(variants), lists, list_set
