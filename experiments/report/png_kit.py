"""The drawing kit every figure shares: the paper's colours (orange for male, g < 0; purple for female, g > 0), a
figure on matplotlib's Agg canvas (no pyplot, no global backend: importing costs nothing and needs no display), atomic
PNG writing, p-value and fit-line helpers, and point labels that never cover one another."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from gsr.infra.numeric import p_clause

MALE_COLOUR = "#e66101"  # orange
FEMALE_COLOUR = "#5e3c99"  # purple
NEUTRAL_COLOUR = "#9e9e9e"
UNKNOWN_COLOUR = "#c8c8c8"  # terms with no genderedness (out of vocabulary)
DIVERGING_CMAP = "PuOr"  # orange (negative, male) - white - purple (positive, female)
DPI = 150
G_LABEL = "genderedness g(w) (female > 0)"
ENGINE_ORDER = ("S", "N", "CS")


def new_figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path, dpi: int = DPI) -> Path:
    """Write `fig` to `path` (format from its suffix, PNG if none), atomically (gsr.infra.store.atomic_write)."""
    from gsr.infra.store import atomic_write

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower() or "png"
    with atomic_write(path, binary=True) as handle:
        fig.savefig(handle, format=fmt, dpi=dpi, bbox_inches="tight")
    return path


def draw_figure(figure: Callable, args: tuple, path) -> Path:
    """`figure(*args)` written to `path` (save_figure). Within `figures_aside()` a worker process draws and writes
    it while the caller goes on; the path is returned at once and the file is there when the block ends."""
    if _aside:
        _aside[-1].submit(figure, args, path)
        return Path(path)
    return _draw_and_save(figure, args, path)


def _draw_and_save(figure: Callable, args: tuple, path) -> Path:
    return save_figure(figure(*args), path)


class _FiguresAside:
    def __init__(self, workers: int):
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor

        from gsr.infra.parallel import worker_started

        # forked: the workers start without importing anything again and need only the figures' data pickled; they
        # ignore Ctrl-C, SIGTERM and SIGHUP (the caller cancels what is left) and die with the caller
        self.executor = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork"), initializer=worker_started, initargs=(os.getpid(),)
        )
        self.pending: list = []

    def submit(self, figure: Callable, args: tuple, path) -> None:
        self.pending.append(self.executor.submit(_draw_and_save, figure, args, path))

    def wait(self) -> None:
        for future in self.pending:
            future.result()  # a worker's error, raised here


_aside: list[_FiguresAside] = []


@contextlib.contextmanager
def figures_aside(workers: int) -> Iterator[None]:
    """Within the block, draw_figure hands each figure to one of `workers` forked processes: the report's figures
    (two thirds of its writing time, all in matplotlib) are drawn on the cores the rest of the report leaves idle.
    Leaving the block waits for every figure and raises the first error a worker met; on an error or Ctrl-C in
    the block, the figures not started are cancelled."""
    from matplotlib.backends import backend_agg  # noqa: F401  (imported once here, not in every worker)

    aside = _FiguresAside(max(1, workers))
    _aside.append(aside)
    try:
        yield
        aside.wait()
    finally:
        _aside.remove(aside)
        aside.executor.shutdown(wait=True, cancel_futures=True)


def format_p(p: float) -> str:
    """A p-value in a figure's title or legend as the tables show it: `p = 0.003`, `p < 0.001` (numeric.p_clause)."""
    return p_clause(p)


def draw_fit_line(ax, x: np.ndarray, y: np.ndarray, **style) -> None:
    """The least-squares line of y on x, drawn across the range of x."""
    slope, intercept = np.polyfit(x, y, 1)
    line_x = np.array([x.min(), x.max()])
    ax.plot(line_x, slope * line_x + intercept, color="black", **style)


def prune_end_ticks(ax) -> None:
    """At most five numbered ticks per axis, none at either end: a panel's end tick labels otherwise meet its
    neighbour's, or the other axis's at the corner. Ticks set by hand later (categories) replace these."""
    from matplotlib.ticker import MaxNLocator

    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(nbins=5, prune="both"))


def label_points(ax, labelled: list[tuple[str, float, float]], fontsize: float = 6) -> list[str]:
    """Names beside their points, each where it covers no other name, no tick label and stays inside the panel: of
    four places around the point the first free one, else none (the point stays, unnamed; report.html names every
    point on hover). Call it once the figure's layout is final (after tight_layout): the check measures the drawn
    text. Returns the names left out."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    taken = [t.get_window_extent(renderer) for t in [*ax.get_xticklabels(), *ax.get_yticklabels()] if t.get_text()]
    taken += [legend.get_window_extent(renderer) for legend in [ax.get_legend()] if legend is not None]
    places = (((3, 2), "left", "bottom"), ((3, -2), "left", "top"), ((-3, 2), "right", "bottom"),
              ((-3, -2), "right", "top"))  # fmt: skip
    left_out = []
    for name, x, y in labelled:
        for offset, ha, va in places:
            text = ax.annotate(name, (x, y), xytext=offset, textcoords="offset points", fontsize=fontsize, ha=ha, va=va)
            box = text.get_window_extent(renderer)
            fits = inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1)
            if fits and not any(box.overlaps(other) for other in taken):
                taken.append(box)
                break
            text.remove()
        else:
            left_out.append(name)
    return left_out
