"""The exported game record (JSON), its verification and its move-by-move listing.

A record holds the configuration, the seed (only once the game is over), the seed's
commitment, the full log with timestamps and the final state; replaying the log gives
the identical final state, and every chance outcome can be re-derived from the seed.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from elgrande.rules import (
    CHANCE,
    GameConfig,
    IllegalAction,
    State,
    apply,
    is_chance,
    is_terminal,
    new_game,
    parse_action,
)

from . import chance
from .errors import ExportRefused

if TYPE_CHECKING:
    from .match import Match

FORMAT = "elgrande-match/1"


def export(match: Match, *, unfinished: bool = False) -> dict[str, Any]:
    """The game record. A running game is refused unless ``unfinished``; then the seed
    is left out (it would reveal future draws), and the log holds committed secret
    choices, so such a record is for administrators only."""
    if not match.over and not unfinished:
        raise ExportRefused(f"match {match.id} is not over yet")
    return {
        "format": FORMAT,
        "match_id": match.id,
        "config": match.config.to_dict(),
        "commitment": match.commitment,
        "seed": match.seed if match.over else None,
        "created_at": match.created_at.isoformat(),
        "log": [
            {
                "seq": e.seq,
                "seat": e.seat,
                "action": str(e.action),
                "base_seq": e.base_seq,
                "at": e.at.isoformat(),
            }
            for e in match.log
        ],
        "over": match.over,
        "final_state": match.state.to_dict(),
    }


class VerifyError(ValueError):
    """The record does not check out; the message says where."""


def replay_record(record: dict[str, Any]) -> State:
    """Replay the record's log; raises ``VerifyError`` on a bad or illegal entry."""
    if record.get("format") != FORMAT:
        raise VerifyError(f"not a {FORMAT} record")
    state = new_game(GameConfig.from_dict(record["config"]))
    for i, entry in enumerate(record["log"], start=1):
        if entry["seq"] != i:
            raise VerifyError(f"log entry {i} has sequence number {entry['seq']}")
        try:
            apply(state, parse_action(entry["action"]))
        except (ValueError, IllegalAction) as exc:
            raise VerifyError(f"move {i} {entry['action']!r}: {exc}") from exc
    return state


def verify(record: dict[str, Any]) -> list[str]:
    """Check the commitment, re-derive every chance outcome from the seed, replay the
    log and compare with the final state. Returns a summary; raises ``VerifyError``."""
    seed = record.get("seed")
    if not seed:
        raise VerifyError("the record has no seed (the game is not over)")
    if chance.commitment(seed) != record["commitment"]:
        raise VerifyError("the seed does not match the published commitment")
    state = new_game(GameConfig.from_dict(record["config"]))
    draws = 0
    for i, entry in enumerate(record["log"], start=1):
        if entry["seq"] != i:
            raise VerifyError(f"log entry {i} has sequence number {entry['seq']}")
        action = parse_action(entry["action"])
        if is_chance(state) or action.seat == CHANCE:
            if not is_chance(state):
                raise VerifyError(f"move {i} {entry['action']!r} is a chance outcome out of turn")
            expected = chance.draw(seed, i, state)
            if action != expected:
                raise VerifyError(f"move {i}: the seed draws {expected}, the log has {action}")
            draws += 1
        try:
            apply(state, action)
        except IllegalAction as exc:
            raise VerifyError(f"move {i} {entry['action']!r}: {exc}") from exc
    if state.to_dict() != record["final_state"]:
        raise VerifyError("replaying the log does not give the recorded final state")
    if record.get("over") and not is_terminal(state):
        raise VerifyError("the record says the game is over but the replay is not")
    return [
        f"commitment {record['commitment']} matches the seed",
        f"{draws} chance outcomes re-derived from the seed",
        f"{len(record['log'])} moves replay to the recorded final state",
    ]


def listing(record: dict[str, Any]) -> list[str]:
    """The game move by move: sequence number, time, notation; commits separated."""
    config = record["config"]
    lines = [
        f"match {record.get('match_id', '?')}: {config.get('players')} players, "
        f"{config.get('rounds')} rounds"
    ]
    base = None
    for entry in record["log"]:
        if entry["base_seq"] != base:
            base = entry["base_seq"]
            lines.append("")
        at = datetime.fromisoformat(entry["at"]).strftime("%Y-%m-%d %H:%M:%S")
        lines.append(f"{entry['seq']:5}  {at}  {entry['action']}")
    state = replay_record(record)
    if is_terminal(state):
        lines += ["", f"final scores: {state.scores}"]
    return lines
