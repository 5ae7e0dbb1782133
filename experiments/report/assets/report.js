// gsr-bench report.html: renders the embedded data (experiments/report/html.py) into the six views. No network.
// Every string of DATA is data, never markup (docs/reliability.md): the DOM is built from text nodes and attributes
// (el), every data key is looked up as an own property or in a Map (own, WORDS: a word "constructor" or "__proto__"
// is a key like any other), and every string Plotly draws goes through plotlyText (Plotly reads HTML and %{...}).
"use strict";
const DATA = JSON.parse(document.getElementById("report-data").textContent);
const $ = (id) => document.getElementById(id);
const FEMALE = [94, 60, 153], MALE = [230, 97, 1];
const fmt = (v, d = 4) => (typeof v !== "number" ? "—" : (v >= 0 ? "+" : "") + v.toFixed(d));
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
  }));
}

// ---------------------------------------------------------------- results
function renderResults() {
  const t = DATA.table;
  const table = el("table", { class: "sortable", id: "results-grid" },
    el("thead", {}, el("tr", {}, ...t.columns.map((c) => el("th", {}, c)))), el("tbody"));
  for (const row of t.rows) {
    const tr = el("tr", { class: DATA.systems.includes(row.cells[0]) ? "clickable" : "", "data-system": row.cells[0] });
    row.cells.forEach((cell, i) => tr.append(el("td", { "data-sort": row.sort[i] ?? "" }, cell)));
    if (DATA.systems.includes(row.cells[0])) tr.addEventListener("click", () => { scatterFocus = row.cells[0]; show("scatter"); });
    table.tBodies[0].append(tr);
  }
  $("results-table").replaceChildren(table);
  makeSortable(table);
  $("results-notes").replaceChildren(...t.notes.map((n) => el("p", {}, n)));
}

// ---------------------------------------------------------------- scatter (Eq. 3)
let scatterFocus = null;
let scatterSystems = [];  // the system of each trace drawn (trace names are escaped for Plotly)
function drawScatter() {
  const label = $("scatter-label").value, per = own(DATA.scatter, label) || {};
  const traces = [], palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"];
  const all = Object.values(per).flatMap((s) => s.x);
  const lo = Math.min(...all, 0), hi = Math.max(...all, 0);
  const visible = scatterFocus ? [scatterFocus] : DATA.systems.slice(0, 2);
  const line = (s, slope) => [s.centre[1] + slope * (lo - s.centre[0]), s.centre[1] + slope * (hi - s.centre[0])];
  scatterSystems = [];
  DATA.systems.forEach((system, i) => {
    const s = own(per, system); if (!s || !s.centre) return;
    const colour = palette[i % palette.length], shown = visible.includes(system) ? true : "legendonly";
    const name = plotlyText(system), group = `system ${i}`;
    traces.push({ type: "scatter", mode: "markers", name, x: s.x, y: s.y, customdata: s.q, legendgroup: group,
      visible: shown, marker: { color: colour, size: 6, opacity: 0.7 },
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
        showlegend: false, visible: shown, line: { color: colour, width: 2 },
        hovertemplate: `${name}: GSR = ${fmt(s.gsr)}<extra></extra>` });
    }
    while (scatterSystems.length < traces.length) scatterSystems.push(system);
  });
  const p = own(per, "perfect");
  if (p && p.centre && p.gsr !== null) {
    traces.push({ type: "scatter", mode: "lines", name: `perfect (GSR ${fmt(p.gsr)})`, x: [lo, hi],
      y: line(p, p.gsr), line: { color: "#000", dash: "dash", width: 1.5 }, hoverinfo: "skip" });
  }
  const layout = { margin: { t: 30, r: 10 }, xaxis: { title: { text: "g(q)" }, zeroline: true },
    yaxis: { title: { text: "g_q(L)" }, zeroline: true }, legend: { orientation: "v" }, hovermode: "closest" };
  Plotly.react("scatter-plot", traces, layout, { displaylogo: false, responsive: true });
  const plot = $("scatter-plot");
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
function renderContrast() {
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
    tr.addEventListener("click", () => $("contrast-lists").replaceChildren(listNode(a, r.q, label), listNode(b, r.q, label)));
    body.append(tr);
  }
  if (rows.length) $("contrast-lists").replaceChildren(listNode(a, rows[0].q, label), listNode(b, rows[0].q, label));
}

// ---------------------------------------------------------------- analyses, provenance
const chartHolders = new Map();  // analysis entry -> the element its chart is drawn in
function renderAnalyses() {
  const items = DATA.analyses.map((a) => {
    const box = el("div", { class: "analysis" }, el("h2", {}, a.caption));
    if (a.png) box.append(el("img", { src: a.png, alt: a.caption }));
    if (a.figure) {
      const holder = el("div", { class: "plot chart", "data-chart": a.name });
      chartHolders.set(a, holder);
      box.append(holder);
    }
    // an analysis table: HTML html.table_entry made, every cell and header HTML-escaped there
    if (a.html) { const holder = el("div"); holder.innerHTML = a.html; box.append(holder); }
    return box;
  });
  $("analyses-list").replaceChildren(...(items.length ? items : [el("p", {}, "No analysis in this report.")]));
  document.querySelectorAll("#analyses-list table.sortable").forEach(makeSortable);
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
$("subtitle").textContent = DATA.subtitle;
renderResults();
for (const id of ["scatter-label", "query-label", "contrast-label"]) options($(id), DATA.labels, DATA.labels[0]);
options($("query-select"), Object.keys(DATA.queries));
$("query-systems").replaceChildren(...DATA.systems.map((s, i) =>
  el("label", {}, el("input", Object.assign({ type: "checkbox", value: s }, i < 2 ? { checked: "" } : {})), s)));
const contrastable = DATA.systems;
options($("contrast-a"), contrastable, contrastable[0]);
const firstVariant = Object.values(DATA.variants)[0];
options($("contrast-b"), contrastable, firstVariant ? firstVariant[0] : contrastable[1] ?? contrastable[0]);
if (firstVariant) $("contrast-a").value = Object.keys(DATA.variants)[0];
$("scatter-label").addEventListener("change", drawScatter);
for (const id of ["query-select", "query-label"]) $(id).addEventListener("change", renderQuery);
$("query-systems").addEventListener("change", renderQuery);
for (const id of ["contrast-a", "contrast-b", "contrast-label"]) $(id).addEventListener("change", renderContrast);
renderQuery();
renderContrast();
renderAnalyses();
$("provenance-text").textContent = JSON.stringify(DATA.provenance, null, 2);
document.querySelectorAll("#contrast-table").forEach(makeSortable);
