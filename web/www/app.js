// The page: form and URL state, requests to the workers, rendering. Every number comes
// from the WebAssembly exports (worker.js); this file only moves values and draws.
import { chart } from "./plot.js";

const form = document.getElementById("form");
const classicForm = document.getElementById("classic-form");
const $ = (id) => document.getElementById(id);
const inputs = () => [...form.elements, ...classicForm.elements].filter((e) => e.name);

// Three workers so that a slow chart or simulation never delays the table. A worker
// still computing for an older requirement is replaced (the only way to stop wasm).
const workers = {};
const pending = {}; // requests a worker has not answered
const busyWith = {}; // the query of its last request
function startWorker(name) {
  workers[name]?.terminate();
  workers[name] = new Worker("worker.js", { type: "module" });
  workers[name].onmessage = (e) => {
    if (e.data.op === "progress") return progress(e.data);
    pending[name] -= 1;
    receive(e.data);
  };
  pending[name] = 0;
}
for (const name of ["fast", "slow", "sim"]) startWorker(name);
function dropStale(name, query) {
  if (pending[name] > 0 && busyWith[name] !== query) startWorker(name);
}
const route = { recommend: "fast", classic: "fast", series: "slow", cycle: "slow", simulate: "sim" };
let seq = 0;
const latest = {};
const sentAt = {};
const sentQuery = {};
let selected = null; // index of the design shown in the panel
let clicked = null; // the row the user chose (kept in the URL as row=N), else the pick
let plan = null;
let planQuery = "";

// The state: every non-empty field by its CLI flag name, plus the selected row.
function state() {
  const s = {};
  for (const el of inputs()) if (el.value.trim() !== "") s[el.name] = el.value.trim();
  return s;
}
const requirementOf = (s) =>
  Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith("classic-")));
const classicOf = (s) =>
  Object.fromEntries(Object.entries(s).filter(([k]) => k.startsWith("classic-")));

function send(op, query, extra = {}) {
  const id = ++seq;
  latest[op] = id;
  sentAt[id] = performance.now();
  sentQuery[id] = query;
  const name = route[op];
  if (name === "slow") dropStale(name, query);
  pending[name] += 1;
  busyWith[name] = query;
  workers[name].postMessage({ id, op, query, ...extra });
}

function recompute() {
  const s = state();
  const params = new URLSearchParams(s);
  if (clicked !== null) params.set("row", String(clicked + 1));
  history.replaceState(null, "", params.toString() ? `?${params}` : location.pathname);
  const req = JSON.stringify(requirementOf(s));
  dropStale("slow", req);
  send("recommend", req);
  send("classic", JSON.stringify(classicOf(s)));
}

function receive({ id, op, result }) {
  if (latest[op] !== id) return; // a newer request is on its way
  if (op === "recommend") renderPlan(result, sentQuery[id]);
  if (op === "classic") renderClassic(result);
  if (op === "series") renderSeries(result, sentQuery[id]);
  if (op === "cycle") renderCycle(result);
  if (op === "simulate") renderSimulation(result);
  if (op === "recommend") {
    const ms = performance.now() - sentAt[id];
    const t = $("timing");
    t.dataset.ms = ms.toFixed(2);
    t.dataset.query = sentQuery[id];
    t.dataset.id = String(id);
    t.textContent = `computed and drawn in ${ms.toFixed(1)} ms`;
  }
}

// Errors next to their fields; those without a field above the table.
function showErrors(scope, errors, general) {
  for (const el of scope.elements) {
    if (!el.name) continue;
    el.classList.toggle("bad", Boolean(errors[el.name]));
    let note = el.parentElement.querySelector(".error");
    if (errors[el.name]) {
      if (!note) {
        note = document.createElement("span");
        note.className = "error";
        note.dataset.testid = `error-${el.name}`;
        el.parentElement.append(note);
      }
      note.textContent = errors[el.name];
    } else if (note) note.remove();
  }
  const rest = Object.entries(errors).filter(([k]) => !scope.elements[k]).map(([, v]) => v);
  general.hidden = rest.length === 0;
  general.textContent = rest.join("\n");
}

