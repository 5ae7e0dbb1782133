"""report.html: one self-contained page per experiment (`gsr run`) or per scored set of runs (`gsr score --html`).

It answers first (a summary in sentences, its facts from summary.py), then shows why a system is gendered: the results
table, Eq. 3's scatter per system with its fitted line, interval band and the perfect engine's line (click a point:
that query's view), a query view of each system's top documents with g_q(d), relevance and every word coloured by
g(w) (query terms excluded), a contrast view of two systems (queries by |Δ g_q(L)|, their lists side by side:
DiffIR's idea, for gender), the analyses' titled tables and charts, and the provenance; Plotly's charts, plotly.js
and the data inlined (it opens offline). Only what the views need is embedded: each list's top `MAX_DOCUMENTS` (a
tie crossing K whole), their texts (cut at `MAX_TEXT_CHARACTERS`, with a note) and g(w) of their words.

Every string of the data (names, query ids and texts, document ids and texts, labels) is data, never markup: the JSON
is embedded with <, >, & and U+2028/9 as \\u escapes, the template's placeholders are filled in one pass (nothing
substituted is read again), the title goes in HTML-escaped, report.js builds the DOM from text nodes and passes every
string to Plotly as HTML entities (plotly_charts.py does the same for the analyses' figures), and a
Content-Security-Policy lets the page fetch nothing (docs/reliability.md, "report.html: data is never markup").
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from experiments.parts import cached_part, cached_parts, value_key
from experiments.per_system import analyzer_key, collection_key, lexicon_key
from experiments.report.how_sure import how_sure
from experiments.report.how_sure import rendered as sure_rendered
from experiments.report.png_kit import drawn
from experiments.report.summary import agreement_sentence, cell_text, experiment_summary, rendered, scored_summary
from gsr.baselines import tie_end
from gsr.infra.store import atomic_write
from gsr.settings import DEFAULT_LEVEL
from gsr.text.normal_form import nfkc

MAX_DOCUMENTS = 10  # documents shown per (system, query) list: the measured top K, at most this many
DIGITS = 4  # g values are embedded rounded to this many decimals (the tables keep every digit)
MAX_TEXT_CHARACTERS = 20_000  # a document's text is embedded up to here (cut at a word boundary); its g values are not
WORD = re.compile(r"[\w']+")  # a word as the page splits text (report.js: [\p{L}\p{N}_']+, the same characters)
# characters JSON may hold inside a string that HTML or old JavaScript would read: always \u escapes in the page
_SCRIPT_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_PLACEHOLDERS = re.compile(r"/\*(?:STYLE|PLOTLY|SCRIPT|DATA)\*/|<!--TITLE-->")


@dataclass
class ReportData:
    """What the page shows; `to_json` is embedded in it as is."""

    title: str
    subtitle: str
    table: dict  # {"columns": [...], "rows": [{"cells": [...], "sort": [...]}], "notes": [...]}
    labels: list[str]  # measuring embeddings (GSR columns)
    systems: list[str]
    variants: dict[str, list[str]] = field(default_factory=dict)  # regular system -> its embedding variants
    scatter: dict = field(default_factory=dict)  # label -> system -> {gsr, ci, x, y, q}; "perfect" included
    queries: dict[str, str] = field(default_factory=dict)
    lists: dict = field(default_factory=dict)  # label -> system -> qid -> [[docid, g_q(d) or None, grade], ...]
    documents: dict[str, str] = field(default_factory=dict)
    words: dict = field(default_factory=dict)  # label -> {word: g(w)}
    excluded: dict[str, list[str]] = field(default_factory=dict)  # qid -> the words excluded as query terms
    analyses: list[dict] = field(default_factory=list)  # [{"name", "caption", "note", "table", "figure" or "png"}]
    provenance: dict = field(default_factory=dict)
    cut: dict[str, str] = field(default_factory=dict)  # docid -> the note shown where its text was cut
    summary: dict = field(default_factory=dict)  # summary.py: {"labels": {label: facts}, "start", "level", ...}
    how_sure: dict = field(default_factory=dict)  # how_sure.py: label -> the "How sure" view's facts

    def to_json(self) -> str:
        """The page's data: every field, the summary and the "How sure" view with their sentences, tables and charts
        made from their facts as they are now (summary.rendered, how_sure.rendered)."""
        data = {**self.__dict__, "summary": rendered(self.summary), "how_sure": sure_rendered(self.how_sure)}
        return json.dumps(data, ensure_ascii=False, allow_nan=False, default=_plain, separators=(",", ":"))

    def script_json(self) -> str:
        """`to_json` as a <script type="application/json"> block holds it: no <, > or & (nothing HTML would read as
        markup: `</script>`, `<!--`), no U+2028/9; each a \\u escape, which JSON.parse reads as the character."""
        return self.to_json().translate(_SCRIPT_ESCAPES)

    def set_documents(self, texts: dict[str, str]) -> None:
        """The shown documents' texts, each cut at MAX_TEXT_CHARACTERS (`cut_text`), and a note for each one cut."""
        self.documents, self.cut = {}, {}
        for docid, text in texts.items():
            text = nfkc(text)  # the page splits words as the measure does: "café", "ｃａｆé" one word however spelled
            self.documents[docid] = shown = cut_text(text)
            if len(shown) < len(text):
                self.cut[docid] = f"… text cut at {MAX_TEXT_CHARACTERS:,} of {len(text):,} characters"


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot embed {type(value).__name__} in the report")


