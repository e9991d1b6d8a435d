// The finished game's score-over-time chart: one stepped line per seat (its colour over a
// dark edge, and a dash pattern of its own, so no one needs to tell hues apart), the
// rounds along the top, the general scorings as marked bands. Drawn here as SVG from
// GET /api/games/{id}/summary; nothing is loaded from elsewhere.
import { ngettext, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 680;
const H = 270;
const M = { l: 38, r: 150, t: 28, b: 30 };
const DASHES = ["", "9 4", "3 3", "10 3 2 3", "1.5 2.5"];

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, attrs = {}) {
  const t = el("text", { x, y, ...attrs }, parent);
  t.textContent = content;
  return t;
}

// summary: the API's answer; players: the view's players (names, colours).
// opts.onPick(seq): a click on the chart asks for the board at that move.
// Returns { svg, mark(seq) }: mark moves the cursor to the move shown.
export function scoreChart(summary, players, opts = {}) {
  const n = summary.seq || 1;
  const top = Math.max(10, ...summary.timeline.flatMap((p) => p.scores));
  const step = top > 80 ? 20 : 10;
  const maxY = Math.ceil(top / step) * step;
  const x = (seq) => M.l + (seq / n) * (W - M.l - M.r);
  const y = (v) => M.t + (1 - v / maxY) * (H - M.t - M.b);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, id: "score-chart", class: "score-chart", role: "img",
    "aria-labelledby": "score-chart-title", "aria-describedby": "score-chart-desc" });
  const title = el("title", { id: "score-chart-title" }, svg);
  title.textContent = t("Scores over the game");
  const desc = el("desc", { id: "score-chart-desc" }, svg);
  const generals = summary.scorings.filter((s) => s.general);
  desc.textContent = t("Final: %(scores)s.", { scores: summary.seats.map((s) => `${s.name} ${s.total}`).join(", ") }) + " " +
    ngettext("General scorings after round %(rounds)s.", "General scorings after rounds %(rounds)s.", generals.length, { rounds: generals.map((s) => s.round).join(", ") });

  // Rounds: alternate shading, the label on top.
  const rounds = summary.rounds;
  rounds.forEach((r, i) => {
    const x1 = x(r.seq);
    const x2 = x(i + 1 < rounds.length ? rounds[i + 1].seq : n);
    if (i % 2) el("rect", { x: x1, y: M.t, width: Math.max(0, x2 - x1), height: H - M.t - M.b, class: "chart-round-band" }, svg);
    el("line", { x1, x2: x1, y1: M.t - 14, y2: H - M.b, class: "chart-round-line" }, svg);
    text(svg, (x1 + x2) / 2, M.t - 16, `R${r.round}`, { class: "chart-round-label", "text-anchor": "middle", "data-round": r.round });
  });
  // Scores: grid and axis.
  for (let v = 0; v <= maxY; v += step) {
    el("line", { x1: M.l, x2: W - M.r, y1: y(v), y2: y(v), class: v ? "chart-grid" : "chart-axis" }, svg);
    text(svg, M.l - 6, y(v) + 4, String(v), { class: "chart-tick", "text-anchor": "end" });
  }
  text(svg, (M.l + W - M.r) / 2, H - 8, t("moves"), { class: "chart-tick", "text-anchor": "middle" });
  // General scorings: a band where the points came in, labelled.
  for (const s of generals) {
    const g = el("g", { class: "chart-scoring", "data-seq": s.seq }, svg);
    el("line", { x1: x(s.seq), x2: x(s.seq), y1: M.t, y2: H - M.b }, g);
    el("path", { d: `M${x(s.seq)},${H - M.b + 1} l-6,9 h12 z` }, g);
    const tip = el("title", {}, g);
    tip.textContent = t("General scoring after round %(round)s:", { round: s.round }) + " " +
      summary.seats.map((p, i) => `${p.name} +${s.points[i]}`).join(", ");
  }
  for (const s of summary.scorings.filter((c) => !c.general)) {
    const g = el("g", { class: "chart-card-scoring", "data-seq": s.seq }, svg);
    el("line", { x1: x(s.seq), x2: x(s.seq), y1: H - M.b, y2: H - M.b + 6 }, g);
    const tip = el("title", {}, g);
    tip.textContent = t("Card %(card)s in round %(round)s:", { card: s.reason, round: s.round }) + " " +
      summary.seats.map((p, i) => `${p.name} +${s.points[i]}`).join(", ");
  }
  // One stepped line per seat.
  const ends = [];
  for (const seat of summary.seats) {
    const p = players[seat.seat];
    let d = `M${x(0)},${y(0)}`;
    for (const point of summary.timeline) d += ` H${x(point.seq)} V${y(point.scores[seat.seat])}`;
    d += ` H${x(n)}`;
    const g = el("g", { class: "chart-line", "data-seat": seat.seat }, svg);
    el("path", { d, class: "chart-line-edge" }, g);
    const line = el("path", { d, class: "chart-line-ink", stroke: p.colour.hex }, g);
    if (DASHES[seat.seat % DASHES.length]) line.setAttribute("stroke-dasharray", DASHES[seat.seat % DASHES.length]);
    ends.push({ seat, y: y(seat.total), colour: p.colour });
  }
  // Names at the end of the lines, pushed apart so they never overlap.
  ends.sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 15);
  for (const e of ends) {
    const g = el("g", { class: "chart-end", "data-seat": e.seat.seat }, svg);
    el("rect", { x: W - M.r + 6, y: e.y - 6, width: 10, height: 10, fill: e.colour.hex, stroke: "#222" }, g);
    const name = e.seat.name.length > 16 ? `${e.seat.name.slice(0, 15)}…` : e.seat.name;
    text(g, W - M.r + 20, e.y + 4, `${name} ${e.seat.total}`, { class: "chart-end-label" });
  }
  // The move the stepper shows.
  const cursor = el("line", { class: "chart-cursor", y1: M.t - 4, y2: H - M.b, x1: x(n), x2: x(n) }, svg);
  if (opts.onPick) {
    svg.classList.add("pickable");
    svg.addEventListener("click", (e) => {
      const box = svg.getBoundingClientRect();
      const at = ((e.clientX - box.left) / box.width) * W;
      const seq = Math.round(((at - M.l) / (W - M.l - M.r)) * n);
      opts.onPick(Math.max(0, Math.min(n, seq)));
    });
  }
  return {
    svg,
    mark(seq) {
      cursor.setAttribute("x1", x(seq));
      cursor.setAttribute("x2", x(seq));
    },
  };
}
