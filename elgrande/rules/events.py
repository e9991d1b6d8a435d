"""What ``apply(state, action, events)`` reports: typed, frozen records (docs/api.md, Events).

Areas are indices (0..8 the regions in scoring order, 9 the Castillo), seats are 0-based.
``event.to_dict()`` is the JSON form (``"type"`` plus the fields); an event also reads as
that mapping (``event["type"]``, ``event.get("reason")``), the form these records had
when they were plain dicts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar


class Event(Mapping[str, Any]):
    """Base of every event record; ``type`` names the kind in the JSON form."""

    __slots__ = ()
    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            data[f.name] = _plain(getattr(self, f.name))
        return data

    # The mapping form: read-only access to to_dict().
    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


def _plain(value: Any) -> Any:
    """JSON-ready: tuples become lists (recursively), int subclasses plain ints."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, int) and type(value) is not int and not isinstance(value, bool):
        return int(value)
    return value


@dataclass(frozen=True, slots=True)
class SetupDone(Event):
    """Set-up is complete: every home region, the King's region and the first start player."""

    type: ClassVar[str] = "setup"
    homes: tuple[int, ...]
    king: int
    start_player: int


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    """A card was turned up for this round (``card`` is its id, e.g. ``"2d"``)."""

    type: ClassVar[str] = "reveal"
    card: str


@dataclass(frozen=True, slots=True)
class Scored(Event):
    """One area was scored. ``reason``: ``"general"`` or the card's id (``"3a"``, ``"2d"``, ...)."""

    type: ClassVar[str] = "score"
    area: int
    points: tuple[int, ...]  # per seat, bonuses included
    reason: str


@dataclass(frozen=True, slots=True)
class CastilloReleased(Event):
    """General scoring: where each seat's Castillo Caballeros went (a region, or -2 for a
    seat that was not asked because it had none there)."""

    type: ClassVar[str] = "castillo_release"
    destinations: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SecretsRevealed(Event):
    """The last secret choice is in: every seat's choice (a region, -2 not asked).
    ``purpose`` is a ``SecretPurpose`` value (0 general, 1 2a, 2 2e, 3 4f, 4 4g)."""

    type: ClassVar[str] = "secrets_revealed"
    purpose: int
    choices: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AutoRecall(Event):
    """Recruitment (or card 4c) asked for at least as many Caballeros as ``seat`` had left in
    the regions it may recall from, so the engine brought every one of them to the court."""

    type: ClassVar[str] = "auto_recall"
    seat: int
    regions: tuple[tuple[int, int], ...]  # (region, Caballeros recalled), in board order


@dataclass(frozen=True, slots=True)
class AutoLoss(Event):
    """Card 2c: ``seat`` had only one way to lose its 3 (at most 3 Caballeros, or all of them
    in one place), so the engine sent them to the provinces."""

    type: ClassVar[str] = "auto_loss"
    seat: int
    court: int  # from the court
    regions: tuple[tuple[int, int], ...]  # (region, Caballeros lost), in board order


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    """A step that offered ``seat`` nothing to decide was passed over.

    ``step`` is one of: ``"recruit"`` (the power card recruits none, or the seat has no
    Caballero to take), ``"deployment"`` (the court is empty), ``"special"`` (after the
    deployment, the card's special action is impossible), ``"2b"`` / ``"2c"`` (the seat has
    nothing to remove or lose), ``"secret"`` (no region the seat may pick).
    """

    type: ClassVar[str] = "skipped"
    seat: int
    step: str


@dataclass(frozen=True, slots=True)
class Vetoed(Event):
    """Box rules: ``seat`` spent a Veto at a window of ``active``'s special action (card
    ``card``), which stops there. ``taken_round`` is the round (label) that Veto was taken
    in (a seat holding both spends the one taken first); ``stopped`` is what the window
    preceded (``"begin"``, ``"effect"``, ``"reveal"``, ``"score"``, ``"remove"``,
    ``"lose"``, ``"step"``: see docs/api.md, "Veto windows")."""

    type: ClassVar[str] = "vetoed"
    seat: int
    active: int
    card: str
    taken_round: int
    stopped: str


@dataclass(frozen=True, slots=True)
class VetoExpired(Event):
    """Box rules: at the end of the round after the one it was taken in (``taken_round``,
    a label), ``seat``'s unused Veto is discarded."""

    type: ClassVar[str] = "veto_expired"
    seat: int
    taken_round: int


EVENT_TYPES: tuple[type[Event], ...] = (
    SetupDone, Revealed, Scored, CastilloReleased, SecretsRevealed, AutoRecall, AutoLoss, Skipped,
    Vetoed, VetoExpired,
)
