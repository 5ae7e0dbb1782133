"""What report.html says first (docs/report.md, "Summary"): per measuring embedding, a forest plot of every system's
GSR with its interval (plotly_charts.forest_chart), then sentences that read each GSR as the paper does (§3.5): against
the perfect engine, whose GSR is what the judged relevant documents carry, and against 0. Each claim comes with the
query to look at (a system's most gendered list, largest |g_q(L)|; a pair's largest |Δ g_q(L)|) and the system to
contrast it with. Also the query the query view opens on, and the numbers of the analyses' tables as the page shows
them.

The facts are computed from the rows results.json holds (`results_rows`, `debias_gsr_rows`) and the scatter's points
(`label_summary`); the sentences and the chart are made from the facts when the page is written (`rendered`), so what
the page says is exactly what the facts hold; report.js only lays them out.

How a system's GSR is read, in one place (READINGS; docs/report.md, "How the summary reads GSR"):
- against the perfect engine (a test of the two GSRs over the same queries, adjusted): significantly above it, the
  system *reinforces* stereotypes in the paper's sense (its lists follow the queries' gender more than the judged
  relevant documents do: "upward deviation of GSR from this baseline ... is regarded as the SE's contribution towards
  reinforcement", §3.5); significantly below, its lists follow the queries' gender less than the relevant documents
  do (the paper: it "can be said to counter gender stereotypes, even if it displays positive GSR"); otherwise as
  much as they do, within what the test can tell;
- against 0 (its interval): above 0, the lists follow the queries' gender; below 0, they go against it; an interval
  containing 0 shows neither. Without a perfect engine (no relevance judgments) only this reading exists, and it is
  not called reinforcement: relevance alone makes GSR positive (§3.5);
- GSR undefined (no spread of g(q), too few queries...): said, with its reason, and never ranked or drawn."""

from __future__ import annotations

import math
from typing import Any

from gsr.infra.numeric import format_interval, format_number, format_p

SIGNIFICANCE = 0.05  # the † of the tables' marks: an adjusted p-value under it is significant
REFERENCES = ("perfect", "random")  # experiments.experiment_result.PERFECT, RANDOM: rows that are not systems
P_COLUMNS = ("p", "p_value", "p adjusted", "p_adjusted")  # an analysis table's p-value columns (and "... p")

# the two readings of a defined GSR (module docstring): against the perfect engine, and against 0
ABOVE, BELOW, LEVEL, UNTESTED = "above", "below", "level", "untested"
FOLLOWS, AGAINST, UNCLEAR, NO_INTERVAL = "follows", "against", "unclear", "no interval"
# each reading as the summary words it, for one system or several ({who}: the subject, "Both systems", "it"; {have},
# {their}, {they}, {do}, {are} agreeing with it; {test}: the test and its correction, summary.adjusted; {conf}: the
# interval); the sentences of label_sentences say these and nothing else about a system's GSR
READINGS = {
    ABOVE: "{who} {have} a GSR significantly above the perfect engine's ({test}), so {their} lists follow the "
    "queries' gender more than the judged relevant documents do (§3.5)",
    BELOW: "{who} {have} a GSR significantly below the perfect engine's ({test}): {their} lists follow the queries' "
    "gender less than the judged relevant documents do, so {they} {do} not reinforce stereotypes beyond what "
    "relevance brings (§3.5)",
    LEVEL: "{who} {have} a GSR not significantly different from the perfect engine's ({test}): {their} lists follow "
    "the queries' gender about as much as the judged relevant documents do",
    UNTESTED: "{who} could not be tested against the perfect engine ({their} test is undefined), so {they} {are} "
    "read against 0 only",
    FOLLOWS: "{who} {have} a GSR whose {conf} lies above 0: {their} lists follow the queries' gender",
    AGAINST: "{who} {have} a GSR whose {conf} lies below 0: {their} lists go against the queries' gender",
    UNCLEAR: "{who} {have} a GSR whose {conf} contains 0: no tendency of {their} lists to follow or go against the "
    "queries' gender is shown",
    NO_INTERVAL: "{who} {have} a GSR without an interval or a test (no resamples), so {they} {are} read against "
    "neither 0 nor the perfect engine",
}
AGAINST_ZERO = {  # the readings against 0 in one sentence, where each system was listed against the perfect engine
    FOLLOWS: "lies above 0 for {who} (the lists follow the queries' gender)",
    UNCLEAR: "contains 0 for {who} (no tendency either way is shown)",
    AGAINST: "lies below 0 for {who} (the lists go against the queries' gender)",
}
NOT_JUDGED = (
    "Without relevance judgments this is not read as reinforcing stereotypes: relevant documents alone give GSR > 0 "
    "(§3.5); give --qrels to read each system against the perfect engine"
)
PRONOUNS = {  # READINGS' words for one system, and for several
    1: {"they": "it", "have": "has", "their": "its", "do": "does", "are": "is"},
    2: {"they": "they", "have": "have", "their": "their", "do": "do", "are": "are"},
}


