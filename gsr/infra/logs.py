"""Logging for gsr-bench: one `gsr` logger hierarchy (gsr.run, gsr.store, gsr.lucene, …), configured once by the
`gsr` command. A library user who never configures logging sees warnings only (Python's last-resort handler);
`--quiet` keeps warnings and errors, `--verbose` adds debug lines and the libraries' own INFO lines (Anserini's).
"""

from __future__ import annotations

import logging
import sys
import time

ROOT = "gsr"
QUIET, NORMAL, VERBOSE = logging.WARNING, logging.INFO, logging.DEBUG


class _StepFormatter(logging.Formatter):
    """'gsr: message' for warnings and errors, '[HH:MM:SS] message' for progress lines."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:
            message = f"{message}\n{self.formatException(record.exc_info)}"
        if record.levelno >= logging.WARNING:
            return f"gsr: {message}"
        return f"[{time.strftime('%H:%M:%S', time.localtime(record.created))}] {message}"


def configure(level: int = NORMAL, stream=None) -> logging.Logger:
    """Send the `gsr` loggers to stderr (or `stream`) at `level`; called once per command, idempotent."""
    logger = logging.getLogger(ROOT)
    for handler in list(logger.handlers):
        if getattr(handler, "_gsr_handler", False):
            logger.removeHandler(handler)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(_StepFormatter())
    handler._gsr_handler = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    return logger


def get(name: str) -> logging.Logger:
    """The logger `gsr.<name>`."""
    return logging.getLogger(f"{ROOT}.{name}")
