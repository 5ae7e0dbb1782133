"""Experiment configs (TOML): collection, named embeddings, systems, measures, GSR settings, analyses, output.

Everything is checked before any work starts, against the declarations in experiments.registry (collection kinds,
system types and their parameters, analyses and theirs): an unknown key, model, embedding, measure or analysis, a
value of the wrong type or out of range fails naming the key. Relative paths are resolved against the config
file's folder. This module reads the collection, embeddings, [evaluation], [gsr] and [plots] tables; the [[systems]],
[debias] and [analyses] tables are expanded in experiments.config.systems, and experiments.config.params declares the
parameters and holds the checks every table goes through.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from embeddings.training import TRAINING_PARAMS
from experiments.config.params import (
    EVALUATION_PARAMS,
    GSR_PARAMS,
    PLOTS_PARAMS,
    TOP_PARAMS,
    ConfigError,
    checked_table,
    config_table,
    declared_names,
    refuse_unknown,
    resolve_path,
)
from experiments.config.systems import (
    EmbeddingSpec,
    SystemSpec,
    check_system_names,
    debias_variants,
    enabled_analyses,
    output_name,
    parse_systems,
)
from experiments.registry import COLLECTION_KINDS, RegistryError
from gsr.errors import InputError
from gsr.infra.names import first_clash, folded, name_problem, shortened
from gsr.infra.outputs import file_name_problem
from gsr.infra.params import Param, ParamError
from gsr.io.files import read_text

EXPERIMENTS_FOLDER = Path(__file__).resolve().parents[1]
BUILTIN_CONFIGS = {
    "demo": EXPERIMENTS_FOLDER / "demo.toml",
    "robust04": EXPERIMENTS_FOLDER / "robust04.toml",
    "grepbiasir": EXPERIMENTS_FOLDER / "grepbiasir.toml",
    "demo-dense": EXPERIMENTS_FOLDER / "demo-dense.toml",
    "msmarco": EXPERIMENTS_FOLDER / "msmarco.toml",
}

TOP_KEYS = (
    "name",
    "output",
    "depth",
    "threads",
    "collection",
    "embeddings",
    "systems",
    "evaluation",
    "gsr",
    "plots",
    "debias",
    "analyses",
)
ALLOW_PICKLE = Param(
    "allow_pickle",
    bool,
    False,
    "read a gensim .kv source, a Python pickle that runs code when loaded: only for files you trust",
)
EMBEDDING_KEYS = ("source", "allow_pickle", "train", *(p.name for p in TRAINING_PARAMS))


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

    def gsr_columns(self) -> list[tuple[str, str, str | int | None]]:
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

    def trained_embeddings(self) -> set[str]:
        """The embeddings trained on the collection that a system, GSR or a debiased embedding uses."""
        used = {s.embedding for s in self.systems} | set(self.measuring)
        used |= {self.embeddings[name].base for name in list(used) if name in self.embeddings}
        return {
            name
            for name, spec in self.embeddings.items()
            if name in used and spec.train is not None and spec.base is None and spec.source is None
        }

    def trained_embeddings_of(self, system: SystemSpec) -> set[str]:
        """The embeddings trained on the collection that `system`, or a run it re-ranks, retrieves with."""
        trained, needed = self.trained_embeddings(), set()
        while True:
            spec = self.embeddings.get(system.embedding) if system.embedding else None
            if spec is not None:
                needed |= {name for name in (system.embedding, spec.base) if name in trained}
            if not system.rerank:
                return needed
            system = next(s for s in self.systems if s.name == system.rerank)


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
    except RecursionError:  # tables or arrays nested thousands deep: no config needs more than a few levels
        raise ConfigError(
            f"{path}: nested too deeply to read (arrays or tables inside each other thousands of levels deep)"
        ) from None
    return parse_config(raw, path)


def parse_config(raw: dict, path: Path | None = None) -> ExperimentConfig:
    """Check a config's tables and build the ExperimentConfig (see load_config)."""
    source = str(path) if path else "config"
    base = path.resolve().parent if path else Path.cwd()
    refuse_unknown(raw, TOP_KEYS, "", source)
    for required in ("collection", "systems"):
        if required not in raw:
            raise ConfigError(f"{source}: missing '{required}'")
    top = checked_table(TOP_PARAMS, {p.name: raw[p.name] for p in TOP_PARAMS if p.name in raw}, "", source)
    if top["name"] is not None and name_problem(top["name"]):
        raise ConfigError(f"{source}: name {top['name']!r} {name_problem(top['name'])}")
    collection = _collection(raw["collection"], base, source)
    embeddings = _embeddings(raw.get("embeddings", {}), base, source)
    systems = parse_systems(raw["systems"], embeddings, source, base)
    names = [s.name for s in systems]

    evaluation = config_table(raw.get("evaluation", {}), "evaluation", source)
    from gsr.effectiveness.evaluate import EVALUATION_PARAMS as STATISTICS_PARAMS
    from gsr.effectiveness.evaluate import evaluation_settings

    refuse_unknown(
        evaluation, (*declared_names(EVALUATION_PARAMS), *declared_names(STATISTICS_PARAMS)), "evaluation.", source
    )
    listed = checked_table(
        EVALUATION_PARAMS,
        {k: v for k, v in evaluation.items() if k in declared_names(EVALUATION_PARAMS)},
        "evaluation.",
        source,
    )
    settings = {k: v for k, v in evaluation.items() if k not in declared_names(EVALUATION_PARAMS)}
    if listed["measures"] is not None:
        settings["measures"] = listed["measures"]
    try:
        measures, cutoffs, statistics = evaluation_settings(settings)
    except (InputError, ParamError) as err:
        raise ConfigError(f"{source}: {err}") from None
    baseline = listed["baseline"] if listed["baseline"] is not None else names[0]
    if baseline not in names:
        raise ConfigError(f"{source}: evaluation.baseline {baseline!r} is not a system of this config")

    gsr_table = config_table(raw.get("gsr", {}), "gsr", source)
    refuse_unknown(gsr_table, declared_names(GSR_PARAMS), "gsr.", source)
    gsr = checked_table(GSR_PARAMS, gsr_table, "gsr.", source)
    _check_measuring(gsr["measuring"], embeddings, source)
    cutoff = gsr["cutoff"]
    cutoffs = [cutoff if c is None else c for c in cutoffs]  # a bare "GSR" is the [gsr] cutoff
    if len(set(map(str, cutoffs))) < len(cutoffs):
        raise ConfigError(f"{source}: evaluation.measures names the same GSR cut-off twice")
    if cutoffs:
        if "cutoff" in gsr_table and gsr_table["cutoff"] != cutoffs[0]:
            raise ConfigError(
                f"{source}: gsr.cutoff {gsr_table['cutoff']!r} disagrees with the first GSR measure of "
                "evaluation.measures; give the cut-off in one place"
            )
        cutoff = cutoffs[0]

    from gsr.settings import STOP_LISTS

    stopwords = gsr["stopwords"]
    if stopwords is not None and stopwords not in STOP_LISTS:
        stopwords = Path(resolve_path(base, stopwords))

    plots = config_table(raw.get("plots", {}), "plots", source)
    refuse_unknown(plots, declared_names(PLOTS_PARAMS), "plots.", source)
    plots = checked_table(PLOTS_PARAMS, plots, "plots.", source)
    variants, lists, list_set = debias_variants(raw, embeddings, systems, base, source)
    check_system_names(systems, source)
    stem = path.stem if path else "experiment"
    config = ExperimentConfig(
        path=path,
        name=top["name"] or stem,
        output=Path(top["output"] or Path("out") / stem).expanduser(),
        collection=collection,
        embeddings=embeddings,
        systems=systems,
        measures=measures,
        baseline=baseline,
        measuring=gsr["measuring"],
        cutoff=cutoff,
        stopwords=stopwords,
        exclusion=gsr["exclusion"],
        definitional=Path(resolve_path(base, gsr["definitional"])) if gsr["definitional"] else None,
        random_seed=gsr["random_seed"],
        depth=top["depth"],
        threads=top["threads"],
        plots=plots["enabled"],
        debias_variants=variants,
        debias_lists=lists,
        debias_list_set=list_set,
        extra_cutoffs=cutoffs[1:],
        **statistics,
    )
    config.analyses = enabled_analyses(raw.get("analyses", {}), config, source)
    from experiments.config.extras import check_extras

    check_extras(config, source)  # an extra that is not installed stops here, before any work, in one line
    check_output_names(config)
    return config


