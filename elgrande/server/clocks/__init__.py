"""Turn clocks: a table's pace (``rules``), the arithmetic of a seat's time bank
(``bank``), the clocks kept in the database (``keeper``) and the thread that acts on
deadlines (``thread``). docs/clocks.md describes them for players and hosts."""

from .keeper import ClockKeeper, ClockRefused, Due
from .rules import DEFAULT_PRESET, PRESETS, ClockRules, table_clock
from .thread import ClockThread

__all__ = ["DEFAULT_PRESET", "PRESETS", "ClockKeeper", "ClockRefused", "ClockRules",
           "ClockThread", "Due", "table_clock"]
