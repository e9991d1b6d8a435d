"""Computer opponents for empty seats, from `elgrande.ai`.

A bot's whole turn (its steps up to the draft's boundary) is worked out in a separate
process, so a thinking bot never stalls the event loop or other games. The bot sees
only its seat's redacted state (`Bot.choose` redacts it itself).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from typing import Any

from elgrande.ai import LEVELS, make_bot
from elgrande.ai.coach import Budget, DecisionPoint, judge
from elgrande.matches import Draft
from elgrande.rules import State

from .i18n import N_, _

BOT_LEVELS = ("random", *LEVELS)
# Each level's name for players, translated where it is shown (level_name): every page
# and the seats' names; the game page's script keeps the same names (static/js/game.js,
# LEVEL_NAMES, translated by js.po; tests/server/test_bots.py checks they match).
LEVEL_NAMES = {"random": N_("random"), "easy": N_("easy"), "medium": N_("medium"),
               "hard": N_("hard")}


def level_name(level: str | None) -> str:
    """A computer level's name in the reader's language ("random" for a seat without
    one; an unknown level as it is)."""
    key = level or "random"
    return _(LEVEL_NAMES[key]) if key in LEVEL_NAMES else key


def bot_seed(secret_seed: str, seat: int, seq: int) -> int:
    """A bot's randomness for its turn at ``seq``: from the match's secret seed (revealed
    only when the game is over), so a player who rebuilds the position from the public
    log cannot run the bot and learn its secret choices; a replay gets the same again."""
    digest = hashlib.sha256(f"{secret_seed}:bot:{seat}:{seq}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def think(state_dict: dict[str, Any], seat: int, level: str, seed: int) -> list[str]:
    """The steps of the bot's turn from the committed state, in notation. Runs in a
    worker process (arguments and result are plain data)."""
    state = State.from_dict(state_dict)
    bot = make_bot(level, seed)
    draft = Draft(seat, 0, state)
    while draft.may_step:
        draft.step(bot.choose(draft.current, seat))
    return [str(a) for a in draft.steps]


def coach_judge(point: dict[str, Any], seed: int, budget: dict[str, Any]) -> dict[str, Any]:
    """The coach's word on one decision (``elgrande.ai.coach.judge``), from the seat's
    redacted view only. Runs in a worker process, behind every bot move."""
    finding = judge(DecisionPoint.from_dict(point), seed, Budget.from_dict(budget))
    return finding.to_dict()


def coach_seed(secret_seed: str, seat: int) -> int:
    """The coach's randomness for a seat's review: from the match's secret seed, like the
    bots' (never from anything a client knows)."""
    digest = hashlib.sha256(f"{secret_seed}:coach:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def worker_init(parent_pid: int) -> None:
    """In each bot worker process: exit when the server process is gone (even after a
    SIGKILL, which gives it no chance to stop its workers)."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
