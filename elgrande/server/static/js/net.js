// The page's WebSocket: reconnects by itself (with back-off) and resynchronises.
import { t } from "./i18n.js";
export class Connection {
  constructor(path, handlers) {
    this.path = path;
    this.handlers = handlers;
    this.ws = null;
    this.delay = 250;
    this.queue = [];
    // Other parts of the page (the chat) send through this socket too.
    document.addEventListener("elgrande:send", (event) => this.send(event.detail));
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}${this.path}`);
    this.ws = ws;
    this.handlers.onStatus(t("connecting…"), false);
    ws.onopen = () => {
      this.delay = 250;
      const queued = this.queue.splice(0);
      for (const m of queued) ws.send(JSON.stringify(m));
      this.handlers.onStatus(t("live"), true, queued.length);
    };
    let log = [];  // the move log so far: a state may bring only its new lines
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") {
        const state = message.state;
        if (state.log_from !== undefined) {
          state.log = log.slice(0, state.log_from).concat(state.log);
          delete state.log_from;
        }
        log = state.log;
        this.handlers.onState(state, message.ack);
      }
      // The table chat (static/js/chat.js): its lines, and the answers to its sends.
      else if (message.type === "chat") document.dispatchEvent(new CustomEvent("elgrande:chat", { detail: message }));
      else if (message.type === "chat_ok" || (message.type === "error" && typeof message.ack === "string" && message.ack.startsWith("chat")))
        document.dispatchEvent(new CustomEvent("elgrande:chat-answer", { detail: message }));
      else if (message.type === "error") this.handlers.onError(message);
      else if (message.type === "lobby") this.handlers.onLobby();
      // The table's clocks: static/js/clock.js shows them.
      else if (message.type === "clocks") document.dispatchEvent(new CustomEvent("elgrande:clocks", { detail: message.clocks }));
      // Box rules: "no veto" choices and the open window's deadline (static/js/veto.js).
      else if (message.type === "veto") document.dispatchEvent(new CustomEvent("elgrande:veto", { detail: message.veto }));
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      // The server's refusals (elgrande/server/ws.py) say what to do; trying again at
      // once would not help.
      const refused = { 4401: t("You were logged out: log in again to play on."),
                        4404: t("This game does not exist (any more)."),
                        4429: t("Too many pages are open from your address: close some, and this one reconnects.") }[event.code];
      if (refused) {
        this.handlers.onStatus(t("offline"), false);
        if (this.handlers.onRefused) this.handlers.onRefused(refused);
        // Logged out or no game: trying again cannot help. Too many pages: another may
        // close any moment, so keep trying as after a network failure.
        if (event.code !== 4429) return;
      } else {
        this.handlers.onStatus(t("reconnecting…"), false);
      }
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    else this.queue.push(message);
  }

  // For tests: drop the connection as a network failure would.
  drop() { if (this.ws) this.ws.close(); }
}