def cut_text(text: str, limit: int = MAX_TEXT_CHARACTERS) -> str:
    """`text` up to `limit` characters, ending before a word `limit` would split (the whole word goes: the page
    colours only whole words); `text` itself where it is no longer. A text of one longer word is cut at `limit`."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    inside = WORD.match(head[::-1]) if WORD.fullmatch(text[limit - 1 : limit + 1]) else None  # the limit splits a word
    if inside is not None:
        start = limit - inside.end()  # where that word starts
        head = head[:start] if start > 0 else head
    return head


def _rounded(value) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), DIGITS)


def scatter_points(result) -> dict:
    """One GSRResult as the scatter shows it: GSR, its interval, the centroid, and each measured query's point."""
    x, y, q = [], [], []
    for point in result.per_query:
        if point.g_query is not None and point.g_list is not None:
            x.append(_rounded(point.g_query))
            y.append(_rounded(point.g_list))
            q.append(point.qid)
    xs, ys = result.points()
    return {
        "gsr": result.gsr,
        "ci": result.ci.to_list() if result.ci else None,
        "centre": [float(np.mean(xs)), float(np.mean(ys))] if len(xs) else None,
        "x": x,
        "y": y,
        "q": q,
    }


def list_cutoffs(cutoff, qrels: dict | None, queries) -> dict[str, int | None]:
    """The K of each query's measured list (None: the whole list), as GSR cuts it."""
    if cutoff == "relevant" and qrels is not None:
        return {q: sum(1 for g in qrels.get(q, {}).values() if g > 0) for q in queries}
    return dict.fromkeys(queries, cutoff if isinstance(cutoff, int) else None)


def query_lists(
    runs: dict, queries: dict[str, str], gendered, cutoffs: dict, qrels: dict | None
) -> tuple[dict, set[str]]:
    """Each system's measured list per query (a tie crossing K whole), its top MAX_DOCUMENTS as [docid, g_q(d),
    grade], g_q(d) as Eq. 2 computes it (gsr.documents.stats.GenderedDocuments); and every document shown."""
    index = gendered.stats.doc_index
    lists: dict = {system: {} for system in runs}
    rows_of: dict[str, dict[int, None]] = {}  # qid -> the rows of the documents its lists show
    for system, run in runs.items():
        for qid, ranked in run.items():
            if qid not in cutoffs or qid not in queries:
                continue
            k = tie_end(ranked, cutoffs[qid]) if cutoffs[qid] is not None else len(ranked)  # a tie across K whole
            if top := [d for d, _ in ranked[: min(k, MAX_DOCUMENTS)]]:
                grades = qrels.get(qid, {}) if qrels else {}
                lists[system][qid] = [[d, index.get(d, -1), grades.get(d)] for d in top]  # row: g_q(d) below
                rows_of.setdefault(qid, {}).update((index[d], None) for d in top if d in index)
    g_of: dict[str, dict[int, float]] = {}  # qid -> row -> g_q(d)
    for qid, found in rows_of.items():  # once per query and document: indexing the counts per list was slow
        values = gendered.query_document_genderedness(gendered.analyzer.tokens(queries[qid]), np.fromiter(found, int))
        g_of[qid] = dict(zip(found, values.tolist()))
    for per_query in lists.values():
        for qid, rows in per_query.items():
            for row in rows:
                row[1] = _rounded(g_of[qid].get(row[1]))
    return lists, {row[0] for per_query in lists.values() for rows in per_query.values() for row in rows}


