// The game page: renders what the server sends (the seat's view and its legal actions),
// highlights the legal targets and sends back exactly the action clicked. No rules here.
import { drawMap } from "./map.js";
import { Connection } from "./net.js";
import { t } from "./i18n.js";
import { renderPanels, renderFinished, renderWatched } from "./panels.js";
import { keepPressesAcrossRedraws } from "./presses.js";

const root = document.getElementById("game");
const gameId = Number(root.dataset.game);
const bootstrap = window.bootstrap;

const ui = {
  state: null,
  secretChoice: null,
  chooseModal: new bootstrap.Modal(document.getElementById("choose-dialog")),
  secretDismissed: null,
  sent: 0, // commands sent; each is answered by a state carrying its id as "ack"
  acked: 0,
};
window.elgrande = ui; // for tests and the curious: the last state received
ui.redraw = () => render(ui.state); // as when a state arrives that changes nothing
keepPressesAcrossRedraws();

const conn = new Connection(`/ws/games/${gameId}`, {
  onState: (state, ack) => {
    if (ack !== undefined) ui.acked = Math.max(ui.acked, ack);
    // The answer to a command that committed (Finish, a secret choice): what the board
    // looks like now is what this player has seen; later changes are marked.
    if (ack !== undefined && ack === ui.commitCmd) { ui.commitCmd = null; remember(state); }
    document.body.classList.toggle("busy", ui.acked < ui.sent);
    if (watch.busy) { // shown when the moves being played are done
      watch.latest = state;
      watch.acks.push(ack);
      return;
    }
    if (shouldWatch(ui.state, state, ack)) { watchThenRender(ui.state, state); return; }
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
  onRefused: (text) => showError(text),
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
  document.getElementById("choose-title").textContent = t("What in %(area)s?", { area: where });
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

// The computer levels' names (the server's level codes).
const LEVEL_NAMES = { random: t("random"), easy: t("easy"), medium: t("medium"), hard: t("hard") };
export function levelName(level) { return LEVEL_NAMES[level] || level; }

const AREA_NAMES = {
  GAL: "Galicia", PVA: "País Vasco", ARA: "Aragón", CAT: "Cataluña", CLV: "Castilla la Vieja",
  CLN: "Castilla la Nueva", SEV: "Sevilla", GRA: "Granada", VAL: "Valencia", CAS: t("the Castillo"), court: t("court"),
};

const DONE_LABELS = {
  deploy: t("Done deploying"), move: t("Stop moving"), move_drop: t("Stop moving"),
  court_place: t("Done placing"), empty_drop: t("Done"), lose: t("Done"),
};

export function label(a, phase = "") {
  const area = AREA_NAMES[a.area] || a.area;
  switch (a.kind) {
    case "deploy": return t("Deploy first");
    case "special": return phase === "choose" ? t("Special action first") : t("Use the special action");
    case "end": return phase === "choose" ? t("End turn without using the card") : t("End turn (skip the special action)");
    case "done": return DONE_LABELS[phase] || t("Done");
    case "recruit": return t("Recruit %(count)s", { count: a.value });
    case "court": return t("Bring %(count)s to court", { count: a.value });
    case "option": return a.option === "1c" ? t("Place from court (1c)") : t("Empty a region (1b)");
    case "lose": return a.area === "court" ? t("Lose one from court") : t("Lose one in %(area)s", { area });
    case "tile": return t("Scoreboard %(values)s → %(area)s", { values: a.tile === 0 ? "8/4/0" : "4/0/0", area });
    case "place": return t("Place in %(area)s", { area });
    case "drop": return t("Put it in %(area)s", { area });
    case "from": return t("Choose %(area)s", { area });
    case "score": return t("Score %(area)s", { area });
    case "grande": return t("Grande → %(area)s", { area });
    case "king": return t("King → %(area)s", { area });
    case "evict": return t("Evict from %(area)s", { area });
    // On a Caballero's badge, which names its owner, count and region.
    case "pick": return t("Pick up a Caballero");
    case "remove": return t("Send a Caballero to the provinces");
    case "recall": return t("Recall from %(area)s", { area });
    case "secret": return area;
    case "bid": return t("Power card %(value)s", { value: a.value });
    case "retrieve": return t("Take back %(value)s", { value: a.value });
    case "take": return t("Take card %(card)s", { card: a.card });
    case "veto": return t("Veto: stop the rest of this special action");
    case "pass": return t("No veto: let it go on");
    default: return a.text;
  }
}

// Actions with no place on the board get buttons above it.
const BUTTON_KINDS = new Set(["deploy", "special", "end", "done", "recruit", "court", "option", "veto", "pass"]);

function renderButtons(state) {
  const box = document.getElementById("buttons");
  box.replaceChildren();
  if (state.legal.some((a) => a.kind === "secret")) {
    const b = document.createElement("button");
    b.className = "btn btn-warning btn-sm legal-button";
    b.id = "open-secret";
    b.textContent = t("Make your secret choice…");
    b.addEventListener("click", () => {
      ui.secretDismissed = null;
      renderSecret(ui.state);
      document.getElementById("secret-dialog").scrollIntoView({ block: "nearest" });
    });
    box.appendChild(b);
  }
  for (const a of state.legal) {
    if (!(BUTTON_KINDS.has(a.kind) || (a.kind === "lose" && a.area === "court"))) continue;
    const b = document.createElement("button");
    b.className = "btn btn-warning btn-sm legal-button";
    b.dataset.action = a.text;
    b.dataset.key = `button-${a.text}`;
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
    const w = state.winners.map((s) => names[s]).join(t(" and "));
    text = state.winners.length > 1 ? t("The game is over. %(names)s share the win.", { names: w })
      : t("The game is over. %(names)s wins.", { names: w });
    cls = "alert-dark";
  } else if (state.legal.length) {
    const progress = state.progress && state.progress.text ? ` ${state.progress.text}` : "";
    text = t("Your turn (round %(round)s): %(prompt)s", { round: state.round, prompt: state.prompt }) + progress;
    cls = "alert-warning";
  } else if (state.draft.can_finish) {
    text = t("Your turn is complete: Finish turn to confirm it (or Undo).");
    cls = "alert-success";
  } else if (state.secret.purpose && state.seat !== null && state.secret.chosen.includes(state.seat)) {
    text = t("You have chosen. Waiting for the others' secret choices…");
  } else {
    const who = state.to_act.map((s) => names[s]).join(", ");
    text = who ? t("Round %(round)s: waiting for %(names)s.", { round: state.round, names: who })
      : t("Round %(round)s.", { round: state.round });
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
  document.getElementById("watch-switch").classList.toggle("d-none", state.finished);
}

// A secret choice: a panel above the map (never over it) with what is at stake; a region
// is picked on the map or with the buttons, and Confirm sends it.
function renderSecret(state) {
  const secretActions = state.legal.filter((a) => a.kind === "secret");
  const panel = document.getElementById("secret-dialog");
  if (!secretActions.length) {
    panel.classList.add("d-none");
    ui.secretChoice = null;
    return;
  }
  if (!secretActions.some((a) => a.text === ui.secretChoice)) ui.secretChoice = null;
  document.getElementById("secret-title").textContent = state.secret.title || "Secret choice";
  document.getElementById("secret-context").textContent = state.secret.text || "";
  const effects = state.secret.effects || {};
  const box = document.getElementById("secret-options");
  box.replaceChildren();
  for (const a of secretActions) {
    const b = document.createElement("button");
    const on = ui.secretChoice === a.text;
    b.className = "btn btn-sm " + (on ? "btn-primary" : "btn-outline-primary");
    b.dataset.secret = a.text;
    b.dataset.key = `secret-${a.area}`;
    b.setAttribute("aria-pressed", String(on));
    b.textContent = label(a);
    if (effects[a.area]) b.title = effects[a.area];
    b.addEventListener("click", () => secretPick(a.area));
    box.appendChild(b);
  }
  const chosen = secretActions.find((a) => a.text === ui.secretChoice);
  document.getElementById("secret-effect").textContent = chosen
    ? t("%(area)s: %(effect)s. Confirm to send it.", { area: AREA_NAMES[chosen.area], effect: effects[chosen.area] || t("chosen") }) : "";
  const who = document.getElementById("secret-who");
  who.replaceChildren();
  for (const p of state.players) {
    if (p.secret === "not_asked") continue;
    const line = document.createElement("div");
    line.dataset.seat = p.seat;
    const how = p.secret === "chosen" ? t("has chosen ✓") : t("still choosing…");
    line.textContent = p.colour.letter + " " + p.name + ": " + how;
    who.appendChild(line);
  }
  document.getElementById("secret-confirm").disabled = !ui.secretChoice;
  const key = `${state.seq}`;
  panel.classList.toggle("d-none", ui.secretDismissed === key);
}

document.getElementById("secret-confirm").addEventListener("click", () => {
  const a = ui.state.legal.find((x) => x.text === ui.secretChoice);
  if (a) confirmSecret(a);
});

function confirmSecret(a) {
  ui.lastSecret = a.text;
  act(a);
  ui.secretCmd = ui.sent;
  ui.commitCmd = ui.sent;
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
    showError(t("The game moved on before your choice arrived; please choose again."));
  }
}
document.getElementById("secret-hide").addEventListener("click", () => {
  ui.secretDismissed = `${ui.state.seq}`;
  renderSecret(ui.state);
  document.getElementById("open-secret")?.focus();
});
document.getElementById("undo").addEventListener("click", () => send("undo"));
document.getElementById("redo").addEventListener("click", () => send("redo"));
document.getElementById("finish").addEventListener("click", () => { send("finish"); ui.commitCmd = ui.sent; });

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
    const values = { name: p.name, round: p.resigned.round, seq: p.resigned.seq, level: levelName(p.stand_in) };
    li.textContent = state.finished
      ? t("%(name)s resigned in round %(round)s (after move %(seq)s) and is ranked last; a computer opponent (%(level)s) played the seat on.", values)
      : t("%(name)s resigned in round %(round)s (after move %(seq)s); a computer opponent (%(level)s) plays the seat on.", values);
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
  line.textContent = t("%(name)s resigned; a computer opponent (%(level)s) plays the seat on.", { name: p.name, level: levelName(p.stand_in) });
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
      badge.textContent = t("resigned");
      row.children[1].append(badge);
    }
    body.append(row); // appended in ranking order
  }
}

