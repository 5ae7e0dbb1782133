// gsr-bench report.html: renders the embedded data (experiments/report/html.py) into the seven views. No network.
// Every string of DATA is data, never markup (docs/reliability.md): the DOM is built from text nodes and attributes
// (el), every data key is looked up as an own property or in a Map (own, WORDS: a word "constructor" or "__proto__"
// is a key like any other), and every string Plotly draws goes through plotlyText (Plotly reads HTML and %{...}).
"use strict";
const DATA = JSON.parse(document.getElementById("report-data").textContent);
const $ = (id) => document.getElementById(id);
const FEMALE = [94, 60, 153], MALE = [230, 97, 1];
// a number as the tables show it (gsr.infra.numeric.format_number, signed): float noise around 0 is +0.0000
const fmt = (v, d = 4) => {
  if (typeof v !== "number" || !Number.isFinite(v)) return "—";
  const x = Math.abs(v) < 0.5 * 10 ** -d ? 0 : v;
  return (x >= 0 ? "+" : "") + x.toFixed(d);
};
// a data key's value, never an inherited one (Object.prototype's "constructor", "toString", "__proto__", ...)
const own = (object, key) =>
  (object !== null && typeof object === "object" && Object.hasOwn(object, key) ? object[key] : undefined);
// label -> Map(word -> g(w)): the words coloured, keyed as html.word_values keys them
const WORDS = new Map(Object.entries(DATA.words).map(([label, words]) => [label, new Map(Object.entries(words))]));
// a word as html.WORD finds one (Python's [\w']+ on str: Unicode letters, digits, "_" and "'"), lowercased after
const WORD = /([\p{L}\p{N}_']+)/u;
// a string as Plotly shows it: its HTML subset (<a href>, <span style>, <br>, ...) and the %{...} of hovertemplates
// are not read from it; Plotly turns the numeric entities back into the characters
const ENTITIES = new Map(
  [["&", "&#38;"], ["<", "&#60;"], [">", "&#62;"], ['"', "&#34;"], ["'", "&#39;"], ["%", "&#37;"]]);
const plotlyText = (text) => String(text).replace(/[&<>"'%]/g, (c) => ENTITIES.get(c));

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function options(select, values, chosen) {
  select.replaceChildren(...values.map((v) => el("option", { value: v }, v)));
  if (chosen !== undefined) select.value = chosen;
}

// ---------------------------------------------------------------- navigation
function show(view) {
  document.querySelectorAll(".view").forEach((s) => s.classList.toggle("active", s.id === view));
  document.querySelectorAll("nav button").forEach((b) => b.classList.toggle("active", b.dataset.view === view));
  if (view === "scatter") drawScatter();
  if (view === "analyses") drawCharts();
  if (view === "howsure") drawHowSure();
}
document.querySelectorAll("nav button").forEach((b) => b.addEventListener("click", () => show(b.dataset.view)));

// ---------------------------------------------------------------- sortable tables
function makeSortable(table) {
  table.querySelectorAll("th").forEach((th, column) => th.addEventListener("click", () => {
    const body = table.tBodies[0], rows = Array.from(body.rows);
    const descending = !th.classList.contains("sorted-desc");
    table.querySelectorAll("th").forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
    th.classList.add(descending ? "sorted-desc" : "sorted-asc");
    const key = (row) => {
      const raw = row.cells[column].dataset.sort ?? row.cells[column].textContent;
      const number = parseFloat(raw);
      return raw === "" || isNaN(number) ? raw : number;
    };
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      if (typeof x === "number" && typeof y === "number") return descending ? y - x : x - y;
      if (typeof x === "number") return -1; if (typeof y === "number") return 1;
      return descending ? String(y).localeCompare(String(x)) : String(x).localeCompare(String(y));
    });
    body.append(...rows);
    if (table.dataset.limit) limitRows(table);
  }));
}

// a long table shows its first LIMIT rows until asked for all (sorting keeps the first LIMIT of the new order)
const LONG = 20, LIMIT = 10;
function limitRows(table) {
  const all = table.dataset.expanded === "1";
  Array.from(table.tBodies[0].rows).forEach((row, i) => { row.hidden = !all && i >= LIMIT; });
}

// an analysis table (html.table_entry: columns, each cell's text and sort key) in its own scroll container
function gridNode(t) {
  const table = el("table", { class: "sortable" },
    el("thead", {}, el("tr", {}, ...t.columns.map((c) => el("th", {}, c)))), el("tbody"));
  t.cells.forEach((line, i) => table.tBodies[0].append(
    el("tr", {}, ...line.map((text, j) => el("td", { "data-sort": t.sort[i][j] ?? "" }, text)))));
  makeSortable(table);
  const parts = [el("div", { class: "scroll" }, table)];
  if (t.cells.length > LONG) {
    table.dataset.limit = String(LIMIT);
    limitRows(table);
    const more = el("button", { class: "more", type: "button" }, `Show all ${t.cells.length} rows`);
    more.addEventListener("click", () => {
      table.dataset.expanded = table.dataset.expanded === "1" ? "" : "1";
      more.textContent = table.dataset.expanded ? `Show the first ${LIMIT} rows` : `Show all ${t.cells.length} rows`;
      limitRows(table);
    });
    parts.push(more);
  }
  return parts;
}

// ---------------------------------------------------------------- results
function renderResults() {
  const t = DATA.table;
  const table = el("table", { class: "sortable", id: "results-grid" },
    el("thead", {}, el("tr", {}, ...t.columns.map((c) => el("th", {}, c)))), el("tbody"));
  for (const row of t.rows) {
    const tr = el("tr", { class: DATA.systems.includes(row.cells[0]) ? "clickable" : "", "data-system": row.cells[0] });
    row.cells.forEach((cell, i) => tr.append(el("td", { "data-sort": row.sort[i] ?? "" }, cell)));
    if (DATA.systems.includes(row.cells[0])) tr.addEventListener("click", () => openScatter([row.cells[0]]));
    table.tBodies[0].append(tr);
  }
  $("results-table").replaceChildren(table);
  makeSortable(table);
  $("results-notes").replaceChildren(...t.notes.map((n) => el("p", {}, ...emphasis(n))));
}

// a note's **bold** (as the Markdown table writes it) as <strong> text nodes
function emphasis(text) {
  return String(text).split("**").map((part, i) => (i % 2 ? el("strong", {}, part) : part));
}

// ---------------------------------------------------------------- summary (facts, sentences, chart: summary.py)
function linkButton(text, title, action) {
  return el("button", { class: "link", type: "button", title, onclick: action }, text);
}

// the links of a claim: the scatter of its systems, and the contrast view of two systems on one query
function claimLinks(label, systems, a, b, qid) {
  const scatter = linkButton("scatter", `GSR scatter of ${systems.join(", ")}`, () => openScatter(systems, label));
  const links = [" (", scatter];
  if (qid && a && b) {
    links.push(" · ", linkButton(`query ${qid}`, `${a} and ${b} on ${qid}: ${own(DATA.queries, qid) ?? ""}`,
      () => openContrast(a, b, label, qid)));
  }
  links.push(")");
  return el("span", { class: "links" }, ...links);
}

// a part of a claim as summary.py writes it: text, {strong}, {number} or {links}
function partNode(label, part) {
  if (typeof part === "string") return document.createTextNode(part);
  if (own(part, "strong") !== undefined) return el("strong", {}, part.strong);
  if (own(part, "number") !== undefined) return el("span", { class: "number" }, part.number);
  const links = own(part, "links") || {};
  return claimLinks(label, links.systems || [], links.a, links.b, links.query);
}

// a list of claims, the first `shown` of them open, the rest one click away
function claimList(items, shown = 6) {
  const list = el("ul", {}, ...items.slice(0, shown));
  if (items.length <= shown) return [list];
  const rest = el("details", {}, el("summary", {}, `${items.length - shown} more`),
    el("ul", {}, ...items.slice(shown)));
  return [list, rest];
}

// a claim (summary.label_sentences): its sentence, then its items as a list (each item's data as data-* attributes)
function claimNodes(label, claim) {
  const out = [el("p", { class: "claim", "data-claim": claim.claim }, ...claim.parts.map((p) => partNode(label, p)))];
  if (claim.items.length) {
    out.push(...claimList(claim.items.map((item) => {
      const attributes = {};
      for (const [key, value] of Object.entries(item.data || {})) attributes[`data-${key}`] = value ?? "";
      return el("li", attributes, ...item.parts.map((p) => partNode(label, p)));
    })));
  }
  return out;
}

// the forest plot a summary opens with (plotly_charts.forest_chart; its strings escaped there): click a system for
// its scatter
function drawForest(holder, label, figure) {
  Plotly.newPlot(holder, figure.data, figure.layout, { responsive: true, displaylogo: false });
  holder.on("plotly_click", (event) => {
    const point = event.points[0];
    if (point && typeof point.customdata === "string") openScatter([point.customdata], label);
  });
}

function renderSummary() {
  const s = DATA.summary || {}, labels = Object.entries(own(s, "labels") || {});
  if (!labels.length) { $("summary").replaceChildren(); return; }
  const parts = [el("h2", {}, "Summary")], charts = [];
  for (const [label, facts] of labels) {
    if (labels.length > 1) parts.push(el("h3", {}, `Measured with ${label}`));
    if (facts.chart && facts.chart.data.length) {
      const holder = el("div", { class: "plot forest", "data-forest": label });
      charts.push([holder, label, facts.chart]);
      parts.push(holder);
    }
    for (const claim of facts.claims || []) parts.push(...claimNodes(label, claim));
  }
  // the one sentence on measure agreement where measures disagree (summary.agreement_sentence)
  const agreement = own(s, "agreement");
  if (agreement) parts.push(...claimNodes(labels[0][0], agreement));
  $("summary").replaceChildren(...parts);
  for (const [holder, label, figure] of charts) drawForest(holder, label, figure);
}

// ---------------------------------------------------------------- scatter (Eq. 3)
let scatterFocus = null;  // the systems the scatter shows when it opens (null: the first two)
const DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"];
// open symbols: a point two systems share shows both outlines
const SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x-thin", "cross-thin", "triangle-down", "star",
  "hexagon", "pentagon"].map((s) => `${s}-open`);
function openScatter(systems, label) {
  scatterFocus = systems;
  if (label) $("scatter-label").value = label;
  show("scatter");
}
let scatterSystems = [];  // the system of each trace drawn (trace names are escaped for Plotly)
function drawScatter() {
  const label = $("scatter-label").value, per = own(DATA.scatter, label) || {};
  const traces = [], palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"];
  const all = Object.values(per).flatMap((s) => s.x);
  const lo = Math.min(...all, 0), hi = Math.max(...all, 0);
  const visible = scatterFocus ?? DATA.systems.slice(0, 2);
  const line = (s, slope) => [s.centre[1] + slope * (lo - s.centre[0]), s.centre[1] + slope * (hi - s.centre[0])];
  scatterSystems = [];
  DATA.systems.forEach((system, i) => {
    const s = own(per, system); if (!s || !s.centre) return;
    const colour = palette[i % palette.length], shown = visible.includes(system) ? true : "legendonly";
    const name = plotlyText(system), group = `system ${i}`;
    traces.push({ type: "scatter", mode: "markers", name, x: s.x, y: s.y, customdata: s.q, legendgroup: group,
      visible: shown, marker: { color: colour, size: 9, opacity: 0.85, symbol: SYMBOLS[i % SYMBOLS.length],
        line: { width: 2 } },
      text: s.q.map((q) => plotlyText(`${q}: ${own(DATA.queries, q) ?? ""}`)),
      hovertemplate: "%{text}<br>g(q) = %{x:.4f}<br>g_q(L) = %{y:.4f}<extra>" + name + "</extra>" });
    if (s.gsr !== null) {
      if (s.ci && s.ci[0] !== null) {
        const low = line(s, s.ci[0]), high = line(s, s.ci[1]);
        traces.push({ type: "scatter", mode: "lines", x: [lo, hi, hi, lo], y: [low[0], high[1], low[1], high[0]],
          fill: "toself", line: { width: 0 }, fillcolor: colour + "22", legendgroup: group, showlegend: false,
          visible: shown, hoverinfo: "skip" });
      }
      traces.push({ type: "scatter", mode: "lines", x: [lo, hi], y: line(s, s.gsr), legendgroup: group,
        showlegend: false, visible: shown, line: { color: colour, width: 2, dash: DASHES[i % DASHES.length] },
        hovertemplate: `${name}: GSR = ${fmt(s.gsr)}<extra></extra>` });
    }
    while (scatterSystems.length < traces.length) scatterSystems.push(system);
  });
  const p = own(per, "perfect");
  if (p && p.centre && p.gsr !== null) {
    traces.push({ type: "scatter", mode: "lines", name: `perfect (GSR ${fmt(p.gsr)})`, x: [lo, hi],
      y: line(p, p.gsr), line: { color: "#000", dash: "dash", width: 1.5 }, hoverinfo: "skip" });
  }
  // as tall as the window leaves below the controls: both axis titles in view without scrolling
  const plot = $("scatter-plot"), top = plot.getBoundingClientRect().top + window.scrollY;
  const height = Math.max(340, Math.min(720, window.innerHeight - top - 28));
  const layout = { height, margin: { t: 30, r: 10, b: 50 }, xaxis: { title: { text: "g(q)" }, zeroline: true },
    yaxis: { title: { text: "g_q(L)" }, zeroline: true }, legend: { orientation: "v" }, hovermode: "closest" };
  Plotly.react("scatter-plot", traces, layout, { displaylogo: false, responsive: true });
  plot.removeAllListeners?.("plotly_click");
  plot.on("plotly_click", (event) => {
    const point = event.points[0];
    if (point && point.customdata) openQuery(point.customdata, [scatterSystems[point.curveNumber]], label);
  });
}

// ---------------------------------------------------------------- query view
function colourOf(g) {
  const [r, gr, b] = g >= 0 ? FEMALE : MALE, a = Math.min(1, Math.abs(g) * 2.5);
  return `rgba(${r},${gr},${b},${a.toFixed(3)})`;
}

function documentNode(entry, qid, label) {
  const [docid, value, grade] = entry, words = WORDS.get(label) || new Map();
  const excluded = new Set(own(DATA.excluded, qid) || []);
  const meta = el("div", { class: "meta" }, `${docid} · g_q(d) = ${fmt(value)} · `,
    el("span", { class: grade > 0 ? "relevant" : "" }, grade === null || grade === undefined ? "unjudged" : `grade ${grade}`));
  const text = el("div", { class: "text" });
  for (const part of (own(DATA.documents, docid) ?? "(text not available)").split(WORD)) {
    const key = part.toLowerCase();
    if (excluded.has(key)) text.append(el("span", { class: "w excluded", title: "query term: excluded" }, part));
    else if (words.has(key)) {
      const g = words.get(key);
      text.append(el("span", { class: "w", style: `background:${colourOf(g)}`, title: `g(w) = ${fmt(g)}` }, part));
    } else text.append(part);
  }
  const cut = own(DATA.cut || {}, docid);  // the text was cut (html.MAX_TEXT_CHARACTERS); its g values were not
  const note = cut ? [el("p", { class: "cut" }, cut)] : [];
  return el("div", { class: "doc", "data-doc": docid }, meta, text, ...note);
}

function listNode(system, qid, label) {
  const entries = own(own(own(DATA.lists, label), system), qid) || [];
  const point = own(own(DATA.scatter, label), system);
  const index = point ? point.q.indexOf(qid) : -1;
  const gl = index >= 0 ? point.y[index] : null;
  return el("div", { class: "list", "data-system": system }, el("h3", {}, `${system}: g_q(L) = ${fmt(gl)}`),
    ...(entries.length ? entries.map((e) => documentNode(e, qid, label)) : [el("p", {}, "no documents retrieved")]));
}

function renderQuery() {
  const qid = $("query-select").value, label = $("query-label").value;
  const chosen = Array.from($("query-systems").querySelectorAll("input:checked")).map((i) => i.value);
  const few = chosen.length > 3 ? `${chosen.slice(0, 3).join(", ")} …` : chosen.join(", ");
  $("query-picked").textContent = chosen.length ? `systems: ${few} (${chosen.length} of ${DATA.systems.length})` :
    `systems: none of ${DATA.systems.length}: choose`;
  const start = own(DATA.summary || {}, "start");
  $("query-why").textContent = start && start.query === qid && start.systems.length > 1 ?
    `${qid} is the judged query whose g_q(L) differs most between two systems: ${start.systems[0]} and ` +
    `${start.systems[1]}, |Δ g_q(L)| = ${typeof start.delta === "number" ? start.delta.toFixed(4) : "—"}.` : "";
  const per = own(DATA.scatter, label) || {}, first = Object.values(per).find((s) => s.q.includes(qid));
  const gq = first ? first.x[first.q.indexOf(qid)] : null;
  $("query-summary").textContent = `${qid}: “${own(DATA.queries, qid) ?? ""}” · g(q) = ${fmt(gq)}`;
  $("query-lists").replaceChildren(...chosen.map((s) => listNode(s, qid, label)));
}

function openQuery(qid, systems, label) {
  $("query-select").value = qid;
  if (label) $("query-label").value = label;
  $("query-systems").querySelectorAll("input").forEach((i) => { i.checked = systems.includes(i.value); });
  show("query");
  renderQuery();
}

// ---------------------------------------------------------------- contrast view
function showContrastQuery(a, b, label, qid) {
  $("contrast-table").querySelectorAll("tbody tr")
    .forEach((tr) => tr.classList.toggle("selected", tr.dataset.query === qid));
  $("contrast-lists").replaceChildren(listNode(a, qid, label), listNode(b, qid, label));
}

function openContrast(a, b, label, qid) {
  $("contrast-a").value = a; $("contrast-b").value = b;
  if (label) $("contrast-label").value = label;
  show("contrast");
  renderContrast(qid);
  const row = Array.from($("contrast-table").tBodies[0].rows).find((tr) => tr.dataset.query === qid);
  if (row) row.scrollIntoView({ block: "nearest" });
  window.scrollTo(0, 0);
}

function renderContrast(qid) {
  const a = $("contrast-a").value, b = $("contrast-b").value, label = $("contrast-label").value;
  const per = own(DATA.scatter, label) || {}, A = own(per, a), B = own(per, b);
  const body = $("contrast-table").tBodies[0];
  body.replaceChildren();
  if (!A || !B) return;
  const rows = [];
  A.q.forEach((q, i) => {
    const j = B.q.indexOf(q);
    if (j >= 0) rows.push({ q, x: A.x[i], ya: A.y[i], yb: B.y[j], d: Math.abs(A.y[i] - B.y[j]) });
  });
  rows.sort((r, s) => s.d - r.d);
  for (const r of rows) {
    const tr = el("tr", { class: "clickable", "data-query": r.q },
      el("td", {}, r.q), el("td", {}, own(DATA.queries, r.q) ?? ""), el("td", { "data-sort": r.x }, fmt(r.x)),
      el("td", { "data-sort": r.ya }, fmt(r.ya)), el("td", { "data-sort": r.yb }, fmt(r.yb)),
      el("td", { "data-sort": r.d }, r.d.toFixed(4)));
    tr.addEventListener("click", () => showContrastQuery(a, b, label, r.q));
    body.append(tr);
  }
  const chosen = rows.find((r) => r.q === qid) ?? rows[0];
  if (chosen) showContrastQuery(a, b, label, chosen.q); else $("contrast-lists").replaceChildren();
}

// ---------------------------------------------------------------- how sure (how_sure.py: lead, chart, table, notes)
const sureCharts = [];  // [holder, figure] of each measuring embedding's chart, drawn when the view first shows
function renderHowSure() {
  const labels = Object.entries(DATA.how_sure || {}), parts = [];
  for (const [label, facts] of labels) {
    parts.push(el("h2", {}, labels.length > 1 ? `How sure: measured with ${label}` : "How sure"));
    parts.push(el("p", { class: "claim", "data-lead": label }, facts.lead));
    const holder = el("div", { class: "plot chart", "data-precision": label });
    sureCharts.push([holder, facts.chart]);
    parts.push(holder, ...gridNode(facts.table));
    const [source, ...resampled] = facts.notes;
    parts.push(el("p", { class: "note" }, source));
    if (resampled.length) {
      parts.push(el("details", { class: "note" },
        el("summary", {}, `Why the resampled answer for ${resampled.length === 1 ? "one system" :
          `${resampled.length} systems`}`), ...resampled.map((n) => el("p", { class: "note" }, n))));
    }
  }
  $("howsure-body").replaceChildren(...parts);
}

function drawHowSure() {
  for (const [holder, figure] of sureCharts) {
    if (holder.dataset.drawn) continue;
    Plotly.newPlot(holder, figure.data, figure.layout, { responsive: true, displaylogo: false });
    holder.dataset.drawn = "1";
  }
}

// ---------------------------------------------------------------- analyses, provenance
const chartHolders = new Map();  // analysis entry -> the element its chart is drawn in
function renderAnalyses() {
  // one section per analysis output, titled as its table is (html._analysis_entries): chart, then table and note
  const items = DATA.analyses.map((a) => {
    const box = el("details", { class: "analysis", open: "", "data-analysis": a.name },
      el("summary", {}, el("h2", {}, a.caption)));
    if (a.figure) {
      const holder = el("div", { class: "plot chart", "data-chart": a.name });
      chartHolders.set(a, holder);
      box.append(holder);
    }
    if (a.png) box.append(el("img", { src: a.png, alt: a.caption }));
    if (a.table) box.append(...(a.table.cells.length ? gridNode(a.table) : [el("p", {}, "(no rows)")]));
    if (a.note) box.append(el("p", { class: "note" }, a.note));
    return box;
  });
  $("analyses-list").replaceChildren(...(items.length ? items : [el("p", {}, "No analysis in this report.")]));
}

// ---------------------------------------------------------------- provenance
function keyValues(entries) {
  return el("table", { class: "provenance" }, el("tbody", {}, ...entries.map(([k, v]) =>
    el("tr", {}, el("td", { class: "key" }, k), el("td", {}, v === null || v === undefined ? "—" : String(v))))));
}

function renderProvenance() {
  const p = DATA.provenance || {}, parts = [];
  if (!Object.keys(p).length) { $("provenance-body").replaceChildren(); return; }  // its tab is hidden (start)
  const env = own(p, "environment") || {}, git = own(env, "git"), config = own(p, "config");
  if (config) {
    parts.push(el("h2", {}, "Config"), el("p", { class: "hint" }, own(config, "path") ?? ""),
      el("pre", { id: "provenance-config" }, own(config, "text") ?? "(no config text)"));
    if (own(config, "settings")) {
      parts.push(el("details", {}, el("summary", {}, "the config's checked settings (JSON)"),
        el("pre", {}, JSON.stringify(config.settings, null, 2))));
    }
  }
  const settings = own(p, "settings");  // gsr score: the options that change its numbers
  if (settings) {
    parts.push(el("h2", {}, "Settings"));
    const table = keyValues(Object.entries(settings));
    table.id = "provenance-settings";
    parts.push(table);
  }
  const inputs = own(p, "inputs") || [];
  const table = el("table", { class: "provenance sortable", id: "provenance-inputs" },
    el("thead", {}, el("tr", {}, ...["role", "path", "bytes", "sha256"].map((c) => el("th", {}, c)))),
    el("tbody", {}, ...inputs.map((i) => el("tr", {}, el("td", {}, i.role ?? ""), el("td", {}, i.path ?? i.id ?? ""),
      el("td", { "data-sort": i.bytes ?? "" }, typeof i.bytes === "number" ? i.bytes.toLocaleString("en") : "—"),
      el("td", {}, i.sha256 ?? "—")))));
  makeSortable(table);
  parts.push(el("h2", {}, `Inputs (${inputs.length})`), el("div", { class: "scroll" }, table));
  const versions = Object.entries(own(env, "versions") || {});
  parts.push(el("h2", {}, "Version and environment"), keyValues([
    ...(versions.some(([name]) => name === "gsr-bench") ? [] : [["gsr-bench", own(p, "version")]]),
    ["git commit", git ? `${git.commit}${git.dirty ? " (uncommitted changes)" : ""}` : null],
    ["platform", own(env, "platform")], ...versions]));
  $("provenance-body").replaceChildren(...parts);
}

// charts are drawn when their view first shows (plotly sizes a chart by its visible container)
// (their figures' strings are HTML-escaped by charts.py, as plotlyText does here)
function drawCharts() {
  for (const [a, holder] of chartHolders) {
    if (holder.dataset.drawn) continue;
    Plotly.newPlot(holder, a.figure.data, a.figure.layout, { responsive: true, displaylogo: false });
    holder.dataset.drawn = "1";
  }
}

// ---------------------------------------------------------------- start
$("title").textContent = DATA.title;
// a view with nothing to show has no tab: no analysis ran (gsr score), no provenance recorded
const empty = { analyses: !DATA.analyses.length, provenance: !Object.keys(DATA.provenance || {}).length,
  howsure: !Object.keys(DATA.how_sure || {}).length };
document.querySelectorAll("nav button").forEach((b) => { b.hidden = own(empty, b.dataset.view) === true; });
$("subtitle").textContent = DATA.subtitle;
renderResults();
for (const id of ["scatter-label", "query-label", "contrast-label"]) options($(id), DATA.labels, DATA.labels[0]);
$("query-select").replaceChildren(...Object.entries(DATA.queries).map(([q, text]) =>
  el("option", { value: q }, text === q ? q : `${q} — ${text.length > 70 ? text.slice(0, 69) + "…" : text}`)));
$("query-systems").replaceChildren(...DATA.systems.map((s) =>
  el("label", {}, el("input", { type: "checkbox", value: s }), " ", s)));
// the query view opens on the judged query whose lists differ most between two systems (summary.start_query)
const start = own(DATA.summary || {}, "start");
const startQuery = start && Object.hasOwn(DATA.queries, start.query) ? start.query : Object.keys(DATA.queries)[0];
const startSystems = start && start.systems.length ? start.systems : DATA.systems.slice(0, 2);
$("query-select").value = startQuery ?? "";
$("query-systems").querySelectorAll("input").forEach((i) => { i.checked = startSystems.includes(i.value); });
const contrastable = DATA.systems;
options($("contrast-a"), contrastable, contrastable[0]);
const firstVariant = Object.values(DATA.variants)[0];
options($("contrast-b"), contrastable, firstVariant ? firstVariant[0] : contrastable[1] ?? contrastable[0]);
if (firstVariant) $("contrast-a").value = Object.keys(DATA.variants)[0];
$("scatter-label").addEventListener("change", drawScatter);
for (const id of ["query-select", "query-label"]) $(id).addEventListener("change", renderQuery);
$("query-systems").addEventListener("change", renderQuery);
for (const id of ["contrast-a", "contrast-b", "contrast-label"]) {
  $(id).addEventListener("change", () => renderContrast());
}
document.addEventListener("click", (event) => {  // the systems picker closes on a click outside it
  if (!$("query-picker").contains(event.target)) $("query-picker").open = false;
});
renderSummary();
renderQuery();
renderContrast();
renderHowSure();
renderAnalyses();
renderProvenance();
document.querySelectorAll("#contrast-table").forEach(makeSortable);
