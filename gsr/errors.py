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
    "PluginError",
    "StorageError",
    "UndefinedMeasureError",
]


class GSRError(ValueError):
    """The root of gsr-bench's errors: an input, a setting or a measure that cannot be used as given.

    A ValueError too, so code written against earlier releases that caught ValueError keeps working.

    Example:
        >>> issubclass(InputError, GSRError) and issubclass(GSRError, ValueError)
        True
    """


class UndefinedMeasureError(GSRError):
    """A measure is undefined for the given input (too few queries, no variance of g(q), a zero perfect GSR).

    Example:
        >>> try:
        ...     gsr_slope([0.1, 0.1], [0.2, 0.3])
        ... except UndefinedMeasureError as err:
        ...     print(err)
        GSR is undefined: every query has the same genderedness (zero variance)
    """


class StorageError(GSRError):
    """A folder that cannot be written: the disk is full, the folder read-only or not this user's; the message names
    the folder. Nothing half-written is left behind (every write is atomic).

    Example:
        >>> issubclass(StorageError, GSRError)
        True
    """


class InputError(GSRError):
    """Input that cannot be used as given; the message names the file and line, the row or the key.

    Example:
        >>> try:
        ...     as_run({"q1": [("d1", "high")]})
        ... except InputError as err:
        ...     print(err)
        run, query q1, document d1: score must be a number written with ASCII digits (as trec_eval reads it), not 'high'
    """


class EmbeddingError(InputError):
    """An embedding that cannot be found, read or used; the message names the file and line, or the word.

    Example:
        >>> try:
        ...     fit_gender_direction({}, [("she", "he")])
        ... except EmbeddingError as err:
        ...     print(err)
        the gender direction needs at least two definitional pairs
    """


class ConfigError(InputError):
    """A config file or its values cannot be used; the message names the key.

    Example:
        >>> issubclass(ConfigError, InputError)
        True
    """


class ParamError(InputError):
    """A declared parameter (of the measure, a system, an analysis) given a value of the wrong type or outside its
    range; the message names it. A config file's keys fail as ConfigError, naming the file and the key.

    Example:
        >>> try:
        ...     GSR(GenderLexicon.from_mapping({}), level=2.0)
        ... except ParamError as err:
        ...     print(type(err).__name__)
        ParamError
    """


class PluginError(GSRError):
    """A plugin (a module another distribution declares under one of gsr-bench's entry point groups) whose code
    raised an error of its own when called; the message names the plugin, its distribution and the error in one line
    (gsr.infra.plugins).

    Example:
        >>> issubclass(PluginError, GSRError)
        True
    """

    def __init__(self, message: str, plugin: object = None):
        super().__init__(message)
        self.plugin = plugin
