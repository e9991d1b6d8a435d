// Side panels: round track, action cards (with popovers), power cards, players, log,
// and the finished game's scores with a log stepper.
import { ngettext, t } from "./i18n.js";
import { scoreChart } from "./chart.js";
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
      title: (state.scoring_rounds.includes(r) ? t("general scoring after this round") : "") + (played ? "" : " " + t("(skipped)")),
      text: String(r) }));
  }
}

// An action card: its face is one button (id, name, effect in a few words, how many it
// deploys) with the full text as a tooltip on hover and focus; the ⓘ beside it opens the
// details. A card that cannot be taken now stays focusable (aria-disabled) for its tooltip.
function renderCards(state, handlers) {
  const section = document.getElementById("cards").closest("section");
  section.classList.toggle("d-none", state.finished);
  const legal = new Map(state.legal.filter((a) => a.kind === "take").map((a) => [a.card, a]));
  const key = JSON.stringify([state.cards.map((c) => c.id), [...legal.keys()], state.card_taken, state.round, state.phase]);
  if (key === cardsKey) return;
  cardsKey = key;
  popovers.forEach((p) => { p.hide(); p.dispose(); });
  popovers = [];
  const box = document.getElementById("cards");
  box.replaceChildren();
  const shown = state.cards.map((c) => ({ ...c }));
  if (state.card_taken && state.card_taken_card && !shown.some((c) => c.id === state.card_taken)) {
    shown.push({ ...state.card_taken_card, taken: true });
  }
  for (const card of shown) {
    const a = legal.get(card.id);
    const el = h("div", { class: "action-card" + (a ? " legal" : "") + (card.taken ? " taken" : ""), "data-card": card.id });
    const values = { id: card.id, name: card.name, short: card.short, stack: card.stack };
    const name = (a ? t("Take card %(id)s, %(name)s: %(short)s; deploys %(stack)s", values)
      : t("Card %(id)s, %(name)s: %(short)s; deploys %(stack)s", values)) +
      (card.taken ? " " + t("(taken this turn)") : "");
    const face = h("button", { type: "button", class: "card-face", "aria-label": name, "data-key": `card-${card.id}` },
      h("span", { class: "card-head" },
        h("span", { class: "card-id", text: card.id }),
        h("span", { class: "card-name", text: card.name })),
      h("span", { class: "card-short", text: card.short }),
      h("span", { class: "card-stack", title: t("deploys up to %(stack)s", { stack: card.stack }) },
        h("span", { class: "card-stack-n", text: String(card.stack) }), " " + t("deploy"),
        card.taken ? h("span", { class: "card-taken-note", text: " · " + t("taken") }) : null));
    if (!a) face.setAttribute("aria-disabled", "true");
    face.addEventListener("click", () => { if (a) handlers.act(a); });
    el.append(face);
    popovers.push(new bootstrap.Tooltip(face, {
      title: `${card.id} ${card.name}: ${card.text} ` + t("Deploys up to %(stack)s.", { stack: card.stack }),
      trigger: "hover focus", placement: "top", animation: false,
    }));
    const info = h("button", { class: "btn btn-link btn-sm p-0 card-info", type: "button", "aria-label": t("About card %(id)s", { id: card.id }), text: "i" });
    el.append(info);
    popovers.push(new bootstrap.Popover(info, {
      title: `${card.name} (${card.id})`,
      content: `${card.text} ` + ngettext("Deploys up to %(num)s Caballero from your court, before or after the special action.", "Deploys up to %(num)s Caballeros from your court, before or after the special action.", card.stack),
      trigger: "focus", placement: "bottom", animation: false,
    }));
    info.addEventListener("click", (e) => e.stopPropagation());
    box.append(el);
  }
  // An empty row says why.
  const why = document.getElementById("cards-note");
  let note = "";
  if (!shown.length && !state.finished) {
    if (state.secret.purpose === "general") {
      note = t("Round %(round)s is over: general scoring first, then the next round's action cards are laid out.", { round: state.round });
    } else if (state.draft.can_finish && !state.legal.length) {
      note = t("All of round %(round)s's action cards are taken. The next round's are laid out once you finish your turn.", { round: state.round });
    } else {
      note = t("All of round %(round)s's action cards are taken; the next round's are laid out when it begins.", { round: state.round });
    }
  }
  why.textContent = note;
  why.classList.toggle("d-none", !note);
}

