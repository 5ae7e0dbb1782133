"""Progress of long loops, from tqdm: a bar with an ETA on a terminal; where stderr is a file or a pipe (Slurm, nohup,
CI), a log line at least every LOG_EVERY_S seconds of work and one at the end, each with done/total, the elapsed time
and the ETA, and the rate; nothing when the `gsr` logger is quieter than INFO. No flag is passed around: how progress
shows is decided here, from logging and the terminal. A heartbeat thread refreshes a log file's line while one item
takes long, so no phase is silent for more than LOG_EVERY_S."""

from __future__ import annotations

import functools
import logging
import re
import sys
import threading
import time
from collections.abc import Iterable

from gsr.infra.logs import ROOT

_CURSOR_MOVES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # what tqdm writes to place a nested bar on a terminal
LOG_EVERY_S = 30.0  # a log line at least this often while work goes on (a log file has no bar to look at)
log = logging.getLogger(f"{ROOT}.progress")


def _info_shown() -> bool:
    return logging.getLogger(ROOT).isEnabledFor(logging.INFO)


def _on_terminal() -> bool:
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def bars_shown() -> bool:
    """True when progress bars go to a terminal and the `gsr` logger shows INFO lines."""
    return _info_shown() and _on_terminal()


class _LogLines:
    """A file for tqdm that turns each status it writes into one INFO log line (a log file gets lines, no bar)."""

    def __init__(self) -> None:
        self.last = ""
        self.started = time.monotonic()

    def write(self, text: str) -> None:
        line = _CURSOR_MOVES.sub("", text).strip("\r\n ")  # a line of its own: no terminal's cursor to move
        # a loop done within LOG_EVERY_S logs nothing (its step's own lines say what happened): no "0%" line at
        # the start of every short loop, nor its last status
        if line and line != self.last and time.monotonic() - self.started >= LOG_EVERY_S:  # closing repeats it
            log.info("%s", line)
            self.last = line

    def flush(self) -> None:
        pass


@functools.cache
def _logged_bar_type():
    """tqdm with a heartbeat: in a log file a step that takes longer than LOG_EVERY_S (one Lucene run of a whole
    topic set, one figure, one system's training) still gets its line every LOG_EVERY_S, its elapsed time and ETA
    moving on, where tqdm itself writes only when the count changes."""
    from tqdm import tqdm

    class LoggedBar(tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._stopped = threading.Event()
            if not self.disable:
                threading.Thread(target=self._beat, name=f"progress: {self.desc}", daemon=True).start()

        def _beat(self) -> None:
            while not self._stopped.wait(LOG_EVERY_S):
                self.refresh()

        def close(self) -> None:
            if hasattr(self, "_stopped"):
                self._stopped.set()
            super().close()

    return LoggedBar


def progress(
    iterable: Iterable | None = None,
    *,
    total: float | None = None,
    desc: str = "",
    unit: str = "it",
    unit_scale: bool = False,
):
    """A tqdm progress over `iterable` (or one to `update` by hand): a bar on a terminal, log lines elsewhere (at
    least every LOG_EVERY_S once the loop has run that long, whether or not an item finished meanwhile)."""
    from tqdm import tqdm

    counting = {"total": total, "desc": desc, "unit": unit, "unit_scale": unit_scale}
    if bars_shown():
        return tqdm(iterable, **counting, leave=False, dynamic_ncols=True, mininterval=0.5)
    return _logged_bar_type()(
        iterable,
        **counting,
        disable=not _info_shown(),
        file=_LogLines(),
        ncols=0,  # the counts, times and rate alone: "desc: 1200/8800 [00:30<03:40, 40.0doc/s]"
        mininterval=LOG_EVERY_S,
        maxinterval=LOG_EVERY_S,
        miniters=1,
        position=0,  # a bar opened inside another (the figures inside the report) is a line of its own too
        smoothing=0,  # the rate and ETA from the whole elapsed time: a heartbeat's line moves them on
        leave=True,  # the last line says it finished, with its total time
    )
