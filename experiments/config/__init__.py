"""Experiment configs (TOML), checked in full before any work: `experiment` reads the file and the collection,
embeddings, [evaluation], [gsr] and [plots] tables; `systems` expands [[systems]], [debias] and [analyses]; `params`
declares every key's type, default and range and holds the checks every table goes through."""

from experiments.config.experiment import BUILTIN_CONFIGS, ExperimentConfig, load_config, parse_config
from experiments.config.params import ConfigError
from experiments.config.systems import EmbeddingSpec, SystemSpec, output_name

__all__ = ["BUILTIN_CONFIGS", "ConfigError", "EmbeddingSpec", "ExperimentConfig", "SystemSpec", "load_config",
           "output_name", "parse_config"]