function renderPower(state, handlers) {
  const box = document.getElementById("power");
  box.replaceChildren();
  const me = state.seat !== null ? state.players[state.seat] : null;
  document.getElementById("power-owner").textContent = me ? t("(yours)") : "";
  box.closest("section").classList.toggle("d-none", !me || state.finished);
  const bids = new Map(state.legal.filter((a) => a.kind === "bid").map((a) => [a.value, a]));
  const retrieve = new Map(state.legal.filter((a) => a.kind === "retrieve").map((a) => [a.value, a]));
  for (let v = 1; v <= 13; v++) {
    const inHand = me ? me.hand.includes(v) : false;
    const blocked = inHand && state.blocked_bids.includes(v);
    const a = bids.get(v) || retrieve.get(v);
    const cls = ["power-card"];
    const status = !inHand ? "played" : blocked ? "blocked" : "in-hand";
    cls.push(status);
    if (a) cls.push("legal");
    const what = { played: t("played earlier"), blocked: t("in your hand, blocked: played by someone this round"), "in-hand": t("in your hand") }[status];
    const label = a ? (a.kind === "retrieve" ? t("Take back power card %(value)s", { value: v }) : t("Play power card %(value)s", { value: v }))
      : t("Power card %(value)s, %(what)s", { value: v, what });
    const el = h("button", { class: cls.join(" "), type: "button", "data-bid": v, "data-key": `bid-${v}`,
      title: what, "aria-label": label, text: String(v) });
    if (!a) el.setAttribute("aria-disabled", "true");
    if (a) el.addEventListener("click", () => handlers.act(a));
    box.append(el);
  }
}

function renderPlayers(state) {
  const table = document.getElementById("players");
  table.replaceChildren();
  table.append(h("thead", {}, h("tr", {},
    h("th", { text: "" }), h("th", { text: t("Player") }), h("th", { text: t("Score"), class: "text-end" }),
    h("th", { text: t("Court"), class: "text-end", title: t("Caballeros in court") }),
    h("th", { text: t("Prov."), class: "text-end", title: t("Caballeros in the provinces") }),
    h("th", { text: t("Cast."), class: "text-end", title: t("Caballeros in the Castillo") }),
    h("th", { text: t("Card"), class: "text-end", title: t("power card this round") }))));
  const body = h("tbody");
  const order = state.order.length ? state.order : state.players.map((p) => p.seat);
  document.getElementById("players").setAttribute("aria-label", t("Players, scores and Caballeros"));
  for (const p of state.players) {
    const turn = order.indexOf(p.seat);
    const row = h("tr", { class: (p.to_act ? "to-act " : "") + (p.seat === state.seat ? "me" : ""), "data-seat": p.seat },
      h("td", {}, swatch(p)),
      h("td", {}, p.to_act ? h("span", { class: "turn-marker", title: t("to play now"), "aria-label": t("to play now"), text: "▶ " }) : null,
        p.name + (p.seat === state.seat ? " " + t("(you)") : ""),
        p.secret === "chosen" ? h("span", { class: "badge text-bg-success ms-1", text: t("chosen") }) : null,
        p.secret === "pending" ? h("span", { class: "badge text-bg-secondary ms-1", text: t("choosing") }) : null,
        state.order.length ? h("span", { class: "text-body-secondary small ms-1", text: `#${turn + 1}` }) : null),
      h("td", { class: "text-end fw-bold", text: String(p.score) }),
      h("td", { class: "text-end", text: String(p.court) }),
      h("td", { class: "text-end", text: String(p.provinces ?? "?") }),
      h("td", { class: "text-end", text: String(p.castillo ?? "?") }),
      h("td", { class: "text-end", text: p.bid ? String(p.bid) : "–" }));
    body.append(row);
  }
  table.append(body);
}

// The log keeps its newest line in view, unless the reader scrolled up to older lines
// (then it stays where they are until they scroll back down).
let logPinned = true;
function pinLog(list) {
  if (list.dataset.pin) return;
  list.dataset.pin = "1";
  list.addEventListener("scroll", () => {
    logPinned = list.scrollTop + list.clientHeight >= list.scrollHeight - 5;
  });
  // The column's other parts change size (cards come and go): stay at the bottom.
  new ResizeObserver(() => { if (logPinned) list.scrollTop = list.scrollHeight; }).observe(list);
}

function renderLog(state) {
  const list = document.getElementById("log");
  pinLog(list);
  list.replaceChildren();
  for (const entry of state.log) {
    list.append(h("li", { "data-seq": entry.seq, class: entry.event ? "log-event" : "", text: entry.text }));
  }
  if (logPinned) list.scrollTop = list.scrollHeight;
}

