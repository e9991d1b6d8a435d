// The table's clocks, as the server keeps them: each player's time left, the clock of
// the player(s) to act ticking down to the deadline, who is away (a computer plays for
// them) or on holiday. The server decides every deadline; the page only counts down.
import { formatTime, ngettext, t } from "./i18n.js";
const list = document.getElementById("clocks");
const game = document.getElementById("game");
const mySeat = game.dataset.seat === "" ? null : Number(game.dataset.seat);
let clocks = null;
let offset = 0;  // server time minus this browser's time, in ms

function span(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60), sec = s % 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${String(m).padStart(2, "0")}m`;
  return `${m}:${String(sec).padStart(2, "0")}`;
}

function nameOf(seat) {
  const state = window.elgrande && window.elgrande.state;
  const player = state && state.players ? state.players.find((p) => p.seat === seat) : null;
  return player ? player.name : t("Seat %(number)s", { number: seat + 1 });
}

function left(entry) {
  if (!entry.running || !entry.deadline) return entry.left;
  if (clocks.hours) return entry.left - (Date.now() - clocks.received) / 1000;
  return (Date.parse(entry.deadline) - (Date.now() + offset)) / 1000;
}

function render() {
  if (!clocks) return;
  list.replaceChildren();
  for (const entry of clocks.seats) {
    const item = document.createElement("li");
    item.className = "list-inline-item clock" + (entry.running ? " clock-running fw-semibold" : "")
      + (entry.away ? " text-body-secondary" : "");
    item.dataset.seat = entry.seat;
    const seconds = left(entry);
    const you = entry.seat === mySeat ? " " + t("(you)") : "";
    let text = (entry.running ? "▶ " : "") + nameOf(entry.seat) + you + ": ";
    if (entry.away) text += t("away, the computer plays");
    else if (entry.holiday_until) text += t("on holiday until %(when)s", { when: formatTime(new Date(entry.holiday_until), { dateStyle: "medium", timeStyle: "short" }) });
    else text += entry.running ? t("%(time)s left", { time: span(seconds) }) : span(seconds);
    item.textContent = text;
    if (entry.running && entry.deadline) {
      item.title = t("Deadline: %(when)s", { when: formatTime(new Date(entry.deadline), { dateStyle: "medium", timeStyle: "short" }) });
      if (seconds < 60) item.classList.add("text-danger");
    }
    list.append(item);
  }
  const mine = clocks.seats.find((entry) => entry.seat === mySeat);
  const takeBack = document.getElementById("take-back-form");
  if (takeBack) takeBack.classList.toggle("d-none", !(mine && mine.away));
  const endHoliday = document.getElementById("holiday-end-form");
  if (endHoliday) endHoliday.classList.toggle("d-none", !(mine && mine.holiday_until));
  const holidayLeft = document.getElementById("holiday-left");
  if (holidayLeft && mine) holidayLeft.textContent = ngettext("%(num)s day left", "%(num)s days left", mine.holiday_left_days);
}

document.addEventListener("elgrande:clocks", (event) => {
  clocks = event.detail;
  clocks.received = Date.now();
  offset = Date.parse(clocks.now) - clocks.received;
  render();
});
// Names arrive with the game's state; the running clock ticks every second.
setInterval(render, 1000);

// Turns a computer played for a player whose clock had run out: marked in the move log,
// and counted beside the clocks.
function markLog() {
  if (!clocks || !clocks.stand_in_turns) return;
  const log = document.getElementById("log");
  if (!log) return;
  for (const item of log.querySelectorAll("li[data-seq]")) {
    const seq = Number(item.dataset.seq);
    const turn = clocks.stand_in_turns.find((t) => seq >= t.from && seq < t.to);
    if (turn && !item.querySelector(".stand-in")) {
      const badge = document.createElement("span");
      badge.className = "stand-in badge text-bg-light ms-1";
      badge.textContent = t("computer for %(name)s", { name: nameOf(turn.seat) });
      item.append(badge);
    }
  }
}

function summary() {
  const box = document.getElementById("stand-in-summary");
  if (!box || !clocks) return;
  const counts = new Map();
  for (const turn of clocks.stand_in_turns || []) counts.set(turn.seat, (counts.get(turn.seat) || 0) + 1);
  box.textContent = [...counts].map(([seat, n]) => ngettext("the computer played %(num)s turn for %(name)s", "the computer played %(num)s turns for %(name)s", n, { name: nameOf(seat) })).join("; ");
  box.classList.toggle("d-none", counts.size === 0);
}

const logList = document.getElementById("log");
if (logList) new MutationObserver(markLog).observe(logList, { childList: true });
document.addEventListener("elgrande:clocks", () => { markLog(); summary(); });