// The key of the focused control (map targets, cards, power cards and buttons carry one),
// so that keyboard focus survives a re-render.
function focusedKey() {
  const active = document.activeElement;
  return active && active.dataset ? active.dataset.key || null : null;
}

function restoreFocus(key) {
  if (!key || (document.activeElement && document.activeElement !== document.body)) return;
  const again = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (again) again.focus({ preventScroll: true });
}

// --- What changed since this player last looked (their last finished turn).
const seenKey = `elgrande-seen-${gameId}-${root.dataset.seat}`;

function snapshot(state) {
  return {
    seq: state.seq, log: state.log.length, king: (state.areas.find((a) => a.king) || {}).code,
    counts: Object.fromEntries(state.areas.map((a) => [a.code, a.counts])),
    tiles: state.tiles.map((t) => t.area),
  };
}

function remember(state) {
  ui.seen = snapshot(state);
  try { localStorage.setItem(seenKey, JSON.stringify(ui.seen)); } catch (e) { /* private mode */ }
}

function loadSeen() {
  try { return JSON.parse(localStorage.getItem(seenKey) || "null"); } catch (e) { return null; }
}

// The others' moves worth a line in the summary, by the notation's verb (any language).
const SUMMARY_VERBS = new Set(["take", "score", "king", "grande"]);