def reading(case: str, n: int, who: str | None = None, **words) -> str:
    """READINGS[case] said of `n` systems, `who` (default: they, or it) its subject, its pronouns and verbs agreeing,
    with `words` ({test}, {conf}) put in."""
    pronouns = PRONOUNS[1 if n == 1 else 2]
    return READINGS[case].format(**pronouns, who=who or pronouns["they"], **words)


ADJUSTED = {"holm": "Holm-adjusted", "bonferroni": "Bonferroni-adjusted", "none": "unadjusted"}


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


def _interval(ci) -> list[float] | None:
    return [float(ci[0]), float(ci[1])] if ci and _finite(ci[0]) is not None and _finite(ci[1]) is not None else None


def versus_perfect(gsr: float | None, perfect: float | None, p_adjusted) -> str:
    """The reading of a GSR against the perfect engine's: ABOVE or BELOW where their test is significant (adjusted
    p < SIGNIFICANCE), LEVEL where it is not, UNTESTED without a test (no judgments, no resamples, undefined)."""
    if gsr is None or perfect is None or p_adjusted is None:
        return UNTESTED
    if not _significant(p_adjusted):
        return LEVEL
    return ABOVE if gsr > perfect else BELOW


def versus_zero(gsr: float | None, ci) -> str:
    """The reading of a GSR against 0 by its interval: FOLLOWS (above 0), AGAINST (below 0), UNCLEAR (containing 0),
    NO_INTERVAL."""
    ci = _interval(ci)
    if gsr is None or ci is None:
        return NO_INTERVAL
    return FOLLOWS if ci[0] > 0 else AGAINST if ci[1] < 0 else UNCLEAR


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


def _regular_of(system: str, variants: dict[str, dict[str, str]]) -> str | None:
    return next((r for r, named in variants.items() if system != r and system in named.values()), None)


def _engine(rows: list[dict], name: str, label: str) -> dict:
    entry = next((row["gsr"].get(label) for row in rows if row["system"] == name), None) or {}
    return {"gsr": _finite(entry.get("gsr")), "ci": _interval(entry.get("ci")), "error": entry.get("error")}


