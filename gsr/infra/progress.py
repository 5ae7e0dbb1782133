"""Progress bars for long loops, from tqdm: an ETA on a terminal; nothing when stderr is a file or a pipe (the
steps' own log lines say what happened) or when the `gsr` logger is quieter than INFO. No flag is passed around:
whether a bar shows is decided here, from logging and the terminal."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable

from gsr.infra.logs import ROOT


def bars_shown() -> bool:
    """True when progress bars go to a terminal and the `gsr` logger shows INFO lines."""
    stream = sys.stderr
    return logging.getLogger(ROOT).isEnabledFor(logging.INFO) and bool(getattr(stream, "isatty", lambda: False)())


def progress(
    iterable: Iterable | None = None,
    *,
    total: float | None = None,
    desc: str = "",
    unit: str = "it",
    unit_scale: bool = False,
):
    """A tqdm bar over `iterable` (or one to `update` by hand), shown only where bars_shown()."""
    from tqdm import tqdm

    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        disable=not bars_shown(),
        leave=False,
        dynamic_ncols=True,
        mininterval=0.5,
    )