function diffBoards(seen, state) {
  if (!seen || state.seq <= seen.seq || state.draft.steps.length) return null;
  const counts = {};
  let any = false;
  for (const a of state.areas) {
    const before = seen.counts[a.code] || [];
    for (const p of state.players) {
      const d = a.counts[p.seat] - (before[p.seat] || 0);
      if (d) { (counts[a.code] ||= {})[p.seat] = d; any = true; }
    }
  }
  const king = (state.areas.find((a) => a.king) || {}).code;
  const scored = [];
  const lines = [];
  for (const entry of state.log.slice(seen.log)) {
    if (entry.score) { // a scoring: its region and the points per seat, as data
      const points = entry.score.points.map((p, seat) => ({ seat, points: p })).filter((x) => x.points);
      scored.push({ area: entry.score.area, points });
      lines.push(entry.text);
    } else if (entry.seat !== null && entry.seat !== state.seat && SUMMARY_VERBS.has(entry.verb)) {
      lines.push(entry.text);
    }
  }
  for (const p of state.players) {
    if (p.seat === state.seat) continue;
    const moved = Object.entries(counts).filter(([, d]) => d[p.seat]).map(([code, d]) => `${d[p.seat] > 0 ? "+" : "−"}${Math.abs(d[p.seat])} ${code}`);
    if (moved.length) lines.push(t("%(name)s's Caballeros: %(moves)s.", { name: p.name, moves: moved.join(", ") }));
  }
  const tiles = state.tiles.map((t, i) => (t.area !== seen.tiles[i] ? i : -1)).filter((i) => i >= 0);
  if (!any && king === seen.king && !scored.length && !tiles.length && !lines.length) return null;
  return { counts, king: king !== seen.king ? { from: seen.king, to: king } : null, scored, tiles, lines };
}

