"""Drives the game page like a player: reads the state the page rendered, clicks the
board element, card, button or dialog entry of one legal action, and waits for the
page's next render."""

from __future__ import annotations

import os
import random
import shutil
from typing import Any

from playwright.sync_api import Page

# The browser the tests drive: $ELGRANDE_TEST_CHROMIUM, else Debian's Chromium, else a
# chromium or chromium-browser on the PATH.
CHROMIUM = (os.environ.get("ELGRANDE_TEST_CHROMIUM")
            or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
            or shutil.which("chromium") or shutil.which("chromium-browser")
            or "/usr/bin/chromium")
BUTTON_KINDS = {"deploy", "special", "end", "done", "recruit", "court", "option", "veto", "pass"}
AREA_KINDS = {"recall", "place", "drop", "from", "score", "grande", "king", "evict", "tile", "lose"}


def state(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("window.elgrande.state")
    return result


def renders(page: Page) -> int:
    return int(page.evaluate("window.elgrande.renders || 0"))


def wait_render(page: Page, after: int, timeout: float = 20_000) -> None:
    page.wait_for_function(f"() => (window.elgrande.renders || 0) > {after}", timeout=timeout)


def sent(page: Page) -> int:
    return int(page.evaluate("window.elgrande.sent"))


def wait_answered(page: Page, sent_before: int, timeout: float = 20_000) -> None:
    """Waits until a command sent after `sent_before` has been answered (and rendered)."""
    page.wait_for_function(
        f"() => window.elgrande.sent > {sent_before} && window.elgrande.acked >= window.elgrande.sent",
        timeout=timeout)


def command(page: Page, selector: str) -> None:
    """Clicks a control that sends a command (Undo, Redo, Finish) and waits for the answer."""
    before = sent(page)
    page.click(selector)
    wait_answered(page, before)


def click_area(page: Page, code: str, redraw_while_pressed: bool = False) -> None:
    """Clicks a point inside the region's shape (its label point; labels let clicks through).
    The scroll is instant: Bootstrap scrolls smoothly, and the point read right after a
    smooth scroll begins is not where the region ends up.

    With `redraw_while_pressed`, the map is redrawn between the button going down and up,
    as when another seat's move arrives in the middle of a click."""
    point = page.evaluate(
        """(code) => {
            const poly = document.getElementById('area-' + code);
            poly.scrollIntoView({block: 'center', behavior: 'instant'});
            const svg = poly.ownerSVGElement;
            const p = svg.createSVGPoint();
            p.x = Number(poly.dataset.px); p.y = Number(poly.dataset.py);
            const q = p.matrixTransform(svg.getScreenCTM());
            return [q.x, q.y];
        }""",
        code,
    )
    if redraw_while_pressed:
        press_across_redraw(page, point[0], point[1])
    else:
        page.mouse.click(point[0], point[1])


def press_across_redraw(page: Page, x: float, y: float) -> None:
    """A click at (x, y) with the page redrawn (its controls rebuilt) between the button
    going down and up, as when another seat's move arrives in the middle of a click."""
    page.mouse.move(x, y)
    page.mouse.down()
    page.evaluate("window.elgrande.redraw()")
    page.mouse.up()


def choose_in_dialog(page: Page, action: dict[str, Any]) -> None:
    dialog = page.locator("#choose-dialog")
    if dialog.is_visible() or page.locator("#choose-options button").count():
        button = page.locator(f'#choose-options [data-action="{action["text"]}"]')
        if button.count():
            button.wait_for(state="visible")
            button.click()


def click_action(page: Page, action: dict[str, Any]) -> None:
    """Clicks what sends `action` and waits until the server has answered it."""
    before = sent(page)
    _click(page, action)
    wait_answered(page, before)


def _click(page: Page, action: dict[str, Any]) -> None:
    kind = action["kind"]
    if kind in ("bid", "retrieve"):
        page.click(f'#power [data-bid="{action["value"]}"]')
    elif kind == "take":
        page.click(f'#cards [data-card="{action["card"]}"]')
    elif kind == "secret":
        page.locator("#secret-dialog").wait_for(state="visible")
        page.click(f'#secret-options [data-secret="{action["text"]}"]')
        page.click("#secret-confirm")
    elif kind in BUTTON_KINDS or (kind == "lose" and action.get("area") == "court"):
        page.click(f'#buttons [data-action="{action["text"]}"]')
    elif kind in ("pick", "remove"):
        page.click(f'[data-piece="{action["owner"]}-{action["area"]}"]')
        _maybe_choose(page, action)
    elif kind in AREA_KINDS:
        click_area(page, action["area"])
        _maybe_choose(page, action)
    else:
        raise AssertionError(f"no way to click {action}")


def _maybe_choose(page: Page, action: dict[str, Any]) -> None:
    same_target = [a for a in state(page)["legal"] if a.get("area") == action.get("area")
                   and a.get("owner") == action.get("owner") and a["kind"] not in ("secret",)]
    if len(same_target) > 1:
        button = page.locator(f'#choose-options [data-action="{action["text"]}"]')
        button.wait_for(state="visible")
        button.click()


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Random, but into the Castillo whenever possible, so that a general scoring asks
    this player where the Castillo Caballeros go."""
    castillo = [a for a in legal if a["kind"] == "place" and a.get("area") == "CAS"]
    return castillo[0] if castillo else rng.choice(legal)


def play_one(page: Page, rng: random.Random) -> str:
    """One thing a player does now: an action, Finish, or waiting for the others.
    Returns what it did ("step", "finish", "wait", "over")."""
    # State and render count read together: a render in between would be missed.
    s, before = page.evaluate("[window.elgrande.state, window.elgrande.renders || 0]")
    if s["finished"]:
        return "over"
    if s["legal"]:
        click_action(page, pick(s["legal"], rng))
        return "step"
    if s["draft"]["can_finish"]:
        command(page, "#finish")
        return "finish"
    wait_render(page, before, timeout=60_000)
    return "wait"


SHOWN_TEXTS = """(skip) => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode;
        const el = node.parentElement;
        if (!el || el.closest(skip)) continue;
        if (!el.getClientRects().length) continue;  // not shown
        const text = node.textContent.trim();
        if (text) out.push(text);
    }
    for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
        for (const name of ["aria-label", "title", "placeholder"]) {
            const v = el.getAttribute(name);
            if (v) out.push(v.trim());
        }
    }
    out.push(document.title);
    return out;
}"""


def shown_texts(page: Page, skip: str = "script, style") -> list[str]:
    """What a reader sees: every visible text (outside ``skip``), accessible name,
    title and placeholder, and the page's title."""
    result: list[str] = page.evaluate(SHOWN_TEXTS, skip)
    return result
