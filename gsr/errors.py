"""Every error gsr-bench raises on purpose derives from GSRError, so a caller (and the `gsr` command) can tell a
user's mistake or an undefined measure from a bug: the CLI prints a GSRError as one line and exits with status 2,
and shows anything else with its traceback as a bug.

This module imports nothing of the project: every package can raise these without an import cycle.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EmbeddingError",
    "GSRError",
    "InputError",
    "ParamError",
    "StorageError",
    "UndefinedMeasureError",
]


class GSRError(ValueError):
    """The root of gsr-bench's errors: an input, a setting or a measure that cannot be used as given.

    A ValueError too, so code written against earlier releases that caught ValueError keeps working.
    """


class UndefinedMeasureError(GSRError):
    """A measure is undefined for the given input (too few queries, no variance of g(q), a zero perfect GSR)."""


class StorageError(GSRError):
    """A folder that cannot be written: the disk is full, the folder read-only or not this user's; the message names
    the folder. Nothing half-written is left behind (every write is atomic)."""


class InputError(GSRError):
    """Input that cannot be used as given; the message names the file and line, the row or the key."""


class EmbeddingError(InputError):
    """An embedding that cannot be found, read or used; the message names the file and line, or the word."""


class ConfigError(InputError):
    """A config file or its values cannot be used; the message names the key."""


class ParamError(InputError):
    """A declared parameter (of the measure, a system, an analysis) given a value of the wrong type or outside its
    range; the message names it. A config file's keys fail as ConfigError, naming the file and the key."""
