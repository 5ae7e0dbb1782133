"""Logging for gsr-bench: one `gsr` logger hierarchy (gsr.run, gsr.store, gsr.lucene, …), configured once by the
`gsr` command. A library user who never configures logging sees warnings only (Python's last-resort handler);
`--quiet` keeps warnings and errors, `--verbose` adds debug lines and the libraries' own INFO lines (Anserini's).
"""

from __future__ import annotations

import logging
import sys
import time

from gsr.infra.names import printable

ROOT = "gsr"
QUIET, NORMAL, VERBOSE = logging.WARNING, logging.INFO, logging.DEBUG


class _StepFormatter(logging.Formatter):
    """'gsr: warning: message' (and 'gsr: error: …'), as the command's own errors read, and '[HH:MM:SS] message'
    for progress lines."""

    def format(self, record: logging.LogRecord) -> str:
        message = printable(record.getMessage())  # names and ids of the user's files, shown, never acted on
        if record.exc_info:
            message = f"{message}\n{self.formatException(record.exc_info)}"
        if record.levelno >= logging.WARNING:
            return f"gsr: {record.levelname.lower()}: {message}"
        return f"[{time.strftime('%H:%M:%S', time.localtime(record.created))}] {message}"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a line is logged (a test's capture, a redirected stream), not to
    the stream that was sys.stderr when logging was configured."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure(level: int = NORMAL) -> logging.Logger:
    """Send the `gsr` loggers to stderr at `level`; called by each `gsr` command, idempotent."""
    logger = logging.getLogger(ROOT)
    for handler in list(logger.handlers):
        if isinstance(handler, _StderrHandler):
            logger.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(_StepFormatter())
    logger.addHandler(handler)
    logger.setLevel(level)
    return logger


def verbose() -> bool:
    """True under --verbose: the `gsr` loggers show DEBUG lines, and libraries' own logging is shown too."""
    return logging.getLogger(ROOT).isEnabledFor(VERBOSE)


def get(name: str) -> logging.Logger:
    """The logger `gsr.<name>`."""
    return logging.getLogger(f"{ROOT}.{name}")
