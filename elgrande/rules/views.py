"""What one seat (or a spectator) may see: the single place where secrets are cut out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .actions import CHANCE
from .board import AREA_CODES, NUM_AREAS, TILES
from .cards import CARDS
from .engine import legal_actions, to_act
from .scoring import awards_of
from .state import NOT_ASKED, PENDING, PHASE_NAMES, SECRET_PURPOSES, SETUP, State

# The JSON Schema every view() conforms to, shipped with the package (docs/api.md).
VIEW_SCHEMA_PATH = Path(__file__).with_name("view.schema.json")


def redact(s: State, seat: int | None) -> State:
    """A copy of ``s`` without the unrevealed secret choices of seats other than ``seat``:
    their choice reads as still pending. This is all a bot for ``seat`` may be given."""
    r = s.copy()
    for p in range(s.n):
        if p != seat and r.secret[p] >= 0:
            r.secret[p] = PENDING
    r.legal_cache = None
    return r


def _hand_values(mask: int) -> list[int]:
    return [v for v in range(1, 14) if mask >> v & 1]


def view(s: State, seat: int | None) -> dict[str, Any]:
    """JSON-ready view for ``seat`` (``None``: a spectator). Everything public, the seat's own
    pending secret choice, nothing else: other seats' pending choices show only as "chosen"."""
    n = s.n
    hands_public = s.config.options.hands_public
    players = []
    for p in range(n):
        hand = _hand_values(s.hand[p])
        played = [v for v in range(1, 14) if v not in hand]
        entry: dict[str, Any] = {
            "seat": p,
            "score": s.scores[p],
            "court": s.court[p],
            "provinces": s.provinces[p],
            "castillo": s.cab[9 * n + p],
            "home": AREA_CODES[s.grande[p]] if s.grande[p] >= 0 else None,
            "bid": s.bids[p] or None,
            "cards_in_hand": len(hand),
        }
        if hands_public or p == seat:
            entry["hand"] = hand
            entry["played"] = played
        secret = s.secret[p]
        entry["secret_asked"] = secret != NOT_ASKED
        entry["secret_chosen"] = secret >= 0
        if p == seat and secret >= 0:
            entry["secret_choice"] = AREA_CODES[secret]
        players.append(entry)
    areas = []
    for a in range(NUM_AREAS):
        areas.append({
            "area": AREA_CODES[a],
            "caballeros": s.cab[a * n: a * n + n],
            "awards": list(awards_of(s, a)),
        })
    actors = to_act(s)
    legal = [] if seat is None or seat not in actors else [str(a) for a in legal_actions(s, seat)]
    return {
        "players": n,
        "rounds": s.config.rounds,
        "round": s.round if s.phase != SETUP else None,
        "phase": PHASE_NAMES[s.phase],
        "ply": s.ply,
        "seat": seat,
        "to_act": ["chance" if p == CHANCE else p for p in actors],
        "start_player": s.start_player if s.start_player >= 0 else None,
        "king": AREA_CODES[s.king] if s.king >= 0 else None,
        "tiles": [
            {"awards": list(TILES[t]), "area": AREA_CODES[s.tiles[t]] if s.tiles[t] >= 0 else None}
            for t in (0, 1)
        ],
        "areas": areas,
        "player_state": players,
        "available_cards": [CARDS[c].id for c in s.available],
        "cards_left": {c.id: s.copies[c.index] for c in CARDS if c.stack < 5},
        "turn_order": s.order[:],
        "active": s.active if s.active >= 0 else None,
        "card": CARDS[s.card].id if s.card >= 0 else None,
        "deploy_left": s.deploy_left,
        "secret_purpose": SECRET_PURPOSES[s.secret_purpose] if s.secret_purpose >= 0 else None,
        "source": AREA_CODES[s.source] if s.source >= 0 else None,
        "picked": (
            {"owner": s.picked // 10, "area": AREA_CODES[s.picked % 10]} if s.picked >= 0 else None
        ),
        "legal_actions": legal,
    }
