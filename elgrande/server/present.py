"""What one seat (or a spectator) gets to see: the single place where the server cuts
secrets out before anything leaves it.

A seat sees the committed public state with its own draft on top, its own secret
choice, and for every other seat only whether it has chosen. Spectators see the
committed public state. The order of the action stacks is not in the state at all.
"""

from __future__ import annotations

from typing import Any

from elgrande.matches import Draft, Match
from elgrande.rules import Action, State, is_terminal, redact, to_act, winners
from elgrande.rules.board import (
    AREA_CODES,
    AREA_NAMES,
    CASTILLO,
    PRINTED_AWARDS,
    RECRUITS_BY_POWER,
    TILES,
)
from elgrande.rules.cards import CARDS
from elgrande.rules.state import NOT_ASKED, PENDING, SECRET_PURPOSES

# Okabe-Ito colours, each with a letter and an SVG pattern so no one needs to tell hues apart.
COLOURS = (
    {"name": "blue", "hex": "#0072B2", "letter": "B", "pattern": "stripes", "text": "#ffffff"},
    {"name": "orange", "hex": "#E69F00", "letter": "O", "pattern": "dots", "text": "#000000"},
    {"name": "green", "hex": "#009E73", "letter": "G", "pattern": "cross", "text": "#ffffff"},
    {"name": "pink", "hex": "#CC79A7", "letter": "P", "pattern": "rings", "text": "#000000"},
    {"name": "yellow", "hex": "#F0E442", "letter": "Y", "pattern": "zigzag", "text": "#000000"},
)

AREA_KINDS = {"recall", "place", "drop", "from", "secret", "score", "grande", "king", "evict"}
OWNER_AREA_KINDS = {"pick", "remove"}
NUMBER_KINDS = {"bid", "recruit", "retrieve", "court"}

PROMPTS = {
    "bid": "Play a power card (values already played this round are blocked).",
    "recruit": "Recruit Caballeros from your provinces to your court.",
    "recall": "Your provinces are short: choose a region to recall a Caballero from.",
    "take": "Take one of the action cards.",
    "choose": "Deploy first, or use the card's special action first?",
    "deploy": "Deploy Caballeros from your court next to the King or into the Castillo.",
    "after_deploy": "Use the special action, or end your turn.",
    "move": "Pick a Caballero to move (or stop).",
    "move_drop": "Choose where the picked Caballero goes.",
    "empty_choose": "Choose the region to empty.",
    "empty_drop": "Choose where your Caballeros from that region go.",
    "court_place": "Place Caballeros from your court in any region or the Castillo.",
    "option": "Choose one of the card's two effects.",
    "secret": "Choose a region secretly.",
    "remove": "Choose an opponent's Caballero to send back to the provinces.",
    "lose": "Choose Caballeros of yours to send back to the provinces.",
    "score_choice": "Choose the region to score.",
    "retrieve": "Choose a played power card to take back.",
    "grande": "Choose your Grande's new region.",
    "court_card": "Bring Caballeros from your provinces into your court.",
    "king": "Choose the King's new region.",
    "tile": "Place or move a mobile scoreboard.",
    "evict": "Name the region the opponents must leave.",
}

SECRET_TITLES = {
    "general": "General scoring: where do your Castillo Caballeros go?",
    "2a": "Province: in which region do you lose all your Caballeros?",
    "2e": "Province: in which region do you lose 2 Caballeros?",
    "4f": "Secret scoring: which region do you name?",
    "4g": "Eviction: where do your Caballeros go?",
}


def action_target(action: Action) -> dict[str, Any]:
    """The notation plus what the board should highlight for it."""
    kind, arg = action.kind, action.arg
    out: dict[str, Any] = {"text": str(action), "kind": kind}
    if kind in AREA_KINDS:
        out["area"] = AREA_CODES[arg]
    elif kind in OWNER_AREA_KINDS:
        out["owner"], out["area"] = arg // 10, AREA_CODES[arg % 10]
    elif kind in NUMBER_KINDS:
        out["value"] = arg
    elif kind == "take":
        out["card"] = CARDS[arg].id
    elif kind == "lose":
        out["area"] = "court" if arg == 10 else AREA_CODES[arg]
    elif kind == "tile":
        out["tile"], out["area"] = arg // 10, AREA_CODES[arg % 10]
    elif kind == "option":
        out["option"] = str(action).split()[-1]
    return out