def word_values(texts: dict[str, str], gendered) -> dict[str, float | None]:
    """g(w) of every word of `texts` that Eq. 2 counts (in the lexicon, not a stop word), keyed as the page splits
    text: runs of Unicode letters, digits, underscores and apostrophes (`WORD`), each then lowercased (report.js
    splits with the same characters and lowercases each run alike: `café`, `naïve` are found and coloured)."""
    analyzer, lexicon = gendered.analyzer, gendered.lexicon
    words = {w.lower() for text in texts.values() for w in WORD.findall(text)}
    counted = {w for w in words if analyzer.tokens(w) == [w]}
    return {w: _rounded(g) for w, g in zip(sorted(counted), lexicon.values(sorted(counted)).tolist()) if g == g}


def excluded_words(queries: dict[str, str], gendered, words: set[str]) -> dict[str, list[str]]:
    """Per query, the shown words Eq. 2 leaves out as query terms (the terms and their inflections)."""
    vocabulary = gendered.stats.vocabulary
    excluded = {}
    for qid, text in queries.items():
        ids = gendered.excluded_terms(gendered.analyzer.tokens(text))
        excluded[qid] = sorted({vocabulary[i] for i in ids.tolist()} & words)
    return excluded


def png_entry(name: str, caption: str, path: Path) -> dict:
    return {
        "name": name,
        "caption": caption,
        "png": "data:image/png;base64," + base64.b64encode(drawn(path).read_bytes()).decode("ascii"),
    }


def table_entry(name: str, caption: str, rows: list[dict]) -> dict:
    """An analysis table as the page builds it (sortable like the results table): its columns, each cell's text
    (summary.cell_text: 4 decimals, p-values as 0.003 or < 0.001) and the value it sorts by."""
    columns = list(dict.fromkeys(c for row in rows for c in row))
    cells = [[cell_text(c, row.get(c)) for c in columns] for row in rows]
    sort = [[_sort_key(row.get(c), text) for c, text in zip(columns, line)] for row, line in zip(rows, cells)]
    return {"name": name, "caption": caption, "table": {"columns": columns, "cells": cells, "sort": sort}}


def _sort_key(value, text: str):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else text


def fill_template(template: str, parts: dict[str, str]) -> str:
    """`template` with each placeholder replaced by `parts[placeholder]`, in one pass over the template: what is
    put in is never scanned again (a document holding `<!--TITLE-->` or `/*DATA*/` stays as it is)."""
    found = _PLACEHOLDERS.findall(template)
    if sorted(found) != sorted(parts):
        raise ValueError(f"the report template's placeholders are {found}, not one each of {sorted(parts)}")
    return _PLACEHOLDERS.sub(lambda match: parts[match.group()], template)


def write_html(data: ReportData, path: Path) -> Path:
    """The page at `path`: the template with plotly.js, the page's script and `data` inlined."""
    from plotly.offline import get_plotlyjs

    folder = resources.files("experiments.report") / "assets"
    page = fill_template(
        (folder / "report.html").read_text(encoding="utf-8"),
        {
            "/*STYLE*/": (folder / "report.css").read_text(encoding="utf-8"),
            "/*PLOTLY*/": get_plotlyjs(),
            "/*SCRIPT*/": (folder / "report.js").read_text(encoding="utf-8"),
            "/*DATA*/": data.script_json(),
            "<!--TITLE-->": html.escape(data.title),
        },
    )
    with atomic_write(path) as out:
        out.write(page)
    return Path(path)


def _variants(config) -> dict[str, list[str]]:
    variants: dict[str, list[str]] = {}
    for system in config.systems:
        base = getattr(system, "base_system", None)
        if base:
            variants.setdefault(base, []).append(system.name)
    return variants


def chart_entry(name: str, caption: str, figure) -> dict:
    """A Plotly figure as the JSON plotly.js draws (plotly's own encoder: numpy arrays and NaN handled); a figure
    given as that JSON already is taken as it is."""
    return {"name": name, "caption": caption, "figure": figure if isinstance(figure, dict) else _chart_json(figure)}


def _chart_json(figure) -> dict:
    return json.loads(figure.to_json())


def analysis_charts(result) -> dict[str, object]:
    """{file name (no suffix) of an analysis figure: that figure as a Plotly chart's JSON}, of every analysis
    declaring one; each analysis's charts a cached part keyed by its result (experiments.parts)."""
    from experiments.registry import ANALYSES
    from gsr.errors import PluginError
    from gsr.infra import logs

    charts: dict[str, object] = {}
    for name, value in result.analyses.items():
        declared = ANALYSES.get(name).charts
        if declared is None:
            continue
        plugin = ANALYSES.plugin_of(name)  # a plugin's code draws its charts: part of their key (gsr.infra.plugins)

        def drawn(declared=declared, value=value) -> dict:
            return {stem: _chart_json(figure) for stem, figure in declared(value).items()}

        try:
            key = (name, value_key(value), plugin.code_key if plugin is not None else None)
            charts.update(cached_part("report charts", key, drawn))
        except PluginError as err:  # another distribution's analysis: one warning, its PNG figures stay
            logs.get("report").warning("analysis %s has no chart: %s", name, err)
    return charts


