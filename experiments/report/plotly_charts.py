"""The analyses' figures as interactive Plotly charts for report.html: the same data as the PNGs (Figs. 10-12, the
label-based trade-off, the adversarial probe, the gendered versions), with every point named on hover, systems shown
or hidden from the legend and one panel at a time chosen from a menu where the PNG needs a grid of panels.

Each function returns a plotly Figure; html.py embeds its JSON and the page draws it with the plotly.js it inlines.
Plotly is imported inside each function, so importing this module costs nothing.

Plotly reads a subset of HTML (<a href>, <span style>, <b>, <br>) in every string it draws (trace names, hover texts,
categories, menus, titles) and %{...} in hovertemplates: every string that comes from data (system, run, query,
measure, embedding and category names) goes in through `plotly_text`, as entities Plotly shows as the characters."""

from __future__ import annotations

import math

from experiments.report.png_kit import FEMALE_COLOUR, MALE_COLOUR, NEUTRAL_COLOUR
from gsr.infra.numeric import format_interval, format_number, format_p, p_clause

HEIGHT = 520
_ENTITIES = str.maketrans({"&": "&#38;", "<": "&#60;", ">": "&#62;", '"': "&#34;", "'": "&#39;", "%": "&#37;"})


def plotly_text(value) -> str:
    """`value` as text Plotly shows as it is: &, <, >, quotes and % as numeric HTML entities (which Plotly turns back
    into the characters), so no tag of it is read and no %{...} of it substituted, in a hovertemplate or not.
    report.js's plotlyText is the same function."""
    return str(value).translate(_ENTITIES)


def _texts(values) -> list[str]:
    return [plotly_text(v) for v in values]


def _layout(fig, title: str, x: str, y: str) -> None:
    """The common layout; `title`, `x` and `y` are plain text (escaped here)."""
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0, "font": {"size": 14}},
        xaxis_title=plotly_text(x),
        yaxis_title=plotly_text(y),
        height=HEIGHT,
        template="plotly_white",
        margin={"l": 60, "r": 20, "t": 100, "b": 50},
        legend={"font": {"size": 10}},
    )


def _menu(fig, labels: list[str], visible: list[list[bool]], titles: list[dict] | None = None) -> None:
    """A drop-down that shows one group of traces at a time (`visible[i]` for entry `labels[i]`, plain text); `titles`
    the layout changes each entry makes (their texts already through plotly_text)."""
    buttons = []
    for i, label in enumerate(labels):
        args: list = [{"visible": visible[i]}]
        if titles:
            args.append(titles[i])
        buttons.append({"label": plotly_text(label), "method": "update", "args": args})
    fig.update_layout(
        # just above the plot area, under the title the layout keeps at the top of the figure
        updatemenus=[
            {"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.01, "yanchor": "bottom", "showactive": True}
        ]
    )


def _value(value) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def rank_change_chart(changes) -> object:
    """Fig. 10: per debiased system, |g(q)| against the Kendall τ distance of its top lists before and after
    debiasing; one system shown at first, the others from the legend; hover names the query."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for i, (system, change) in enumerate(changes.systems.items()):
        name = plotly_text(system)
        fig.add_trace(
            go.Scatter(
                x=[q.abs_g for q in change.points],
                y=[q.distance for q in change.points],
                mode="markers",
                name=f"{name} (r = {_text(change.r)}, {p_clause(change.p_value)})",
                customdata=[[plotly_text(q.qid), q.g_query] for q in change.points],
                hovertemplate="query %{customdata[0]}<br>g(q) = %{customdata[1]:.4f}<br>τ distance = %{y:.4f}"
                "<extra>" + name + "</extra>",
                visible=True if i == 0 else "legendonly",
                marker={"size": 6, "opacity": 0.7},
            )
        )
    depth = next(iter(changes.systems.values())).depth if changes.systems else ""
    _layout(fig, "Fig. 10: how far debiasing moves each query's ranking", "|g(q)|", f"Kendall τ distance, top {depth}")
    return fig


def reliability_chart(reliability) -> object:
    """Fig. 11: g(q) under the two measuring embeddings (one point per query), and each system's GSR under both."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    queries, systems = reliability.query_genderedness, reliability.system_ranking
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=[
            f"queries: Pearson's r = {_text(queries.coefficient)}, {p_clause(queries.p_value)}",
            f"systems: Spearman's ρ = {_text(systems.coefficient)}, {p_clause(systems.p_value)}",
        ],
    )
    _layout(fig, "Fig. 11: reliability of GSR across the two measuring embeddings", "", "")  # each panel's axes below
    for col, agreement, what in ((1, queries, "query"), (2, systems, "system")):
        a, b = _texts(agreement.names)
        fig.add_trace(
            go.Scatter(
                x=[x for _, x, _ in agreement.points],
                y=[y for _, _, y in agreement.points],
                mode="markers",
                name=what,
                customdata=[[plotly_text(key)] for key, _, _ in agreement.points],
                hovertemplate=what + " %{customdata[0]}<br>" + a + ": %{x:.4f}<br>" + b + ": %{y:.4f}<extra></extra>",
                marker={"color": FEMALE_COLOUR, "size": 6 if col == 1 else 9, "opacity": 0.7},
                showlegend=False,
            ),
            row=1,
            col=col,
        )
        prefix = "g(q)" if col == 1 else "GSR"
        fig.update_xaxes(title_text=f"{prefix}, {a}", row=1, col=col)
        fig.update_yaxes(title_text=f"{prefix}, {b}", row=1, col=col)
    return fig


