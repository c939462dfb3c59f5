// nsys-analytics serve: the viewer. Every name from a profile is set as textContent (never as HTML); the
// timeline is drawn on a canvas from the window answers of /api/timeline (only the window on screen).
"use strict";

const state = { meta: null, lanes: {}, view: null, requests: 0, draws: 0, timeline: null };
window.__serve = state;  // read by the tests

// ---------------------------------------------------------------- helpers
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function query(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(v)).join("&");
}

async function api(path, params) {
  state.requests += 1;
  const response = await fetch(path + "?" + query(params || {}));
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [page, q] = hash.split("?");
  return { page: page || "overview", args: Object.fromEntries(new URLSearchParams(q || "")) };
}

function go(page, args) {
  location.hash = "#/" + page + "?" + query(args);
}

function profileId(args) {
  return args.p || (state.meta.profiles[0] || {}).id;
}

function color(cat) {
  const hue = (cat * 137.508) % 360;
  return `hsl(${hue.toFixed(0)}, 62%, 52%)`;
}

function ms(ns) {
  return (ns / 1e6).toLocaleString(undefined, { maximumFractionDigits: 3 }) + " ms";
}

function fail(view, error) {
  view.replaceChildren(el("p", { class: "error", text: "Error: " + error.message }));
}

// ---------------------------------------------------------------- tables
const NAME_COLUMNS = { kernels: "name", nvtx: "range", nvtx_kernels: "kernel_name" };

function table(result, link) {
  if (result.missing) return el("p", { class: "notes", text: "Not available: " + result.missing });
  const head = el("tr", {}, ...result.headers.map((h) => el("th", { text: h })));
  const body = el("tbody");
  for (const row of result.rows) {
    const tr = el("tr");
    for (const c of result.columns) {
      const v = row[c];
      const td = el("td", { class: typeof v === "number" ? "num" : "name" });
      const target = link && link(c, v, row);
      if (target) {
        td.append(el("a", { href: target, text: v === null ? "" : String(v) }));
      } else {
        td.textContent = v === null ? "" : (typeof v === "object" ? JSON.stringify(v) : String(v));
      }
      tr.append(td);
    }
    body.append(tr);
  }
  const parts = [el("table", {}, el("thead", {}, head), body)];
  if (result.total_rows > result.rows.length) {
    parts.unshift(el("p", { class: "notes", text: `First ${result.rows.length} of ${result.total_rows} rows (the CSV has all).` }));
  }
  for (const n of result.notes || []) parts.push(el("p", { class: "notes", text: n }));
  return el("div", {}, ...parts);
}

function csvLink(params, name) {
  return el("a", { class: "csv", href: "/api/table?" + query({ ...params, format: "csv", table: name }), download: (name || "table") + ".csv", text: "CSV" });
}

async function tablesPage(view, title, params, link) {
  view.replaceChildren(el("h2", { text: title }), el("p", { text: "Loading…" }));
  const doc = await api("/api/table", params);
  const parts = [el("h2", { text: title })];
  for (const [name, result] of Object.entries(doc.tables)) {
    parts.push(el("h3", {}, document.createTextNode(name), csvLink(params, name)));
    parts.push(table(result, link));
  }
  view.replaceChildren(...parts);
  return doc;
}

