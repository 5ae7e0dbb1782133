"""The experiment harness: TOML configs, collections, system types, the runner, effectiveness, the paper's analyses,
reports and the `gsr` command line. What it can run is declared in experiments.registry."""
