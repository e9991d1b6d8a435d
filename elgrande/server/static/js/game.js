// The game page: renders what the server sends (the seat's view and its legal actions),
// highlights the legal targets and sends back exactly the action clicked. No rules here.
import { drawMap } from "./map.js";
import { Connection } from "./net.js";
import { renderPanels, renderFinished } from "./panels.js";

const root = document.getElementById("game");
const gameId = Number(root.dataset.game);
const bootstrap = window.bootstrap;

const ui = {
  state: null,
  secretChoice: null,
  secretModal: new bootstrap.Modal(document.getElementById("secret-dialog")),
  chooseModal: new bootstrap.Modal(document.getElementById("choose-dialog")),
  secretDismissed: null,
  sent: 0, // commands sent; each is answered by a state carrying its id as "ack"
  acked: 0,
};
window.elgrande = ui; // for tests and the curious: the last state received

const conn = new Connection(`/ws/games/${gameId}`, {
  onState: (state, ack) => {
    if (ack !== undefined) ui.acked = Math.max(ui.acked, ack);
    document.body.classList.toggle("busy", ui.acked < ui.sent);
    render(state);
    retrySecret(state, ack);
  },
  onError: (err) => {
    // Someone else's secret choice came in just before ours: ours still stands, so it is
    // sent again on the new state (below) rather than asking for a second Confirm.
    if (err.code === "moved_on" && ui.secretCmd === ui.sent) { ui.retrySecret = true; return; }
    showError(err.message);
  },
  onStatus: (text, ok, resent = 0) => {
    if (ok && !resent && ui.acked < ui.sent) {
      // Reconnected: anything sent into the broken connection is lost; the fresh state
      // that follows shows what happened.
      ui.acked = ui.sent;
      document.body.classList.remove("busy");
    }
    const badge = document.getElementById("connection");
    badge.textContent = text;
    badge.className = "badge " + (ok ? "text-bg-success" : "text-bg-warning");
  },
  onLobby: () => location.reload(),
});

function send(type, extra = {}) {
  if (!ui.state) return;
  hideError();
  ui.sent += 1;
  document.body.classList.add("busy"); // one command at a time: no double clicks
  conn.send({ type, id: ui.sent, seq: ui.state.seq, ...extra });
}

export function act(action) {
  ui.chooseModal.hide();
  send("step", { action: action.text });
}

function choose(actions, where) {
  if (actions.length === 1) return act(actions[0]);
  const box = document.getElementById("choose-options");
  document.getElementById("choose-title").textContent = `What in ${where}?`;
  box.replaceChildren();
  for (const a of actions) {
    const b = document.createElement("button");
    b.className = "btn btn-outline-primary btn-sm";
    b.dataset.action = a.text;
    b.textContent = label(a);
    b.addEventListener("click", () => act(a));
    box.appendChild(b);
  }
  ui.chooseModal.show();
}

const AREA_NAMES = {
  GAL: "Galicia", PVA: "País Vasco", ARA: "Aragón", CAT: "Cataluña", CLV: "Castilla la Vieja",
  CLN: "Castilla la Nueva", SEV: "Sevilla", GRA: "Granada", VAL: "Valencia", CAS: "the Castillo", court: "court",
};

const DONE_LABELS = {
  deploy: "Done deploying", move: "Stop moving", move_drop: "Stop moving", court_place: "Done placing",
  empty_drop: "Done", lose: "Done",
};

export function label(a, phase = "") {
  const area = AREA_NAMES[a.area] || a.area;
  switch (a.kind) {
    case "deploy": return "Deploy first";
    case "special": return phase === "choose" ? "Special action first" : "Use the special action";
    case "end": return phase === "choose" ? "End turn without using the card" : "End turn (skip the special action)";
    case "done": return DONE_LABELS[phase] || "Done";
    case "recruit": return `Recruit ${a.value}`;
    case "court": return `Bring ${a.value} to court`;
    case "option": return a.option === "1c" ? "Place from court (1c)" : "Empty a region (1b)";
    case "lose": return a.area === "court" ? "Lose one from court" : `Lose one in ${area}`;
    case "tile": return `Scoreboard ${a.tile === 0 ? "8/4/0" : "4/0/0"} → ${area}`;
    case "place": return `Place in ${area}`;
    case "drop": return `Put it in ${area}`;
    case "from": return `Choose ${area}`;
    case "score": return `Score ${area}`;
    case "grande": return `Grande → ${area}`;
    case "king": return `King → ${area}`;
    case "evict": return `Evict from ${area}`;
    case "recall": return `Recall from ${area}`;
    case "secret": return area;
    case "bid": return `Power card ${a.value}`;
    case "retrieve": return `Take back ${a.value}`;
    case "take": return `Take card ${a.card}`;
    default: return a.text;
  }
}

