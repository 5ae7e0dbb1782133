"""Experiment configs (TOML), checked in full before any work: `experiment` reads the file and the collection,
embeddings, [evaluation], [gsr] and [plots] tables; `systems` expands [[systems]], [debias] and [analyses]; `params`
declares every key's type, default and range and holds the checks every table goes through."""

from gsr.infra.lazy import lazy_names, names_of

_LAZY = {
    **names_of("experiments.config.experiment", "BUILTIN_CONFIGS", "ExperimentConfig", "load_config", "parse_config"),
    **names_of("experiments.config.systems", "EmbeddingSpec", "SystemSpec", "output_name"),
    "ConfigError": "gsr.errors",
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