// ---------------------------------------------------------------- pages
const PAGES = {
  async overview(view, args) {
    const p = profileId(args);
    view.replaceChildren(el("p", { text: "Loading…" }));
    const doc = await api("/api/table", { view: "overview", p });
    const info = doc.doc.info, diag = doc.doc.diagnose;
    const counts = info.row_counts || {};
    const cards = [
      ["nsys", info.session.nsys_version], ["capture", ms(info.session.duration_ns || 0)],
      ["GPUs", (info.devices || []).map((d) => d.name).join(", ") || "none"],
      ["kernels", (counts.kernels || 0).toLocaleString()], ["CUDA API calls", (counts.cuda_api || 0).toLocaleString()],
      ["NVTX events", (counts.nvtx_events || 0).toLocaleString()], ["memcpy", (counts.memcpy || 0).toLocaleString()],
    ];
    const parts = [el("h2", { text: "Overview" }),
      el("div", { class: "cards" }, ...cards.map(([k, v]) => el("div", { class: "card" }, el("div", { class: "v", text: String(v) }), el("div", { class: "k", text: k }))))];
    for (const m of info.missing || []) parts.push(el("p", { class: "notes", text: "Missing: " + (typeof m === "string" ? m : JSON.stringify(m)) }));
    parts.push(el("h3", {}, document.createTextNode("Findings"), csvLink({ view: "overview", p }, "findings")));
    if (diag.missing) parts.push(el("p", { class: "notes", text: diag.missing }));
    if (diag.window && diag.window.text) parts.push(el("p", { class: "notes", text: "Window: " + diag.window.text }));
    for (const f of diag.findings) {
      const w = (f.windows || [])[0];
      const item = el("div", { class: "finding" }, el("span", { class: "sev-" + f.severity, text: `[${f.severity}] ` }),
        document.createTextNode(f.summary));
      if (w) {
        const pad = Math.max(1000, Math.round((w.end_ns - w.start_ns) * 0.1));
        item.append(" ", el("a", { href: "#/timeline?" + query({ p, t0: w.start_ns - pad, t1: w.end_ns + pad }), text: "show window" }));
      }
      parts.push(item);
    }
    if (!diag.findings.length && !diag.missing) parts.push(el("p", { text: "No findings." }));
    view.replaceChildren(...parts);
  },

  async kernels(view, args) {
    const p = profileId(args);
    await tablesPage(view, "Kernels", { view: "kernels", p },
      (c, v) => c === "name" && v !== null ? "#/kernel?" + query({ p, name: v }) : null);
  },

  async nvtx(view, args) {
    const p = profileId(args);
    await tablesPage(view, "NVTX ranges", { view: "nvtx", p },
      (c, v) => c === "range" && v !== null ? "#/range?" + query({ p, name: v }) : null);
  },

  async range(view, args) {
    const p = profileId(args);
    const attribution = args.attribution || "thread";
    const title = "Kernels in range " + args.name + " (attribution " + attribution + ")";
    await tablesPage(view, title, { view: "nvtx-kernels", p, range: args.name, attribution },
      (c, v) => c === "kernel_name" && v !== null ? "#/kernel?" + query({ p, name: v }) : null);
    const pick = el("select", { id: "attribution" }, ...["thread", "process", "gpu"].map((a) => el("option", { value: a, text: a })));
    pick.value = attribution;
    pick.addEventListener("change", () => go("range", { p, name: args.name, attribution: pick.value }));
    view.insertBefore(el("p", {}, document.createTextNode("Attribution "), pick), view.children[1]);
  },

  async kernel(view, args) {
    const p = profileId(args);
    await tablesPage(view, "Executions of " + args.name, { view: "instances", p, name: args.name },
      (c, v, row) => c === "start_ns" ? "#/timeline?" + query({ p, t0: row.start_ns - row.duration_ns * 20, t1: row.end_ns + row.duration_ns * 20 }) : null);
  },

  async categories(view, args) {
    await tablesPage(view, "Categories", { view: "categories", p: profileId(args) });
  },

  async ranks(view) {
    if (!state.meta.ranks) { view.replaceChildren(el("p", { text: "One profile is served: start serve with the files (or folder) of several ranks." })); return; }
    await tablesPage(view, "Ranks", { view: "ranks" });
    const list = el("ul");
    for (const s of state.meta.profiles) {
      list.append(el("li", {}, el("a", { href: "#/timeline?" + query({ p: s.id }), text: s.role + ": " + s.name })));
    }
    view.append(el("h3", { text: "Timelines per rank" }), list);
  },

  async diff(view) {
    if (!state.meta.diff) { view.replaceChildren(el("p", { text: "Nothing to compare: start serve BASE --vs NEW." })); return; }
    await tablesPage(view, "Diff", { view: "diff" });
  },

  async timeline(view, args) {
    const p = profileId(args);
    if (!state.lanes[p]) state.lanes[p] = await api("/api/lanes", { p });
    new Timeline(view, p, state.lanes[p], args);
  },
};

// ---------------------------------------------------------------- timeline
const LANE_H = 22, AXIS_H = 24, LABEL_W = 130;

class Timeline {
  constructor(view, p, lanes, args) {
    this.p = p; this.info = lanes;
    this.canvas = el("canvas", { id: "timeline" });
    this.tip = el("div", { id: "tip" });
    const legend = el("div", { class: "legend" });
    for (let i = 0; i < Math.min(lanes.labels.length, lanes.kernel_labels + 2); i++) {
      const swatch = el("i");
      swatch.style.background = color(i);  // through the CSSOM: the page's policy refuses style attributes
      legend.append(el("span", {}, swatch, document.createTextNode(lanes.labels[i])));
    }
    this.status = el("span", { class: "notes" });
    view.replaceChildren(el("h2", { text: "Timeline" }),
      el("div", { class: "toolbar" }, el("span", { text: "Wheel: zoom · drag: pan · click a range or kernel: its details · double-click: whole profile" }), this.status),
      el("div", { id: "timeline-wrap" }, this.canvas, this.tip), legend);
    const start = lanes.start_ns ?? 0, end = lanes.end_ns ?? 1;
    this.t0 = Number(args.t0 ?? start); this.t1 = Number(args.t1 ?? end);
    if (!(this.t1 > this.t0)) { this.t0 = start; this.t1 = Math.max(end, start + 1); }
    this.full = [start, Math.max(end, start + 1)];
    this.data = null; this.seq = 0;
    state.timeline = this;
    this.bind();
    this.fetch();
  }

