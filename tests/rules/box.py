"""Helpers for the box rules' tests (rules.md §12): positions with Vetos held, and a driver
that plays a script of the active player's (and other seats') actions while answering the
veto windows in between."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from elgrande.rules import (
    Event,
    Options,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    redact,
    sample_chance,
    to_act,
)
from elgrande.rules.cards import VETO_CARD
from elgrande.rules.state import VETO

from .scenario import scenario

BOX = Options.preset("box")
# The box rules without the Veto cards: what a special action does when nobody stops it.
BOX_NO_VETO = replace(BOX, veto_cards=False)
HOMES = ["GAL", "PVA", "ARA", "CAT"]
# A board where every card's special action has something to do (King in CLN).
BOARD = {
    "GAL": [2, 1, 0, 0], "PVA": [1, 2, 1, 0], "ARA": [0, 1, 2, 1], "CAT": [1, 0, 0, 2],
    "CLV": [3, 1, 1, 0], "CLN": [0, 1, 0, 0], "SEV": [0, 0, 0, 1], "GRA": [2, 2, 0, 0],
    "VAL": [0, 0, 3, 2],
}  # most Caballeros: CLV and VAL (5); fewest: CLN and SEV (1)
CASTILLO = [2, 1, 1, 0]


def box_scenario(players: int = 4, *, holders: Mapping[int, Sequence[int]] | None = None,
                 windows: str = "parts", options: Options | None = None,
                 veto_available: bool = False, **kw: Any) -> State:
    """A ``scenario`` under the box rules. ``holders``: ``{seat: [round labels the Vetos
    were taken in]}``; ``veto_available``: a Veto card lies face up (first)."""
    opts = options or replace(BOX, veto_windows=windows)
    s = scenario(players, options=opts, **kw)
    d = s.to_dict()
    if opts.veto_cards:
        holder, taken = [-1, -1], [-1, -1]
        i = 0
        labels = s.config.round_labels
        for seat, rounds in (holders or {}).items():
            for label in rounds:
                holder[i], taken[i] = seat, labels.index(label)
                i += 1
                d["copies"][VETO_CARD] -= 1
        d["veto"]["holder"], d["veto"]["taken"] = holder, taken
        if veto_available:
            d["available"].insert(0, VETO_CARD)
            d["copies"][VETO_CARD] -= 1
    else:
        assert not holders and not veto_available
    return State.from_dict(d)


def board_state(s: State) -> tuple:
    """Everything a special action can change on the table."""
    return (tuple(s.cab), tuple(s.court), tuple(s.provinces), tuple(s.scores), tuple(s.grande),
            s.king, tuple(s.tiles), tuple(s.hand))


@dataclass
class Window:
    index: int  # how many script actions had been played when it opened
    next: str  # what it preceded (VetoState.resume's name)
    asking: tuple[int, ...]
    board: tuple  # board_state when it opened


@dataclass
class Run:
    state: State
    windows: list[Window] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    log: list[str] = field(default_factory=list)


def drive(s: State, script: Sequence[str], veto_at: int | None = None) -> Run:
    """Play ``script``; at each veto window every holder passes, except that the first
    holder asked at window number ``veto_at`` (0-based) vetoes. After a veto the rest of
    the script is not played."""
    run = Run(s)
    i = 0
    while True:
        if s.phase == VETO:
            assert s.veto is not None
            k = len(run.windows)
            run.windows.append(Window(i, _next_name(s), s.veto.asking, board_state(s)))
            # A window survives the JSON form, and redacts for every seat.
            assert State.from_dict(json.loads(json.dumps(s.to_dict()))) == s
            for seat in [None, *range(s.n)]:
                r = redact(s, seat)
                assert State.from_dict(r.to_dict()) == r
            for j, seat in enumerate(s.veto.asking):
                assert to_act(s) == [seat]
                action = f"p{seat} veto" if k == veto_at and j == 0 else f"p{seat} pass"
                apply(s, action, run.events)
                run.log.append(action)
                if k == veto_at:
                    return run
            continue
        if i == len(script):
            return run
        apply(s, script[i], run.events)
        run.log.append(script[i])
        i += 1


def _next_name(s: State) -> str:
    from elgrande.rules.state import WINDOW_NEXT
    assert s.veto is not None
    return WINDOW_NEXT[s.veto.resume]


def play_random(s: State, rng: random.Random, pass_probability: float = 0.9,
                stop: Any = None, events: list | None = None, log: list | None = None) -> State:
    """Random legal play (passing at a window with ``pass_probability``) until the end, or
    until ``stop(s)`` is true."""
    while not is_terminal(s) and not (stop is not None and stop(s)):
        if is_chance(s):
            action = sample_chance(s, rng)
        else:
            options = legal_actions(s)
            if s.phase == VETO:
                action = options[1] if rng.random() < pass_probability else options[0]
            else:
                action = options[rng.randrange(len(options))]
        apply(s, action, events)
        if log is not None:
            log.append(action)
    return s
