// The table chat: lines arrive over the game page's socket (static/js/net.js passes them
// on as "elgrande:chat" events); a line is sent through the same socket. Every text is
// set as text, never as HTML. Another player's line offers Mute and Report.
import { formatTime, t } from "./i18n.js";
const list = document.getElementById("chat-lines");
const form = document.getElementById("chat-form");
const input = document.getElementById("chat-input");
const error = document.getElementById("chat-error");
const csrf = document.getElementById("game").dataset.csrf;
let sent = 0;

function time(iso) {
  return formatTime(new Date(iso));
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.detail || t("That did not work; try again."));
  return data;
}

function say(text, bad = true) {
  error.textContent = text;
  error.classList.toggle("text-danger", bad);
  error.classList.toggle("d-none", !text);
}

function line(entry) {
  const item = document.createElement("li");
  item.dataset.id = entry.id;
  const when = document.createElement("span");
  when.className = "text-body-secondary me-1";
  when.textContent = time(entry.at);
  const who = document.createElement("strong");
  who.className = "me-1";
  who.textContent = `${entry.name}:`;
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = entry.text;
  item.append(when, who, text);
  if (!entry.mine && form) {
    const mute = document.createElement("button");
    mute.type = "button";
    mute.className = "btn btn-link btn-sm p-0 ms-2 chat-mute";
    mute.textContent = t("Mute");
    mute.setAttribute("aria-label", t("Mute %(name)s", { name: entry.name }));
    mute.addEventListener("click", async () => {
      try {
        await post("/api/chat/mute", { name: entry.name });
        for (const other of list.querySelectorAll("li")) {
          if (other.querySelector("strong").textContent === `${entry.name}:`) other.remove();
        }
        say(t("You no longer read %(name)s's lines.", { name: entry.name }), false);
      } catch (e) { say(e.message); }
    });
    const report = document.createElement("button");
    report.type = "button";
    report.className = "btn btn-link btn-sm p-0 ms-2 chat-report";
    report.textContent = t("Report");
    report.setAttribute("aria-label", t("Report this line of %(name)s", { name: entry.name }));
    report.addEventListener("click", async () => {
      const reason = window.prompt(t("Why should a moderator look at this line?")) || "";
      try {
        await post("/api/chat/report", { message_id: entry.id, reason });
        say(t("Thank you: a moderator will look at it."), false);
      } catch (e) { say(e.message); }
    });
    item.append(mute, report);
  }
  return item;
}

document.addEventListener("elgrande:chat", (event) => {
  const { lines } = event.detail;
  const known = new Set([...list.children].map((item) => item.dataset.id));
  for (const entry of lines) if (!known.has(String(entry.id))) list.append(line(entry));
  list.scrollTop = list.scrollHeight;
});

document.addEventListener("elgrande:chat-answer", (event) => {
  const answer = event.detail;
  if (answer.type === "chat_ok") { input.value = ""; say(""); }
  else say(answer.message);
  if (form) form.querySelector("button").disabled = false;
});

if (form) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    sent += 1;
    form.querySelector("button").disabled = true;
    document.dispatchEvent(new CustomEvent("elgrande:send", { detail: { type: "chat", text, id: `chat-${sent}` } }));
  });
}