def label_summary(
    rows: list[dict],
    label: str,
    scatter: dict,
    variants: dict[str, dict[str, str]] | None = None,
    table2: list[dict] | None = None,
    pairs: list[dict] | None = None,
) -> dict:
    """The summary's facts under the measuring embedding `label`. `rows`: results_rows (results.json "rows"; a row's
    "gsr"[label] holds gsr, ci, relative, relative_ci, error (why GSR is undefined) and, for a tested system,
    p_adjusted); `scatter`: the page's points under `label`; `variants`: regular system -> {variant: system},
    "regular" included; `table2`: debias_gsr_rows (results.json "table2"), whose "GSR (label) VARIANT p adjusted" test
    a variant against its regular system; `pairs`: tests of one system's GSR against another's ({"a", "b",
    "difference", "p_adjusted"})."""
    variants = variants or {}
    entries = {row["system"]: row["gsr"].get(label) for row in rows if row["system"] not in REFERENCES}
    entries = {name: entry for name, entry in entries.items() if entry is not None}
    gsr = {name: _finite(entry.get("gsr")) for name, entry in entries.items()}
    perfect, random = _engine(rows, REFERENCES[0], label), _engine(rows, REFERENCES[1], label)
    systems = []
    for name, entry in entries.items():
        partner = _partner(name, gsr, variants)
        query = most_gendered(scatter, name)
        p = entry.get("p_adjusted")
        systems.append(
            {
                "system": name,
                "gsr": gsr[name],
                "ci": _interval(entry.get("ci")),
                "relative": _finite(entry.get("relative")),
                "relative_ci": entry.get("relative_ci"),
                "p_adjusted": p,
                "significant": _significant(p),
                "perfect": versus_perfect(gsr[name], perfect["gsr"], p),
                "zero": versus_zero(gsr[name], entry.get("ci")),
                "undefined": None if gsr[name] is not None else (entry.get("error") or "GSR could not be computed"),
                "regular": _regular_of(name, variants),
                "query": query,
                "g_list": _points(scatter, name).get(query) if query else None,
                "partner": partner,
            }
        )
    defined = [s for s in systems if s["gsr"] is not None]

    def largest(key: str) -> list[str]:
        values = [s[key] for s in defined if s[key] is not None]
        return [s["system"] for s in defined if values and s[key] == max(values)]

    def named(key: str, reading: str) -> list[str]:
        return [s["system"] for s in defined if s[key] == reading]

    relative_errors = {e.get("relative_error") for e in entries.values() if e.get("relative_error")}
    return {
        "label": label,
        "systems": systems,
        "perfect": perfect,
        "random": random,
        "reinforcing": named("perfect", ABOVE),
        "below": named("perfect", BELOW),
        "level": named("perfect", LEVEL),
        "untested": named("perfect", UNTESTED),
        "follows": named("zero", FOLLOWS),
        "against": named("zero", AGAINST),
        "unclear": named("zero", UNCLEAR),
        "no interval": named("zero", NO_INTERVAL),
        "undefined": [{"system": s["system"], "reason": s["undefined"]} for s in systems if s["gsr"] is None],
        "relative_undefined": sorted(relative_errors),
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
    """A number of an analysis table as the page shows it: p-values as 0.003 or < 0.001 (format_p), whole numbers as
    such, others with 4 decimals (never 3.406e-07); text as it is; — where missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    name = column.strip().lower()
    if name in P_COLUMNS or name.endswith((" p", " p adjusted", " p_value", " p-value")):
        return format_p(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format_number(value)


def _judged(qrels: dict | None) -> set[str] | None:
    return None if qrels is None else {q for q, grades in qrels.items() if any(g > 0 for g in grades.values())}


def correction_family(method: str, p_values, scope: str) -> dict:
    """How a group of tests was adjusted: the method (holm, bonferroni, none), how many tests the family held (its
    p-values that are not None) and what that family is ("this table", "Table 2", ...)."""
    return {"method": method, "tests": sum(1 for p in p_values if p is not None), "scope": scope}


def scored_correction(method: str, family: str, against_perfect: list, pairs: list[dict], measures: dict | None):
    """The family `gsr score` adjusted its GSR tests in (gsr.cli.score.correct_all): with --correction-family
    measure, GSR's tests (each run against the perfect engine, every pair of runs); with all, every test of the call,
    the measures' included."""
    gsr_p_values = [t.get("p_value") for t in against_perfect if t] + [t.get("p_value") for t in pairs]
    if family == "all":
        every = gsr_p_values + [e.get("p_value") for per in (measures or {}).values() for e in per.values()]
        return correction_family(method, every, "this page, GSR's and every measure's")
    return correction_family(method, gsr_p_values, "GSR, each run against the perfect engine and every pair of runs")


def _table_p_values(rows: list[dict]) -> list:
    """Every p-value of the results table (results_rows): the one family its correction adjusts."""
    return [v.get("p_value") for row in rows for group in ("measures", "gsr") for v in row[group].values()]


def _table2_p_values(rows: list[dict]) -> list:
    return [value for row in rows for key, value in row.items() if key.endswith(" p")]


def experiment_summary(result, rows: list[dict], scatter: dict, written: dict) -> dict:
    """The summary of a `gsr run` page: facts per measuring embedding (`rows`: results_rows; Table 2's rows read
    back from the table2_gsr_debiasing.json written beside), the corrections their tests went through (the results
    table's tests one family, Table 2's another), and the query the query view opens on."""
    import json
    from pathlib import Path

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
        "correction": correction_family(config.correction, _table_p_values(rows), "this table"),
        "debias_correction": correction_family(config.correction, _table2_p_values(table2_rows), "Table 2"),
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
    "p_adjusted"}], "correction": {"method", "tests", "scope"} (correction_family)}."""
    tests = tests or {}
    against = tests.get("against_perfect") or [None] * len(names)
    rows = []
    for name, report, test in zip(names, reports, against):
        measured, tested = report.system, report.perfect is not None
        interval = report.relative_ci_of(measured) if tested else None
        entry = {"gsr": measured.gsr, "ci": measured.ci.to_list() if measured.ci else None, "error": measured.error}
        relative = report.relative_of(measured)
        entry.update(relative=relative, relative_ci=interval.to_list() if interval else None)
        if tested and relative is None and measured.gsr is not None:
            entry["relative_error"] = report.relative_undefined_because
        entry["p_adjusted"] = (test or {}).get("p_adjusted")
        rows.append({"system": name, "gsr": {label: entry}})
    first = reports[0] if reports else None
    for engine in REFERENCES:
        measured = getattr(first, engine, None)
        if measured is not None:
            rows.append(
                {
                    "system": engine,
                    "gsr": {
                        label: {
                            "gsr": measured.gsr,
                            "ci": measured.ci and measured.ci.to_list(),
                            "error": measured.error,
                        }
                    },
                }
            )
    level = first.system.ci.level if first is not None and first.system.ci is not None else None
    return {
        "level": level,
        "correction": tests.get("correction"),
        "labels": {label: label_summary(rows, label, scatter, pairs=tests.get("pairs"))},
        "start": start_query(scatter, names, _judged(qrels)),
    }


# ----------------------------------------------------------------------------------------------- the sentences
# A claim is {"claim": its name, "parts": [...], "items": [{"data": {attribute: value}, "parts": [...]}]}; a part is
# text, {"strong": text}, {"number": text} or {"links": {"systems": [...], "a", "b", "query"}} (the scatter of the
# systems; the contrast view of a and b on the query). report.js lays them out as text nodes and buttons.


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """'1 pair', '2 pairs' ('1 system', '3 systems')."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def share(n: int, total: int) -> str:
    """How many of the systems a claim is about: 'The one system', 'Both systems', 'All 5 systems', '2 of 5
    systems', 'No system'."""
    if n == 0:
        return "No system"
    if n == total:
        return {1: "The one system", 2: "Both systems"}.get(total, f"All {total} systems")
    return f"{n} of {plural(total, 'system')}"


