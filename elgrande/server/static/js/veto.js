// Box rules (Veto cards): the rule set, the Vetos in front of their holders with their
// remaining life, an open veto window (what the special action has done so far and what
// the rest would do, who is asked, until when), and a holder's "no veto this turn / this
// round" (POST /api/games/{id}/veto; the server then passes for him at once). The Veto /
// No veto buttons themselves are game.js's (legal actions of kinds veto and pass).
// Every text is set as text, never as HTML.
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
    if (error) error.textContent = (body.error && body.error.message) || "Refused.";
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
  panel.appendChild(el("div", "Rules: the publisher's box rules (Veto cards, Castillo counts hidden).", "text-muted"));
  const held = el("ul", undefined, "list-unstyled mb-1");
  held.id = "veto-held";
  for (const h of veto.held) {
    const li = el("li", `🛑 ${names[h.seat]} holds a Veto (taken in round ${h.taken_round}; usable ${h.life}, until the end of round ${h.expires_after_round}).`);
    li.dataset.seat = h.seat;
    held.appendChild(li);
  }
  if (!veto.held.length) held.appendChild(el("li", "No Veto is held.", "text-muted"));
  panel.appendChild(held);
  for (const p of table.no_veto || []) {
    panel.appendChild(el("div", `${names[p.seat]}: no veto this ${p.scope}.`, "veto-pref"));
  }
  const w = veto.window;
  if (w) {
    const box = el("div", undefined, "alert alert-warning py-1 px-2 mb-1");
    box.id = "veto-window";
    box.appendChild(el("div", `Veto window: ${names[w.active]}'s card ${w.card}. Asked now: ${names[w.asking[0]]}.`, "fw-bold"));
    if (veto.declared_text) box.appendChild(el("div", `Declared: ${veto.declared_text}`));
    box.appendChild(el("div", "Done so far: " + (w.so_far.length ? w.so_far.join(" ") : "nothing yet.")));
    box.appendChild(el("div", `If nobody vetoes, next: ${w.rest}.`));
    const left = secondsLeft();
    if (left !== null) box.appendChild(el("div", `The server passes for ${names[w.asking[0]]} in ${left} s.`, "veto-countdown"));
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
      if (state.active !== null) button("No veto this turn", "turn", "no-veto-turn");
      button("No veto this round", "round", "no-veto-round");
    } else {
      button("Ask me again", "none", "no-veto-off");
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
