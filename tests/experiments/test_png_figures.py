"""experiments.report.png_figures: what each figure shows (panels, titles, points, fit lines, colours, legends) on
small synthetic inputs, and that each plot_* function writes it as a PNG at the path given (no embedding needed)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from experiments.report.png_figures import (
    parity_agreement_figure,
    plot_parity_agreement,
    plot_query_genderedness,
    plot_stereotype_tests,
    plot_system_scatter,
    plot_toy_engines,
    query_genderedness_figure,
    save_figure,
    stereotype_tests_figure,
    system_scatter_figure,
    toy_engines_figure,
)
from gsr.evaluate import GSRResult, QueryResult, add_uncertainty
from gsr.validation.stereotypes import StereotypeTest
from gsr.validation.toys import ParityAgreement
from tests.support.figures import (
    GREY_NEUTRAL,
    ORANGE_MALE,
    PURPLE_FEMALE,
    assert_png,
    colours,
    fit_lines,
    legend_labels,
    overlapping_texts,
    panels,
    points,
    slope,
    texts,
    titles,
)

STEREOTYPE_TESTS = [
    StereotypeTest(
        "agency_communion",
        -0.19,
        -0.02,
        3.6e-3,
        {"strong": -0.3, "proud": -0.1, "selfish": -0.17},
        {"nurturing": 0.1, "emotional": -0.05, "polite": -0.1},
        missing=["corageous"],
    ),
    StereotypeTest(
        "jobs", -0.07, 0.19, 0.0, {"plumber": -0.12, "welder": 0.09}, {"nurse": 0.26, "maid": 0.33}, exact=True
    ),
    StereotypeTest("custom_pair", -0.2, 0.2, 0.4, {"a": -0.2}, {"b": 0.2}, exact=False),
]
REFERENCE = {"woman": 0.23, "man": -0.17, "her": 0.14, "his": -0.3}
X = np.array([-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3])  # g(q) of 7 toy queries, one neutral


def toy_result(slope_value, xs, ys):
    per_query = [QueryResult(f"q{i}", x, y, n_docs=1) for i, (x, y) in enumerate(zip(xs, ys))]
    return GSRResult(slope_value, per_query)


def query(qid, g, terms):
    return {
        "qid": qid,
        "text": " ".join(t for t, _ in terms),
        "genderedness": g,
        "terms": [{"term": t, "g": v} for t, v in terms],
    }


QUERIES = [
    query("313", 0.37, [("mothers", 0.4), ("daughters", 0.33)]),
    query("310", 0.1, [("women", 0.19), ("parliaments", 0.01), ("xyzzy", None)]),
    query("350", 0.0, [("health", 0.0)]),
    query("351", -0.1, [("steel", -0.04), ("production", -0.18)]),
    query("327", -0.42, [("baseball", -0.39), ("strike", -0.44)]),
    query("399", None, [("plugh", None)]),  # not measurable: left out
    query("400", 0.05, [(f"word{i}", 0.01 * (i - 10)) for i in range(25)]),  # long enough to wrap
]


def parity(stereotype="polarity"):
    rng = np.random.default_rng(0)
    share = rng.uniform(0.3, 0.7, 50)
    return ParityAgreement(0.6498, 3**20, share - 0.5 + rng.normal(0, 0.05, 50), share, stereotype=stereotype)


# ----------------------------------------------------------------------------------------------- Fig. 1


def test_stereotype_tests_figure_rows_points_means_and_p_values():
    fig = stereotype_tests_figure(STEREOTYPE_TESTS, REFERENCE)
    (ax,) = panels(fig)
    # rows from the top: one per contrast (named as in the paper's Fig. 1), then the reference words
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "agency vs communion",
        "jobs_m vs jobs_f",
        "custom vs pair",
        "reference words",
    ]
    assert list(ax.get_yticks()) == [4, 3, 2, 1]
    # per contrast: the male words (orange) just above the row, the female words (purple) just below, then the means
    scatters = ax.collections
    male, female, male_mean, female_mean = scatters[:4]
    assert points(male).tolist() == [[-0.3, 4.14], [-0.1, 4.14], [-0.17, 4.14]]
    assert points(female).tolist() == [[0.1, 3.86], [-0.05, 3.86], [-0.1, 3.86]]
    assert points(male_mean).tolist() == [[-0.19, 4.14]] and points(female_mean).tolist() == [[-0.02, 3.86]]
    assert set(colours(male) + colours(male_mean)) == {ORANGE_MALE}
    assert set(colours(female) + colours(female_mean)) == {PURPLE_FEMALE}
    # one-tailed p per contrast, "(MC)" where it was estimated by Monte Carlo
    assert texts(ax)[:3] == ["p = 0.004", "p < 0.001", "p = 0.400 (MC)"]  # as the tables round p (docs/report.md)
    # the reference row: each word at its g, coloured by its sign, labelled
    reference = [c for c in scatters if len(c.get_offsets()) == 1 and c.get_offsets()[0][1] == 1.0]
    assert sorted(points(c)[0][0] for c in reference) == [-0.3, -0.17, 0.14, 0.23]
    assert {points(c)[0][0]: colours(c)[0] for c in reference} == {
        -0.3: ORANGE_MALE,
        -0.17: ORANGE_MALE,
        0.14: PURPLE_FEMALE,
        0.23: PURPLE_FEMALE,
    }
    assert texts(ax)[3:] == ["his", "man", "her", "woman"]  # sorted by g
    assert legend_labels(ax) == ["male-stereotyped words", "female-stereotyped words", "set mean"]
    assert [t.get_text() for t in fig.texts] == ["not in the embedding: corageous"]
    assert ax.get_xlabel() == "genderedness g(w) (female > 0)"
    low, high = ax.get_xlim()
    assert low == pytest.approx(-high) and high == pytest.approx(0.33 * 1.12)  # symmetric about g = 0


def test_stereotype_tests_figure_without_reference_words():
    fig = stereotype_tests_figure(STEREOTYPE_TESTS[1:2], {})
    (ax,) = panels(fig)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["jobs_m vs jobs_f"]
    assert len(points(ax)) == 2 + 2 + 2 and fig.texts == []  # 2 male, 2 female, 2 means; nothing missing


# ----------------------------------------------------------------------------------------------- Figs. 4 and 6


def test_toy_engines_figure_panels_titles_points_and_fit_lines():
    results = {  # deliberately out of order: panels still come S, N, CS
        "CS": toy_result(-0.63, X, -0.63 * X),
        "N": toy_result(0.0, X, np.full_like(X, 0.02)),
        "S": toy_result(0.63, X, 0.63 * X + 0.01),
    }
    fig = toy_engines_figure(results, "toy 1")
    assert titles(fig) == ["S: m = 0.63", "N: m = 0.00", "CS: m = -0.63"]
    assert fig.get_suptitle() == "toy 1"
    for ax, name in zip(panels(fig), ("S", "N", "CS")):
        x, y = results[name].points()
        np.testing.assert_allclose(points(ax), np.column_stack([x, y]))
        assert colours(ax.collections[0]) == [ORANGE_MALE] * 3 + [GREY_NEUTRAL] + [PURPLE_FEMALE] * 3  # sign of g(q)
        (fit,) = fit_lines(ax)
        assert slope(fit) == pytest.approx(results[name].gsr, abs=1e-12)  # the drawn line's slope is the GSR
        assert ax.get_xlabel() == "$g(q)$"
    assert panels(fig)[0].get_ylabel() == r"$g_q(\mathcal{L})$"


def test_toy_engines_figure_with_unmeasured_queries_and_no_slope():
    per_query = [QueryResult("a", 0.1, None), QueryResult("b", None, 0.2), QueryResult("c", 0.2, 0.1)]
    fig = toy_engines_figure({"S": GSRResult(None, per_query, error="too few queries"), "N": GSRResult(None, [])})
    s, n = panels(fig)
    assert titles(fig) == ["S: m = undefined", "N: m = undefined"] and fig.get_suptitle() == ""
    assert points(s).tolist() == [[0.2, 0.1]] and fit_lines(s) == []  # one point: no line
    assert points(n).size == 0 and texts(n) == ["no measurable query"]


# ----------------------------------------------------------------------------------------------- Fig. 5


@pytest.mark.parametrize("stereotype, definition", [("polarity", "polarity of g(q)"), ("census", "census majority")])
def test_parity_agreement_figure(stereotype, definition):
    agreement = parity(stereotype)
    fig = parity_agreement_figure(agreement)
    (ax,) = panels(fig)
    share, gsr = 100 * np.asarray(agreement.sample_share), np.asarray(agreement.sample_gsr)
    np.testing.assert_allclose(points(ax), np.column_stack([share, gsr]))
    assert set(colours(ax.collections[0])) == {PURPLE_FEMALE}
    (fit,) = fit_lines(ax)
    # least squares by hand: cov(x, y) / var(x)
    assert slope(fit) == pytest.approx(np.cov(share, gsr, bias=True)[0, 1] / np.var(share), rel=1e-9)
    assert ax.get_title() == "r = 0.65 over 3,486,784,401 solutions; 50 shown"
    assert ax.get_xlabel() == f"stereotypical documents ({definition}) among retrieved ones (%)"
    assert ax.get_ylabel() == "GSR"


# ----------------------------------------------------------------------------------------------- Fig. 7


def _rows(ax) -> list[str]:
    """The query ids of a Fig. 7 panel, top to bottom (the bold labels)."""
    return [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]


def test_query_genderedness_figure_panels_order_and_term_colours():
    fig = query_genderedness_figure(QUERIES, top=3)
    female, male = panels(fig)
    assert titles(fig) == ["most female queries", "most male queries"]
    assert _rows(female) == ["313", "310", "400"] and _rows(male) == ["327", "351", "350"]  # by g(q); 399 left out
    assert "+0.370" in texts(female) and "-0.420" in texts(male)
    boxes = {
        t.get_text(): t.get_bbox_patch().get_facecolor()
        for t in female.texts + male.texts
        if t.get_bbox_patch() is not None
    }
    for word, g in (("mothers", 0.4), ("daughters", 0.33), ("women", 0.19), ("baseball", -0.39), ("strike", -0.44)):
        red, _, blue, _ = boxes[word]
        assert (blue > red) == (g > 0), word  # PuOr: purple (blue > red) for female, orange for male
    assert boxes["xyzzy"][:3] == pytest.approx((200 / 255,) * 3)  # out of the vocabulary: grey, with "n/a" beneath
    assert texts(female)[texts(female).index("xyzzy") + 1] == "n/a"
    heights = {t.get_position()[1] for t in female.texts if t.get_text().startswith("word")}
    assert len(heights) >= 2  # query 400's 25 terms wrap onto a second line
    (bar,) = [ax for ax in fig.axes if ax not in (female, male)]
    assert bar.get_xlabel() == "term genderedness g(w) (female > 0); grey: not in the embedding"


def test_query_genderedness_figure_with_nothing_measurable():
    fig = query_genderedness_figure([query("1", None, [("plugh", None)])])
    assert [texts(ax) for ax in panels(fig)] == [["no query with genderedness"]] * 2


# ----------------------------------------------------------------------------------------------- Figs. 8 and 9


def test_system_scatter_figure_panels_titles_and_the_perfect_engine_line():
    systems = {
        name: toy_result(m, X, m * X) for name, m in (("A", 0.5), ("B", 0.25), ("C", -0.2), ("D", 0.0), ("E", 1.0))
    }
    perfect = toy_result(0.1, X, 0.1 * X + 0.03)
    fig = system_scatter_figure(systems, perfect, "glove", columns=4)
    assert len(fig.axes) == 8 and len(panels(fig)) == 5  # 2 rows of 4, the last 3 hidden
    assert titles(fig) == [f"{n}\nGSR = {g}" for n, g in zip("ABCDE", ("0.50", "0.25", "-0.20", "0.00", "1.00"))]
    assert fig.get_suptitle() == "glove (dashed: perfect engine)"
    for ax, result in zip(panels(fig), systems.values()):
        np.testing.assert_allclose(points(ax), np.column_stack(result.points()))
        (fit,) = fit_lines(ax)
        (reference,) = fit_lines(ax, "--")
        assert slope(fit) == pytest.approx(result.gsr, abs=1e-12)
        assert slope(reference) == pytest.approx(0.1)  # the perfect engine's GSR, in every panel


def test_system_scatter_figure_shows_the_bootstrap_band():
    """A system with bootstrap replicates gets a grey band covering its fit line, and its interval in the title."""
    from gsr.evaluate import add_uncertainty

    rng = np.random.default_rng(0)
    x = rng.normal(scale=0.1, size=40)
    with_band = toy_result(0.5, x, 0.5 * x + rng.normal(scale=0.02, size=40))
    add_uncertainty([with_band], resamples=300, level=0.9, seed=1)
    without = toy_result(0.1, x, 0.1 * x)
    fig = system_scatter_figure({"A": with_band, "B": without}, None)
    axes = panels(fig)
    assert [title.split("\n")[0] for title in titles(fig)] == ["A", "B"]
    band = [c for c in axes[0].collections if c.get_label() == "bootstrap band"]
    assert len(band) == 1 and not [c for c in axes[1].collections if c.get_label() == "bootstrap band"]
    vertices = band[0].get_paths()[0].vertices
    middle = vertices[np.argmin(np.abs(vertices[:, 0]))]  # a point of the band near x = 0
    assert with_band.ci.low < with_band.ci.high and f"[{with_band.ci.low:.2f}, " in axes[0].get_title()
    assert abs(middle[1] - np.mean(with_band.points()[1])) < 0.05  # the band surrounds the fitted line
    assert fit_lines(axes[0], "--") == []  # no perfect engine given


def test_system_scatter_figure_of_thirty_two_long_named_systems_has_no_text_over_another():
    """The demo's layout: 32 panels, names such as 'BM25+EG (epsilon=0.1, seed=0)', intervals, the figure's title."""
    rng = np.random.default_rng(3)
    x = rng.normal(scale=0.2, size=60)
    systems = {}
    for i in range(32):
        result = toy_result(0.3, x, 0.3 * x + rng.normal(scale=0.05, size=60))
        add_uncertainty([result], resamples=50, level=0.95, seed=i)
        systems[f"BM25+EG (epsilon=0.{i % 9 + 1}, seed={i}) (strong-debiased)"] = result
    fig = system_scatter_figure(systems, systems[next(iter(systems))], "demo: GSR (glove)")
    assert overlapping_texts(fig) == []


# ----------------------------------------------------------------------------------------------- the PNG files

WRITERS = {
    "fig1-nested-folders": (lambda path: plot_stereotype_tests(STEREOTYPE_TESTS, REFERENCE, path), "a/b/fig1.png"),
    "fig1-str-path": (lambda path: plot_stereotype_tests(STEREOTYPE_TESTS[:1], {}, str(path)), "fig1.png"),
    "fig4": (lambda path: plot_toy_engines({"S": toy_result(1.0, X, X)}, path, "toy 1"), "figs/fig4.png"),
    "fig5": (lambda path: plot_parity_agreement(parity(), path), "fig5.png"),
    "fig7": (lambda path: plot_query_genderedness(QUERIES, path, top=3), "x/y/fig7.png"),
    "fig8": (lambda path: plot_system_scatter({"A": toy_result(1.0, X, X)}, None, path), "gsr_glove.png"),
}


@pytest.mark.parametrize("write, name", WRITERS.values(), ids=WRITERS.keys())
def test_plot_functions_write_a_png_at_the_path_given(write, name, tmp_path):
    target = tmp_path / name
    assert_png(write(target), target)


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
    code = "import sys, experiments.report.png_figures; assert 'matplotlib' not in sys.modules, 'imported eagerly'"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def _line_figure(points: int):
    from experiments.report.png_kit import new_figure

    fig = new_figure(3, 2)
    fig.subplots().plot(range(points), "o-")
    return fig


def _broken_figure(points: int):
    raise ValueError(f"no figure of {points} points")


def test_figures_drawn_aside_are_the_figures_drawn_here(tmp_path):
    """Within figures_aside, forked workers draw and write the figures while the caller goes on: the same PNG bytes
    as drawn in this process, every file there when the block ends, and a worker's error raised there."""
    from experiments.report.png_kit import draw_figure, figures_aside

    here = [draw_figure(_line_figure, (n,), tmp_path / "here" / f"{n}.png") for n in (3, 5)]
    with figures_aside(2):
        aside = [draw_figure(_line_figure, (n,), tmp_path / "aside" / f"{n}.png") for n in (3, 5)]
    assert [p.read_bytes() for p in aside] == [p.read_bytes() for p in here]
    with pytest.raises(ValueError, match="no figure of 4 points"):
        with figures_aside(2):
            draw_figure(_broken_figure, (4,), tmp_path / "broken.png")
    assert not (tmp_path / "broken.png").exists()