def verb(n: int, singular: str, many: str) -> str:
    return singular if n == 1 else many


def names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return " and ".join(items) if len(items) <= 2 else f"{', '.join(items[:-1])} and {items[-1]}"


def adjusted(correction: dict | None, relation: str = "<") -> str:
    """The test behind a claim and how its p-values were adjusted: 'Holm-adjusted p < 0.05 over the 152 tests of
    this table' (`relation` "≥" for a claim of no significant difference)."""
    if not correction:
        return f"p {relation} {SIGNIFICANCE}"
    method = ADJUSTED.get(correction["method"], f"{correction['method']}-adjusted")
    tests, scope = correction["tests"], correction["scope"]
    if correction["method"] == "none":
        return f"p {relation} {SIGNIFICANCE}, unadjusted over the {plural(tests, 'test')} of {scope}"
    return f"{method} p {relation} {SIGNIFICANCE} over the {plural(tests, 'test')} of {scope}"


def _gsr_text(entry: dict, perfect: bool = False) -> str:
    text = f"GSR {format_number(entry['gsr'], sign=True)}"
    bounds = format_interval(entry.get("ci"))
    if bounds:
        text += f" {bounds}"
    if entry.get("relative") is not None:
        text += f", rel. GSR {format_number(entry['relative'], 1, sign=True)} %"
    if perfect and entry.get("p_adjusted") is not None:
        text += f", adjusted p {format_p(entry['p_adjusted'])}"
    return text