function cell(tr, text) {
  const td = document.createElement("td");
  td.textContent = text;
  tr.append(td);
}

function tag(el, c) {
  el.dataset.family = c.family;
  el.dataset.design = c.design;
  el.dataset.bits = String(c.bits);
  el.dataset.fp = String(c.fp);
}

function renderPlan(r, query) {
  $("command").textContent = r.command ?? "";
  const body = $("candidates").tBodies[0];
  body.replaceChildren();
  $("excluded").replaceChildren();
  $("notes").replaceChildren();
  const pick = $("pick");
  const errors = r.errors ?? {};
  if (r.infeasible) errors.requirement = r.message;
  showErrors(form, errors, $("plan-error"));
  plan = r.plan ?? null;
  pick.hidden = !plan;
  if (!plan) {
    renderDesign();
    return;
  }
  const p = plan.pick;
  const chosen = plan.candidates[p.index];
  tag(pick, chosen);
  pick.textContent = `pick: ${p.design} (${r.text.candidates[p.index].params}): ${p.reason}`;
  plan.candidates.forEach((c, i) => {
    const t = r.text.candidates[i];
    const tr = document.createElement("tr");
    tr.dataset.testid = "candidate";
    tr.dataset.index = String(i);
    tag(tr, c);
    if (i === p.index) tr.className = "pick";
    for (const text of [`${i + 1}${i === p.index ? "*" : ""}`, c.design, t.params,
      c.bits_per_item.toFixed(1), t.accesses, t.npws, t.fp, t.fp_kind, t.fn]) cell(tr, text);
    tr.title = c.notes.join("; ");
    tr.onclick = () => { clicked = i; recompute(); };
    body.append(tr);
  });
  for (const e of r.text.excluded) {
    const li = document.createElement("li");
    li.textContent = e;
    $("excluded").append(li);
  }
  $("excluded-box").querySelector("summary").textContent =
    `Excluded families and designs (${r.text.excluded.length})`;
  for (const n of plan.notes) {
    const li = document.createElement("li");
    li.textContent = `note: ${n}`;
    $("notes").append(li);
  }
  // A new requirement shows its pick; the first one keeps the URL's row.
  if (query !== planQuery && planQuery !== "") clicked = null;
  const valid = clicked !== null && clicked >= 0 && clicked < plan.candidates.length;
  selected = valid ? clicked : p.index;
  for (const tr of body.rows) tr.classList.toggle("selected", Number(tr.dataset.index) === selected);
  renderDesign(r.text.candidates[selected]);
  send("cycle", query, { index: selected });
  if (query !== planQuery) {
    planQuery = query;
    send("series", query);
    $("sim-result").textContent = "";
  }
}

function renderDesign(text) {
  const dl = $("design-metrics");
  dl.replaceChildren();
  $("simulate").disabled = !plan;
  if (!plan) {
    $("design-name").textContent = "";
    chart($("plot-tradeoff"), [], {});
    chart($("plot-bits"), [], {});
    chart($("plot-cycle"), [], {});
    return;
  }
  const c = plan.candidates[selected];
  $("design-name").textContent = `${selected + 1}: ${c.design}`;
  const rows = [
    ["parameters", text.params], ["memory", `${c.bits} bits`], ["bits per item", c.bits_per_item.toFixed(3)],
    ["accesses insert/query", `${text.accesses} (${c.access_unit})`], ["fp", `${c.fp.toPrecision(4)} (${text.fp_kind_long})`],
    ["false negatives", text.fn], ["npws", text.npws], ["slack", String(c.slack)], ["notes", c.notes.join("; ")],
  ];
  for (const [k, v] of rows) {
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = k;
    dd.textContent = v;
    dl.append(dt, dd);
  }
  chart($("plot-tradeoff"), plan.candidates.map((d, i) => ({
    name: `${i + 1} ${d.design}`,
    points: [[Math.max(d.accesses_insert, d.accesses_query), d.bits_per_item]],
    strong: i === selected,
  })), { xlabel: "accesses (worst of insert, negative query)", ylabel: "bits per item" });
}