function renderSince(changes) {
  const box = document.getElementById("since");
  box.classList.toggle("d-none", !changes);
  if (!changes) return;
  const list = document.getElementById("since-list");
  const lines = [...changes.lines];
  if (changes.king) lines.unshift(t("The King moved from %(from)s to %(to)s.", changes.king));
  list.replaceChildren(...lines.slice(-10).map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
}

document.getElementById("since-clear").addEventListener("click", () => {
  remember(ui.state);
  render(ui.state);
});

function render(state) {
  ui.state = state;
  if (ui.seen === undefined) {
    ui.seen = loadSeen();
    if (!ui.seen || ui.seen.seq > state.seq) remember(state);
  }
  ui.changes = state.finished ? null : diffBoards(ui.seen, state);
  renderSince(ui.changes);
  const key = focusedKey();
  const map = document.getElementById("map");
  // A finished game's map belongs to its stepper (drawn from the replay of the log).
  const stepping = state.finished && renderFinished(state, gameId, map);
  if (!stepping || !map.dataset.replaySeq) {
    drawMap(map, state, { choose, secretPick }, {
      actionName: (a) => label(a, state.phase), selected: selectedArea(state), changes: ui.changes,
    });
  }
  renderStatus(state);
  renderControls(state);
  renderButtons(state);
  renderPanels(state, { act });
  renderSecret(state);
  renderResignations(state);
  const commitment = root.dataset.commitment;
  document.getElementById("commitment").textContent = commitment
    ? (state.finished ? t("Card draws come from a secret seed with SHA-256 %(hash)s; the seed is in the game record.", { hash: commitment })
      : t("Card draws come from a secret seed with SHA-256 %(hash)s; the seed is published when the game ends.", { hash: commitment }))
    : "";
  const mine = state.legal.length > 0 || state.draft.can_finish;
  const turn = mine ? "▶ " + t("Your turn") + " · " : "";
  document.title = turn + t("Game %(number)s", { number: gameId }) + " · El Grande";
  ui.renders = (ui.renders || 0) + 1;
  document.body.dataset.renders = ui.renders;
  document.body.dataset.seq = state.seq;
  document.body.dataset.legal = state.legal.length;
  document.body.dataset.steps = state.draft.steps.length;
  restoreFocus(key);
  window.dispatchEvent(new CustomEvent("elgrande:state", { detail: state }));
}

function selectedArea(state) {
  const a = state.legal.find((x) => x.text === ui.secretChoice);
  return a ? a.area : null;
}

// A region clicked on the map for a secret choice: selected (Confirm sends it).
function secretPick(code) {
  const a = ui.state.legal.find((x) => x.kind === "secret" && x.area === code);
  if (!a) return;
  const key = focusedKey();
  ui.secretChoice = a.text;
  ui.secretDismissed = null;
  renderSecret(ui.state);
  drawMap(document.getElementById("map"), ui.state, { choose, secretPick }, {
    actionName: (x) => label(x, ui.state.phase), selected: code, changes: ui.changes,
  });
  restoreFocus(key);
}

// --- Watching the others' moves. When their commits arrive while this player waits (no
// decision of theirs open, nothing in flight), the map plays the public boards in between
// (GET /api/games/{id}/boards) one by one at a readable pace, then the page shows the new
// state. Skip, the switch, or prefers-reduced-motion show it at once; the answers to this
// player's own commands are never played.
const WATCH_MS = 700;
const watchKey = "elgrande-watch";
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const watch = { busy: false, latest: null, acks: [], skip: false, wake: null, played: 0 };
ui.watch = watch;

function watching() {
  try { return localStorage.getItem(watchKey) !== "off"; } catch (e) { return true; }
}

// Whether `state` holds log entries after sequence `seq` made by another seat.
function othersMovedAfter(seq, state) {
  return state.seq > seq && state.log.some((e) => !e.event && e.seq >= seq && e.seat !== null && e.seat !== state.seat);
}

function shouldWatch(prev, state, ack) {
  return Boolean(prev) && ack === undefined && watching() && !reducedMotion.matches && !prev.finished
    && !prev.legal.length && !prev.draft.steps.length && ui.acked >= ui.sent
    && othersMovedAfter(prev.seq, state);
}

function pause(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    watch.wake = () => { clearTimeout(timer); resolve(); };
  });
}

