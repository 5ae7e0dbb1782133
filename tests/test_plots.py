"""gsr.plots: every figure is written as a PNG at the path given, on small synthetic inputs (no embedding)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from gsr.evaluate import GSRResult, QueryResult
from gsr.plots import (
    plot_parity_agreement,
    plot_query_genderedness,
    plot_stereotype_tests,
    plot_toy_engines,
    save_figure,
)
from gsr.stereotypes import StereotypeTest
from gsr.toys import ParityAgreement

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_png(path, expected):
    assert path == expected
    assert expected.is_file()
    data = expected.read_bytes()
    assert len(data) > 1000
    assert data.startswith(PNG_MAGIC)
    leftovers = [p.name for p in expected.parent.iterdir() if p != expected]
    assert leftovers == [], f"temporary files left behind: {leftovers}"


@pytest.fixture
def stereotype_tests():
    return [
        StereotypeTest("agency_communion", -0.19, -0.02, 3.6e-3,
                       {"strong": -0.3, "proud": -0.1, "selfish": -0.17},
                       {"nurturing": 0.1, "emotional": -0.05, "polite": -0.1}, missing=["corageous"]),
        StereotypeTest("jobs", -0.07, 0.19, 0.0, {"plumber": -0.12, "welder": 0.09},
                       {"nurse": 0.26, "maid": 0.33}, exact=True),
        StereotypeTest("custom_pair", -0.2, 0.2, 0.4, {"a": -0.2}, {"b": 0.2}, exact=False),
    ]


def toy_result(slope, xs, ys):
    per_query = [QueryResult(f"q{i}", x, y, n_docs=1) for i, (x, y) in enumerate(zip(xs, ys))]
    return GSRResult(slope, per_query)


def test_stereotype_tests_plot(tmp_path, stereotype_tests):
    target = tmp_path / "new" / "deeper" / "fig1.png"
    reference = {"woman": 0.23, "man": -0.17, "her": 0.14, "his": -0.3}
    assert_png(plot_stereotype_tests(stereotype_tests, reference, target), target)


def test_stereotype_tests_plot_without_reference_and_str_path(tmp_path, stereotype_tests):
    target = tmp_path / "fig1.png"
    assert_png(plot_stereotype_tests(stereotype_tests[:1], {}, str(target)), target)


def test_toy_engines_plot(tmp_path):
    x = np.linspace(-0.3, 0.3, 8)
    results = {  # deliberately out of order: panels still come S, N, CS
        "CS": toy_result(-1.0, x, -x),
        "N": toy_result(0.0, x, np.zeros_like(x)),
        "S": toy_result(1.0, x, x),
    }
    target = tmp_path / "figs" / "fig4.png"
    assert_png(plot_toy_engines(results, target, "toy 1"), target)


def test_toy_engines_plot_with_unmeasured_queries_and_no_slope(tmp_path):
    per_query = [QueryResult("a", 0.1, None), QueryResult("b", None, 0.2), QueryResult("c", 0.2, 0.1)]
    results = {"S": GSRResult(None, per_query, error="too few queries"), "N": GSRResult(None, [])}
    target = tmp_path / "fig6.png"
    assert_png(plot_toy_engines(results, target, title=""), target)


def test_parity_agreement_plot(tmp_path):
    rng = np.random.default_rng(0)
    share = rng.uniform(0.3, 0.7, 50)
    agreement = ParityAgreement(0.6498, 3**20, share - 0.5 + rng.normal(0, 0.05, 50), share)
    target = tmp_path / "a" / "fig5.png"
    assert_png(plot_parity_agreement(agreement, target), target)


def query(qid, g, terms):
    return {"qid": qid, "text": " ".join(t for t, _ in terms), "genderedness": g,
            "terms": [{"term": t, "g": v} for t, v in terms]}


def test_query_genderedness_plot(tmp_path):
    queries = [
        query("313", 0.37, [("mothers", 0.4), ("daughters", 0.33)]),
        query("310", 0.1, [("women", 0.19), ("parliaments", 0.01), ("xyzzy", None)]),
        query("350", 0.0, [("health", 0.0)]),
        query("351", -0.1, [("steel", -0.04), ("production", -0.18)]),
        query("327", -0.42, [("baseball", -0.39), ("strike", -0.44)]),
        query("399", None, [("plugh", None)]),  # not measurable: left out
        query("400", 0.05, [(f"word{i}", 0.01 * (i - 10)) for i in range(25)]),  # long enough to wrap
    ]
    target = tmp_path / "x" / "y" / "fig7.png"
    assert_png(plot_query_genderedness(queries, target, top=3), target)


def test_query_genderedness_plot_with_nothing_measurable(tmp_path):
    target = tmp_path / "fig7.png"
    queries = [query("1", None, [("plugh", None)])]
    assert_png(plot_query_genderedness(queries, target), target)


def test_save_figure_replaces_atomically(tmp_path):
    from matplotlib.figure import Figure

    target = tmp_path / "out" / "figure.png"
    target.parent.mkdir()
    target.write_bytes(b"old")
    fig = Figure(figsize=(2, 2))
    fig.add_subplot(1, 1, 1).plot([0, 1], [1, 0])
    assert_png(save_figure(fig, target), target)


def test_save_figure_leaves_no_temporary_file_on_error(tmp_path):
    class Broken:
        def savefig(self, *args, **kwargs):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        save_figure(Broken(), tmp_path / "f.png")
    assert list(tmp_path.iterdir()) == []


def test_importing_plots_does_not_import_matplotlib():
    code = "import sys, gsr.plots; assert 'matplotlib' not in sys.modules, 'matplotlib imported eagerly'"
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_system_scatter_shows_the_bootstrap_band(tmp_path, monkeypatch):
    """Figs. 8-9: one panel per system; a system with bootstrap replicates gets a grey band covering its fit line,
    and its interval in the title."""
    import gsr.plots as plots
    from gsr.evaluate import add_uncertainty

    rng = np.random.default_rng(0)
    x = rng.normal(scale=0.1, size=40)
    with_band = toy_result(0.5, x, 0.5 * x + rng.normal(scale=0.02, size=40))
    add_uncertainty([with_band], resamples=300, level=0.9, seed=1)
    without = toy_result(0.1, x, 0.1 * x)
    figures = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: figures.append(fig) or path)
    plots.plot_system_scatter({"A": with_band, "B": without}, None, tmp_path / "gsr.png")
    axes = [ax for ax in figures[0].axes if ax.get_visible()]
    assert [ax.get_title().split(":")[0] for ax in axes] == ["A", "B"]
    band = [c for c in axes[0].collections if c.get_label() == "bootstrap band"]
    assert len(band) == 1 and not [c for c in axes[1].collections if c.get_label() == "bootstrap band"]
    vertices = band[0].get_paths()[0].vertices
    middle = vertices[np.argmin(np.abs(vertices[:, 0]))]  # a point of the band near x = 0
    assert with_band.ci.low < with_band.ci.high and f"[{with_band.ci.low:.2f}, " in axes[0].get_title()
    assert abs(middle[1] - np.mean(with_band.points()[1])) < 0.05  # the band surrounds the fitted line