def check_output_names(config: ExperimentConfig) -> None:
    """Every file a system or a measuring embedding gives its name to (runs/NAME.run, per_query/NAME.txt,
    gsr_NAME.png) fits the file system of config.output, with the name it has while it is written
    (gsr.infra.outputs.file_name_problem): a name too long is a ConfigError naming its key before any work, not an
    OSError after all of it."""
    source = config.path or "config"
    named = [
        (f"{s.where}.name" if s.where else "systems.name", s.name, Path("runs") / f"{output_name(s.name)}.run")
        for s in config.systems
    ]
    named += [("gsr.measuring", name, Path(f"gsr_{output_name(name)}.png")) for name in config.measuring]
    for key, name, file in named:
        problem = file_name_problem(file.name, config.output / file.parent)
        if problem:
            raise ConfigError(
                f"{source}: {key} {shortened(name)}: its output file {shortened(file.as_posix())} {problem}; "
                "choose a shorter name"
            )


def _collection(raw, base: Path, source: str) -> dict:
    collection = dict(config_table(raw, "collection", source))
    kind = collection.get("kind")
    try:
        declared = COLLECTION_KINDS.get(kind)
    except RegistryError:
        raise ConfigError(
            f"{source}: collection.kind {kind!r} is unknown (choose one of {', '.join(COLLECTION_KINDS.names())})"
        ) from None
    refuse_unknown(collection, ("kind", "name", *declared.required, *declared.optional), "collection.", source)
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
            collection[key] = resolve_path(base, collection[key])
    return collection


