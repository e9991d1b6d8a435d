// The waiting room reloads itself when someone joins or the game starts.
import { t } from "./i18n.js";
const gameId = document.getElementById("room").dataset.game;
const proto = location.protocol === "https:" ? "wss" : "ws";

function connect() {
  const ws = new WebSocket(`${proto}://${location.host}/ws/games/${gameId}`);
  let first = true;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state" || !first) location.reload();
    first = false;
  };
  ws.onclose = () => setTimeout(connect, 1000);
}
connect();

// Cancelling removes the game for everyone who joined it: ask first.
const cancel = document.getElementById("cancel");
if (cancel) {
  cancel.form.addEventListener("submit", (event) => {
    if (!window.confirm(t("Cancel this game? It is removed for everyone who joined it."))) {
      event.preventDefault();
    }
  });
}

// Leaving gives the seat up: someone else may take it before you come back.
const leave = document.getElementById("leave");
if (leave) {
  leave.form.addEventListener("submit", (event) => {
    if (!window.confirm(t("Leave this game? Your seat becomes free for someone else."))) {
      event.preventDefault();
    }
  });
}
