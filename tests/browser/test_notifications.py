"""Issue 12, "your turn" in any game: a player's tab on game A learns, live, that the
opponent's move in game B made it their turn there (badge, tab title, a desktop
notification); asking for the permission waits for a click; the tone is a remembered
toggle, off by default."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import APIRequestContext, Browser, BrowserContext, expect

pytestmark = pytest.mark.timeout(120)

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')

# Headless Chromium shows no notification and denies what it was not granted: record
# each notification, and play a browser that has not been asked yet ("default") and
# says yes when asked.
HOOK = """
(() => {
  const Real = window.Notification;
  let permission = Real && Real.permission === "granted" ? "granted" : "default";
  window.__notes = [];
  window.__asked = 0;
  class Recorded {
    constructor(title, options) {
      Object.assign(this, options || {}, {title});
      window.__notes.push(this);
    }
    static get permission() { return permission; }
    static requestPermission() {
      window.__asked += 1;
      permission = "granted";
      return Promise.resolve(permission);
    }
    close() {}
  }
  window.Notification = Recorded;
})();
"""


def player(browser: Browser, server: str, name: str, granted: bool) -> BrowserContext:
    context = browser.new_context(base_url=server,
                                  permissions=["notifications"] if granted else [])
    context.add_init_script(HOOK)
    page = context.new_page()
    page.goto("/register")
    page.fill("#name", name)
    page.fill("#password", "a good password")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))
    page.close()
    return context


def csrf(request: APIRequestContext) -> str:
    found = CSRF.search(request.get("/lobby").text())
    assert found
    return found.group(1)


def two_player_game(anna: APIRequestContext, bert: APIRequestContext) -> int:
    token = csrf(anna)
    created = anna.post("/games", form={"players": "2", "rounds": "9", "seat0": "me",
                                        "seat1": "invited", "invite1": "bert",
                                        "csrf_token": token}, max_redirects=0)
    game_id = int(created.headers["location"].rsplit("/", 1)[1])
    assert bert.post(f"/games/{game_id}/join", form={"csrf_token": csrf(bert)},
                     max_redirects=0).status == 303
    assert anna.post(f"/games/{game_id}/start", form={"csrf_token": token},
                     max_redirects=0).status == 303
    return game_id


def view(request: APIRequestContext, game_id: int) -> Any:
    return request.get(f"/api/games/{game_id}").json()


def play_turn(request: APIRequestContext, game_id: int) -> None:
    """One whole turn through the HTTP API: the first legal action until none is left,
    then Finish."""
    token = csrf(request)
    state = view(request, game_id)
    while state["legal"]:
        answer = request.post(f"/api/games/{game_id}/step", headers={"x-csrf-token": token},
                              data={"action": state["legal"][0]["text"], "seq": state["seq"]})
        assert answer.ok, answer.text()
        state = answer.json()["state"]
    answer = request.post(f"/api/games/{game_id}/finish", headers={"x-csrf-token": token},
                          data={"seq": state["seq"]})
    assert answer.ok, answer.text()


def test_a_move_in_another_game_reaches_the_open_tab(browser: Browser, server: str) -> None:
    anna_ctx = player(browser, server, "anna", granted=True)
    bert_ctx = player(browser, server, "bert", granted=False)
    anna, bert = anna_ctx.request, bert_ctx.request
    game_a, game_b = two_player_game(anna, bert), two_player_game(anna, bert)
    # Game B waits for bert: anna plays her turn there first if it is hers.
    while view(anna, game_b)["seat"] in view(anna, game_b)["to_act"]:
        play_turn(anna, game_b)
    waiting_before = sum(view(anna, g)["seat"] in view(anna, g)["to_act"] for g in (game_a,))

    page = anna_ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"/games/{game_a}")
    page.wait_for_function("() => window.elgrande && window.elgrande.state")
    expect(page.locator("#enable-notifications")).to_be_hidden()  # already allowed
    if waiting_before:
        expect(page.locator("#turn-badge")).to_have_text(str(waiting_before))
    else:
        expect(page.locator("#turn-badge")).to_be_hidden()
    page.wait_for_function("() => window.elgrandeAlerts && window.elgrandeAlerts.notices === 0")
    lobby = anna_ctx.new_page()  # every open page of hers hears it
    lobby.goto("/lobby")
    lobby.wait_for_function("() => window.elgrandeAlerts")

    while view(anna, game_b)["seat"] not in view(anna, game_b)["to_act"]:
        play_turn(bert, game_b)

    count = waiting_before + 1
    expect(page.locator("#turn-badge")).to_have_text(str(count))
    expect(page).to_have_title(re.compile(rf"^\({count}\) "))
    page.wait_for_function("() => window.__notes.length === 1")
    note = page.evaluate("({title: window.__notes[0].title, body: window.__notes[0].body,"
                         " tag: window.__notes[0].tag})")
    assert note == {"title": "El Grande: your turn", "body": f"It is your turn in game {game_b}.",
                    "tag": f"elgrande-turn-{game_b}"}
    assert page.evaluate("window.__asked") == 0  # never asked without a click
    expect(lobby.locator("#turn-badge")).to_have_text(str(count))
    expect(lobby).to_have_title(f"({count}) Lobby · El Grande")
    # Clicking the notification opens the game.
    page.evaluate("window.__notes[0].onclick()")
    page.wait_for_url(re.compile(rf".*/games/{game_b}$"))
    assert not errors


def test_permission_is_asked_on_a_click_and_the_sound_is_a_remembered_toggle(
        browser: Browser, server: str) -> None:
    context = player(browser, server, "carl", granted=False)
    page = context.new_page()
    page.goto("/lobby")
    page.wait_for_function("() => window.elgrandeAlerts")
    assert page.evaluate("window.__asked") == 0  # not on page load
    page.click("#enable-notifications")
    page.wait_for_function("() => window.__asked === 1")
    expect(page.locator("#enable-notifications")).to_be_hidden()  # allowed now
    expect(page.locator("#sound-toggle")).to_have_text("Sound: off")
    page.click("#sound-toggle")
    expect(page.locator("#sound-toggle")).to_have_text("Sound: on")
    page.reload()
    expect(page.locator("#sound-toggle")).to_have_text("Sound: on")
    page.click("#sound-toggle")
    page.reload()
    expect(page.locator("#sound-toggle")).to_have_text("Sound: off")
