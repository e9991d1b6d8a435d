// "Your turn" in any of the player's games, on every page (loaded by base.html for a
// logged-in player): the header's badge, the tab title "(n) ...", an optional short tone,
// and a desktop notification when the player allowed them. The server's /ws/me socket
// sends the games waiting for us on (re)connect, then each change (docs/server.md).
import { t } from "./i18n.js";

const SOUND_KEY = "elgrande.sound";  // "on" or absent: the tone is off by default
const TITLE_PREFIX = /^\(\d+\) /;
const MAX_DELAY = 30000;

const waiting = new Set();  // numbers of the games waiting for our move
let connected = false;  // the first list of a page only shows; later changes also alert
let delay = 1000;

const badge = document.getElementById("turn-badge");
const enable = document.getElementById("enable-notifications");
const sound = document.getElementById("sound-toggle");

// What the page's tests read (as window.elgrande on the game page).
window.elgrandeAlerts = {waiting, notices: 0};

function showCount() {
  const n = waiting.size;
  if (badge) {
    badge.textContent = n ? String(n) : "";
    badge.classList.toggle("d-none", n === 0);
  }
  const bare = document.title.replace(TITLE_PREFIX, "");
  const title = n ? `(${n}) ${bare}` : bare;
  if (document.title !== title) document.title = title;
}

// Other scripts set the title too (the game page's "Your turn"): keep the count on it.
const titleElement = document.querySelector("title");
if (titleElement) {
  new MutationObserver(showCount).observe(titleElement, {childList: true, characterData: true, subtree: true});
}

function soundOn() {
  try { return localStorage.getItem(SOUND_KEY) === "on"; } catch { return false; }
}

function showSound() {
  if (!sound) return;
  sound.textContent = soundOn() ? t("Sound: on") : t("Sound: off");
  sound.setAttribute("aria-pressed", String(soundOn()));
}

sound?.addEventListener("click", () => {
  try {
    if (soundOn()) localStorage.removeItem(SOUND_KEY); else localStorage.setItem(SOUND_KEY, "on");
  } catch { /* storage refused (private mode): the toggle stays off */ }
  showSound();
  if (soundOn()) beep();  // what it will sound like (and a click lets audio play later)
});

let audio = null;
function beep() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio = audio || new Context();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = 880;
    const t = audio.currentTime;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.2, t + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start(t);
    osc.stop(t + 0.4);
  } catch { /* no audio here: the badge and the title still say it */ }
}

// Asked only after a click on "Enable notifications", never on page load.
function showEnable() {
  if (!enable) return;
  const ask = "Notification" in window && Notification.permission === "default";
  enable.classList.toggle("d-none", !ask);
}

enable?.addEventListener("click", async () => {
  try { await Notification.requestPermission(); } catch { /* an old browser: nothing more */ }
  showEnable();
});

function desktop(game) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  // Not for the game this tab shows while the player looks at it.
  if (document.visibilityState === "visible" && location.pathname === `/games/${game}`) return;
  try {
    // One per game however many tabs are open: the tag replaces the others' copies.
    const note = new Notification(t("El Grande: your turn"), {
      body: t("It is your turn in game %(number)s.", { number: game }), tag: `elgrande-turn-${game}`,
      icon: "/static/favicon.svg",
    });
    note.onclick = () => {
      window.focus();
      location.href = `/games/${game}`;
      note.close();
    };
  } catch { /* some browsers allow notifications only from a service worker */ }
}

function alertTurn(game) {
  window.elgrandeAlerts.notices += 1;
  desktop(game);
  if (soundOn()) beep();
}

function onMessage(message) {
  if (message.type === "waiting" && Array.isArray(message.games)) {
    const before = new Set(waiting);
    waiting.clear();
    for (const game of message.games) waiting.add(game);
    // Turns that came while the socket was away alert now (not on a page's first load).
    if (connected) for (const game of waiting) if (!before.has(game)) alertTurn(game);
    connected = true;
  } else if (message.type === "turn" && Number.isInteger(message.game)) {
    if (message.your_turn && !waiting.has(message.game)) {
      waiting.add(message.game);
      alertTurn(message.game);
    } else if (!message.your_turn) {
      waiting.delete(message.game);
    }
  }
  showCount();
}

function open() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/me`);
  ws.onopen = () => { delay = 1000; };
  ws.onmessage = (event) => {
    try { onMessage(JSON.parse(event.data)); } catch { /* a malformed notice: ignored */ }
  };
  ws.onclose = (event) => {
    // Logged out or another origin: nothing to wait for. Else again, later and later.
    if (event.code === 4401 || event.code === 4403) return;
    if (event.code === 4429) delay = MAX_DELAY;
    setTimeout(open, delay + Math.random() * 500);
    delay = Math.min(delay * 2, MAX_DELAY);
  };
}

showSound();
showEnable();
open();