def _text(value) -> str:
    """A coefficient (r, ρ) as the tables show it (format_number: 4 decimals)."""
    return format_number(value, missing="n/a")


def gap_shares_chart(shares: dict) -> object:
    """Fig. 12: per g(q) bin, the % of queries whose list over-represents intrinsically male documents, neither or
    female ones; one system at a time from the menu."""
    import plotly.graph_objects as go

    fig = go.Figure()
    sides = [("male", MALE_COLOUR, "male favoured"), ("neither", NEUTRAL_COLOUR, "neither")]
    sides.append(("female", FEMALE_COLOUR, "female favoured"))
    names = list(shares)
    for i, name in enumerate(names):
        rows = shares[name]
        for side, colour, label in sides:
            fig.add_trace(
                go.Bar(
                    x=[plotly_text(row["label"]) for row in rows],
                    y=[100.0 * (row[side] or 0.0) for row in rows],
                    name=label,
                    marker_color=colour,
                    customdata=[[row["n"]] for row in rows],
                    hovertemplate="g(q) %{x}<br>%{y:.1f}% of %{customdata[0]} queries<extra>" + label + "</extra>",
                    visible=i == 0,
                    showlegend=True,
                )
            )
    fig.update_layout(barmode="stack")
    _menu(fig, names, [[j // len(sides) == i for j in range(len(names) * len(sides))] for i in range(len(names))])
    _layout(fig, "Fig. 12: which gender the top documents favour, by g(q)", "g(q) (female > 0)", "queries (%)")
    return fig


def tradeoff_chart(bias) -> object:
    """Effectiveness against each bias measure (and GSR), one point per system, re-ranked systems as triangles;
    the measure chosen from the menu."""
    import plotly.graph_objects as go

    fig = go.Figure()
    panels = list(bias.points)
    for i, panel in enumerate(panels):
        for reranked, symbol, colour, label in ((False, "circle", MALE_COLOUR, "system"),
                                                (True, "triangle-up", FEMALE_COLOUR, "re-ranked")):  # fmt: skip
            points = [(n, x, y) for n, x, y, up in bias.points[panel] if (up is not None) == reranked]
            fig.add_trace(
                go.Scatter(
                    x=[x for _, x, _ in points],
                    y=[y for _, _, y in points],
                    mode="markers",
                    name=label,
                    marker={"symbol": symbol, "color": colour, "size": 9},
                    customdata=[[plotly_text(n)] for n, _, _ in points],
                    hovertemplate="%{customdata[0]}<br>" + plotly_text(panel) + " = %{x:.4f}<br>%{y:.4f}"
                    "<extra></extra>",
                    visible=i == 0,
                )
            )
    visible = [[j // 2 == i for j in range(2 * len(panels))] for i in range(len(panels))]
    _menu(fig, panels, visible, [{"xaxis.title.text": plotly_text(panel)} for panel in panels])
    _layout(fig, "Effectiveness against each label-based bias measure", panels[0] if panels else "", bias.effectiveness)
    return fig


def probe_chart(probe) -> object:
    """The adversarial probe: per system, the change of the measure chosen from the menu when each word is
    appended to the probed queries."""
    import plotly.graph_objects as go

    panels = [c for c in probe.rows[0] if c.startswith("Δ") and c != "Δg(q)"] if probe.rows else []
    systems = list(dict.fromkeys(row["system"] for row in probe.rows))
    fig = go.Figure()
    for i, panel in enumerate(panels):
        for word in probe.words:
            values = {row["system"]: _value(row.get(panel)) for row in probe.rows if row["appended"] == word}
            fig.add_trace(
                go.Bar(
                    y=_texts(systems),
                    x=[values.get(s) for s in systems],
                    orientation="h",
                    name=f"+ {plotly_text(word)}",
                    hovertemplate=f"%{{y}}<br>{plotly_text(panel)} = %{{x:.4f}}<extra>+ {plotly_text(word)}</extra>",
                    visible=i == 0,
                )
            )
    per = len(probe.words)
    visible = [[j // per == i for j in range(per * len(panels))] for i in range(len(panels))]
    _menu(fig, panels, visible, [{"xaxis.title.text": plotly_text(panel)} for panel in panels])
    _layout(fig, "Adversarial probe: the change when a word is appended", panels[0] if panels else "", "")
    fig.update_layout(height=max(HEIGHT, 22 * len(systems) + 160), yaxis={"autorange": "reversed"})
    return fig


def _reach(share: float | None, interval, end: int) -> float | None:
    """How far the interval reaches from the share, up (end 1) or down (end 0); None without either."""
    if share is None or not interval or interval[end] is None:
        return None
    return abs(interval[end] - share)


def gender_versions_chart(versions) -> object:
    """Per query category (from the menu), each system's share of queries that rank the female version of a document
    above the male one, with its bootstrap interval; 0.5 is no preference."""
    import plotly.graph_objects as go

    systems = list(versions.comparisons)
    categories = list(next(iter(versions.comparisons.values()))) if systems else []
    fig = go.Figure()
    for i, category in enumerate(categories):
        entries = [versions.comparisons[s][category]["female>male"] for s in systems]
        shares = [e["share"] for e in entries]
        fig.add_trace(
            go.Scatter(
                x=shares,
                y=_texts(systems),
                mode="markers",
                name=plotly_text(category),
                marker={"color": FEMALE_COLOUR, "size": 8},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [_reach(s, e["share_ci"], 1) for e, s in zip(entries, shares)],
                    "arrayminus": [_reach(s, e["share_ci"], 0) for e, s in zip(entries, shares)],
                },
                hovertemplate="%{y}<br>share = %{x:.4f}<extra>" + plotly_text(category) + "</extra>",
                visible=i == 0,
            )
        )
    _menu(fig, categories, [[j == i for j in range(len(categories))] for i in range(len(categories))])
    _layout(fig, "Gendered versions: share of queries ranking the female version above the male one", "share", "")
    fig.add_vline(x=0.5, line_dash="dash", line_color="#999999")
    fig.update_layout(height=max(HEIGHT, 22 * len(systems) + 160), xaxis_range=[0, 1], yaxis={"autorange": "reversed"})
    return fig


# the forest plot's marker colour and legend entry per reading of a system's GSR (summary.READINGS): against the
# perfect engine where the systems were tested against it, else against 0
FOREST_STYLES = {
    "above": ("#c0392b", "reinforces: significantly above the perfect engine"),
    "below": ("#2c7fb8", "significantly below the perfect engine"),
    "level": ("#6b6b6b", "not significantly different from the perfect engine"),
    "follows": ("#c0392b", "interval above 0"),
    "against": ("#2c7fb8", "interval below 0"),
    "unclear": ("#6b6b6b", "interval contains 0"),
    "no interval": ("#6b6b6b", "no interval"),
}
FOREST_ROW = 20  # pixels per system: 31 systems take two thirds of a laptop's window


def forest_order(systems: list[dict]) -> list[dict]:
    """The systems of a forest plot, top to bottom: each regular system by its GSR, largest first, its debiased
    variants right below it (in the config's order); systems whose GSR is undefined left out."""
    defined = [s for s in systems if s["gsr"] is not None]
    order = []
    for s in sorted((s for s in defined if not s.get("regular")), key=lambda s: -s["gsr"]):
        order += [s] + [v for v in defined if v.get("regular") == s["system"]]
    placed = {s["system"] for s in order}
    return order + [s for s in defined if s["system"] not in placed]  # variants of a regular system left out


def forest_chart(facts: dict, label: str, level: float) -> object:
    """The summary's picture (summary.label_summary's facts under `label`): each system's GSR with its interval, one
    row per system (forest_order: sorted, debiased variants, as open diamonds, below their regular system), coloured
    by its reading against the perfect engine (or against 0 without one); 0 (grey), the perfect engine's GSR (dashed,
    its interval shaded) and the random engine's (dotted) as vertical lines. The GSR axis is on top, where a reader
    starts. Hover gives the numbers as the tables round them; customdata holds each point's system name for the
    page's click (its scatter)."""
    import plotly.graph_objects as go

    order = forest_order(facts["systems"])
    tested = any(s["perfect"] != "untested" for s in order)
    fig = go.Figure()
    for reading, (colour, legend) in FOREST_STYLES.items():
        chosen = [s for s in order if (s["perfect"] if tested else s["zero"]) == reading]
        for variants in (False, True):  # regular systems filled, variants open: one legend entry per reading
            points = [s for s in chosen if bool(s.get("regular")) == variants]
            if points:
                fig.add_trace(
                    _forest_trace(points, colour, legend, variants, shown=not variants or len(points) == len(chosen))
                )
    if any(s.get("regular") for s in order):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name="debiased variant (open)",
                marker={"symbol": "diamond-open", "color": "#6b6b6b", "size": 9, "line": {"width": 2}},
                hoverinfo="skip",
            )
        )
    fig.add_vline(x=0, line_color="#999999", line_width=1)
    perfect, random = facts.get("perfect") or {}, facts.get("random") or {}
    if perfect.get("ci"):
        fig.add_vrect(x0=perfect["ci"][0], x1=perfect["ci"][1], fillcolor="#000000", opacity=0.06, line_width=0)
    for name, engine, dash in (("perfect", perfect, "dash"), ("random", random, "dot")):
        if engine.get("gsr") is not None:
            fig.add_vline(
                x=engine["gsr"],
                line_dash=dash,
                line_color="#000000",
                line_width=1.5,
                annotation_text=f"{name} {format_number(engine['gsr'], sign=True)}",
                annotation_position="bottom",
                annotation_yanchor="top",
                annotation_font_size=11,
            )
    title = f"GSR under {label}, each system with its {round(level * 100)}% interval"
    height, top, bottom = max(280, FOREST_ROW * len(order) + 170), 85, 85
    rows = [plotly_text(s["system"]) for s in order]
    fig.update_layout(
        title={"text": plotly_text(title), "x": 0, "y": 0.99, "yanchor": "top", "font": {"size": 13}},
        xaxis={"side": "top", "title": {"text": "GSR (slope of g_q(L) on g(q), Eq. 3)", "standoff": 6}},
        yaxis={"type": "category", "categoryorder": "array", "categoryarray": rows, "autorange": "reversed"},
        height=height,
        template="plotly_white",
        margin={"l": 10, "r": 20, "t": top, "b": bottom},
        # below the engines' labels, wherever the plot's height puts them (paper coordinates: 1 = the plot's height)
        legend={"orientation": "h", "x": 0, "y": -30 / (height - top - bottom), "yanchor": "top", "font": {"size": 11}},
        showlegend=True,  # also for one reading: the colour says what it is
        hovermode="closest",
    )
    fig.update_yaxes(automargin=True)
    return fig


def _forest_trace(points: list[dict], colour: str, legend: str, variants: bool, shown: bool) -> object:
    """One reading's systems (regular ones, or debiased variants) as points with their intervals."""
    import plotly.graph_objects as go

    hover = []
    for s in points:
        lines = [plotly_text(s["system"]), f"GSR {format_number(s['gsr'], sign=True)} {format_interval(s['ci'])}"]
        if s.get("relative") is not None:
            lines.append(f"rel. GSR {format_number(s['relative'], 1, sign=True)} %")
        if s.get("p_adjusted") is not None:
            lines.append(f"against the perfect engine: adjusted p {format_p(s['p_adjusted'])}")
        hover.append("<br>".join(lines))
    return go.Scatter(
        x=[s["gsr"] for s in points],
        y=[plotly_text(s["system"]) for s in points],
        mode="markers",
        name=legend,
        legendgroup=legend,
        showlegend=shown,
        marker={
            "color": colour,
            "size": 9,
            "symbol": "diamond-open" if variants else "circle",
            "line": {"width": 2, "color": colour},
        },
        error_x={
            "type": "data",
            "symmetric": False,
            "array": [s["ci"][1] - s["gsr"] if s["ci"] else None for s in points],
            "arrayminus": [s["gsr"] - s["ci"][0] if s["ci"] else None for s in points],
            "color": colour,
            "thickness": 1.5,
            "width": 4,
        },
        text=hover,
        hovertemplate="%{text}<extra></extra>",
        customdata=[s["system"] for s in points],
    )


def _oriented(value: float, direction: str) -> float:
    return value if direction == "higher" else -value if direction == "lower" else abs(value)


def agreement_chart(report) -> object:
    """Measure agreement (gsr.fairness.agreement.AgreementReport): each system's rank under every measure, from 1
    (most biased) down, one line per system across the measures; crossing lines are the pairs the measures order
    oppositely; values within rounding share a rank, as τ counts them (dense ranks). Hover gives the measure's own
    value; a measure undefined for a system leaves a gap."""
    import plotly.graph_objects as go

    from gsr.fairness.agreement import near_tie_ranks

    measures = list(report.measures)
    ranks: dict[str, dict[str, int]] = {}
    for measure in measures:
        direction = report.more_biased.get(measure, "higher")
        defined = {s: _oriented(v, direction) for s, v in report.values.get(measure, {}).items() if v is not None}
        dense = near_tie_ranks([-o for o in defined.values()], report.settings.get("queries", 1))  # ties: τ's own
        ranks[measure] = {s: int(r) + 1 for s, r in zip(defined, dense)}
    fig = go.Figure()
    labels = _texts(measures)
    for system in report.systems:
        values = [report.values.get(m, {}).get(system) for m in measures]
        fig.add_trace(
            go.Scatter(
                x=labels,
                y=[ranks[m].get(system) for m in measures],
                mode="lines+markers",
                name=plotly_text(system),
                connectgaps=False,
                customdata=[[format_number(v, missing="undefined")] for v in values],
                hovertemplate=plotly_text(system) + "<br>%{x}: %{customdata[0]}<br>rank %{y}<extra></extra>",
            )
        )
    _layout(
        fig,
        "Each system's rank under every measure (1: the most biased)",
        "measure (FaiRR/NFaiRR: lower is more biased; RaB/ARaB/MB: farther from 0)",
        "rank, most biased first",
    )
    fig.update_layout(yaxis={"autorange": "reversed", "dtick": 1}, xaxis={"type": "category"})
    return fig