function renderSeries(r, query) {
  $("plot-bits").dataset.query = query;
  if (!r.families) return chart($("plot-bits"), [], {});
  const series = Object.entries(r.families).map(([name, ys]) => ({
    name,
    line: true,
    points: r.targets.map((x, i) => [x, ys[i]]),
    strong: plan && plan.candidates[selected]?.family === name,
  }));
  chart($("plot-bits"), series, { xlog: true, xlabel: "FP target", ylabel: "bits per item", reverseX: true });
}

function renderCycle(r) {
  const svg = $("plot-cycle");
  if (!r.points) {
    chart(svg, [], {});
    svg.querySelector("text").textContent = r.none ?? "no curve";
    return;
  }
  const g = r.generation;
  chart(svg, [
    { name: r.design, line: true, strong: true, points: r.points },
    { name: "design fp", line: true, points: [[r.points[0][0], r.fp], [g, r.fp]] },
  ], { ylog: true, xlabel: r.xlabel ?? `insertions into the current generation (g = ${g})`, ylabel: "fp" });
}

function renderClassic(r) {
  const errors = r.errors ?? {};
  showErrors(classicForm, errors, document.querySelector('[data-field="classic"]'));
  const show = (key, text) => {
    const el = document.querySelector(`[data-testid="classic-${key}"]`);
    el.textContent = text ?? "";
    el.dataset.value = r.errors || text === undefined ? "" : String(r[key === "fp-formula" ? "fp_formula" : key === "bpi" ? "bits_per_item" : key]);
    el.classList.toggle("solved", r.solved === key);
  };
  const ok = !r.errors;
  show("n", ok ? String(r.n) : undefined);
  show("m", ok ? String(r.m) : undefined);
  show("k", ok ? String(r.k) : undefined);
  show("fp", ok ? `${r.fp.toPrecision(6)} (${r.fp_law.replace("_", " ")})${r.meets ? "" : " above the target p"}` : undefined);
  show("fp-formula", ok ? r.fp_formula.toPrecision(6) : undefined);
  show("bpi", ok ? r.bits_per_item.toFixed(3) : undefined);
}

// Simulates the selected design in its own worker; the bar moves with each finished
// epoch (a design runs one or more checks, each over its epochs).
$("simulate").onclick = () => {
  const bar = $("sim-progress");
  bar.hidden = false;
  bar.removeAttribute("value");
  bar.dataset.steps = "0";
  $("sim-result").textContent = "simulating...";
  send("simulate", planQuery, { index: selected, seed: 1 });
};

function progress({ id, done, total, label }) {
  if (latest.simulate !== id) return;
  const bar = $("sim-progress");
  bar.max = total;
  bar.value = done;
  bar.dataset.steps = String(Number(bar.dataset.steps ?? 0) + 1);
  $("sim-result").textContent = `simulating: ${label} epoch ${done} of ${total}`;
}

function renderSimulation(r) {
  const bar = $("sim-progress");
  bar.value = bar.max;
  const out = $("sim-result");
  if (r.errors) {
    out.textContent = Object.values(r.errors).join("; ");
  } else if (!r.measured_fp) {
    out.textContent = `not simulated: ${r.skipped ?? "no reference implementation"}`;
  } else {
    const m = r.measured_fp;
    out.dataset.status = r.status;
    out.dataset.measured = JSON.stringify(m);
    out.textContent = `${r.status}: measured fp ${m.value.toPrecision(4)} [${m.lo.toPrecision(4)}, ${m.hi.toPrecision(4)}], predicted ${r.predicted.toPrecision(4)}`;
  }
}

// Start: the URL's query string is the state.
const params = new URLSearchParams(location.search);
for (const el of inputs()) el.value = params.get(el.name) ?? "";
if (params.get("row")) clicked = Number(params.get("row")) - 1;
let timer = 0;
for (const f of [form, classicForm]) {
  f.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(recompute, 120);
  });
  f.addEventListener("submit", (e) => e.preventDefault());
}
recompute();
