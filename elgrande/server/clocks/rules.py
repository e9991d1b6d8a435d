"""A table's pace: the clock rules chosen when the game is created, kept with the game
(so changing a preset later never changes a running game), and the presets offered.

A seat's clock is a time bank (as on Board Game Arena): each time the seat comes to act
it gets ``per_turn`` seconds more, never more than ``cap`` in all; the clock runs while
the seat is to act, including its secret choices, and stops when it commits. A turn is
one commit, so "2 moves a day" means 12 hours per turn. Daily tables may also set
playing hours (the clock then runs only within them, in each player's time zone) and
allow holidays (a player stops their clock for some days, within the table's limit)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..bots import BOT_LEVELS
from ..errors import LobbyError
from ..i18n import N_, _

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR


@dataclass(frozen=True)
class ClockRules:
    preset: str  # the name it was made from, for the page
    per_turn: int  # seconds added to the bank at each turn
    initial: int  # the bank before the first turn
    cap: int  # the bank never holds more
    remind_before: int  # seconds before a deadline that a reminder goes out (0: none)
    stand_in: str  # the computer level that plays a seat whose clock ran out
    hours: tuple[int, int] | None = None  # playing hours (local), daily tables only
    holiday_days: int = 0  # days of holiday each player may take in this game

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClockRules:
        hours = data.get("hours")
        return cls(**{**data, "hours": tuple(hours) if hours else None})

    @property
    def daily(self) -> bool:
        return self.per_turn >= HOUR


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    description: str
    rules: ClockRules | None  # None: no clock


def _daily(name: str, moves: int) -> ClockRules:
    per_turn = DAY // moves
    return ClockRules(name, per_turn=per_turn, initial=2 * per_turn, cap=max(2 * DAY, 5 * per_turn),
                      remind_before=per_turn // 6, stand_in="medium", holiday_days=7)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    # Labels and descriptions are translated where they are shown (_(p.label)).
    Preset("none", N_("No clock"), N_("Among friends: nobody is ever hurried, and nobody "
                                      "is replaced."), None),
    Preset("live", N_("Live: 3 minutes a turn"),
           N_("3 minutes per turn, 5 in the bank to start, at most 10 in the bank."),
           ClockRules("live", per_turn=3 * MINUTE, initial=5 * MINUTE, cap=10 * MINUTE,
                      remind_before=0, stand_in="medium")),
    Preset("daily-1", N_("Daily: 1 move a day"),
           N_("24 hours per turn, 2 days in the bank to start, at most 5 days; a reminder "
              "4 hours before the deadline."), _daily("daily-1", 1)),
    Preset("daily-2", N_("Daily: 2 moves a day"),
           N_("12 hours per turn, 1 day in the bank to start, at most 2.5 days; a reminder "
              "2 hours before the deadline."), _daily("daily-2", 2)),
    Preset("daily-3", N_("Daily: 3 moves a day"),
           N_("8 hours per turn, 16 hours in the bank to start, at most 2 days; a reminder "
              "80 minutes before the deadline."), _daily("daily-3", 3)),
)}
DEFAULT_PRESET = "none"


def table_clock(preset: str, *, stand_in: str | None = None, hours: tuple[int, int] | None = None,
                holiday_days: int | None = None) -> ClockRules | None:
    """The rules of a new table from the creation form's choices (LobbyError, with what
    to do, when a choice is not allowed)."""
    found = PRESETS.get(preset)
    if found is None:
        raise LobbyError(_("Unknown pace %(pace)s: choose one of %(paces)s.",
                            pace=repr(preset), paces=", ".join(PRESETS)))
    rules = found.rules
    if rules is None:
        if hours is not None or holiday_days:
            raise LobbyError(_("Playing hours and holidays need a clock: choose a pace."))
        return None
    if stand_in is not None:
        if stand_in not in BOT_LEVELS:
            raise LobbyError(_("Unknown computer opponent level %(level)s.",
                               level=repr(stand_in)))
        rules = replace(rules, stand_in=stand_in)
    if hours is not None:
        start, end = hours
        if not rules.daily:
            raise LobbyError(_("Playing hours are for daily tables only."))
        if not (0 <= start < end <= 24 and end - start >= 4):
            raise LobbyError(_("Playing hours run from one whole hour to a later one, at "
                               "least 4 hours apart (for example 8 to 22)."))
        rules = replace(rules, hours=(start, end))
    if holiday_days is not None:
        if not 0 <= holiday_days <= 30:
            raise LobbyError(_("Holidays are 0 to 30 days per player."))
        if holiday_days and not rules.daily:
            raise LobbyError(_("Holidays are for daily tables only."))
        rules = replace(rules, holiday_days=holiday_days)
    return rules


def duration(seconds: float) -> str:
    """Time left as players read it, in the current language: "2 d 4 h", "3 h 05 min",
    "2:07"."""
    s = max(0, int(seconds))
    days, hours, minutes = s // DAY, (s % DAY) // HOUR, (s % HOUR) // MINUTE
    if days:
        # TRANSLATORS: a clock's time left, short: days and hours ("2 d 4 h").
        return _("%(days)s d %(hours)s h", days=days, hours=hours)
    if hours:
        # TRANSLATORS: a clock's time left, short: hours and minutes ("3 h 05 min").
        return _("%(hours)s h %(minutes)s min", hours=hours, minutes=str(minutes).zfill(2))
    return f"{minutes}:{s % MINUTE:02d}"