def _embeddings(raw, base: Path, source: str) -> dict[str, EmbeddingSpec]:
    embeddings = {}
    for name, table in config_table(raw, "embeddings", source).items():
        if name_problem(name):
            raise ConfigError(f"{source}: embeddings.{name!r}: the embedding name {name_problem(name)}")
        table = config_table(table, f"embeddings.{name}", source)
        refuse_unknown(table, EMBEDDING_KEYS, f"embeddings.{name}.", source)
        if ("source" in table) == ("train" in table):
            raise ConfigError(
                f"{source}: embeddings.{name} needs exactly one of 'source' (a built-in name or file) "
                "or 'train' ('word2vec' or 'fasttext')"
            )
        if "source" in table:
            if not isinstance(table["source"], str):
                raise ConfigError(
                    f"{source}: embeddings.{name}.source must be a string (a built-in name or a "
                    f"file), not {table['source']!r}"
                )
            extra = sorted(set(table) - {"source", "allow_pickle"})
            if extra:
                raise ConfigError(f"{source}: embeddings.{name}.{extra[0]} only applies to trained embeddings")
            allow_pickle = checked_table(
                (ALLOW_PICKLE,), {k: v for k, v in table.items() if k == "allow_pickle"}, f"embeddings.{name}.", source
            )["allow_pickle"]
            from gsr.vectors.loading import BUILTIN_EMBEDDINGS

            value = table["source"]
            embeddings[name] = EmbeddingSpec(
                name, value if value in BUILTIN_EMBEDDINGS else resolve_path(base, value), allow_pickle=allow_pickle
            )
        else:
            from embeddings.training import TrainingSettings

            given = {k: v for k, v in table.items() if k != "train"}
            checked_table(TRAINING_PARAMS, given, f"embeddings.{name}.", source)
            settings = {"method": table["train"], **given}
            try:
                TrainingSettings(**settings)
            except (ValueError, TypeError) as err:
                raise ConfigError(f"{source}: embeddings.{name}: {err}") from None
            embeddings[name] = EmbeddingSpec(name, train=settings)
    return embeddings


def _check_measuring(measuring: list[str], embeddings: dict, source: str) -> None:
    """At least one measuring embedding, each defined, no two drawn into the same gsr_NAME.png."""
    if not measuring:
        defined = ", ".join(embeddings) or "none yet"
        raise ConfigError(
            f"{source}: gsr.measuring names no embedding, so GSR would measure nothing; set "
            f'[gsr] measuring = ["NAME"] with NAME under [embeddings] (defined: {defined})'
        )
    plots: dict[str, str] = {}
    for name in measuring:
        if name not in embeddings:
            raise ConfigError(f"{source}: gsr.measuring {name!r} is not defined under [embeddings]")
    clash = first_clash(measuring)
    if clash is not None:
        raise ConfigError(
            f"{source}: gsr.measuring {clash[1]!r} and {clash[0]!r} would name one GSR column (names are compared "
            "ignoring case, width and invisible characters); rename one"
        )
    for name in measuring:
        stem = folded(output_name(name))
        if stem in plots:
            raise ConfigError(
                f"{source}: gsr.measuring {plots[stem]!r} and {name!r} would both write "
                f"gsr_{output_name(name)}.png; rename one"
            )
        plots[stem] = name