def describe(action: Action, names: list[str]) -> str:
    """A readable sentence for the move log."""
    words = str(action).split()
    kind, arg = action.kind, action.arg
    if action.is_chance:
        if kind == "home":
            return f"{names[arg // 10]}'s Grande starts in {AREA_NAMES[arg % 10]}."
        if kind == "king":
            return f"The King starts in {AREA_NAMES[arg]}."
        if kind == "start":
            return f"{names[arg]} is the first start player."
        if kind == "reveal":
            card = CARDS[arg]
            return f"Card {card.id} ({card.name}) is revealed."
        return str(action)
    who = names[action.seat]
    area = AREA_NAMES[arg] if kind in AREA_KINDS and arg < len(AREA_NAMES) else ""
    simple = {
        "bid": f"{who} plays power card {arg}.",
        "recruit": f"{who} recruits {arg} Caballero{'s' if arg != 1 else ''} to court.",
        "recall": f"{who} recalls a Caballero from {area}.",
        "deploy": f"{who} deploys first.",
        "special": f"{who} uses the special action.",
        "end": f"{who} stops.",
        "done": f"{who} ends the turn.",
        "place": f"{who} places a Caballero in {area}.",
        "drop": f"{who} puts the Caballero in {area}.",
        "from": f"{who} chooses {area}.",
        "secret": f"{who} chooses {area} secretly.",
        "score": f"{who} scores {area}.",
        "retrieve": f"{who} takes back power card {arg}.",
        "grande": f"{who} moves the Grande to {area}.",
        "court": f"{who} brings {arg} Caballero{'s' if arg != 1 else ''} to court.",
        "king": f"{who} moves the King to {area}.",
        "evict": f"{who} names {area} for the eviction.",
    }
    if kind in simple:
        return simple[kind]
    if kind == "take":
        card = CARDS[arg]
        return f"{who} takes card {card.id} ({card.name})."
    if kind == "pick":
        return f"{who} picks up a Caballero of {names[arg // 10]} in {AREA_NAMES[arg % 10]}."
    if kind == "remove":
        return f"{who} sends a Caballero of {names[arg // 10]} from {AREA_NAMES[arg % 10]} to the provinces."
    if kind == "lose":
        place = "court" if arg == 10 else AREA_NAMES[arg]
        return f"{who} sends a Caballero from {place} to the provinces."
    if kind == "tile":
        return f"{who} puts the {'-'.join(map(str, TILES[arg // 10]))} scoreboard on {AREA_NAMES[arg % 10]}."
    if kind == "option":
        return f"{who} chooses option {words[-1]}."
    return str(action)


def describe_event(event: dict[str, Any], names: list[str]) -> str | None:
    """A scoring as a log line ("Scoring of Aragón (general): Anna 5, Bert 4.")."""
    if event.get("type") != "score":
        return None
    points = event["points"]
    reason = event.get("reason") or ""
    why = "general scoring" if reason == "general" else f"card {reason}" if reason else "scoring"
    who = ", ".join(f"{names[p]} {v}" for p, v in enumerate(points) if v) or "nobody scores"
    return f"Scoring of {AREA_NAMES[event['area']]} ({why}): {who}."


# One log entry in words: its sentence and those of the scorings it caused. Both are
# fixed once the entry is committed, so a game's lines are worked out once and reused.
EntryLines = tuple[str, tuple[str, ...]]


def entry_lines(log: list[Action], events: list[list[dict[str, Any]]] | None, names: list[str],
                known: tuple[EntryLines, ...] = ()) -> tuple[EntryLines, ...]:
    """The lines of every entry of ``log``; ``known``: those of a prefix, already made."""
    made = list(known[:len(log)])
    for i in range(len(made), len(log)):
        scorings = events[i] if events is not None and i < len(events) else []
        made.append((describe(log[i], names),
                     tuple(line for e in scorings if (line := describe_event(e, names)))))
    return tuple(made)


