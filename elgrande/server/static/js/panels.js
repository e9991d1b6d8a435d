// Side panels: round track, action cards (with popovers), power cards, players, log,
// and the finished game's scores with a log stepper.
import { drawMap } from "./map.js";

const bootstrap = window.bootstrap;
let cardsKey = null;
let popovers = [];

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

function swatch(p) {
  const s = h("span", { class: `swatch pat-${p.colour.pattern}`, title: p.colour.name, text: p.colour.letter });
  s.style.backgroundColor = p.colour.hex;
  s.style.color = p.colour.text;
  return s;
}

function renderRounds(state) {
  const box = document.getElementById("rounds");
  box.replaceChildren();
  for (let r = 1; r <= 9; r++) {
    const played = state.round_labels.includes(r);
    const cls = ["round-chip"];
    if (!played) cls.push("skipped");
    if (r === state.round && !state.finished) cls.push("current");
    if (state.scoring_rounds.includes(r)) cls.push("scoring");
    box.append(h("span", { class: cls.join(" "), "data-round": r,
      title: (state.scoring_rounds.includes(r) ? "general scoring after this round" : "") + (played ? "" : " (skipped)"),
      text: String(r) }));
  }
}

function renderCards(state, handlers) {
  document.getElementById("cards").closest("section").classList.toggle("d-none", state.finished);
  const legal = new Map(state.legal.filter((a) => a.kind === "take").map((a) => [a.card, a]));
  const key = JSON.stringify([state.cards.map((c) => c.id), [...legal.keys()], state.card_taken]);
  if (key === cardsKey) return;
  cardsKey = key;
  popovers.forEach((p) => p.dispose());
  popovers = [];
  const box = document.getElementById("cards");
  box.replaceChildren();
  const shown = [...state.cards];
  if (state.card_taken && !shown.some((c) => c.id === state.card_taken)) {
    shown.push({ id: state.card_taken, name: "taken this turn", text: state.card_taken_text, stack: Number(state.card_taken[0]), taken: true });
  }
  for (const card of shown) {
    const a = legal.get(card.id);
    const el = h("div", { class: "action-card" + (a ? " legal" : "") + (card.taken ? " taken" : ""), "data-card": card.id });
    el.append(h("div", { class: "card-stack", text: `${card.stack}` , title: `deploys up to ${card.stack}` }));
    el.append(h("div", { class: "card-name", text: `${card.id} ${card.name}` }));
    const info = h("button", { class: "btn btn-link btn-sm p-0 card-info", type: "button", "aria-label": `About card ${card.id}`, text: "i" });
    el.append(info);
    popovers.push(new bootstrap.Popover(info, {
      title: `${card.name} (${card.id})`,
      content: `${card.text} Deploys up to ${card.stack} Caballero${card.stack > 1 ? "s" : ""} from your court, before or after the special action.`,
      trigger: "focus", placement: "bottom",
    }));
    info.addEventListener("click", (e) => e.stopPropagation());
    if (a) el.addEventListener("click", () => handlers.act(a));
    box.append(el);
  }
}

function renderPower(state, handlers) {
  const box = document.getElementById("power");
  box.replaceChildren();
  const me = state.seat !== null ? state.players[state.seat] : null;
  document.getElementById("power-owner").textContent = me ? "(yours)" : "";
  box.closest("section").classList.toggle("d-none", !me || state.finished);
  const bids = new Map(state.legal.filter((a) => a.kind === "bid").map((a) => [a.value, a]));
  const retrieve = new Map(state.legal.filter((a) => a.kind === "retrieve").map((a) => [a.value, a]));
  for (let v = 1; v <= 13; v++) {
    const inHand = me ? me.hand.includes(v) : false;
    const blocked = state.blocked_bids.includes(v);
    const a = bids.get(v) || retrieve.get(v);
    const cls = ["power-card"];
    if (!me || !inHand) cls.push("played");
    if (blocked) cls.push("blocked");
    if (a) cls.push("legal");
    const el = h("button", { class: cls.join(" "), type: "button", "data-bid": v,
      title: blocked ? "already played this round" : inHand ? "in your hand" : "played", text: String(v) });
    el.disabled = !a;
    if (a) el.addEventListener("click", () => handlers.act(a));
    box.append(el);
  }
}

