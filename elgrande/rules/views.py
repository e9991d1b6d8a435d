"""What one seat (or a spectator) may see: the single place where secrets are cut out."""

from __future__ import annotations

from typing import Any

from .actions import CHANCE, from_code
from .board import AREA_CODES, NUM_AREAS, TILES
from .cards import ALL_CARDS, CARDS, VETO_CARD
from .engine import legal_actions, to_act
from .scoring import awards_of
from .state import (
    NOT_ASKED,
    PENDING,
    PHASE_NAMES,
    SECRET_PURPOSES,
    SETUP,
    VETO,
    WINDOW_NEXT,
    State,
    VetoState,
)


def redact(s: State, seat: int | None) -> State:
    """A copy of ``s`` without the unrevealed secret choices of seats other than ``seat``:
    their choice reads as still pending. This is all a bot for ``seat`` may be given.

    With ``castillo_hidden`` (box rules) the other seats' split of the Castillo is replaced
    too: the Castillo keeps its total, shared out among them by ``_castillo_guess`` from
    public counts only, and each one's provinces are what his reserve leaves."""
    r = s.copy()
    for p in range(s.n):
        if p != seat and r.secret[p] >= 0:
            r.secret[p] = PENDING
    if s.config.options.castillo_hidden:
        _castillo_guess(r, seat)
    r.legal_cache = None
    return r


def _castillo_guess(r: State, seat: int | None) -> None:
    """Overwrite the other seats' Castillo counts in ``r`` with a split made from public
    counts only: the hidden part of the total is dealt out one by one, seat by seat
    (ascending, round and round) to seats whose reserve (provinces + Castillo, which the
    public counts give) still has room; provinces are the rest of each reserve."""
    n, base = r.n, 9 * r.n
    others = [p for p in range(n) if p != seat]
    reserve = {p: r.provinces[p] + r.cab[base + p] for p in others}
    unknown = sum(r.cab[base + p] for p in others)
    share = dict.fromkeys(others, 0)
    while unknown:
        for p in others:
            if unknown and share[p] < reserve[p]:
                share[p] += 1
                unknown -= 1
    for p in others:
        r.cab[base + p] = share[p]
        r.provinces[p] = reserve[p] - share[p]


def _hand_values(mask: int) -> list[int]:
    return [v for v in range(1, 14) if mask >> v & 1]


def view(s: State, seat: int | None) -> dict[str, Any]:
    """JSON-ready view for ``seat`` (``None``: a spectator). Everything public, the seat's own
    pending secret choice, nothing else: other seats' pending choices show only as "chosen"."""
    n = s.n
    options = s.config.options
    hands_public = options.hands_public
    hidden = options.castillo_hidden  # box: the Castillo's split is not shown
    players = []
    for p in range(n):
        hand = _hand_values(s.hand[p])
        played = [v for v in range(1, 14) if v not in hand]
        entry: dict[str, Any] = {
            "seat": p,
            "score": s.scores[p],
            "court": s.court[p],
            "provinces": s.provinces[p] if not hidden or p == seat else None,
            "castillo": s.cab[9 * n + p] if not hidden or p == seat else None,
            "home": AREA_CODES[s.grande[p]] if s.grande[p] >= 0 else None,
            "bid": s.bids[p] or None,
            "cards_in_hand": len(hand),
        }
        if hidden:
            entry["reserve"] = s.provinces[p] + s.cab[9 * n + p]
        if hands_public or p == seat:
            entry["hand"] = hand
            entry["played"] = played
        secret = s.secret[p]
        entry["secret_asked"] = secret != NOT_ASKED
        entry["secret_chosen"] = secret >= 0
        if p == seat and secret >= 0:
            entry["secret_choice"] = AREA_CODES[secret]
        players.append(entry)
    areas: list[dict[str, Any]] = []
    for a in range(NUM_AREAS):
        areas.append({
            "area": AREA_CODES[a],
            "caballeros": s.cab[a * n: a * n + n],
            "awards": list(awards_of(s, a)),
        })
    if hidden:
        castillo = areas[-1]
        castillo["total"] = sum(castillo["caballeros"])
        castillo["caballeros"] = [k if p == seat else None for p, k in enumerate(castillo["caballeros"])]
    actors = to_act(s)
    legal = [] if seat is None or seat not in actors else [str(a) for a in legal_actions(s, seat)]
    cards_left = {c.id: s.copies[c.index] for c in CARDS if c.stack < 5}
    result: dict[str, Any] = {
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
        "available_cards": [ALL_CARDS[c].id for c in s.available],
        "cards_left": cards_left,
        "turn_order": s.order[:],
        "active": s.active if s.active >= 0 else None,
        "card": ALL_CARDS[s.card].id if s.card >= 0 else None,
        "deploy_left": s.deploy_left,
        "secret_purpose": SECRET_PURPOSES[s.secret_purpose] if s.secret_purpose >= 0 else None,
        "source": AREA_CODES[s.source] if s.source >= 0 else None,
        "picked": (
            {"owner": s.picked // 10, "area": AREA_CODES[s.picked % 10]} if s.picked >= 0 else None
        ),
        "legal_actions": legal,
    }
    if s.veto is not None:  # box rules: the Veto cards
        cards_left["2v"] = s.copies[VETO_CARD]
        result["veto"] = _veto_view(s, s.veto)
    return result


def _veto_view(s: State, v: VetoState) -> dict[str, Any]:
    labels = s.config.round_labels
    held = [
        {"seat": h, "taken_round": labels[r], "expires_after_round": labels[min(r + 1, len(labels) - 1)]}
        for h, r in sorted(zip(v.holder, v.taken, strict=True), key=lambda x: (x[1], x[0])) if h >= 0
    ]
    window = None
    if s.phase == VETO:
        window = {
            "next": WINDOW_NEXT[v.resume],
            "asking": list(v.asking),
            "regions_left": [AREA_CODES[a] for a in v.regions],
            "players_left": s.queue[:],
        }
    return {
        "held": held,
        "declared": str(from_code(v.declared)) if v.declared >= 0 else None,
        "window": window,
    }