def _links(systems: list[str], a: str | None, b: str | None, query: str | None) -> dict:
    return {"links": {"systems": systems, "a": a, "b": b, "query": query}}


def _system_item(entry: dict, perfect: bool = False) -> dict:
    return {
        "data": {"system": entry["system"], "gsr": entry["gsr"]},
        "parts": [
            entry["system"],
            {"number": f": {_gsr_text(entry, perfect)}"},
            _links([entry["system"]], entry["system"], entry["partner"], entry["query"]),
        ],
    }


def _claim(name: str, parts: list, items: list | None = None) -> dict:
    return {"claim": name, "parts": parts, "items": items or []}


def label_sentences(facts: dict, level: float, correction: dict | None, debias_correction: dict | None = None) -> list:
    """The summary's claims under one measuring embedding, from its facts (label_summary): the engines, then each
    system read against the perfect engine (READINGS: above, below, level; each system listed once), or against 0
    where there is no perfect engine to read it against, the readings against 0, the undefined GSRs, the largest GSR,
    the tests of pairs and what debiasing changed."""
    by = {s["system"]: s for s in facts["systems"]}
    defined = [s for s in facts["systems"] if s["gsr"] is not None]
    total = len(defined)
    conf = f"{round(level * 100)}% interval"
    perfect, random = facts["perfect"], facts.get("random") or {}
    out = []
    tested = [s for s in defined if s["perfect"] != UNTESTED]
    if perfect["gsr"] is not None:
        engines = "The perfect engine (each query's judged relevant documents, by grade) has GSR "
        engines += format_number(perfect["gsr"], sign=True)
        engines += f" {format_interval(perfect['ci'])}" if perfect["ci"] else ""
        if random.get("gsr") is not None:
            engines += f"; the random engine {format_number(random['gsr'], sign=True)}"
            engines += f" {format_interval(random['ci'])}" if random.get("ci") else ""
        engines += (
            ". The perfect engine's GSR is the baseline (§3.5): how much the judged relevant documents themselves "
            "follow the queries' gender; a system adds to stereotypes only where its GSR lies above it."
        )
        out.append(_claim("engines", [engines]))
    elif perfect.get("error"):
        why = f"The perfect engine's GSR is undefined ({perfect['error']}): systems are read against 0 only."
        out.append(_claim("engines", [why]))
    if tested:
        out += _perfect_claims(facts, by, total, correction)
    out += _zero_claims(facts, by, total, conf, listed=not tested, judged=perfect["gsr"] is not None)
    for entry in facts["undefined"]:
        out.append(
            _claim(
                "undefined",
                [
                    f"GSR is undefined for {entry['system']}: {entry['reason']}. It is left out of the chart and of "
                    "every reading and ranking here."
                ],
            )
        )
    for why in facts.get("relative_undefined") or []:
        out.append(_claim("relative-undefined", [f"Relative GSR is undefined: {why}."]))
    out += _largest_claims(facts, by)
    out += _pair_claims(facts, correction)
    out += _debias_claims(facts, debias_correction or correction)
    return out