// While the others' moves are played step by step: the round, cards and players as they
// were after that step (`board`: a spectator's board, with the viewer's seat).
export function renderWatched(board) {
  renderRounds(board);
  renderCards(board, { act: () => {} });
  renderPlayers(board);
}

export function renderPanels(state, handlers) {
  renderRounds(state);
  renderCards(state, handlers);
  renderPower(state, handlers);
  renderPlayers(state);
  renderLog(state);
}

// --- The finished game: final scores with where they came from and a chart of the
// scores over time (top of the page), and a stepper that shows the board after any move
// on the main map, by single moves, by turns and by rounds.
let finishedShown = false;

const PART_HEADS = [
  ["general", t("General scorings"), t("regions scored at the general scorings (bonuses apart)")],
  ["special", t("Special scorings"), t("regions scored by the special actions of action cards (bonuses apart)")],
  ["castillo", "Castillo", t("the Castillo, at general scorings and by cards")],
  ["bonuses", t("Bonuses"), t("+2 for the sole leader of the region of their Grande, +2 of the King's region")],
];

function breakdownCells(table, summary) {
  const other = summary.seats.some((s) => s.other);
  if (other) table.querySelector("thead tr").append(h("th", { class: "text-end", text: t("Other") }));
  for (const seat of summary.seats) {
    const row = table.querySelector(`tbody tr[data-seat="${seat.seat}"]`);
    if (!row) continue;
    row.querySelectorAll(".part").forEach((td) => {
      const part = td.dataset.part;
      td.textContent = String(seat[part]);
      if (part === "bonuses") td.title = t("Grande %(grande)s, King %(king)s", seat);
    });
    if (other) row.append(h("td", { class: "text-end", text: String(seat.other) }));
  }
}