// Actions with no place on the board get buttons above it.
const BUTTON_KINDS = new Set(["deploy", "special", "end", "done", "recruit", "court", "option"]);

function renderButtons(state) {
  const box = document.getElementById("buttons");
  box.replaceChildren();
  if (state.legal.some((a) => a.kind === "secret")) {
    const b = document.createElement("button");
    b.className = "btn btn-warning btn-sm legal-button";
    b.id = "open-secret";
    b.textContent = "Make your secret choice…";
    b.addEventListener("click", () => { ui.secretDismissed = null; renderSecret(ui.state); });
    box.appendChild(b);
  }
  for (const a of state.legal) {
    if (!(BUTTON_KINDS.has(a.kind) || (a.kind === "lose" && a.area === "court"))) continue;
    const b = document.createElement("button");
    b.className = "btn btn-warning btn-sm legal-button";
    b.dataset.action = a.text;
    b.textContent = label(a, state.phase);
    b.addEventListener("click", () => act(a));
    box.appendChild(b);
  }
}

function renderStatus(state) {
  const el = document.getElementById("status");
  const names = state.players.map((p) => p.name);
  let text;
  let cls = "alert-secondary";
  if (state.finished) {
    const w = state.winners.map((s) => names[s]).join(" and ");
    text = `The game is over. ${w} ${state.winners.length > 1 ? "share the win" : "wins"}.`;
    cls = "alert-dark";
  } else if (state.legal.length) {
    text = `Your turn (round ${state.round}): ${state.prompt}`;
    cls = "alert-warning";
  } else if (state.draft.can_finish) {
    text = "Your turn is complete: Finish turn to confirm it (or Undo).";
    cls = "alert-success";
  } else if (state.secret.purpose && state.seat !== null && state.secret.chosen.includes(state.seat)) {
    text = "You have chosen. Waiting for the others' secret choices…";
  } else {
    const who = state.to_act.map((s) => names[s]).join(", ");
    text = who ? `Round ${state.round}: waiting for ${who}.` : `Round ${state.round}.`;
  }
  el.className = `alert py-2 mb-2 ${cls}`;
  el.textContent = text;
}

function renderControls(state) {
  const d = state.draft;
  document.getElementById("undo").disabled = !d.can_undo;
  document.getElementById("redo").disabled = !d.can_redo;
  const finish = document.getElementById("finish");
  finish.disabled = !d.can_finish;
  finish.className = "btn btn-sm " + (d.can_finish ? "btn-success" : "btn-outline-secondary");
  finish.classList.toggle("pulse", d.can_finish);
  document.getElementById("controls").classList.toggle("d-none", state.spectator || state.finished);
}

function renderSecret(state) {
  const secretActions = state.legal.filter((a) => a.kind === "secret");
  const dialog = document.getElementById("secret-dialog");
  if (!secretActions.length) {
    if (dialog.classList.contains("show")) ui.secretModal.hide();
    ui.secretChoice = null;
    return;
  }
  document.getElementById("secret-title").textContent = state.secret.title || "Secret choice";
  const box = document.getElementById("secret-options");
  box.replaceChildren();
  for (const a of secretActions) {
    const b = document.createElement("button");
    b.className = "btn btn-sm " + (ui.secretChoice === a.text ? "btn-primary" : "btn-outline-primary");
    b.dataset.secret = a.text;
    b.textContent = label(a);
    b.addEventListener("click", () => { ui.secretChoice = a.text; renderSecret(ui.state); });
    box.appendChild(b);
  }
  const who = document.getElementById("secret-who");
  who.replaceChildren();
  for (const p of state.players) {
    if (p.secret === "not_asked") continue;
    const line = document.createElement("div");
    line.dataset.seat = p.seat;
    line.textContent = `${p.colour.letter} ${p.name}: ${p.secret === "chosen" ? "has chosen ✓" : "still choosing…"}`;
    who.appendChild(line);
  }
  document.getElementById("secret-confirm").disabled = !ui.secretChoice;
  const key = `${state.seq}`;
  if (!dialog.classList.contains("show") && ui.secretDismissed !== key) ui.secretModal.show();
}

document.getElementById("secret-confirm").addEventListener("click", () => {
  const a = ui.state.legal.find((x) => x.text === ui.secretChoice);
  if (a) confirmSecret(a);
});

function confirmSecret(a) {
  ui.secretModal.hide();
  ui.lastSecret = a.text;
  act(a);
  ui.secretCmd = ui.sent;
}