def _titled(path: Path) -> tuple[str, str]:
    """(title, note) of a table write_table wrote: its Markdown's `### title` and the text below the grid."""
    markdown = path.with_suffix(".md")
    lines = markdown.read_text(encoding="utf-8").splitlines() if markdown.is_file() else []
    if not lines or not lines[0].startswith("### "):
        return path.stem.replace("_", " "), ""
    last = max((i for i, line in enumerate(lines) if line.startswith("|")), default=0)
    return lines[0][4:].strip(), " ".join(line.strip() for line in lines[last + 1 :] if line.strip())


def _analysis_entries(written: dict, out: Path, charts: dict | None = None) -> list[dict]:
    """One section per table or figure an analysis or Tables 2-3 wrote into `out`, in the order written, titled as
    the table's Markdown is (`### Table 2: ...`): its table (CSV), and its figure as an interactive chart (`charts`,
    by file name; its PNG stays on disk) or else its PNG; charts of no file written come last."""
    import csv

    sections: dict[str, dict] = {}
    charts = dict(charts or {})
    charted = set(charts)  # their PNGs stay out of the page, before and after each chart is placed
    skip = ("results", "per_query", "gsr_")
    for path in map(Path, written.values()):
        if path.parent.resolve() != Path(out).resolve() or path.name.startswith(skip):
            continue
        if path.suffix not in (".csv", ".png"):
            continue
        title, note = _titled(path)
        section = sections.setdefault(path.stem, {"name": path.stem, "caption": title})
        if path.suffix == ".csv":
            with open(path, encoding="utf-8", newline="") as handle:
                rows = [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(handle)]
            section.update(table_entry(path.stem, title, rows), note=note)
        elif path.stem not in charted:
            section.update(png_entry(path.stem, section["caption"], path))
        if path.stem in charts:
            section["figure"] = chart_entry(path.stem, title, charts.pop(path.stem))["figure"]
    entries = list(sections.values())
    return entries + [chart_entry(stem, stem.replace("_", " "), figure) for stem, figure in charts.items()]


def _number(text: str):
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return text


def experiment_report(result, experiment, rows: list[dict], provenance, written: dict, out: Path) -> ReportData:
    """The page of one `gsr run`: its results table (results_rows), every system's scatter and lists under each
    measuring embedding, Tables 2-3 and the analyses' outputs, the provenance."""
    from experiments.experiment_result import PERFECT
    from experiments.report.results_table import row_cells, table_header, table_notes

    config = result.config
    labels = [label for label, name, _ in config.gsr_columns() if label == name]
    systems = [s.name for s in config.systems]
    sort_rows = []
    for row in rows:
        keys = [row["system"]] + [m["mean"] for m in row["measures"].values()]
        for value in row["gsr"].values():
            keys += [value["gsr"], value["relative"]]
        sort_rows.append({"cells": row_cells(row), "sort": keys})
    data = ReportData(
        title=f"gsr-bench: {config.name}",
        subtitle=f"{result.collection.name}: {len(systems)} systems, {len(result.evaluated_queries)} judged topics",
        table={
            "columns": table_header(config.measures, result.system_gsr),
            "rows": sort_rows,
            "notes": table_notes(result, rows),
        },
        labels=labels,
        systems=systems,
        variants=_variants(config),
        queries={q: result.collection.queries[q] for q in result.evaluated_queries},
        provenance={
            "version": provenance.version,
            "environment": provenance.environment,
            "config": provenance.config,
            "inputs": provenance.inputs,
        },
        analyses=_analysis_entries(written, out, analysis_charts(result)),
    )
    cutoffs = list_cutoffs(config.cutoff, result.collection.qrels, result.evaluated_queries)
    shown: set[str] = set()
    for label in labels:
        data.scatter[label] = {
            name: scatter_points(r)
            for name, r in result.system_gsr[label].items()
            if name in systems or name == PERFECT
        }
        data.lists[label], documents = _cached_lists(experiment, result, label, systems, data.queries, cutoffs)
        shown |= documents
    # what the page holds of the documents and lexicons: cached parts, each keyed by what it reads (experiments.parts),
    # so a rerun after a change to one system reads the documents and the embeddings only where they show new ones
    collection, shown_key = result.collection, value_key(sorted(shown))
    data.set_documents(cached_part("report texts", (collection.key, shown_key), lambda: collection.texts(shown)))
    text = (collection.key, shown_key, analyzer_key(experiment))
    for label in labels:
        data.words[label] = cached_part(
            "report words",
            (*text, lexicon_key(experiment, label)),
            functools.partial(_word_values, data, experiment, label),
        )
    words = {w for per in data.words.values() for w in per}
    shown_words = (value_key(sorted(words)), value_key(data.queries), lexicon_key(experiment, labels[0]))
    data.excluded = cached_part(
        "report excluded words",
        (*text, *shown_words),
        lambda: excluded_words(data.queries, experiment.gendered(labels[0]), words),
    )
    data.summary = experiment_summary(result, rows, data.scatter, written)
    data.how_sure = {
        label: how_sure({s: r for s, r in result.system_gsr[label].items() if s in systems}, config.level, config.seed)
        for label in labels
    }
    agreement = result.analyses.get("measure_agreement")
    data.summary["agreement"] = agreement_sentence(agreement.report.to_dict() if agreement is not None else None)
    return data