def move_log(log: list[Action], events: list[list[dict[str, Any]]] | None, hidden: set[int],
             seat: int | None, names: list[str],
             lines: tuple[EntryLines, ...] | None = None, start: int = 0) -> list[dict[str, Any]]:
    """The readable log: one line per action (another seat's unrevealed secret choice only
    as "has chosen"), each followed by the scorings it caused; from entry ``start`` on."""
    if lines is None or len(lines) < len(log):
        lines = entry_lines(log, events, names, lines or ())
    out: list[dict[str, Any]] = []
    for i in range(start, len(log)):
        a = log[i]
        text, scorings = lines[i]
        if i in hidden and a.seat != seat:
            text = f"{names[a.seat]} has chosen secretly."
        out.append({"seq": i, "seat": None if a.is_chance else a.seat, "text": text})
        out.extend({"seq": i, "seat": None, "text": line, "event": True} for line in scorings)
    return out


def hidden_secrets(state: State, log: list[Action]) -> set[int]:
    """Log indices of secret choices not yet revealed: the trailing run of secret
    actions while a secret choice is still open."""
    if is_terminal(state) or state.secret_purpose < 0:
        return set()
    hidden: set[int] = set()
    for index in range(len(log) - 1, -1, -1):
        if not log[index].is_secret:
            break
        hidden.add(index)
    return hidden


def awards(state: State, area: int) -> list[int]:
    for tile, where in enumerate(state.tiles):
        if where == area:
            return list(TILES[tile])
    return list(PRINTED_AWARDS[area])


def hand_values(mask: int) -> list[int]:
    return [v for v in range(1, 14) if mask >> v & 1]


def resignation(player: dict[str, Any]) -> dict[str, Any]:
    """Whether the seat's player resigned (when), and the computer standing in."""
    if player.get("resigned_seq") is None:
        return {"resigned": None, "stand_in": None}
    return {"resigned": {"seq": player["resigned_seq"], "round": player.get("resigned_round")},
            "stand_in": player.get("bot_level")}


def ranking(players: list[dict[str, Any]], scores: list[int]) -> list[int]:
    """Seats from first to last: by score, highest first, then every seat whose player
    resigned, whatever its score (the last to resign first, the first one last)."""
    def key(p: int) -> tuple[int, int]:
        resigned = players[p].get("resigned_seq") if p < len(players) else None
        return (0, -scores[p]) if resigned is None else (1, -resigned)
    return sorted(range(len(scores)), key=key)


def final_winners(committed: State, players: list[dict[str, Any]]) -> list[int]:
    """The engine's winners, unless some resigned: then the best of those who did not
    (a resigned player never wins; the scores stay the engine's)."""
    stayed = [p for p in range(committed.n)
              if p >= len(players) or players[p].get("resigned_seq") is None]
    if len(stayed) == committed.n or not stayed:
        return winners(committed)
    best = max(committed.scores[p] for p in stayed)
    return [p for p in stayed if committed.scores[p] == best]