// Called with each state; acts only on the answer to a secret confirmation.
function retrySecret(state, ack) {
  if (ack === undefined || ack !== ui.secretCmd) return;
  const retry = ui.retrySecret;
  const wanted = ui.lastSecret;
  ui.retrySecret = false;
  ui.lastSecret = null;
  ui.secretCmd = null;
  if (!retry) return; // it went through
  const again = state.legal.find((x) => x.text === wanted);
  if (again) confirmSecret(again);
  // A refusal stored nothing (the server commits a secret choice in one transaction);
  // ask again only when a choice is offered: without one the new state says it all.
  else if (state.legal.some((x) => x.kind === "secret")) {
    showError("The game moved on before your choice arrived; please choose again.");
  }
}
document.getElementById("secret-hide").addEventListener("click", () => { ui.secretDismissed = `${ui.state.seq}`; });
document.getElementById("undo").addEventListener("click", () => send("undo"));
document.getElementById("redo").addEventListener("click", () => send("redo"));
document.getElementById("finish").addEventListener("click", () => send("finish"));

function showError(message) {
  const el = document.getElementById("error");
  el.textContent = message;
  el.classList.remove("d-none");
}
function hideError() { document.getElementById("error").classList.add("d-none"); }

// Who resigned, when, and who plays their seat now; at the end they are ranked last.
function renderResignations(state) {
  const resign = document.getElementById("resign");
  if (resign && state.finished) resign.remove();
  const list = document.getElementById("resignations");
  const gone = state.players.filter((p) => p.resigned);
  list.classList.toggle("d-none", !gone.length);
  list.replaceChildren(...gone.map((p) => {
    const li = document.createElement("li");
    li.dataset.seat = p.seat;
    li.textContent = `${p.name} resigned in round ${p.resigned.round} (after move ${p.resigned.seq})` +
      (state.finished ? " and is ranked last; " : "; ") +
      `a computer opponent (${p.stand_in}) ${state.finished ? "played" : "plays"} the seat on.`;
    return li;
  }));
  if (state.finished && state.ranking.length) rankFinalScores(state);
  for (const p of gone) logResignation(p);
}

// A line in the move log where the player resigned (before the first move made after).
function logResignation(p) {
  const log = document.getElementById("log");
  const line = document.createElement("li");
  line.className = "log-event log-resigned";
  line.dataset.seat = p.seat;
  line.textContent = `${p.name} resigned; a computer opponent (${p.stand_in}) plays the seat on.`;
  const after = [...log.children].find((li) => Number(li.dataset.seq) >= p.resigned.seq);
  log.insertBefore(line, after || null);
}

// The final table lists players by score; those who resigned go last (state.ranking).
function rankFinalScores(state) {
  const body = document.querySelector("#final-scores tbody");
  if (!body || body.dataset.ranked) return;
  body.dataset.ranked = "1";
  const byScore = [...state.players].sort((a, b) => b.score - a.score); // as panels.js lists them
  const rows = [...body.children];
  const rowOf = new Map(byScore.map((p, i) => [p.seat, rows[i]]));
  for (const seat of state.ranking) {
    const row = rowOf.get(seat);
    if (!row) continue;
    row.dataset.seat = seat;
    if (state.players[seat].resigned) {
      const badge = document.createElement("span");
      badge.className = "badge text-bg-secondary ms-1 resigned-badge";
      badge.textContent = "resigned";
      row.children[1].append(badge);
    }
    body.append(row); // appended in ranking order
  }
}

function render(state) {
  ui.state = state;
  drawMap(document.getElementById("map"), state, { choose });
  renderStatus(state);
  renderControls(state);
  renderButtons(state);
  renderPanels(state, { act });
  renderSecret(state);
  if (state.finished) renderFinished(state, gameId);
  renderResignations(state);
  const commitment = root.dataset.commitment;
  document.getElementById("commitment").textContent = commitment
    ? `Card draws come from a secret seed with SHA-256 ${commitment}; ` +
      (state.finished ? "the seed is in the game record." : "the seed is published when the game ends.")
    : "";
  const mine = state.legal.length > 0 || state.draft.can_finish;
  document.title = `${mine ? "▶ Your turn · " : ""}Game ${gameId} · El Grande`;
  ui.renders = (ui.renders || 0) + 1;
  document.body.dataset.renders = ui.renders;
  document.body.dataset.seq = state.seq;
  document.body.dataset.legal = state.legal.length;
  document.body.dataset.steps = state.draft.steps.length;
  window.dispatchEvent(new CustomEvent("elgrande:state", { detail: state }));
}

ui.connection = conn;
conn.open();