def _word_values(data: ReportData, experiment, label: str) -> dict[str, float | None]:
    return word_values(data.documents, experiment.gendered(label))


def _cached_lists(experiment, result, label: str, systems: list[str], queries: dict, cutoffs: dict):
    """query_lists of every system under the measuring embedding `label`, one cached part per system (its run, the
    lexicon, the text handling, the queries, cut-offs and judgments): a list's g_q(d) depend on its query and
    document alone, so each system's lists are those query_lists makes of all of them at once. Returns (lists,
    every document shown)."""
    qrels = result.collection.qrels
    shared = (
        collection_key(experiment),
        lexicon_key(experiment, label),
        analyzer_key(experiment),
        value_key(queries),
        value_key(cutoffs),
    )

    def listed(missing: list[str]) -> dict:
        runs = {system: result.runs[system] for system in missing}
        return query_lists(runs, queries, experiment.gendered(label), cutoffs, qrels)[0]

    lists = cached_parts("report lists", {s: (*shared, result.run_keys[s]) for s in systems}, listed)
    return lists, {row[0] for per_query in lists.values() for rows in per_query.values() for row in rows}


def scored_report(
    names: list[str],
    reports: list,
    runs: list,
    queries: dict[str, str],
    qrels: dict | None,
    gendered,
    label: str,
    cutoff,
    table: dict,
    texts_of,
    tests: dict | None = None,
    provenance: dict | None = None,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    agreement=None,
) -> ReportData:
    """The page of one `gsr score --html`: its results table, each run's scatter and lists (`texts_of(ids)` gives
    the shown documents' texts); `tests` (summary.scored_summary) the corrected tests its summary states;
    `provenance` (provenance.scored_provenance) the files scored and the settings; `level` and `seed` those of its
    intervals, which the "How sure" view plans with; `agreement` (--agreement: a
    gsr.fairness.agreement.AgreementReport) its table and chart as the page's analysis, and its summary sentence."""
    measured = sorted({p.qid for r in reports for p in r.system.per_query if p.g_query is not None})
    data = ReportData(
        title="gsr-bench: scored runs",
        subtitle=f"{len(names)} runs, {len(measured)} measured queries",
        table=table,
        labels=[label],
        systems=list(names),
        queries={q: queries[q] for q in measured if q in queries},
        provenance=provenance or {},
    )
    data.scatter[label] = {name: scatter_points(r.system) for name, r in zip(names, reports)}
    if reports[0].perfect is not None:
        data.scatter[label]["perfect"] = scatter_points(reports[0].perfect)
    data.lists[label], shown = query_lists(
        dict(zip(names, runs)), data.queries, gendered, list_cutoffs(cutoff, qrels, data.queries), qrels
    )
    data.set_documents(texts_of(shown))
    data.words[label] = word_values(data.documents, gendered)
    data.excluded = excluded_words(data.queries, gendered, set(data.words[label]))
    data.summary = scored_summary(names, reports, label, data.scatter[label], qrels, tests)
    data.how_sure[label] = how_sure({name: r.system for name, r in zip(names, reports)}, level, seed)
    if agreement is not None:
        from experiments.report.agreement import TITLE, agreement_note, agreement_rows
        from experiments.report.plotly_charts import agreement_chart

        entry = table_entry("measure_agreement", TITLE, agreement_rows(agreement))
        entry["note"] = agreement_note(agreement)
        entry["figure"] = chart_entry("measure_agreement", TITLE, agreement_chart(agreement))["figure"]
        data.analyses.append(entry)
        data.summary["agreement"] = agreement_sentence(agreement.to_dict())
    return data