// state: the finished view; map: the main map's SVG, which the stepper draws on.
export function renderFinished(state, gameId, map) {
  if (finishedShown) return true;
  finishedShown = true;
  const box = document.getElementById("finished");
  box.classList.remove("d-none");
  const ranked = [...state.players].sort((a, b) => b.score - a.score);
  const head = h("tr", {}, h("th", { text: "", "aria-label": t("Colour") }), h("th", { text: t("Player") }),
    h("th", { class: "text-end", text: t("Final score") }));
  for (const [, name, why] of PART_HEADS) head.append(h("th", { class: "text-end", title: why, text: name }));
  const table = h("table", { class: "table table-sm w-auto mb-1", id: "final-scores" }, h("thead", {}, head));
  const body = h("tbody");
  for (const p of ranked) {
    const row = h("tr", { class: state.winners.includes(p.seat) ? "table-warning" : "", "data-seat": p.seat },
      h("td", {}, swatch(p)), h("td", {}, p.name, state.winners.includes(p.seat) ? h("span", { class: "badge text-bg-warning ms-1", text: t("winner") }) : null),
      h("td", { class: "fw-bold text-end", text: String(p.score) }));
    for (const [part] of PART_HEADS) row.append(h("td", { class: "text-end part", "data-part": part, text: "…" }));
    body.append(row);
  }
  table.append(body);
  const record = h("a", { href: `/api/games/${gameId}/record`, id: "record-link", text: t("the game record (JSON, with the seed)") });
  const chartBox = h("figure", { class: "score-chart-box mb-0", id: "score-chart-box" },
    h("figcaption", { class: "small text-body-secondary", text: t("Scores over the game: rounds on top, general scorings marked ▲ (click to see the board then).") }));
  box.append(h("h2", { class: "h5 mb-1", id: "final-title", text: t("Final scores") }),
    h("div", { class: "row g-2 align-items-start" },
      h("div", { class: "col-xl-5 col-lg-6" }, h("div", { class: "table-responsive", tabindex: "0", role: "region", "aria-label": t("Final scores") }, table),
        h("p", { class: "small mb-0" }, t("Check every draw:") + " ", record, ".")),
      h("div", { class: "col-xl-7 col-lg-6" }, chartBox)));

  // The stepper, above the map.
  const total = state.seq;
  let summary = null;
  let chart = null;
  let current = total;
  const names = state.players.map((p) => p.name);
  const btn = (id, label, text) => h("button", { type: "button", class: "btn btn-outline-secondary btn-sm", id, "aria-label": label, text });
  const roundPrev = btn("replay-round-prev", t("Back to the start of the round"), "« " + t("round"));
  const turnPrev = btn("replay-turn-prev", t("Back one turn"), "◀ " + t("turn"));
  const prev = btn("replay-prev", t("Back one move"), "◀ " + t("step"));
  const next = btn("replay-next", t("Forward one move"), t("step") + " ▶");
  const turnNext = btn("replay-turn-next", t("Forward one turn"), t("turn") + " ▶");
  const roundNext = btn("replay-round-next", t("Forward to the next round"), t("round") + " »");
  for (const b of [roundPrev, turnPrev, turnNext, roundNext]) b.disabled = true;
  const where = h("span", { class: "small", id: "replay-where", text: t("move %(seq)s of %(total)s", { seq: total, total }) });
  const turnText = h("span", { class: "small fw-semibold", id: "replay-turn", "aria-live": "polite" });
  const slider = h("input", { type: "range", class: "form-range", min: "0", max: String(total), value: String(total), id: "replay-slider", "aria-label": "Move shown" });
  const caption = h("div", { class: "small text-body-secondary replay-caption", id: "replay-caption" });
  const stepper = document.getElementById("replay");
  stepper.classList.remove("d-none");
  stepper.append(h("h2", { class: "h6 mb-1", text: t("Step through the game") }),
    h("div", { class: "d-flex flex-wrap align-items-center gap-1", role: "group", "aria-label": t("Step through the game") },
      roundPrev, turnPrev, prev, next, turnNext, roundNext, where, turnText), slider, caption);

  function describeTurn(seq) {
    if (!summary) return "";
    const round = [...summary.rounds].reverse().find((r) => r.seq <= seq);
    const turn = summary.turns.find((t) => t.start < seq && seq <= t.seq);
    const r = round ? t("Round %(round)s", { round: round.round }) : t("Set-up");
    if (!seq) return t("Set-up");
    if (!turn) return r;
    const whose = t("%(name)s's turn", { name: names[turn.seat] });
    return `${r} · ${whose}` + (seq === turn.seq ? ""
      : " " + t("(move %(step)s of %(count)s)", { step: seq - turn.start, count: turn.seq - turn.start }));
  }

  let asked = 0;
  async function show(seq) {
    current = seq;
    slider.value = String(seq);
    where.textContent = t("move %(seq)s of %(total)s", { seq, total });
    turnText.textContent = describeTurn(seq);
    if (chart) chart.mark(seq);
    const mine = ++asked;
    const response = await fetch(`/api/games/${gameId}/replay/${seq}`);
    const view = await response.json();
    if (mine !== asked) return; // a later request was made meanwhile
    drawMap(map, view, { choose: () => {} });
    renderWatched(view); // the rounds, cards and players as they were then, too
    map.dataset.replaySeq = String(seq);
    const lines = view.log.filter((e) => e.seq === seq - 1).map((e) => e.text);
    caption.textContent = seq ? lines.join(" ") : t("The start of the game.");
  }
  const turnEnds = () => [0, ...summary.turns.map((t) => t.seq)];
  const roundStarts = () => [...summary.rounds.map((r) => r.seq), total];
  prev.addEventListener("click", () => show(Math.max(0, current - 1)));
  next.addEventListener("click", () => show(Math.min(total, current + 1)));
  turnPrev.addEventListener("click", () => show(Math.max(0, ...turnEnds().filter((s) => s < current))));
  turnNext.addEventListener("click", () => show(Math.min(total, ...turnEnds().filter((s) => s > current))));
  roundPrev.addEventListener("click", () => show(Math.max(0, ...roundStarts().filter((s) => s < current))));
  roundNext.addEventListener("click", () => show(Math.min(total, ...roundStarts().filter((s) => s > current))));
  slider.addEventListener("change", () => show(Number(slider.value)));
  // The coach's review (review.js) shows a mistake's position here.
  window.addEventListener("elgrande:replay", (e) => {
    show(Math.max(0, Math.min(total, e.detail.seq)));
    map.scrollIntoView({ block: "nearest" });
  });
  slider.addEventListener("input", () => { where.textContent = `move ${slider.value} of ${total}`; });

  fetch(`/api/games/${gameId}/summary`).then((r) => (r.ok ? r.json() : null)).then((got) => {
    if (!got) return;
    summary = got;
    breakdownCells(table, summary);
    chart = scoreChart(summary, state.players, { onPick: (seq) => show(seq) });
    chartBox.prepend(chart.svg);
    chart.mark(current);
    for (const b of [roundPrev, turnPrev, turnNext, roundNext]) b.disabled = false;
    turnText.textContent = describeTurn(current);
    box.dataset.summary = "1";
  });
  show(total);
  return true;
}