  get width() { return Math.max(100, this.canvas.clientWidth - LABEL_W); }

  bind() {
    const c = this.canvas;
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const f = Math.exp(Math.sign(e.deltaY) * 0.25);
      const at = this.timeAt(e.offsetX);
      const span = Math.max(1000, (this.t1 - this.t0) * f);
      const r = (at - this.t0) / (this.t1 - this.t0);
      this.setWindow(at - r * span, at - r * span + span);
    }, { passive: false });
    let drag = null;
    c.addEventListener("mousedown", (e) => { drag = { x: e.offsetX, t0: this.t0, t1: this.t1, moved: false }; });
    window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); });
    c.addEventListener("mousemove", (e) => {
      if (drag && Math.abs(e.offsetX - drag.x) > 3) {
        drag.moved = true;
        const dt = (e.offsetX - drag.x) * (drag.t1 - drag.t0) / this.width;
        this.setWindow(drag.t0 - dt, drag.t1 - dt);
      } else if (!drag) this.hover(e);
    });
    c.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    c.addEventListener("click", (e) => { if (!(drag && drag.moved)) this.click(e); });
    c.addEventListener("dblclick", () => this.setWindow(this.full[0], this.full[1]));
    window.addEventListener("resize", () => this.fetch());
  }

  timeAt(x) { return this.t0 + (x - LABEL_W) * (this.t1 - this.t0) / this.width; }
  xAt(t) { return LABEL_W + (t - this.t0) * this.width / (this.t1 - this.t0); }

  setWindow(t0, t1) {
    this.t0 = Math.round(t0); this.t1 = Math.max(Math.round(t1), this.t0 + 1);
    history.replaceState(null, "", "#/timeline?" + query({ p: this.p, t0: this.t0, t1: this.t1 }));
    this.draw();  // at once, from the answer in hand; the new answer redraws
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetch(), 60);
  }

  async fetch() {
    const seq = ++this.seq;
    const px = this.width;
    const t0 = this.t0, t1 = this.t1;
    try {
      const data = await api("/api/timeline", { p: this.p, t0, t1, px });
      if (seq !== this.seq || state.timeline !== this) return;
      this.data = data;
      this.status.textContent = `${ms(t1 - t0)} shown, ${ms(data.ns_per_px)} per pixel` + (data.events_truncated ? " (the longest intervals only)" : "");
      this.draw();
    } catch (error) {
      this.status.textContent = "Error: " + error.message;
    }
  }

  draw() {
    const c = this.canvas, lanes = this.info.lanes;
    const w = c.clientWidth, h = AXIS_H + lanes.length * LANE_H;
    const ratio = window.devicePixelRatio || 1;
    if (c.width !== Math.round(w * ratio) || c.height !== Math.round(h * ratio)) {
      c.width = Math.round(w * ratio); c.height = Math.round(h * ratio); c.style.height = h + "px";
    }
    const g = c.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.fillStyle = "#fff"; g.fillRect(0, 0, w, h);
    this.axis(g, w);
    g.font = "11px system-ui, sans-serif";
    lanes.forEach((lane, i) => {
      const y = AXIS_H + i * LANE_H;
      g.fillStyle = i % 2 ? "#f6f8fb" : "#fff"; g.fillRect(0, y, w, LANE_H);
      g.fillStyle = "#1d2330"; g.fillText(lane.label, 4, y + 15, LABEL_W - 8);
    });
    if (this.data) {
      this.drawData(g, w);
      if (state.firstPaint === undefined) state.firstPaint = performance.now();  // ms since the page began to load
    }
    state.draws += 1;
  }

  drawData(g, w) {
    const d = this.data, scale = (d.t1 - d.t0) / (this.t1 - this.t0);
    const colW = this.width * d.ns_per_px / (d.t1 - d.t0) * scale;
    const offset = this.xAt(d.t0);
    g.save(); g.beginPath(); g.rect(LABEL_W, 0, w - LABEL_W, g.canvas.height); g.clip();
    for (const [lane, cols] of Object.entries(d.columns)) {
      const y = AXIS_H + Number(lane) * LANE_H;
      for (const [col, busy, cat] of cols) {
        const frac = Math.min(1, busy / d.ns_per_px);
        const bh = Math.max(1, frac * (LANE_H - 4));
        g.fillStyle = color(cat);
        g.fillRect(offset + col * colW, y + LANE_H - 2 - bh, Math.max(1, colW), bh);
      }
    }
    for (const [lane, s, e, cat, , , name] of d.events) {
      const y = AXIS_H + lane * LANE_H, x0 = Math.max(LABEL_W, this.xAt(s)), x1 = Math.min(w, this.xAt(e));
      if (x1 <= x0) continue;
      g.fillStyle = color(cat); g.fillRect(x0, y + 2, Math.max(1, x1 - x0 - 0.5), LANE_H - 4);
      if (x1 - x0 > 30) {
        g.fillStyle = "#fff"; g.fillText(name || this.info.labels[cat] || "", x0 + 3, y + 15, x1 - x0 - 6);
      }
    }
    g.restore();
  }

  axis(g, w) {
    // ticks 1, 2 or 5 x 10^k ns apart, at least 90 px
    const span = this.t1 - this.t0, least = span * 90 / this.width, decade = Math.pow(10, Math.floor(Math.log10(least)));
    const step = [1, 2, 5, 10].map((m) => m * decade).find((s) => s >= least);
    g.fillStyle = "#5a6476"; g.font = "10px system-ui, sans-serif";
    for (let t = Math.ceil(this.t0 / step) * step; t < this.t1; t += step) {
      const x = this.xAt(t);
      g.fillRect(x, AXIS_H - 6, 1, 6);
      g.fillText(ms(t - this.full[0]), x + 2, AXIS_H - 9);
    }
  }

  hit(e) {
    if (!this.data) return null;
    const lane = Math.floor((e.offsetY - AXIS_H) / LANE_H), t = this.timeAt(e.offsetX);
    const tol = 2 * (this.t1 - this.t0) / this.width;
    const ev = this.data.events.find((x) => x[0] === lane && x[1] - tol <= t && t <= x[2] + tol);
    if (ev) return { event: ev };
    const cols = this.data.columns[String(lane)] || [];
    const col = Math.floor((t - this.data.t0) / this.data.ns_per_px);
    const c = cols.find((x) => x[0] === col);
    return c ? { column: c, lane } : null;
  }

  hover(e) {
    const h = this.hit(e);
    if (!h) { this.tip.style.display = "none"; return; }
    let text;
    if (h.event) {
      const [, s, en, cat, , kind, name] = h.event;
      text = (kind === 3 ? "range " : "") + (name || this.info.labels[cat]) + " · " + ms(en - s);
    } else {
      const [, busy, cat] = h.column;
      text = `${this.info.labels[cat]} · ${(100 * busy / this.data.ns_per_px).toFixed(0)}% busy`;
    }
    this.tip.textContent = text;
    this.tip.style.left = (e.offsetX + 12) + "px"; this.tip.style.top = (e.offsetY + 12) + "px";
    this.tip.style.display = "block";
  }

  click(e) {
    const h = this.hit(e);
    if (!h || !h.event) return;
    const [, , , cat, , kind, name] = h.event;
    if (kind === 3) go("range", { p: this.p, name: this.info.labels[cat] });
    else if (kind === 0 && name) go("kernel", { p: this.p, name });
  }
}

// ---------------------------------------------------------------- start
async function show() {
  const { page, args } = route();
  const view = document.getElementById("view");
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.page === page);
  const select = document.getElementById("profile");
  if (args.p && select.value !== args.p) select.value = args.p;
  state.view = page;
  state.timeline = null;
  try {
    await (PAGES[page] || PAGES.overview)(view, args);
  } catch (error) {
    fail(view, error);
  }
}

async function start() {
  state.meta = await api("/api/meta");
  const select = document.getElementById("profile");
  for (const s of state.meta.profiles) select.append(el("option", { value: s.id, text: `${s.id}: ${s.name} (${s.role})` }));
  select.addEventListener("change", () => {
    const { page, args } = route();
    go(["range", "kernel"].includes(page) ? "overview" : page, { ...args, p: select.value, t0: undefined, t1: undefined });
  });
  for (const a of document.querySelectorAll("#nav a")) {
    a.addEventListener("click", (e) => { e.preventDefault(); go(a.dataset.page, { p: select.value }); });
  }
  window.addEventListener("hashchange", show);
  await show();
}

start().catch((error) => fail(document.getElementById("view"), error));