// One step: the board after it, marked with what that step changed (pieces that came or
// went, the King's or a scoreboard's move, scorings), and the side panels with it.
function showStep(board, before, index, count) {
  const map = document.getElementById("map");
  const changes = diffBoards({ ...snapshot(before), log: 0 }, board);
  drawMap(map, board, { choose: () => {} }, { changes });
  renderWatched({ ...board, seat: ui.state.seat });
  map.dataset.watchSeq = String(board.seq);
  const said = board.log.map((e) => e.text).join(" ");
  document.getElementById("watch-text").textContent = t("Step %(step)s of %(count)s: %(said)s", { step: index + 1, count, said });
  document.body.dataset.watching = String(board.seq);
  watch.played += 1;
}

async function watchThenRender(prev, state) {
  Object.assign(watch, { busy: true, latest: state, acks: [], skip: false });
  const bar = document.getElementById("watch");
  bar.classList.remove("d-none");
  let from = prev.seq;
  let before = prev;
  try {
    // Until the newest state is reached (more commits may come in while playing).
    while (!watch.skip && othersMovedAfter(from, watch.latest)) {
      const target = watch.latest.seq;
      const response = await fetch(`/api/games/${gameId}/boards?after=${from}`);
      if (!response.ok) break;
      const got = await response.json();
      const steps = got.boards.filter((b) => b.seq > from && b.seq <= target);
      if (!steps.length) break;
      for (let i = 0; i < steps.length && !watch.skip; i++) {
        showStep(steps[i], before, i, steps.length);
        await pause(WATCH_MS);
        from = steps[i].seq;
        before = steps[i];
      }
      if (got.until < target) break; // a secret choice is still hidden beyond
    }
  } catch (e) {
    // Whatever failed, the new state is shown below.
  }
  bar.classList.add("d-none");
  delete document.body.dataset.watching;
  delete document.getElementById("map").dataset.watchSeq;
  watch.busy = false;
  watch.wake = null;
  const latest = watch.latest;
  const acks = watch.acks;
  render(latest);
  for (const ack of acks) retrySecret(latest, ack);
}

document.getElementById("watch-skip").addEventListener("click", () => {
  watch.skip = true;
  if (watch.wake) watch.wake();
});
const watchToggle = document.getElementById("watch-toggle");
watchToggle.checked = watching();
watchToggle.addEventListener("change", () => {
  try { localStorage.setItem(watchKey, watchToggle.checked ? "on" : "off"); } catch (e) { /* private mode */ }
  if (!watchToggle.checked && watch.wake) { watch.skip = true; watch.wake(); }
});

// Map size: the map fits the width; + and − enlarge it inside its frame (which then
// scrolls), Fit brings it back. Pinch-zoom works too (the page allows it).
const ZOOMS = [1, 1.5, 2, 2.5, 3];
function setZoom(index) {
  ui.zoom = Math.max(0, Math.min(ZOOMS.length - 1, index));
  const factor = ZOOMS[ui.zoom];
  const map = document.getElementById("map");
  map.style.width = `${factor * 100}%`;
  document.getElementById("board-wrap").classList.toggle("zoomed", factor > 1);
  document.getElementById("zoom-level").textContent = `${Math.round(factor * 100)}%`;
  document.getElementById("zoom-out").disabled = ui.zoom === 0;
  document.getElementById("zoom-reset").disabled = ui.zoom === 0;
  document.getElementById("zoom-in").disabled = ui.zoom === ZOOMS.length - 1;
}
document.getElementById("zoom-in").addEventListener("click", () => setZoom(ui.zoom + 1));
document.getElementById("zoom-out").addEventListener("click", () => setZoom(ui.zoom - 1));
document.getElementById("zoom-reset").addEventListener("click", () => setZoom(0));
setZoom(0);

ui.connection = conn;
conn.open();
