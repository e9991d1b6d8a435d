// The SVG map of Spain: nine regions in their real places, the Castillo, and the pieces.
// Every region shape carries its area code (id "area-GAL" ...), so clicks map to actions.

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
  CLN: [420, 470], SEV: [292, 665], GRA: [535, 660], VAL: [695, 500], CAS: [900, 440],
};

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

function patternDefs(defs, players) {
  for (const p of players) {
    const c = p.colour;
    const id = `pat-${p.seat}`;
    const pat = el("pattern", { id, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, defs);
    el("rect", { width: 8, height: 8, fill: c.hex }, pat);
    const ink = c.text === "#000000" ? "rgba(0,0,0,.35)" : "rgba(255,255,255,.45)";
    if (c.pattern === "stripes") el("path", { d: "M0,8 L8,0 M-2,2 L2,-2 M6,10 L10,6", stroke: ink, "stroke-width": 1.6 }, pat);
    if (c.pattern === "dots") el("circle", { cx: 4, cy: 4, r: 1.6, fill: ink }, pat);
    if (c.pattern === "cross") el("path", { d: "M0,4 H8 M4,0 V8", stroke: ink, "stroke-width": 1.3 }, pat);
    if (c.pattern === "rings") el("circle", { cx: 4, cy: 4, r: 2.4, fill: "none", stroke: ink, "stroke-width": 1.1 }, pat);
    if (c.pattern === "zigzag") el("path", { d: "M0,6 L2,2 L4,6 L6,2 L8,6", fill: "none", stroke: ink, "stroke-width": 1.2 }, pat);
  }
}

// A Caballero group: a patterned square with the colour letter and the count.
function pieceBadge(parent, x, y, player, count, legal) {
  const g = el("g", { class: "piece" + (legal ? " legal" : ""), transform: `translate(${x},${y})` }, parent);
  el("rect", { width: 38, height: 26, rx: 4, fill: `url(#pat-${player.seat})`, stroke: "#222", "stroke-width": 1.2 }, g);
  text(g, 4, 11, player.colour.letter, { class: "piece-letter", fill: player.colour.text });
  text(g, 25, 20, String(count), { class: "piece-count", fill: player.colour.text, "text-anchor": "middle" });
  return g;
}

export function drawMap(svg, state, handlers) {
  svg.replaceChildren();
  const defs = el("defs", {}, svg);
  patternDefs(defs, state.players);
  el("rect", { x: 0, y: 0, width: 1000, height: 820, class: "sea" }, svg);
  // Neighbouring land, for orientation only (not part of the game).
  for (const shape of NEIGHBOURS) el("polygon", { points: shape.map((k) => pt(k).join(",")).join(" "), class: "land" }, svg);
  text(svg, 128, 470, "PORTUGAL", { class: "land-label", transform: "rotate(-80 128 470)" });
  text(svg, 760, 70, "FRANCIA", { class: "land-label" });
  text(svg, 820, 720, "MAR MEDITERRÁNEO", { class: "sea-label" });

  const legalByArea = new Map();
  for (const a of state.legal) {
    // Secret choices are made in their dialog (with Confirm), never by a stray map click.
    if (a.area && a.kind !== "pick" && a.kind !== "remove" && a.kind !== "secret") {
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

  const areas = Object.fromEntries(state.areas.map((a) => [a.code, a]));
  for (const [code, shape] of Object.entries(SHAPES)) {
    const area = areas[code];
    const points = shape.map((k) => pt(k).join(",")).join(" ");
    const legal = legalByArea.get(code);
    const [px, py] = CENTRES[code];
    const poly = el("polygon", {
      points, id: `area-${code}`, "data-area": code, "data-px": px, "data-py": py - 17,
      class: "region" + (area.king ? " king-region" : "") + (legal ? " legal" : ""),
    }, svg);
    const title = el("title", {}, poly);
    title.textContent = `${area.name}: ${area.awards.join(" / ")}`;
    if (legal) poly.addEventListener("click", () => handlers.choose(legal, area.name));
  }
  for (const [code] of Object.entries(SHAPES)) drawArea(svg, areas[code], state, legalByArea, legalPieces, handlers);
  drawCastillo(svg, areas.CAS, state, legalByArea, legalPieces, handlers);
  drawTilesOffBoard(svg, state);
}

function drawArea(svg, area, state, legalByArea, legalPieces, handlers) {
  const [cx, cy] = CENTRES[area.code];
  const g = el("g", { class: "area-info", "data-info": area.code }, svg);
  text(g, cx, cy - 26, area.name, { class: "region-name", "text-anchor": "middle" });
  const tiled = area.tile !== null && area.tile !== undefined;
  text(g, cx, cy - 8, area.awards.join("·") + (tiled ? " ▣" : ""), { class: "region-awards" + (tiled ? " tiled" : ""), "text-anchor": "middle" });
  // Caballero groups first, then Grandes and the King, three to a row.
  const items = state.players.filter((p) => area.counts[p.seat] > 0).map((p) => ({ kind: "piece", p }));
  for (const seat of area.grandes) items.push({ kind: "grande", p: state.players[seat] });
  if (area.king) items.push({ kind: "king" });
  const perRow = 3;
  items.forEach((item, i) => {
    const row = Math.floor(i / perRow);
    const inRow = Math.min(perRow, items.length - row * perRow);
    const x = cx - (inRow * 42) / 2 + (i % perRow) * 42;
    const y = cy + row * 30;
    if (item.kind === "piece") {
      const p = item.p;
      const legal = legalPieces.get(`${p.seat}-${area.code}`);
      const badge = pieceBadge(g, x, y, p, area.counts[p.seat], legal);
      badge.setAttribute("data-piece", `${p.seat}-${area.code}`);
      el("title", {}, badge).textContent = `${p.name}: ${area.counts[p.seat]} Caballero(s) in ${area.name}`;
      if (legal) badge.addEventListener("click", (e) => { e.stopPropagation(); handlers.choose(legal, `${p.name} in ${area.name}`); });
    } else if (item.kind === "grande") {
      const p = item.p;
      const gr = el("g", { class: "grande", transform: `translate(${x + 6},${y})`, "data-grande": p.seat }, g);
      el("rect", { width: 26, height: 26, fill: `url(#pat-${p.seat})`, stroke: "#000", "stroke-width": 3 }, gr);
      text(gr, 13, 18, p.colour.letter, { "text-anchor": "middle", class: "grande-letter", fill: p.colour.text });
      el("title", {}, gr).textContent = `Grande of ${p.name} (home region)`;
    } else {
      const k = el("g", { class: "king", transform: `translate(${x + 6},${y})`, "data-king": area.code }, g);
      el("path", { d: "M1,25 L1,8 L7,14 L13,1 L19,14 L25,8 L25,25 Z", fill: "#111", stroke: "#f5c400", "stroke-width": 1.5 }, k);
      el("title", {}, k).textContent = "The King";
    }
  });
}

function drawCastillo(svg, area, state, legalByArea, legalPieces, handlers) {
  const [cx, cy] = CENTRES.CAS;
  const legal = legalByArea.get("CAS");
  const g = el("g", { class: "castillo-group" }, svg);
  const tower = el("path", {
    id: "area-CAS", "data-area": "CAS", "data-px": cx + 55, "data-py": cy - 45,
    d: `M${cx - 70},${cy + 110} L${cx - 70},${cy - 60} L${cx - 50},${cy - 60} L${cx - 50},${cy - 80} L${cx - 30},${cy - 80} L${cx - 30},${cy - 60} L${cx - 10},${cy - 60} L${cx - 10},${cy - 80} L${cx + 10},${cy - 80} L${cx + 10},${cy - 60} L${cx + 30},${cy - 60} L${cx + 30},${cy - 80} L${cx + 50},${cy - 80} L${cx + 50},${cy - 60} L${cx + 70},${cy - 60} L${cx + 70},${cy + 110} Z`,
    class: "region castillo" + (legal ? " legal" : ""),
  }, g);
  el("title", {}, tower).textContent = `Castillo: ${area.awards.join(" / ")}`;
  if (legal) tower.addEventListener("click", () => handlers.choose(legal, "the Castillo"));
  text(g, cx, cy - 36, "Castillo", { class: "region-name", "text-anchor": "middle" });
  text(g, cx, cy - 18, area.awards.join("·") + (area.tile !== null ? " ▣" : ""), { class: "region-awards", "text-anchor": "middle" });
  // Castillo counts are public online (seed 001): one line per player, zeros included.
  state.players.forEach((p, i) => {
    const y = cy - 6 + i * 22;
    const badge = pieceBadge(g, cx - 45, y, p, area.counts[p.seat], false);
    badge.setAttribute("transform", `translate(${cx - 45},${y}) scale(0.8)`);
    badge.setAttribute("data-piece", `${p.seat}-CAS`);
    text(g, cx - 10, y + 15, p.name.slice(0, 9), { class: "castillo-name" });
  });
}

function drawTilesOffBoard(svg, state) {
  // Mobile scoreboards: on the board they show as the region's values with ▣; beside it here.
  const g = el("g", { class: "tiles" }, svg);
  text(g, 860, 600, "Mobile scoreboards", { class: "small-label", "text-anchor": "middle" });
  state.tiles.forEach((t, i) => {
    const x = 800 + i * 64;
    const y = 612;
    const box = el("g", { class: "tile" + (t.area ? " placed" : ""), transform: `translate(${x},${y})`, "data-tile": i }, g);
    el("rect", { width: 56, height: 30, rx: 4 }, box);
    text(box, 28, 14, t.values.join("/"), { "text-anchor": "middle", class: "tile-values" });
    text(box, 28, 26, t.area ? `on ${t.area}` : "beside", { "text-anchor": "middle", class: "tile-where" });
  });
}
