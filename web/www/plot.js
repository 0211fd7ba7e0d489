// A small SVG chart: series of points (lines or markers), linear or log10 axes, a legend.
const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
const W = 420, H = 260, L = 46, R = 118, T = 10, B = 34;

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function range(values) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (lo === hi) { lo -= 0.5; hi += 0.5; }
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

// Tick labels: 3 significant digits (a log axis labels 10^v, not the exponent).
const label = (v, log) => Number((log ? 10 ** v : v).toPrecision(3)).toString();

// series: [{name, points: [[x, y|null]], line, strong}]; opts: {xlog, ylog, xlabel, ylabel, reverseX}.
export function chart(svg, series, opts) {
  svg.replaceChildren();
  const fx = opts.xlog ? Math.log10 : (x) => x;
  const fy = opts.ylog ? Math.log10 : (y) => y;
  const pts = series.flatMap((s) => s.points.filter((p) => p[1] !== null && p[1] !== undefined));
  if (pts.length === 0) {
    svg.append(el("text", { x: 160, y: 130 }, "no data"));
    return;
  }
  let [x0, x1] = range(pts.map((p) => fx(p[0])));
  const [y0, y1] = range(pts.map((p) => fy(p[1])));
  if (opts.reverseX) [x0, x1] = [x1, x0];
  const sx = (x) => L + ((fx(x) - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => H - B - ((fy(y) - y0) / (y1 - y0)) * (H - T - B);
  svg.append(el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#999" }));
  for (let i = 0; i <= 4; i++) {
    const vx = x0 + ((x1 - x0) * i) / 4, vy = y0 + ((y1 - y0) * i) / 4;
    const px = L + ((W - L - R) * i) / 4, py = H - B - ((H - T - B) * i) / 4;
    svg.append(el("text", { x: px, y: H - B + 12, "text-anchor": "middle" }, label(vx, opts.xlog)));
    svg.append(el("text", { x: L - 4, y: py + 3, "text-anchor": "end" }, label(vy, opts.ylog)));
  }
  svg.append(el("text", { x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle" }, opts.xlabel ?? ""));
  svg.append(el("text", { x: 10, y: T + (H - T - B) / 2, transform: `rotate(-90 10 ${T + (H - T - B) / 2})`, "text-anchor": "middle" }, opts.ylabel ?? ""));
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const width = s.strong ? 3 : 1.5;
    const g = el("g", { "data-series": s.name });
    const ok = s.points.filter((p) => p[1] !== null && p[1] !== undefined);
    if (s.line && ok.length > 1) {
      g.append(el("polyline", { points: ok.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" "), fill: "none", stroke: color, "stroke-width": width }));
    }
    for (const p of ok) g.append(el("circle", { cx: sx(p[0]), cy: sy(p[1]), r: s.strong ? 4 : 2.5, fill: color }));
    const ly = T + 10 + i * 13;
    g.append(el("rect", { x: W - R + 8, y: ly - 7, width: 8, height: 8, fill: color }));
    g.append(el("text", { x: W - R + 20, y: ly, "font-weight": s.strong ? "bold" : "normal" }, s.name));
    svg.append(g);
  });
}
