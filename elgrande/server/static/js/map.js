// The SVG map of Spain: nine regions in their real places, the Castillo, and the pieces.
// Every region shape carries its area code (id "area-GAL" ...), so clicks map to actions.
// Legal targets are real controls: focusable, with a role and a name, Enter/Space act.
import { ngettext, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

// Shared corner points keep neighbouring regions' borders identical (rules.md section 2).
const P = {
  A: [80, 110], B: [230, 85], C: [548, 95], D: [700, 122], E: [880, 160], F: [760, 330],
  G: [705, 420], H: [795, 520], I: [700, 612], J: [560, 722], K: [420, 762], L: [330, 742],
  M: [200, 650], N1: [212, 560], N2: [232, 400], O: [172, 262], Pp: [70, 250],
  Q: [232, 172], R: [540, 205], S: [682, 318], T: [602, 425], U: [500, 335], V: [602, 562], X: [380, 602],
};
const pt = (k) => (typeof k === "string" ? P[k] : k);

export const SHAPES = {
  GAL: ["A", [120, 92], [170, 74], "B", "Q", "O", "Pp", [58, 200], [74, 158]],
  PVA: ["B", [330, 92], [430, 80], [500, 96], "C", [548, 150], "R", [390, 190], "Q"],
  ARA: ["C", [620, 108], "D", [690, 220], "S", "T", [560, 380], "U", "R", [548, 150]],
  CAT: ["D", [790, 140], "E", [862, 232], [820, 282], "F", "S", [690, 220]],
  CLV: ["Q", [390, 190], "R", "U", [360, 372], "N2", [200, 330], "O"],
  CLN: ["U", [560, 380], "T", [612, 500], "V", [480, 590], "X", "N1", [200, 480], "N2", [360, 372]],
  VAL: ["S", "F", [730, 382], "G", [742, 470], "H", [742, 562], "I", [655, 590], "V", [612, 500], "T"],
  GRA: ["V", [655, 590], "I", [662, 680], "J", [480, 752], "K", [400, 680], "X", [480, 590]],
  SEV: ["X", [400, 680], "K", [380, 772], "L", [270, 692], "M", [190, 600], "N1"],
};

const NEIGHBOURS = [
  ["Pp", "O", [200, 330], "N2", [200, 480], "N1", [190, 600], "M", [160, 668], [120, 640], [108, 560],
    [96, 480], [84, 400], [66, 320]],
  ["C", [620, 108], "D", [790, 140], "E", [930, 150], [1000, 128], [1000, 0], [565, 0], [540, 50]],
];

// Where each region's label and pieces go.
export const CENTRES = {
  GAL: [148, 168], PVA: [392, 132], ARA: [610, 250], CAT: [775, 215], CLV: [370, 275],
  CLN: [420, 470], SEV: [292, 665], GRA: [535, 660], VAL: [695, 500], CAS: [900, 430],
};

const PIECE_W = 46;
const PIECE_H = 30;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, attrs = {}) {
  const node = el("text", { x, y, ...attrs }, parent);
  node.textContent = content;
  return node;
}

// A map element that sends actions: focusable, named, acting on Enter and Space too.
function control(node, name, key, onAct) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", name);
  node.dataset.key = key;
  node.addEventListener("click", (e) => { e.stopPropagation(); onAct(); });
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onAct(); }
  });
}

