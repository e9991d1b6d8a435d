"""The time zones a player may choose (IANA names, as browsers report them)."""

from __future__ import annotations

from zoneinfo import available_timezones

# Region/City names only (no "Etc/GMT+5" or legacy aliases), sorted; UTC first.
ZONES: tuple[str, ...] = ("UTC", *sorted(
    z for z in available_timezones()
    if "/" in z and z.split("/")[0] in {"Africa", "America", "Antarctica", "Asia", "Atlantic",
                                        "Australia", "Europe", "Indian", "Pacific"}))
_KNOWN = frozenset(ZONES)


def valid_zone(name: str) -> bool:
    return name in _KNOWN