def _perfect_claims(facts: dict, by: dict, total: int, correction: dict | None) -> list:
    """Each system read against the perfect engine, in groups (reinforcing: above; below; level; untested, where its
    test was undefined), each system listed in one of them."""
    above, below, level = (facts[key] for key in ("reinforcing", "below", "level"))
    significant, not_significant = adjusted(correction), adjusted(correction, "≥")
    if above:
        head = f"{share(len(above), total)} {verb(len(above), 'reinforces', 'reinforce')} stereotypes in the paper's "
        out = [
            _claim(
                "reinforcing",
                [head + f"sense: {reading(ABOVE, len(above), test=significant)}:"],
                [_system_item(by[n], perfect=True) for n in above],
            )
        ]
    else:
        none = (
            "No system reinforces stereotypes in the paper's sense: none has a GSR significantly above the perfect "
            f"engine's ({significant})."
        )
        out = [_claim("reinforcing", [none])]
    untested = facts.get("untested") or []  # beside tested systems: their test was undefined
    for case, found, test in ((BELOW, below, significant), (LEVEL, level, not_significant), (UNTESTED, untested, "")):
        if found:
            head = f"{reading(case, len(found), share(len(found), total), test=test)}:"
            out.append(_claim(case, [head], [_system_item(by[n], perfect=True) for n in found]))
    return out


def _zero_claims(facts: dict, by: dict, total: int, conf: str, listed: bool, judged: bool) -> list:
    """The systems read against 0. Where they were listed against the perfect engine, one sentence of the cases
    (a case of few systems names them); otherwise the systems of each case, listed, and without a perfect engine the
    reminder that GSR > 0 alone is not reinforcement."""
    cases: list[tuple[str, list[str]]] = [
        (key, facts.get(key) or []) for key in (FOLLOWS, UNCLEAR, AGAINST, NO_INTERVAL) if facts.get(key)
    ]
    if not cases:
        return []
    if not listed:
        cases = [(key, found) for key, found in cases if key != NO_INTERVAL]  # tested, so with intervals
        who = [names(found) if len(found) <= 3 and len(found) < total else share(len(found), total).lower()
               for _, found in cases]  # fmt: skip
        said = [AGAINST_ZERO[key].format(who=w) for (key, _), w in zip(cases, who)]
        return [_claim("zero", [f"Against 0, the {conf} of GSR {names(said)}."])]
    out = []
    for key, found in cases:
        head = reading(key, len(found), share(len(found), total), conf=conf)
        if key == FOLLOWS and not judged:
            head += f". {NOT_JUDGED}"
        out.append(_claim(key, [head + ":"], [_system_item(by[n]) for n in found]))
    return out


def _largest_claims(facts: dict, by: dict) -> list:
    most = [by[n] for n in facts["most"]["gsr"]]
    relative = [by[n] for n in facts["most"]["relative"]]
    if not most:
        return []
    same = facts["most"]["gsr"] == facts["most"]["relative"]
    perfect = facts["perfect"]["gsr"]
    numbers = _gsr_text(most[0]) + (f"; the perfect engine's: {format_number(perfect, sign=True)}" if perfect else "")
    out = [_largest("most", "Largest GSR and relative GSR" if same else "Largest GSR", most, numbers)]
    if not same and relative:
        numbers = f"rel. GSR {format_number(relative[0]['relative'], 1, sign=True)} %"
        out.append(_largest("most-relative", "Largest relative GSR", relative, numbers))
    return out


def _largest(name: str, head: str, entries: list[dict], numbers: str) -> dict:
    """'Largest GSR: a (links), b (links) — numbers.'"""
    parts: list = [f"{head}: "]
    for i, s in enumerate(entries):
        parts += ([", "] if i else []) + [{"strong": s["system"]}, _links([s["system"]], s["system"], s["partner"],
                                                                            s["query"])]  # fmt: skip
    return _claim(name, parts + [{"number": f" — {numbers}."}])


def _pair_claims(facts: dict, correction: dict | None) -> list:
    pairs = facts.get("pairs") or []
    if not pairs:
        return []
    differ = [t for t in pairs if t["significant"]]
    tests = adjusted(correction)
    if differ:
        head = (
            f"{len(differ)} of the {plural(len(pairs), 'pair')} of systems tested "
            f"{verb(len(differ), 'differs', 'differ')} significantly in GSR ({tests}):"
        )
        items = [
            {
                "data": {"a": t["a"], "b": t["b"]},
                "parts": [
                    f"{t['a']} − {t['b']}",
                    {
                        "number": f": GSR difference {format_number(t['difference'], sign=True)}, adjusted p "
                        f"{format_p(t['p_adjusted'])}"
                    },  # fmt: skip
                    _links([t["a"], t["b"]], t["a"], t["b"], t["query"]),
                ],
            }
            for t in differ
        ]
        return [_claim("pairs", [head], items)]
    least = min(pairs, key=lambda t: t["p_adjusted"])
    no = "The two systems do not" if len(pairs) == 1 else "No two systems"
    return [
        _claim(
            "pairs",
            [
                f"{no} differ significantly in GSR ({tests}; {plural(len(pairs), 'pair')} tested, smallest adjusted "
                f"p {format_p(least['p_adjusted'])}: {least['a']} and {least['b']})."
            ],
        )
    ]