function patternDefs(defs, players) {
  for (const p of players) {
    const c = p.colour;
    const id = `pat-${p.seat}`;
    const pat = el("pattern", { id, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, defs);
    el("rect", { width: 8, height: 8, fill: c.hex }, pat);
    const ink = c.text === "#000000" ? "rgba(0,0,0,.3)" : "rgba(255,255,255,.4)";
    if (c.pattern === "stripes") el("path", { d: "M0,8 L8,0 M-2,2 L2,-2 M6,10 L10,6", stroke: ink, "stroke-width": 1.6 }, pat);
    if (c.pattern === "dots") el("circle", { cx: 4, cy: 4, r: 1.6, fill: ink }, pat);
    if (c.pattern === "cross") el("path", { d: "M0,4 H8 M4,0 V8", stroke: ink, "stroke-width": 1.3 }, pat);
    if (c.pattern === "rings") el("circle", { cx: 4, cy: 4, r: 2.4, fill: "none", stroke: ink, "stroke-width": 1.1 }, pat);
    if (c.pattern === "zigzag") el("path", { d: "M0,6 L2,2 L4,6 L6,2 L8,6", fill: "none", stroke: ink, "stroke-width": 1.2 }, pat);
  }
}

// A Caballero group: a patterned block with the colour letter and the count. A legal one
// gets a two-tone ring (black and white) that shows on every colour.
function pieceBadge(parent, x, y, player, count, legal) {
  const g = el("g", { class: "piece" + (legal ? " legal" : ""), transform: `translate(${x},${y})` }, parent);
  if (legal) {
    el("rect", { class: "ring-outer", x: -5, y: -5, width: PIECE_W + 10, height: PIECE_H + 10, rx: 7 }, g);
    el("rect", { class: "ring-inner", x: -5, y: -5, width: PIECE_W + 10, height: PIECE_H + 10, rx: 7 }, g);
  }
  el("rect", { class: "piece-body", width: PIECE_W, height: PIECE_H, rx: 4, fill: `url(#pat-${player.seat})`, stroke: "#222", "stroke-width": 1.2 }, g);
  // The letter and count sit on a plain chip of the colour, so the pattern never hides them.
  el("rect", { x: 2, y: 2, width: 14, height: 15, rx: 2, fill: player.colour.hex }, g);
  text(g, 9, 14, player.colour.letter, { class: "piece-letter", fill: player.colour.text, "text-anchor": "middle" });
  el("rect", { x: 17, y: 7, width: 27, height: 21, rx: 3, fill: player.colour.hex }, g);
  text(g, 30.5, 24, String(count ?? "?"), { class: "piece-count", fill: player.colour.text, "text-anchor": "middle" });
  return g;
}

// A "+2" / "−1" mark beside a piece: what changed since the player last looked.
function deltaMark(parent, x, y, delta) {
  const g = el("g", { class: "delta " + (delta > 0 ? "delta-up" : "delta-down"), transform: `translate(${x},${y})` }, parent);
  el("rect", { x: -2, y: -9, width: 28, height: 18, rx: 9 }, g);
  text(g, 12, 5, (delta > 0 ? "+" : "−") + Math.abs(delta), { "text-anchor": "middle" });
  return g;
}

function areaLabel(area, state) {
  const parts = state.players.filter((p) => area.counts[p.seat] > 0).map((p) => `${p.name} ${area.counts[p.seat]}`);
  const awards = (area.counted || area.awards).join(", ");
  let label = t("%(area)s, awards %(awards)s", { area: area.name, awards });
  if (area.king) label += ", " + t("the King is here");
  label += "; " + (parts.length ? t("Caballeros: %(list)s", { list: parts.join(", ") }) : t("no Caballeros"));
  return label;
}

// handlers: { choose(actions, where), secretPick(code) (optional) }
// opts: { changes (see game.js diffBoards), selected (area code picked for a secret), actionName }
export function drawMap(svg, state, handlers, opts = {}) {
  svg.replaceChildren();
  const interactive = state.legal.length > 0;
  // Interactive: a group of controls; a plain picture (with a name) otherwise.
  svg.setAttribute("role", interactive ? "group" : "img");
  const defs = el("defs", {}, svg);
  patternDefs(defs, state.players);
  el("rect", { x: 0, y: 0, width: 1000, height: 820, class: "sea" }, svg);
  // Neighbouring land, for orientation only (not part of the game).
  for (const shape of NEIGHBOURS) el("polygon", { points: shape.map((k) => pt(k).join(",")).join(" "), class: "land" }, svg);
  text(svg, 128, 470, "PORTUGAL", { class: "land-label", transform: "rotate(-80 128 470)", "aria-hidden": "true" });
  text(svg, 760, 70, "FRANCIA", { class: "land-label", "aria-hidden": "true" });
  text(svg, 640, 790, "MAR MEDITERRÁNEO", { class: "sea-label", "aria-hidden": "true" });

  const legalByArea = new Map();
  const secretAreas = new Set();
  for (const a of state.legal) {
    if (a.kind === "secret") { secretAreas.add(a.area); continue; }
    if (a.area && a.area !== "court" && a.kind !== "pick" && a.kind !== "remove") {
      if (!legalByArea.has(a.area)) legalByArea.set(a.area, []);
      legalByArea.get(a.area).push(a);
    }
  }
  const legalPieces = new Map();
  for (const a of state.legal) {
    if (a.kind === "pick" || a.kind === "remove") {
      const key = `${a.owner}-${a.area}`;
      if (!legalPieces.has(key)) legalPieces.set(key, []);
      legalPieces.get(key).push(a);
    }
  }
  const name = opts.actionName || ((a) => a.text);
  const ctx = { state, legalByArea, legalPieces, handlers, opts, name, secretAreas };

  const areas = Object.fromEntries(state.areas.map((a) => [a.code, a]));
  for (const [code, shape] of Object.entries(SHAPES)) {
    const area = areas[code];
    const points = shape.map((k) => pt(k).join(",")).join(" ");
    const legal = legalByArea.get(code);
    const secret = secretAreas.has(code);
    const [px, py] = CENTRES[code];
    const poly = el("polygon", {
      points, id: `area-${code}`, "data-area": code, "data-px": px, "data-py": py - 17,
      class: "region" + (area.king ? " king-region" : "") + (legal || secret ? " legal" : "")
        + (secret && opts.selected === code ? " selected" : ""),
    }, svg);
    el("title", {}, poly).textContent = areaLabel(area, state);
    if (legal) {
      const what = legal.map((a) => name(a)).join(t(" or "));
      control(poly, `${what} (${areaLabel(area, state)})`, `area-${code}`, () => handlers.choose(legal, area.name));
    } else if (secret) {
      const effect = (state.secret.effects || {})[code];
      control(poly, t("Pick %(area)s secretly", { area: area.name }) + (effect ? ": " + effect : ""), `area-${code}`, () => handlers.secretPick(code));
      poly.setAttribute("aria-pressed", String(opts.selected === code));
    }
  }
  for (const code of Object.keys(SHAPES)) drawArea(svg, areas[code], ctx);
  drawCastillo(svg, areas.CAS, ctx);
  drawTilesOffBoard(svg, state, opts.changes);
  if (opts.changes) drawChanges(svg, state, opts.changes);
  drawHeld(svg, state);
}

// The pieces shown in an area: its counts, less a Caballero picked up and in hand.
function shownCount(area, seat, state) {
  const held = state.progress && state.progress.held;
  const minus = held && held.owner === seat && held.area === area.code ? 1 : 0;
  return area.counts[seat] - minus;
}

function drawArea(svg, area, ctx) {
  const { state, legalPieces, handlers, opts, name } = ctx;
  const [cx, cy] = CENTRES[area.code];
  const g = el("g", { class: "area-info", "data-info": area.code }, svg);
  text(g, cx, cy - 28, area.name, { class: "region-name", "text-anchor": "middle", "aria-hidden": "true" });
  const tiled = area.tile !== null && area.tile !== undefined;
  const counted = area.counted || area.awards;
  const awardText = text(g, cx, cy - 9, counted.join("·") + (tiled ? " ▣" : ""), {
    class: "region-awards" + (tiled ? " tiled" : ""), "text-anchor": "middle", "data-awards": area.code, "aria-hidden": "true" });
  awardText.dataset.count = String(counted.length);
  // Caballero groups first, then Grandes and the King, three to a row.
  const held = state.progress && state.progress.held;
  const changes = opts.changes ? opts.changes.counts[area.code] || {} : {};
  const items = state.players.filter((p) => shownCount(area, p.seat, state) > 0
    || (held && held.owner === p.seat && held.area === area.code) || changes[p.seat]).map((p) => ({ kind: "piece", p }));
  for (const seat of area.grandes) items.push({ kind: "grande", p: state.players[seat] });
  if (area.king) items.push({ kind: "king" });
  const perRow = 3;
  const step = PIECE_W + 6;
  items.forEach((item, i) => {
    const row = Math.floor(i / perRow);
    const inRow = Math.min(perRow, items.length - row * perRow);
    const x = cx - (inRow * step) / 2 + (i % perRow) * step;
    const y = cy + row * (PIECE_H + 6);
    if (item.kind === "piece") {
      const p = item.p;
      const legal = legalPieces.get(`${p.seat}-${area.code}`);
      const count = shownCount(area, p.seat, state);
      const badge = pieceBadge(g, x, y, p, count, legal);
      if (count === 0) badge.classList.add("empty");
      badge.setAttribute("data-piece", `${p.seat}-${area.code}`);
      const label = ngettext("%(name)s: %(num)s Caballero in %(area)s", "%(name)s: %(num)s Caballeros in %(area)s", count, { name: p.name, area: area.name });
      el("title", {}, badge).textContent = label;
      if (held && held.owner === p.seat && held.area === area.code) badge.classList.add("source");
      if (legal) {
        const what = legal.map((a) => name(a)).join(t(" or "));
        control(badge, `${what} (${label})`, `piece-${p.seat}-${area.code}`,
          () => handlers.choose(legal, t("%(name)s in %(area)s", { name: p.name, area: area.name })));
      }
      if (changes[p.seat]) deltaMark(g, x + PIECE_W - 10, y - 4, changes[p.seat]);
    } else if (item.kind === "grande") {
      const p = item.p;
      const gr = el("g", { class: "grande", transform: `translate(${x + 8},${y})`, "data-grande": p.seat }, g);
      el("rect", { width: 30, height: 30, fill: `url(#pat-${p.seat})`, stroke: "#000", "stroke-width": 3 }, gr);
      el("rect", { x: 6, y: 5, width: 18, height: 20, rx: 2, fill: p.colour.hex }, gr);
      text(gr, 15, 21, p.colour.letter, { "text-anchor": "middle", class: "grande-letter", fill: p.colour.text });
      el("title", {}, gr).textContent = t("Grande of %(name)s (home region)", { name: p.name });
    } else {
      const k = el("g", { class: "king", transform: `translate(${x + 8},${y})`, "data-king": area.code }, g);
      el("path", { d: "M1,29 L1,9 L8,16 L15,1 L22,16 L29,9 L29,29 Z", fill: "#111", stroke: "#f5c400", "stroke-width": 1.5 }, k);
      el("title", {}, k).textContent = t("The King");
    }
  });
}

function drawCastillo(svg, area, ctx) {
  const { state, legalByArea, handlers, opts, name } = ctx;
  const [cx, cy] = CENTRES.CAS;
  const legal = legalByArea.get("CAS");
  const g = el("g", { class: "castillo-group" }, svg);
  const w = 88; // half width
  const top = cy - 70;
  const bottom = cy + 130;
  let d = `M${cx - w},${bottom} L${cx - w},${top}`;
  const merlon = (2 * w) / 7;
  for (let i = 0; i < 7; i++) {
    const x0 = cx - w + i * merlon;
    const up = i % 2 === 0;
    d += up ? ` L${x0},${top - 20} L${x0 + merlon},${top - 20} L${x0 + merlon},${top}` : ` L${x0 + merlon},${top}`;
  }
  d += ` L${cx + w},${bottom} Z`;
  const tower = el("path", {
    id: "area-CAS", "data-area": "CAS", "data-px": cx + 60, "data-py": cy - 45, d,
    class: "region castillo" + (legal ? " legal" : ""),
  }, g);
  el("title", {}, tower).textContent = t("Castillo: awards %(awards)s", { awards: (area.counted || area.awards).join(", ") });
  if (legal) {
    const what = legal.map((a) => name(a)).join(t(" or "));
    control(tower, `${what} (Castillo)`, "area-CAS", () => handlers.choose(legal, t("the Castillo")));
  }
  text(g, cx, cy - 42, "Castillo", { class: "region-name", "text-anchor": "middle", "aria-hidden": "true" });
  const counted = area.counted || area.awards;
  const awardText = text(g, cx, cy - 23, counted.join("·") + (area.tile !== null ? " ▣" : ""), {
    class: "region-awards", "text-anchor": "middle", "data-awards": "CAS", "aria-hidden": "true" });
  awardText.dataset.count = String(counted.length);
  // Castillo counts are public online (seed 001): one line per player, zeros included.
  const changes = opts.changes ? opts.changes.counts.CAS || {} : {};
  state.players.forEach((p, i) => {
    const y = cy - 12 + i * 28;
    const badge = pieceBadge(g, cx - w + 6, y, p, area.counts[p.seat], false);
    badge.setAttribute("transform", `translate(${cx - w + 6},${y}) scale(0.8)`);
    badge.setAttribute("data-piece", `${p.seat}-CAS`);
    const label = text(g, cx - w + 46, y + 17, p.name, { class: "castillo-name", "data-castillo-name": p.seat });
    // Long names are squeezed to the tower's width rather than cut.
    if (p.name.length > 15) {
      label.setAttribute("textLength", String(2 * w - 50));
      label.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    if (changes[p.seat]) deltaMark(g, cx - w + 26, y - 4, changes[p.seat]);
  });
}

function drawTilesOffBoard(svg, state, changes) {
  // Mobile scoreboards: on the board they show as the region's values with ▣; beside it here.
  const g = el("g", { class: "tiles" }, svg);
  text(g, 900, 600, t("Mobile scoreboards"), { class: "small-label", "text-anchor": "middle" });
  state.tiles.forEach((tile, i) => {
    const x = 836 + i * 68;
    const y = 610;
    const moved = changes && changes.tiles.includes(i);
    const box = el("g", { class: "tile" + (tile.area ? " placed" : "") + (moved ? " moved" : ""), transform: `translate(${x},${y})`, "data-tile": i }, g);
    el("rect", { width: 60, height: 32, rx: 4 }, box);
    text(box, 30, 14, tile.values.join("/"), { "text-anchor": "middle", class: "tile-values" });
    text(box, 30, 27, tile.area ? t("on %(area)s", { area: tile.area }) : t("beside"), { "text-anchor": "middle", class: "tile-where" });
  });
}

// Since the player last looked: the King's move (a ghost crown and an arrow), scorings
// (a flash with the points on the scored area).
function drawChanges(svg, state, changes) {
  const g = el("g", { class: "changes", "aria-hidden": "true" }, svg);
  if (changes.king && CENTRES[changes.king.from] && CENTRES[changes.king.to]) {
    const [x1, y1] = CENTRES[changes.king.from];
    const [x2, y2] = CENTRES[changes.king.to];
    el("line", { x1, y1: y1 - 40, x2, y2: y2 - 40, class: "king-trail" }, g);
    const ghost = el("g", { class: "king-ghost", transform: `translate(${x1 - 15},${y1 - 56})` }, g);
    el("path", { d: "M1,29 L1,9 L8,16 L15,1 L22,16 L29,9 L29,29 Z" }, ghost);
  }
  for (const s of changes.scored || []) {
    const c = CENTRES[s.area];
    if (!c) continue;
    const fl = el("g", { class: "score-flash", "data-scored": s.area, transform: `translate(${c[0]},${c[1] - 58})` }, g);
    const label = s.points.filter((x) => x.points).map((x) => `${state.players[x.seat].colour.letter}+${x.points}`).join(" ") || "0";
    const width = Math.max(60, label.length * 10 + 16);
    el("rect", { x: -width / 2, y: -16, width, height: 24, rx: 12 }, fl);
    text(fl, 0, 2, label, { "text-anchor": "middle" });
  }
}

// A Caballero picked up and not yet put down: shown "in hand" at the top of the map.
function drawHeld(svg, state) {
  const held = state.progress && state.progress.held;
  if (!held) return;
  const p = state.players[held.owner];
  const g = el("g", { class: "held", "data-held": `${held.owner}-${held.area}` }, svg);
  el("rect", { x: 8, y: 8, width: 210, height: 46, rx: 8, class: "held-box" }, g);
  text(g, 18, 37, t("In hand:"), { class: "held-label" });
  pieceBadge(g, 90, 16, p, 1, false);
  text(g, 144, 37, t("from %(area)s", { area: held.area }), { class: "held-label" });
}