def present(match: Match, seat: int | None, players: list[dict], game_id: int,
            events: list[list[dict[str, Any]]] | None = None,
            log_shown: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON a seat's page renders: public board, own draft on top, own secret.
    `events[i]` are the engine's event records produced by log entry i (scorings)."""
    committed = match.state
    log = match.actions
    draft = match.drafts.get(seat) if seat is not None else None
    if seat is not None and draft is None:
        draft = Draft(seat, match.seq, committed)
    shown = draft.shown_state() if draft is not None else committed
    # Everything below is built from the redacted copy: other seats' unrevealed choices
    # are not in it at all. (Who has chosen is public; it comes from `committed`.)
    state = redact(shown, seat)
    legal = [action_target(a) for a in draft.legal()] if draft is not None else []
    return board(state, committed, log, match.seq, seat, players, game_id, legal, draft, events,
                 acting=to_act(shown), log_shown=log_shown)


def board(state: State, committed: State, log: list[Action], seq: int, seat: int | None,
          players: list[dict], game_id: int, legal: list[dict[str, Any]], draft: Draft | None,
          events: list[list[dict[str, Any]]] | None = None,
          acting: list[int] | None = None,
          log_shown: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """`state` is what the viewer may see (redacted); `acting` who is to act in the true
    state (a redacted copy would count seats that have chosen as still choosing);
    `log_shown`: the viewer's move log if already made (``move_log``)."""
    n = state.n
    names = [p.get("name") or f"Seat {p['seat'] + 1}" for p in players]
    finished = is_terminal(committed)
    acting = to_act(state) if acting is None else acting
    hidden = hidden_secrets(committed, log)

    def secret_status(p: int) -> str:
        value = committed.secret[p]
        if value == NOT_ASKED:
            return "not_asked"
        return "pending" if value == PENDING else "chosen"

    own_secret = None
    if seat is not None and state.secret[seat] >= 0 and state.secret_purpose >= 0:
        own_secret = AREA_CODES[state.secret[seat]]

    seats = []
    for p in range(n):
        colour = COLOURS[p]
        seats.append({
            "seat": p, "name": names[p], "kind": players[p]["kind"], "colour": colour,
            "score": state.scores[p], "court": state.court[p], "provinces": state.provinces[p],
            "castillo": state.castillo(p), "grande": AREA_CODES[state.grande[p]] if state.grande[p] >= 0 else None,
            "hand": hand_values(state.hand[p]) if p == seat or state.config.options.hands_public else None,
            "bid": state.bids[p] or None,
            "recruit": RECRUITS_BY_POWER[state.bids[p]] if state.bids[p] else None,
            "to_act": p in acting, "secret": secret_status(p) if state.secret_purpose >= 0 else "not_asked",
            **resignation(players[p]),
        })
    areas = []
    for area, code in enumerate(AREA_CODES):
        areas.append({
            "code": code, "name": AREA_NAMES[area], "awards": awards(state, area),
            "printed": list(PRINTED_AWARDS[area]),
            "counts": [state.count(area, p) for p in range(n)],
            "grandes": [p for p in range(n) if state.grande[p] == area],
            "king": state.king == area, "tile": next((t for t, w in enumerate(state.tiles) if w == area), None),
        })
    blocked = sorted(v for v in state.bids if v)
    purpose = SECRET_PURPOSES[state.secret_purpose] if state.secret_purpose >= 0 else None
    phase = state.phase_name
    return {
        "game_id": game_id,
        "seq": seq,
        "seat": seat,
        "spectator": seat is None,
        "finished": finished,
        "winners": final_winners(committed, players) if finished else [],
        "ranking": ranking(players, committed.scores) if finished else [],
        "players": seats,
        "areas": areas,
        "castillo": CASTILLO,
        "tiles": [{"values": list(TILES[t]), "area": AREA_CODES[w] if w >= 0 else None} for t, w in enumerate(state.tiles)],
        "round": state.round,
        "round_labels": list(state.config.round_labels),
        "scoring_rounds": [3, 6, 9],
        "phase": phase,
        "active": state.active if state.active >= 0 else None,
        "to_act": acting,
        "order": state.order[:],
        "start_player": state.start_player if state.start_player >= 0 else None,
        "blocked_bids": blocked,
        "cards": [
            {"id": CARDS[c].id, "name": CARDS[c].name, "text": CARDS[c].text, "stack": CARDS[c].stack}
            for c in state.available
        ],
        "card_taken": CARDS[state.card].id if state.card >= 0 else None,
        "card_taken_text": CARDS[state.card].text if state.card >= 0 else None,
        "secret": {
            "purpose": purpose, "title": SECRET_TITLES.get(purpose or "", ""), "mine": own_secret,
            "chosen": [p for p in range(n) if committed.secret[p] >= 0] if purpose else [],
            "waiting": [p for p in range(n) if committed.secret[p] == PENDING] if purpose else [],
        },
        "legal": legal,
        "prompt": PROMPTS.get(phase, "") if legal else "",
        "draft": {
            "steps": [str(a) for a in draft.steps] if draft else [],
            "can_undo": bool(draft and draft.steps) and not finished,
            "can_redo": bool(draft and draft.redo_stack and not draft.at_boundary) and not finished,
            "can_finish": bool(draft and draft.at_boundary) and not finished,
        },
        "log": log_shown if log_shown is not None else move_log(log, events, hidden, seat, names),
    }
