// Box rules (Veto cards): the rule set, the Vetos in front of their holders with their
// remaining life, an open veto window (what the special action has done so far and what
// the rest would do, who is asked, until when), and a holder's "no veto this turn / this
// round" (POST /api/games/{id}/veto; the server then passes for him at once). The Veto /
// No veto buttons themselves are game.js's (legal actions of kinds veto and pass).
// Every text is set as text, never as HTML.
import { t } from "./i18n.js";
const root = document.getElementById("game");
const panel = document.getElementById("veto-panel");
const gameId = root.dataset.game;
const csrf = root.dataset.csrf;
const mySeat = root.dataset.seat === "" ? null : Number(root.dataset.seat);
let state = null;
let table = { no_veto: [], window_deadline: null };
let timer = null;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

async function choose(scope) {
  const response = await fetch(`/api/games/${gameId}/veto`, {
    method: "POST", credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify({ scope }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = panel.querySelector(".veto-error");
    if (error) error.textContent = (body.error && body.error.message) || t("Refused.");
    return;
  }
  if (body.veto) table = body.veto;
  render();
}

function secondsLeft() {
  if (!table.window_deadline) return null;
  const now = Date.parse(table.now || new Date().toISOString());
  const skew = Date.now() - (table.received || Date.now());
  return Math.max(0, Math.round((Date.parse(table.window_deadline) - now - skew) / 1000));
}

function render() {
  if (!state || !state.veto) { panel.classList.add("d-none"); return; }
  const names = state.players.map((p) => p.name);
  const veto = state.veto;
  panel.replaceChildren();
  panel.classList.remove("d-none");
  panel.className = "mb-2 small border rounded p-2";
  panel.appendChild(el("div", t("Rules: the publisher's box rules (Veto cards, Castillo counts hidden)."), "text-muted"));
  const held = el("ul", undefined, "list-unstyled mb-1");
  held.id = "veto-held";
  for (const h of veto.held) {
    const li = el("li", "🛑 " + t("%(name)s holds a Veto (taken in round %(taken)s; usable %(life)s, until the end of round %(until)s).", { name: names[h.seat], taken: h.taken_round, life: h.life, until: h.expires_after_round }));
    li.dataset.seat = h.seat;
    held.appendChild(li);
  }
  if (!veto.held.length) held.appendChild(el("li", t("No Veto is held."), "text-muted"));
  panel.appendChild(held);
  for (const p of table.no_veto || []) {
    panel.appendChild(el("div", p.scope === "round" ? t("%(name)s: no veto this round.", { name: names[p.seat] }) : t("%(name)s: no veto this turn.", { name: names[p.seat] }), "veto-pref"));
  }
  const w = veto.window;
  if (w) {
    const box = el("div", undefined, "alert alert-warning py-1 px-2 mb-1");
    box.id = "veto-window";
    box.appendChild(el("div", t("Veto window: %(active)s's card %(card)s. Asked now: %(asked)s.", { active: names[w.active], card: w.card, asked: names[w.asking[0]] }), "fw-bold"));
    if (veto.declared_text) box.appendChild(el("div", t("Declared: %(text)s", { text: veto.declared_text })));
    box.appendChild(el("div", t("Done so far: %(done)s", { done: w.so_far.length ? w.so_far.join(" ") : t("nothing yet.") })));
    box.appendChild(el("div", t("If nobody vetoes, next: %(rest)s.", { rest: w.rest })));
    const left = secondsLeft();
    if (left !== null) box.appendChild(el("div", t("The server passes for %(name)s in %(left)s s.", { name: names[w.asking[0]], left }), "veto-countdown"));
    panel.appendChild(box);
  }
  const holds = mySeat !== null && veto.held.some((h) => h.seat === mySeat) && !state.finished;
  if (holds) {
    const mine = (table.no_veto || []).find((p) => p.seat === mySeat);
    const row = el("div", undefined, "d-flex flex-wrap gap-1");
    const button = (text, scope, id) => {
      const b = el("button", text, "btn btn-outline-secondary btn-sm");
      b.id = id;
      b.addEventListener("click", () => choose(scope));
      row.appendChild(b);
    };
    if (!mine) {
      if (state.active !== null) button(t("No veto this turn"), "turn", "no-veto-turn");
      button(t("No veto this round"), "round", "no-veto-round");
    } else {
      button(t("Ask me again"), "none", "no-veto-off");
    }
    panel.appendChild(row);
    panel.appendChild(el("div", "", "veto-error text-danger"));
  }
  clearInterval(timer);
  if (w && table.window_deadline) timer = setInterval(render, 1000);
}

window.addEventListener("elgrande:state", (event) => { state = event.detail; render(); });
document.addEventListener("elgrande:veto", (event) => {
  table = { ...event.detail, received: Date.now() };
  render();
});
