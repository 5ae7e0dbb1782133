"""What report.html says first (docs/report.md, "Summary"): per measuring embedding, which systems reinforce stereotypes
(GSR > 0, its interval excluding 0), which reinforce most (largest GSR, largest relative GSR), which tests of the
report are significant after its correction (each system against the perfect engine; each debiased variant against
its regular system, Table 2), and what debiasing changed; each claim with the query to look at (a system's most
gendered list, largest |g_q(L)|; a pair's largest |Δ g_q(L)|) and the system to contrast it with. Also the query the
query view opens on, and the numbers of the analyses' tables as the page shows them.

The facts are computed here from the rows results.json holds (`results_rows`, `debias_gsr_rows`) and the scatter's
points; report.js only puts them into words."""

from __future__ import annotations

import math

SIGNIFICANCE = 0.05  # the † of the tables' marks: an adjusted p-value under it is significant
REFERENCES = ("perfect", "random")  # experiments.experiment_result.PERFECT, RANDOM: rows that are not systems
P_COLUMNS = ("p", "p_value", "p adjusted", "p_adjusted")  # an analysis table's p-value columns (and "... p")


def _finite(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _points(scatter: dict, system: str) -> dict[str, float]:
    point = scatter.get(system) or {}
    return {q: y for q, y in zip(point.get("q", []), point.get("y", [])) if y is not None}


def most_gendered(scatter: dict, system: str) -> str | None:
    """The query whose list `system` made most gendered: largest |g_q(L)| (the first such, in the scatter's order)."""
    points = _points(scatter, system)
    return max(points, key=lambda q: abs(points[q])) if points else None


def largest_change(scatter: dict, a: str, b: str) -> tuple[str | None, float | None]:
    """(the query of largest |Δ g_q(L)| between systems a and b, that |Δ|)."""
    pa, pb = _points(scatter, a), _points(scatter, b)
    common = [q for q in pa if q in pb]
    if not common:
        return None, None
    query = max(common, key=lambda q: abs(pa[q] - pb[q]))
    return query, round(abs(pa[query] - pb[query]), 4)


def _significant(p) -> bool:
    return p is not None and p < SIGNIFICANCE


def _partner(system: str, gsr: dict, variants: dict[str, dict[str, str]]) -> str | None:
    """The system a claim about `system` is contrasted with: its first debiased variant, its regular system, or else
    the system of smallest |GSR|."""
    for regular, named in variants.items():
        others = [name for variant, name in named.items() if variant != "regular"]
        if system == regular and others:
            return others[0]
        if system in others:
            return regular
    rest = [s for s in gsr if s != system and gsr[s] is not None]
    return min(rest, key=lambda s: abs(gsr[s])) if rest else None


def label_summary(
    rows: list[dict],
    label: str,
    scatter: dict,
    variants: dict[str, dict[str, str]] | None = None,
    table2: list[dict] | None = None,
    pairs: list[dict] | None = None,
) -> dict:
    """The summary's facts under the measuring embedding `label`. `rows`: results_rows (results.json "rows"; a row's
    "gsr"[label] holds gsr, ci, relative, relative_ci and, for a tested system, p_adjusted); `scatter`: the page's
    points under `label`; `variants`: regular system -> {variant: system}, "regular" included; `table2`:
    debias_gsr_rows (results.json "table2"), whose "GSR (label) VARIANT p adjusted" test a variant against its
    regular system; `pairs`: tests of one system's GSR against another's ({"a", "b", "difference", "p_adjusted"})."""
    variants = variants or {}
    entries = {row["system"]: row["gsr"].get(label) for row in rows if row["system"] not in REFERENCES}
    entries = {name: entry for name, entry in entries.items() if entry is not None}
    gsr = {name: _finite(entry.get("gsr")) for name, entry in entries.items()}
    systems = []
    for name, entry in entries.items():
        ci = entry.get("ci") or None
        partner = _partner(name, gsr, variants)
        query = most_gendered(scatter, name)
        systems.append(
            {
                "system": name,
                "gsr": gsr[name],
                "ci": ci if ci and None not in ci else None,
                "relative": _finite(entry.get("relative")),
                "relative_ci": entry.get("relative_ci"),
                "p_adjusted": entry.get("p_adjusted"),
                "significant": _significant(entry.get("p_adjusted")),
                "query": query,
                "g_list": _points(scatter, name).get(query) if query else None,
                "partner": partner,
            }
        )
    perfect = next((row["gsr"].get(label) for row in rows if row["system"] == REFERENCES[0]), None) or {}

    def largest(key: str) -> list[str]:
        values = [s[key] for s in systems if s[key] is not None]
        return [s["system"] for s in systems if values and s[key] == max(values)]

    return {
        "label": label,
        "systems": systems,
        "perfect": {"gsr": _finite(perfect.get("gsr")), "ci": perfect.get("ci")},
        "reinforcing": [s["system"] for s in systems if s["gsr"] is not None and s["ci"] and s["ci"][0] > 0],
        "countering": [s["system"] for s in systems if s["gsr"] is not None and s["ci"] and s["ci"][1] < 0],
        "most": {"gsr": largest("gsr"), "relative": largest("relative")},
        "tested": sum(1 for s in systems if s["p_adjusted"] is not None),
        "debias": debias_changes(label, scatter, variants, table2 or []),
        "pairs": [_pair(scatter, test) for test in pairs or [] if test.get("p_adjusted") is not None],
    }


def _pair(scatter: dict, test: dict) -> dict:
    """A test of two systems' GSRs, with the query of largest |Δ g_q(L)| between them."""
    query, delta = largest_change(scatter, test["a"], test["b"])
    entry = {key: test.get(key) for key in ("a", "b", "difference", "p_adjusted")}
    return {**entry, "significant": _significant(test["p_adjusted"]), "query": query, "delta": delta}


def debias_changes(label: str, scatter: dict, variants: dict[str, dict[str, str]], table2: list[dict]) -> list[dict]:
    """Per regular system and debiased variant (Table 2's rows): GSR before and after, the change, the adjusted p
    of the variant's test against the regular system, and the query of largest |Δ g_q(L)| between the two."""
    changes = []
    for row in table2:
        regular = str(row.get("system"))
        for variant, name in (variants.get(regular) or {}).items():
            before, after = _finite(row.get(f"GSR ({label}) regular")), _finite(row.get(f"GSR ({label}) {variant}"))
            if variant == "regular" or before is None or after is None:
                continue
            p = row.get(f"GSR ({label}) {variant} p adjusted")
            query, delta = largest_change(scatter, regular, name)
            changes.append(
                {
                    "system": regular,
                    "variant": variant,
                    "name": name,
                    "before": before,
                    "after": after,
                    "change": (after - before) / abs(before) * 100 if before else None,
                    "p_adjusted": p,
                    "significant": _significant(p),
                    "query": query,
                    "delta": delta,
                }
            )
    return changes


def start_query(scatter: dict, systems: list[str], judged: set[str] | None = None) -> dict:
    """The query the query view opens on: of the queries with judged relevant documents (`judged`; every measured
    query where None), the one whose g_q(L) differs most between two systems, with those two (the higher first);
    with one system, its most gendered query."""
    values: dict[str, dict[str, float]] = {}
    for system in systems:
        for q, y in _points(scatter, system).items():
            if judged is None or q in judged:
                values.setdefault(q, {})[system] = y
    if not values:
        return {"query": None, "systems": systems[:2], "delta": None}

    def width(q: str) -> float:
        ys = values[q].values()
        return max(ys) - min(ys) if len(values[q]) > 1 else abs(next(iter(ys)))

    query = max(values, key=width)
    at = values[query]
    pair = [max(at, key=at.__getitem__), min(at, key=at.__getitem__)] if len(at) > 1 else list(at)
    return {"query": query, "systems": pair, "delta": round(width(query), 4)}


def cell_text(column: str, value) -> str:
    """A number of an analysis table as the page shows it: p-values as 0.003 or < 0.001, whole numbers as such,
    others with 4 decimals (never 3.406e-07); text as it is; — where missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    name = column.strip().lower()
    if name in P_COLUMNS or name.endswith((" p", " p adjusted", " p_value", " p-value")):
        return "< 0.001" if value < 0.001 else f"{value:.3f}"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


def _judged(qrels: dict | None) -> set[str] | None:
    return None if qrels is None else {q for q, grades in qrels.items() if any(g > 0 for g in grades.values())}


def experiment_summary(result, rows: list[dict], scatter: dict, written: dict) -> dict:
    """The summary of a `gsr run` page: facts per measuring embedding (`rows`: results_rows; Table 2's rows read
    back from the table2_gsr_debiasing.json written beside), and the query the query view opens on."""
    import json
    from pathlib import Path

    from gsr.effectiveness.evaluate import CORRECTED

    config = result.config
    variants = {
        s.name: {variant: spec.name for variant, spec in config.variants_of(s.name).items()}
        for s in config.systems
        if s.variant == "regular"
    }
    table2 = written.get("table2_gsr_debiasing.json")
    table2_rows = json.loads(Path(table2).read_text(encoding="utf-8")) if table2 else []
    systems = [s.name for s in config.systems]
    return {
        "level": config.level,
        "correction": CORRECTED.get(config.correction, config.correction),
        "labels": {
            label: label_summary(rows, label, points, variants, table2_rows) for label, points in scatter.items()
        },
        "start": start_query(next(iter(scatter.values()), {}), systems, _judged(result.collection.qrels)),
    }


def scored_summary(
    names: list[str], reports: list, label: str, scatter: dict, qrels: dict | None, tests: dict | None = None
) -> dict:
    """The summary of a `gsr score --html` page: each run's GSR, interval and relative GSR, and the query the query
    view opens on. `tests`, where given, are `gsr score`'s corrected tests (gsr.cli.score.compare after
    correct_all): {"against_perfect": [per run: {"p_adjusted", ...} or None], "pairs": [{"a", "b", "difference",
    "p_adjusted"}], "correction": its name}."""
    tests = tests or {}
    against = tests.get("against_perfect") or [None] * len(names)
    rows = []
    for name, report, test in zip(names, reports, against):
        measured, tested = report.system, report.perfect is not None
        interval = report.relative_ci_of(measured) if tested else None
        entry = {"gsr": measured.gsr, "ci": measured.ci.to_list() if measured.ci else None}
        entry.update(relative=report.relative_of(measured), relative_ci=interval.to_list() if interval else None)
        entry["p_adjusted"] = (test or {}).get("p_adjusted")
        rows.append({"system": name, "gsr": {label: entry}})
    perfect = reports[0].perfect if reports else None
    if perfect is not None:
        rows.append(
            {"system": "perfect", "gsr": {label: {"gsr": perfect.gsr, "ci": perfect.ci and perfect.ci.to_list()}}}
        )
    level = reports[0].system.ci.level if reports and reports[0].system.ci is not None else None
    return {
        "level": level,
        "correction": tests.get("correction"),
        "labels": {label: label_summary(rows, label, scatter, pairs=tests.get("pairs"))},
        "start": start_query(scatter, names, _judged(qrels)),
    }