function renderPlayers(state) {
  const table = document.getElementById("players");
  table.replaceChildren();
  table.append(h("thead", {}, h("tr", {},
    h("th", { text: "" }), h("th", { text: "Player" }), h("th", { text: "Score", class: "text-end" }),
    h("th", { text: "Court", class: "text-end", title: "Caballeros in court" }),
    h("th", { text: "Prov.", class: "text-end", title: "Caballeros in the provinces" }),
    h("th", { text: "Cast.", class: "text-end", title: "Caballeros in the Castillo" }),
    h("th", { text: "Card", class: "text-end", title: "power card this round" }))));
  const body = h("tbody");
  const order = state.order.length ? state.order : state.players.map((p) => p.seat);
  for (const p of state.players) {
    const turn = order.indexOf(p.seat);
    const row = h("tr", { class: (p.to_act ? "to-act " : "") + (p.seat === state.seat ? "me" : ""), "data-seat": p.seat },
      h("td", {}, swatch(p)),
      h("td", {}, `${p.name}${p.seat === state.seat ? " (you)" : ""}${p.to_act ? " ◀" : ""}`,
        p.secret === "chosen" ? h("span", { class: "badge text-bg-success ms-1", text: "chosen" }) : null,
        p.secret === "pending" ? h("span", { class: "badge text-bg-secondary ms-1", text: "choosing" }) : null,
        state.order.length ? h("span", { class: "text-body-secondary small ms-1", text: `#${turn + 1}` }) : null),
      h("td", { class: "text-end fw-bold", text: String(p.score) }),
      h("td", { class: "text-end", text: String(p.court) }),
      h("td", { class: "text-end", text: String(p.provinces) }),
      h("td", { class: "text-end", text: String(p.castillo) }),
      h("td", { class: "text-end", text: p.bid ? String(p.bid) : "–" }));
    body.append(row);
  }
  table.append(body);
}

function renderLog(state) {
  const list = document.getElementById("log");
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 5;
  list.replaceChildren();
  for (const entry of state.log) {
    list.append(h("li", { "data-seq": entry.seq, class: entry.event ? "log-event" : "", text: entry.text }));
  }
  if (atBottom || !list.dataset.init) list.scrollTop = list.scrollHeight;
  list.dataset.init = "1";
}

export function renderPanels(state, handlers) {
  renderRounds(state);
  renderCards(state, handlers);
  renderPower(state, handlers);
  renderPlayers(state);
  renderLog(state);
}

let finishedShown = false;

export function renderFinished(state, gameId) {
  if (finishedShown) return;
  finishedShown = true;
  const box = document.getElementById("finished");
  box.classList.remove("d-none");
  const ranked = [...state.players].sort((a, b) => b.score - a.score);
  const table = h("table", { class: "table table-sm w-auto", id: "final-scores" },
    h("thead", {}, h("tr", {}, h("th", { text: "" }), h("th", { text: "Player" }), h("th", { text: "Final score" }))));
  const body = h("tbody");
  for (const p of ranked) {
    body.append(h("tr", { class: state.winners.includes(p.seat) ? "table-warning" : "" },
      h("td", {}, swatch(p)), h("td", {}, p.name, state.winners.includes(p.seat) ? h("span", { class: "badge text-bg-warning ms-1", text: "winner" }) : null),
      h("td", { class: "fw-bold", text: String(p.score) })));
  }
  table.append(body);
  const total = state.seq;
  const slider = h("input", { type: "range", class: "form-range", min: "0", max: String(total), value: String(total), id: "replay-slider" });
  const prev = h("button", { class: "btn btn-outline-secondary btn-sm", id: "replay-prev", text: "◀ step" });
  const next = h("button", { class: "btn btn-outline-secondary btn-sm", id: "replay-next", text: "step ▶" });
  const where = h("span", { class: "small ms-2", id: "replay-where", text: `move ${total} of ${total}` });
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 1000 820");
  svg.id = "replay-map";
  svg.classList.add("replay-map");
  const caption = h("div", { class: "small text-body-secondary", id: "replay-caption" });
  async function show(seq) {
    slider.value = String(seq);
    where.textContent = `move ${seq} of ${total}`;
    const response = await fetch(`/api/games/${gameId}/replay/${seq}`);
    const view = await response.json();
    drawMap(svg, view, { choose: () => {} });
    const lines = view.log.filter((e) => e.seq === seq - 1).map((e) => e.text);
    caption.textContent = seq ? lines.join(" ") : "The start of the game.";
  }
  prev.addEventListener("click", () => show(Math.max(0, Number(slider.value) - 1)));
  next.addEventListener("click", () => show(Math.min(total, Number(slider.value) + 1)));
  slider.addEventListener("change", () => show(Number(slider.value)));
  const record = h("a", { href: `/api/games/${gameId}/record`, id: "record-link", text: "the game record (JSON, with the seed)" });
  box.append(h("h2", { class: "h5 mt-3", text: "Final scores" }), table,
    h("p", { class: "small" }, "Check every draw: ", record, "."),
    h("h2", { class: "h6", text: "Step through the game" }),
    h("div", { class: "d-flex align-items-center gap-2" }, prev, next, where), slider, caption, svg);
  show(total);
}
