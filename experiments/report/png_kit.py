"""The drawing kit every figure shares: the paper's colours (orange for male, g < 0; purple for female, g > 0), a
figure on matplotlib's Agg canvas (no pyplot, no global backend: importing costs nothing and needs no display), atomic
PNG writing, p-value and fit-line helpers, and point labels that never cover one another."""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from experiments.parts import COUNTS, part_entry
from gsr.infra.digests import fast_digest_of_bytes
from gsr.infra.numeric import p_clause
from gsr.infra.store import cached_file, copy_verified, reusable

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
    """`figure(*args)` written to `path` (save_figure), or a copy of the same figure drawn earlier (figure_entry:
    the cache holds each figure by the function, its arguments and the code). Within `figures_aside()` a worker
    process draws and writes it while the caller goes on; the path is returned at once and the file is there when
    the block ends."""
    if _ahead and _ahead[-1].active:  # drawing_ahead(): into the cache only, for the report written later
        entry = figure_entry(figure, args, Path(path).suffix)
        if entry is not None and not reusable(entry):
            _ahead[-1].executor.submit(_draw_entry, figure, args, entry)
        return Path(path)
    entry = figure_entry(figure, args, Path(path).suffix) if _cached else None
    if entry is not None:
        reused = copy_verified(entry, path) is not None
        COUNTS.count("figure", reused)
        if reused:
            return Path(path)
    if _aside:
        _aside[-1].submit(figure, args, path, entry)
        return Path(path)
    return _draw_and_save(figure, args, path, entry)


def figure_entry(figure: Callable, args: tuple, suffix: str = ".png") -> Path | None:
    """The cache file of `figure(*args)` (experiments.parts): named by the function, its pickled arguments and the
    code key; None where the arguments cannot be pickled (the figure is then drawn every time)."""
    try:
        arguments = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    name = f"{figure.__module__}.{figure.__qualname__}"
    return part_entry("figures", name, fast_digest_of_bytes(arguments), suffix).with_suffix(suffix or ".png")


def _draw_entry(figure: Callable, args: tuple, entry: Path) -> None:
    """The figure in its cache entry: drawn here, or found there (drawn meanwhile by another process, which held the
    entry's lock while it drew: a figure drawn ahead is waited for, never drawn twice)."""

    def draw(staging: Path) -> None:
        save_figure(figure(*args), staging)

    cached_file(entry, draw)


def _draw_and_save(figure: Callable, args: tuple, path, entry: Path | None = None) -> Path:
    """Draw the figure into its cache entry and copy it to `path` (or, without an entry, draw it to `path`)."""
    if entry is None:
        return save_figure(figure(*args), path)
    _draw_entry(figure, args, entry)
    if copy_verified(entry, path) is None:  # damaged since it was written: drawn again, straight to the report
        save_figure(figure(*args), path)
    return Path(path)


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
        self.drawing: dict[Path, object] = {}  # path -> the future drawing it

    def submit(self, figure: Callable, args: tuple, path, entry: Path | None) -> None:
        future = self.executor.submit(_draw_and_save, figure, args, path, entry)
        self.pending.append(future)
        self.drawing[Path(path).resolve()] = future

    def wait(self) -> None:
        from gsr.infra.progress import progress

        for future in progress(self.pending, desc="drawing the figures", unit="figure"):
            future.result()  # a worker's error, raised here


_aside: list[_FiguresAside] = []
_cached: list[bool] = []  # within figures_cached(): [True]


def drawn(path) -> Path:
    """`path`, once the figure a worker draws there (figures_aside) is written: what reads a figure within the block
    (report.html embeds some) waits for that one, not for every figure."""
    for aside in _aside:
        future = aside.drawing.get(Path(path).resolve())
        if future is not None:
            future.result()  # type: ignore[attr-defined]
    return Path(path)


class _FiguresAhead(_FiguresAside):
    """A worker that draws figures into the cache while the experiment is still computing; `active` within
    drawing_ahead()."""

    active = False


_ahead: list[_FiguresAhead] = []


@contextlib.contextmanager
def figures_ahead(workers: int = 1) -> Iterator[None]:
    """Within the block, drawing_ahead() hands figures to `workers` forked processes that draw them into the cache
    (figure_entry) as soon as their data exist, on the core the experiment leaves idle (one analysis after another
    runs on one): the report, written at the end, copies them, or waits for the one still being drawn (its entry's
    lock). Leaving the block waits for the figures started; on an error or Ctrl-C, those not started are cancelled."""
    from matplotlib.backends import backend_agg  # noqa: F401  (imported once here, not in every worker)

    ahead = _FiguresAhead(max(1, workers))
    _ahead.append(ahead)
    failed = True
    try:
        yield
        failed = False
    finally:
        _ahead.remove(ahead)
        ahead.executor.shutdown(wait=True, cancel_futures=failed)


@contextlib.contextmanager
def drawing_ahead() -> Iterator[bool]:
    """Inside figures_ahead(), yields True, and within the block draw_figure writes nothing where it is asked to: it
    hands the figure to a worker that draws it into the cache (one the cache holds already is left as it is); the
    caller throws away whatever else it wrote (tables into a scratch folder). Outside figures_ahead(), yields False
    (the caller draws nothing ahead)."""
    if not _ahead:
        yield False
        return
    _ahead[-1].active = True
    try:
        yield True
    finally:
        _ahead[-1].active = False


@contextlib.contextmanager
def figures_cached() -> Iterator[None]:
    """Within the block, draw_figure keeps each figure in the cache and copies the one drawn earlier from the same
    arguments by the same code (`gsr run`'s report: a rerun redraws only the figures a change reaches); outside it,
    every figure is drawn (other commands never write to the cache for a figure)."""
    _cached.append(True)
    try:
        yield
    finally:
        _cached.pop()


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
