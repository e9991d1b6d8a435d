"""Helpers of the game-table browser tests (issue 13): quick games against easy computers,
keyboard-only driving, and the axe-core accessibility check."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from .driver import state

MOVEMENT_CARDS = {"1a", "1d", "1e", "1f", "1g", "1h"}
# Decision kinds of the page, by phase.
DECISION_OF = {"bid": "bid", "take": "card", "deploy": "deployment", "move": "movement",
               "move_drop": "movement", "secret": "secret"}


# The page plays the others' moves step by step (700 ms each) unless this is set: tests
# that are not about it turn it off, so the games stay quick.
NO_WATCH = "try { localStorage.setItem('elgrande-watch', 'off'); } catch (e) {}"


def new_page(browser: Browser, width: int = 1400, height: int = 900, reduced_motion: bool = False,
             watch: bool = False) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height},
                                  reduced_motion="reduce" if reduced_motion else "no-preference")
    if not watch:
        context.add_init_script(NO_WATCH)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def quick_game(page: Page, server: str, name: str = "anna", players: int = 2) -> None:
    """Registers `name` and starts a 6-round game against easy computers."""
    page.goto(f"{server}/register")
    page.fill("#name", name)
    page.fill("#password", "a good password")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))
    page.select_option("#players", str(players))
    page.select_option("#rounds", "6")
    for seat in range(1, players):
        page.select_option(f"#seat{seat}", "bot")
        page.select_option(f"#level{seat}", "easy")
    page.click("#create-game")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    page.click("#start")
    page.wait_for_function("() => window.elgrande && window.elgrande.state")


def pick(legal: list[dict[str, Any]], rng: random.Random, seen: set[str]) -> dict[str, Any]:
    """Random, but into the Castillo when possible (so general scorings ask a secret
    choice), and a movement card the first time one is offered."""
    if "movement" not in seen:
        moving = [a for a in legal if a["kind"] == "take" and a["card"] in MOVEMENT_CARDS]
        if moving:
            return moving[0]
        special = [a for a in legal if a["kind"] == "special"]
        if special:
            return special[0]
    castillo = [a for a in legal if a["kind"] == "place" and a.get("area") == "CAS"]
    return castillo[0] if castillo else rng.choice(legal)


# --- keyboard only

TABBABLE = """() => {
  const sel = 'a[href], button, input, select, textarea, [tabindex]';
  const modal = document.querySelector('.modal.show');
  const scope = modal || document;
  return [...scope.querySelectorAll(sel)].filter((e) => {
    if (e.tabIndex < 0 || e.disabled || e.closest('[inert]')) return false;
    if (e.closest('.d-none')) return false;
    const r = e.getBoundingClientRect();
    const style = getComputedStyle(e);
    return (r.width > 0 || r.height > 0) && style.visibility !== 'hidden';
  });
}"""


def focus_by_keyboard(page: Page, selector: str, limit: int = 150) -> None:
    """Presses Tab (or Shift+Tab, whichever is shorter) until `selector` has the focus."""
    for _ in range(limit):
        where = page.evaluate(
            f"""(sel) => {{
                const list = ({TABBABLE})();
                const target = list.findIndex((e) => e.matches(sel));
                const here = list.indexOf(document.activeElement);
                return [target, here, list.length];
            }}""", selector)
        target, here, total = where
        if target < 0:
            page.wait_for_timeout(50)
            continue
        if target == here:
            return
        forward = (target - here) % total if here >= 0 else target + 1
        backward = (here - target) % total if here >= 0 else total
        page.keyboard.press("Tab" if forward <= backward else "Shift+Tab")
    raise AssertionError(f"could not reach {selector} with the keyboard")


def selector_of(action: dict[str, Any]) -> str:
    kind = action["kind"]
    if kind in ("bid", "retrieve"):
        return f'#power [data-bid="{action["value"]}"]'
    if kind == "take":
        return f'#cards [data-card="{action["card"]}"] .card-face'
    if kind in ("pick", "remove"):
        return f'[data-piece="{action["owner"]}-{action["area"]}"]'
    if kind == "secret":  # picked on the map, then confirmed
        return f'#area-{action["area"]}'
    if action.get("area") and action["area"] != "court" and kind not in ("recruit", "court", "option"):
        return f'#area-{action["area"]}'
    return f'#buttons [data-action="{action["text"]}"]'


def act_by_keyboard(page: Page, action: dict[str, Any], key: str = "Enter") -> None:
    """Sends `action` with the keyboard alone and waits for the server's answer."""
    before = page.evaluate("window.elgrande.sent")
    # Asked of the state the action was picked from: once the key is pressed, a single
    # action is sent at once and the next state may offer several on the same target.
    # Only a target on the map may stand for several actions (buttons are one each).
    target = selector_of(action)
    needs_choice = (action["kind"] != "secret" and target.startswith(("#area-", "[data-piece"))
                    and _needs_choice(page, action))
    focus_by_keyboard(page, target)
    page.keyboard.press(key)
    if action["kind"] == "secret":
        focus_by_keyboard(page, "#secret-confirm")
        page.keyboard.press(key)
    elif needs_choice:
        page.locator("#choose-dialog.show").wait_for()
        focus_by_keyboard(page, f'#choose-options [data-action="{action["text"]}"]')
        page.keyboard.press(key)
    page.wait_for_function(
        f"() => window.elgrande.sent > {before} && window.elgrande.acked >= window.elgrande.sent",
        timeout=20_000)


def _needs_choice(page: Page, action: dict[str, Any]) -> bool:
    same = [a for a in state(page)["legal"] if a.get("area") == action.get("area")
            and a.get("owner") == action.get("owner") and a["kind"] != "secret"]
    return len(same) > 1


# --- axe-core

def axe_script() -> str:
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()


def axe_violations(page: Page, where: str) -> list[str]:
    """The serious and critical axe-core violations on the page (WCAG 2 A/AA rules)."""
    page.evaluate(axe_script())
    result = page.evaluate("""() => axe.run(document, {
        runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
        resultTypes: ['violations']})""")
    out = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = [" ".join(map(str, n["target"])) for n in v["nodes"][:4]]
            out.append(f"{where}: {v['id']} ({v['impact']}): {v['help']} at {targets}")
    return out