def _debias_claims(facts: dict, correction: dict | None) -> list:
    debias = facts.get("debias") or []
    if not debias:
        return []
    lower = [d for d in debias if d["after"] < d["before"]]
    changed = [d for d in debias if d["significant"]]
    significant = (
        f"{len(changed)} of the changes {verb(len(changed), 'is', 'are')}" if changed else "no change is"
    ) + " significant"
    head = (
        f"Debiasing lowered GSR in {len(lower)} of {plural(len(debias), 'case')}; {significant} (each variant against "
        f"its regular system: randomisation test, {adjusted(correction)}):"
    )
    items = []
    for d in debias:
        change = f" ({format_number(d['change'], 1, sign=True)} %)" if d["change"] is not None else ""
        verdict = "significant" if d["significant"] else "not significant"
        items.append(
            {
                "data": {"variant": d["name"]},
                "parts": [
                    f"{d['system']} → {d['name']}",
                    {
                        "number": f": GSR {format_number(d['before'], sign=True)} → "
                        f"{format_number(d['after'], sign=True)}{change}, adjusted p "
                        f"{format_p(d['p_adjusted'])}, {verdict}"
                    },  # fmt: skip
                    _links([d["system"], d["name"]], d["system"], d["name"], d["query"]),
                ],
            }
        )
    return [_claim("debias", [head], items)]


def rendered(summary: dict) -> dict:
    """`summary` (experiment_summary or scored_summary) with what the page shows of it: per measuring embedding its
    claims (label_sentences) and its forest plot (plotly_charts.forest_chart, as JSON). Made when the page is
    written, from the facts as they are then."""
    import json

    from experiments.report.plotly_charts import forest_chart

    if not summary.get("labels"):
        return summary
    level = summary.get("level") or 0.95
    labels = {}
    for label, facts in summary["labels"].items():
        claims = label_sentences(facts, level, summary.get("correction"), summary.get("debias_correction"))
        figure: Any = forest_chart(facts, label, level)  # a plotly Figure (plotly is imported where it is drawn)
        labels[label] = {**facts, "claims": claims, "chart": json.loads(figure.to_json())}
    return {**summary, "labels": labels}


def agreement_sentence(agreement: dict | None) -> dict | None:
    """The summary's one sentence on measure agreement (`agreement`: an AgreementReport's to_dict(), of the
    measure_agreement analysis or `gsr score --agreement`), as a claim; None when no two measures order the systems
    more often oppositely than alike (every defined τ ≥ 0), or without an agreement analysis."""
    if not agreement:
        return None
    taus = [t for t in agreement["taus"] if isinstance(t["tau"], (int, float))]
    opposite = sorted((t for t in taus if t["tau"] < 0), key=lambda t: t["tau"])
    if not opposite:
        return None
    worst = opposite[0]
    first, second = worst["measures"]
    interval = worst["interval"]
    bounds = format_interval(interval) if isinstance(interval, list) and interval[0] is not None else "no interval"
    systems = len(agreement["systems"])
    order = "order the two systems oppositely" if systems == 2 else "order the systems more often oppositely than alike"
    sentence = (
        f"The bias measures disagree about which systems are more biased: {len(opposite)} of the "
        f"{plural(len(taus), 'pair')} of measures {order} (Kendall τ < 0), most of all {first} and {second} "
        f"(τ = {format_number(worst['tau'], sign=True)}, {bounds}); the measure agreement section names the "
        "queries behind each disagreement."
    )
    return _claim("agreement", [sentence])
