"""Experiments: the command-line interface and (later) config-driven runs."""
