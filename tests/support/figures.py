"""What a matplotlib Figure shows, read back for the plot tests: panels, titles, plotted points, lines, colours."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_hex

# the paper's colours (§4.1, Figs. 1 and 4-12), written here rather than imported from experiments.report.png_figures
ORANGE_MALE = "#e66101"
PURPLE_FEMALE = "#5e3c99"
GREY_NEUTRAL = "#9e9e9e"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def panels(fig) -> list:
    """The visible data panels of `fig` (colour bars left out: matplotlib marks their axes with `_colorbar`)."""
    return [ax for ax in fig.axes if ax.get_visible() and getattr(ax, "_colorbar", None) is None]


def titles(fig) -> list[str]:
    return [ax.get_title() or ax.get_title(loc="left") for ax in panels(fig)]


def points(drawn) -> np.ndarray:
    """Every scatter point of a panel (or of one scatter collection), (x, y) rows in drawing order."""
    collections = drawn.collections if hasattr(drawn, "collections") else [drawn]
    offsets = [np.asarray(c.get_offsets(), dtype=float) for c in collections if len(c.get_offsets())]
    return np.concatenate(offsets) if offsets else np.empty((0, 2))


def colours(collection) -> list[str]:
    """The face colour of each point of a scatter collection, as '#rrggbb' (one per point)."""
    faces = [to_hex(c) for c in collection.get_facecolors()]
    return faces * len(collection.get_offsets()) if len(faces) == 1 else faces


def fit_lines(ax, style: str = "-") -> list:
    """The black lines of a panel drawn with `style` ("-": the fitted lines; "--": the perfect engine's), leaving out
    the grey axis and reference lines."""
    return [line for line in ax.lines if line.get_linestyle() == style and to_hex(line.get_color()) == "#000000"]


def slope(line) -> float:
    """The slope of a straight drawn line, from its end points."""
    x, y = (np.asarray(v, dtype=float) for v in line.get_data())
    return float((y[-1] - y[0]) / (x[-1] - x[0]))


def texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def legend_labels(holder) -> list[str]:
    """The labels of the legend of an Axes, or of the figure-level legends of a Figure."""
    legends = [holder.get_legend()] if hasattr(holder, "get_legend") else list(holder.legends)
    return [t.get_text() for legend in legends if legend is not None for t in legend.get_texts()]


def assert_png(path, expected) -> None:
    """`path` is `expected`, a PNG file, with nothing else (no staging file) beside it."""
    assert path == expected
    data = expected.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 1000
    assert [p.name for p in expected.parent.iterdir() if p != expected] == []


def _text_artists(fig) -> list:
    """Every visible, non-empty text of `fig`: its titles, the panels' titles, axis labels, tick labels, notes and
    the legends' entries."""
    found = list(fig.texts)  # the figure's title among them
    legends = list(fig.legends)
    for ax in panels(fig):
        found += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        found += [*ax.get_xticklabels(), *ax.get_yticklabels()]
        legends.append(ax.get_legend())
    found += [t for legend in legends if legend is not None for t in [legend.get_title(), *legend.get_texts()]]
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def overlapping_texts(fig, tolerance: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of texts of `fig` whose drawn boxes overlap by more than `tolerance` pixels each way, as drawn in the
    saved file (bbox_inches="tight" moves nothing relative to the rest)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = _text_artists(fig)
    boxes = np.array([t.get_window_extent(renderer).extents for t in texts]).reshape(-1, 4)
    clashes = []
    for i in range(len(texts)):
        width = np.minimum(boxes[i, 2], boxes[i + 1 :, 2]) - np.maximum(boxes[i, 0], boxes[i + 1 :, 0])
        height = np.minimum(boxes[i, 3], boxes[i + 1 :, 3]) - np.maximum(boxes[i, 1], boxes[i + 1 :, 1])
        for j in np.flatnonzero((width > tolerance) & (height > tolerance)):
            clashes.append((texts[i].get_text(), texts[i + 1 + j].get_text()))
    return clashes
