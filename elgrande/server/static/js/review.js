// The coach's review (server/reviews.py, docs/coach.md): ask for one, follow its progress
// while the bot workers judge the decisions, and list the mistakes, the biggest first.
// On a finished game each mistake is a button that moves the replay to the position
// before that decision (the "elgrande:replay" event, heard by panels.js).
import { formatNumber, ngettext, t } from "./i18n.js";

const box = document.getElementById("review");
const game = document.getElementById("game");
const gameId = Number(game.dataset.game);
const mySeat = game.dataset.seat === "" ? null : Number(game.dataset.seat);
const running = box.dataset.running === "1";
const signedIn = box.dataset.signedIn === "1";
const seatSelect = document.getElementById("review-seat");
const ask = document.getElementById("review-ask");
const statusLine = document.getElementById("review-status");
const errorBox = document.getElementById("review-error");
const list = document.getElementById("review-list");
const POLL_MS = 1500;
let seat = mySeat ?? 0;
let timer = null;

function points(x) {
  return formatNumber(Math.round(x * 10) / 10);
}

function showError(message) {
  errorBox.textContent = message || "";
  errorBox.classList.toggle("d-none", !message);
}

function poll() {
  clearTimeout(timer);
  timer = setTimeout(load, POLL_MS);
}

function progress(review) {
  if (review.status === "pending") return t("Waiting for a free computer: game moves go first…");
  if (review.status === "running") {
    return review.total ? t("The coach is at decision %(done)s of %(total)s…", { done: review.done, total: review.total })
      : t("The coach is starting…");
  }
  if (review.status === "failed") return "";
  const found = review.mistakes.length;
  const reviewed = ngettext("%(num)s decision reviewed", "%(num)s decisions reviewed", review.decisions);
  const agreed = t("the coach agreed with %(count)s", { count: formatNumber(review.agreed) });
  const verdict = found ? ngettext("%(num)s mistake, the biggest first:", "%(num)s mistakes, the biggest first:", found)
    : t("The coach found nothing it would clearly play better.");
  return reviewed + "; " + agreed + ". " + verdict;
}

function item(mistake) {
  const li = document.createElement("li");
  const where = t("Round %(round)s, turn %(turn)s: about %(points)s points (± %(se)s)",
    { round: mistake.round, turn: mistake.turn, points: points(mistake.delta), se: points(mistake.se) });
  const lines = [
    [where, "review-points"],
    [seat === mySeat ? t("You played: %(move)s", { move: mistake.played_text })
      : t("Played: %(move)s", { move: mistake.played_text }), ""],
    [t("The coach would play: %(move)s", { move: mistake.coach_text }), ""],
  ];
  // A running game has no replay (it waits for the end): the mistakes are text only.
  const holder = running ? li : document.createElement("button");
  if (!running) {
    holder.type = "button";
    holder.className = "btn btn-link btn-sm review-pick link-body-emphasis text-decoration-none";
    holder.dataset.seq = String(mistake.index);
    holder.addEventListener("click", () => pick(holder));
    li.append(holder);
  }
  // Read out after the entry's own text: what pressing it does.
  if (!running) lines.push([t("Show the position on the map."), "visually-hidden"]);
  for (const [text, cls] of lines) {
    const line = document.createElement("span");
    line.className = "d-block" + (cls ? " " + cls : "");
    line.textContent = text;
    holder.append(line);
  }
  return li;
}

function pick(button) {
  list.querySelectorAll("[aria-current]").forEach((b) => b.removeAttribute("aria-current"));
  button.setAttribute("aria-current", "true");
  window.dispatchEvent(new CustomEvent("elgrande:replay", { detail: { seq: Number(button.dataset.seq) } }));
}

function render(review) {
  showError(review.error);
  statusLine.textContent = progress(review);
  const done = review.status === "done";
  list.replaceChildren(...(done ? review.mistakes.map(item) : []));
  list.classList.toggle("d-none", !done || !review.mistakes.length);
  box.dataset.status = review.status;
  // Asking again makes sense when the game moved on since, or the review failed.
  const head = window.elgrande && window.elgrande.state ? window.elgrande.state.seq : review.upto;
  offerAsk(review.status === "failed" || (done && review.upto < head));
  if (!done && review.status !== "failed") poll();
}

function offerAsk(show) {
  const mine = seat === mySeat;
  ask.textContent = mine ? t("Review my play") : t("Review this player's play");
  ask.classList.toggle("d-none", !show || !signedIn || (running && !mine));
}

async function load() {
  const asked = seat;
  const response = await fetch(`/api/games/${gameId}/review?seat=${asked}`, { credentials: "same-origin" });
  if (asked !== seat) return;
  const body = await response.json();
  if (!response.ok) { showError(body.detail || ""); return; }
  if (body.status === "none") {
    list.replaceChildren();
    list.classList.add("d-none");
    showError("");
    statusLine.textContent = signedIn ? t("No review yet.") : t("No review yet. Log in to ask the coach for one.");
    delete box.dataset.status;
    offerAsk(true);
    return;
  }
  render(body);
}

ask.addEventListener("click", async () => {
  ask.disabled = true;
  showError("");
  try {
    const response = await fetch(`/api/games/${gameId}/review`, {
      method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": game.dataset.csrf },
      body: JSON.stringify({ seat }),
    });
    const body = await response.json();
    if (!response.ok) showError(body.detail || t("The coach is not available now."));
    else render(body);
  } catch (e) {
    showError(t("The coach is not available now."));
  } finally {
    ask.disabled = false;
  }
});

// A finished game: any seat's play may be reviewed; the player's own first.
function fillSeats(state) {
  if (!seatSelect || seatSelect.options.length) return;
  for (const p of state.players) {
    const option = document.createElement("option");
    option.value = String(p.seat);
    option.textContent = p.name;
    option.selected = p.seat === seat;
    seatSelect.append(option);
  }
}
if (seatSelect) {
  seatSelect.addEventListener("change", () => {
    seat = Number(seatSelect.value);
    clearTimeout(timer);
    load();
  });
}
window.addEventListener("elgrande:state", (e) => fillSeats(e.detail));
if (window.elgrande && window.elgrande.state) fillSeats(window.elgrande.state);
load();
