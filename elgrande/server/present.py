"""What one seat (or a spectator) gets to see: the single place where the server cuts
secrets out before anything leaves it.

A seat sees the committed public state with its own draft on top, its own secret
choice, and for every other seat only whether it has chosen. Spectators see the
committed public state. The order of the action stacks is not in the state at all.
"""

from __future__ import annotations

from typing import Any

from elgrande.matches import Draft, Match
from elgrande.rules import Action, State, apply, is_terminal, new_game, redact, to_act, winners
from elgrande.rules.actions import from_code
from elgrande.rules.board import (
    AREA_CODES,
    AREA_NAMES,
    CASTILLO,
    PRINTED_AWARDS,
    RECRUITS_BY_POWER,
    TILES,
)
from elgrande.rules.cards import ALL_CARDS
from elgrande.rules.state import NOT_ASKED, PENDING, SECRET_PURPOSES, WINDOW_NEXT

# Okabe-Ito colours, each with a letter and an SVG pattern so no one needs to tell hues apart.
COLOURS = (
    {"name": "blue", "hex": "#0072B2", "letter": "B", "pattern": "stripes", "text": "#ffffff"},
    {"name": "orange", "hex": "#E69F00", "letter": "O", "pattern": "dots", "text": "#000000"},
    {"name": "green", "hex": "#009E73", "letter": "G", "pattern": "cross", "text": "#000000"},
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

# Each card's effect in a few words, for its face (the full text is in rules/cards.py).
CARD_SHORT = {
    "1a": "Move up to 3 Caballeros, any colours",
    "1b": "Move all yours out of one region",
    "1c": "Place up to 2 more from court, anywhere",
    "1d": "Move up to 2 own and 2 opposing",
    "1e": "Move up to 4 of your own",
    "1f": "Move up to 3 opposing",
    "1g": "Move up to 5 out of one region",
    "1h": "Move up to 4, any colours",
    "1i": "Place 2 more, or empty one region",
    "2a": "Opponents each lose one region (secret pick)",
    "2b": "One of each opponent's to provinces",
    "2c": "Opponents each lose 3",
    "2d": "Score a region of your choice",
    "2e": "Opponents each lose 2 in a region (secret pick)",
    "2f": "Opponents lose their whole court",
    "2g": "Opponents lose up to 3 from court",
    "3a": "Score the fullest region",
    "3b": "Score every region worth 4",
    "3c": "Score a region of your choice",
    "3d": "Score the emptiest occupied region",
    "3e": "First places only, all regions",
    "3f": "Score the Castillo",
    "3g": "Score every region worth 6 or 7",
    "3h": "Score every region worth 5",
    "4a": "Take a played power card back",
    "4b": "Move your Grande",
    "4c": "Up to 2 from provinces to court",
    "4d": "King to a neighbouring region",
    "4e": "Place or move a mobile scoreboard",
    "4f": "Everyone names a region secretly; lone picks score",
    "4g": "Evict opponents from a region",
    "5a": "Move the King anywhere",
    "2v": "Veto: stop another player's special action",
}


def paying_ranks(n: int) -> int:
    """How many awards of a region pay: the first with 2 players, two with 3, else all."""
    return 1 if n == 2 else 2 if n == 3 else 3


def card_json(card: int) -> dict[str, Any]:
    c = ALL_CARDS[card]
    return {"id": c.id, "name": c.name, "text": c.text, "short": CARD_SHORT.get(c.id, c.name), "stack": c.stack}


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
        out["card"] = ALL_CARDS[arg].id
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
            card = ALL_CARDS[arg]
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
        card = ALL_CARDS[arg]
        return f"{who} takes card {card.id} ({card.name})."
    if kind == "veto":
        return f"{who} plays the Veto: the rest of the special action is stopped."
    if kind == "pass":
        return f"{who} lets the special action go on."
    if kind == "pick":
        whose = "one of their own Caballeros" if arg // 10 == action.seat else f"a Caballero of {names[arg // 10]}"
        return f"{who} picks up {whose} in {AREA_NAMES[arg % 10]}."
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


VETO_STOPPED = {  # what a veto stopped (the window's ``next``), for the log
    "begin": "before it began", "effect": "before its effect", "reveal": "before the reveal",
    "score": "before the next scoring", "remove": "before the next removal",
    "lose": "before the next player's losses", "step": "before the next Caballero",
}


def describe_event(event: dict[str, Any], names: list[str]) -> str | None:
    """A scoring as a log line ("Scoring of Aragón (general): Anna 5, Bert 4."); a
    veto (who stopped whose card where) and an expired Veto too (box rules)."""
    if event.get("type") == "vetoed":
        return (f"{names[event['seat']]} vetoes {names[event['active']]}'s card "
                f"{event['card']}: the rest of it is stopped "
                f"({VETO_STOPPED.get(event['stopped'], event['stopped'])}).")
    if event.get("type") == "veto_expired":
        return (f"{names[event['seat']]}'s Veto (taken in round {event['taken_round']}) "
                "expires unused.")
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


def _plural(k: int, word: str = "Caballero") -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def progress(state: State, names: list[str], seat: int | None = None) -> dict[str, Any]:
    """Where the active player is in a multi-step action: a sentence for the status line,
    the Caballero picked up and not yet put down (``held``), and the opponent being dealt
    with (2b, 2c: ``dealing``)."""
    phase, p = state.phase_name, state.active
    out: dict[str, Any] = {"text": "", "held": None, "dealing": None}
    if p < 0:
        return out
    if phase == "deploy" and state.card >= 0:
        stack = ALL_CARDS[state.card].stack
        placed = stack - state.deploy_left
        out["text"] = (f"{placed} of {stack} placed"
                       f" ({_plural(state.court[p])} left in court)")
    elif phase in ("move", "move_drop"):
        parts = []
        if state.own_left:
            parts.append(f"{state.own_left} of yours")
        if state.opp_left:
            parts.append(f"{state.opp_left} opposing")
        if state.any_left:
            parts.append(f"{state.any_left} of any colour")
        where = f" out of {AREA_NAMES[state.source]}" if state.source >= 0 else ""
        out["text"] = "Moves left: " + (" and ".join(parts) or "none") + where + "."
        if phase == "move_drop" and state.picked >= 0:
            owner, area = divmod(state.picked, 10)
            out["held"] = {"owner": owner, "area": AREA_CODES[area]}
            whose = "your" if owner == p else f"{names[owner]}'s"
            out["text"] += f" In hand: {whose} Caballero from {AREA_NAMES[area]}."
    elif phase == "empty_drop" and state.source >= 0:
        left = state.count(state.source, p)
        out["text"] = f"{_plural(left)} still to leave {AREA_NAMES[state.source]}."
    elif phase == "court_place":
        out["text"] = (f"Up to {state.count_left} more may be placed"
                       f" ({_plural(state.court[p])} in court).")
    elif phase == "recall":
        out["text"] = f"{_plural(state.count_left)} still to recall."
    elif phase == "remove" and state.queue:
        q = state.queue[0]
        out["dealing"] = q
        rest = [names[x] for x in state.queue[1:]]
        out["text"] = (f"Now dealing with {names[q]}: pick one of their Caballeros."
                       + (f" Then: {', '.join(rest)}." if rest else ""))
    elif phase == "lose" and state.queue:
        q = state.queue[0]
        out["dealing"] = q
        who = "You" if q == seat else names[q]
        out["text"] = (f"{who} still {'lose' if q == seat else 'loses'} {state.count_left}"
                       f" (card 2c, dealt by {names[p]}).")
    return out


def secret_context(state: State, seat: int | None, names: list[str]) -> dict[str, Any]:
    """For the seat's own pending secret choice: what is at stake (``text``) and, per
    region it may pick, what picking it does (``effects``, by area code)."""
    out: dict[str, Any] = {"text": "", "effects": {}}
    purpose = state.secret_purpose
    if seat is None or purpose < 0 or state.secret[seat] == NOT_ASKED:
        return out
    name = SECRET_PURPOSES[purpose]
    regions = range(len(AREA_CODES) - 1)
    if name == "general":
        k = state.castillo(seat)
        out["text"] = f"You have {_plural(k)} in the Castillo; after it is scored they all go to the region you pick."
        for r in regions:
            if r != state.king:
                out["effects"][AREA_CODES[r]] = f"your {_plural(k)} from the Castillo go to {AREA_NAMES[r]}"
    elif name in ("2a", "2e"):
        out["text"] = ("You lose every Caballero in the region you pick." if name == "2a"
                       else "You lose 2 Caballeros (as many as you have) in the region you pick.")
        for r in regions:
            have = state.count(r, seat)
            lose = have if name == "2a" else min(2, have)
            out["effects"][AREA_CODES[r]] = (f"you lose {lose} of your {have} there" if have
                                             else "you have none there")
    elif name == "4f":
        out["text"] = "Each region named by exactly one player is scored."
        for r in regions:
            out["effects"][AREA_CODES[r]] = (f"{AREA_NAMES[r]} is scored if nobody else names it"
                                             f" (you have {state.count(r, seat)} there)")
    elif name == "4g" and state.source >= 0:
        src = state.source
        k = state.count(src, seat)
        by = names[state.active] if state.active >= 0 else "The active player"
        out["text"] = (f"{by} evicts {AREA_NAMES[src]}: your {_plural(k)} there must all go"
                       " to the region you pick (back to your court if you pick "
                       f"{AREA_NAMES[src]} or the King's region).")
        for r in regions:
            to_court = r == src or r == state.king
            out["effects"][AREA_CODES[r]] = (f"your {_plural(k)} go back to your court" if to_court
                                             else f"your {_plural(k)} move to {AREA_NAMES[r]}")
    return out


WINDOW_REST = {  # what the rest of the special action does next, by the window's ``next``
    "begin": "the whole special action: {card}",
    "effect": "the declared effect: {declared}",
    "reveal": "the secret choices are revealed and take effect",
    "score": "the scoring of {regions}",
    "remove": "a Caballero of {players} goes back to the provinces",
    "lose": "{players} lose{s} Caballeros",
    "step": "the next Caballero of card {card_id} is moved or placed",
}


def veto_view(state: State, log: list[Action], names: list[str]) -> dict[str, Any] | None:
    """Box rules, for every seat and spectator (all public): the Vetos in front of their
    holders with their remaining life (``held``), what the special action declared, and,
    while a window is open, who is asked, what the action has done so far (``so_far``,
    the log since it began) and what the rest would do (``rest``)."""
    v = state.veto
    if v is None:
        return None
    labels = state.config.round_labels
    held = [{"seat": h, "name": names[h], "taken_round": labels[r],
             "expires_after_round": labels[min(r + 1, len(labels) - 1)],
             "life": ("this round and the next" if state.round_index <= r
                      else "to the end of this round")}
            for h, r in sorted(zip(v.holder, v.taken, strict=True), key=lambda x: (x[1], x[0]))
            if h >= 0]
    declared = from_code(v.declared) if v.declared >= 0 else None
    out: dict[str, Any] = {"held": held, "declared": str(declared) if declared else None,
                           "declared_text": describe(declared, names) if declared else None,
                           "window": None}
    if state.phase_name != "veto" or state.active < 0:
        return out
    nxt = WINDOW_NEXT[v.resume]
    card = ALL_CARDS[state.card] if state.card >= 0 else None
    start = next((i for i in range(len(log) - 1, -1, -1)
                  if log[i].kind == "special" and log[i].seat == state.active), len(log))
    so_far = [describe(a, names) for a in log[start:]]
    left = [names[p] for p in state.queue]
    rest = WINDOW_REST[nxt].format(
        card=f"{card.id} ({CARD_SHORT.get(card.id, card.name)})" if card else "",
        card_id=card.id if card else "",
        declared=describe(declared, names) if declared else "",
        regions=", ".join(AREA_NAMES[a] for a in v.regions) or "the next region",
        players=", then ".join(left) or "the next player", s="" if len(left) > 1 else "s")
    out["window"] = {
        "next": nxt, "asking": list(v.asking), "active": state.active,
        "card": card.id if card else None, "so_far": so_far, "rest": rest,
        "regions_left": [AREA_CODES[a] for a in v.regions], "players_left": state.queue[:],
        "picked": ({"owner": state.picked // 10, "area": AREA_CODES[state.picked % 10]}
                   if state.picked >= 0 else None),
    }
    return out


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
    # A turn taken in the draft but not yet finished is still this seat's turn: the
    # marker stays on it until Finish (the committed state says who acts).
    acting = to_act(committed) if draft is not None and draft.steps else to_act(shown)
    return board(state, committed, log, match.seq, seat, players, game_id, legal, draft, events,
                 acting=acting, log_shown=log_shown)


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

    # Box rules (Y2): the Castillo's split by colour is not shown; ``state`` is redacted,
    # so the other seats' counts in it are made up from public counts: never shown either.
    hidden_split = state.config.options.castillo_hidden
    seats = []
    for p in range(n):
        colour = COLOURS[p]
        seats.append({
            "seat": p, "name": names[p], "kind": players[p]["kind"], "colour": colour,
            "score": state.scores[p], "court": state.court[p],
            "provinces": state.provinces[p] if p == seat or not hidden_split else None,
            "castillo": state.castillo(p) if p == seat or not hidden_split else None,
            "reserve": state.provinces[p] + state.castillo(p),
            "grande": AREA_CODES[state.grande[p]] if state.grande[p] >= 0 else None,
            "hand": hand_values(state.hand[p]) if p == seat or state.config.options.hands_public else None,
            "bid": state.bids[p] or None,
            "recruit": RECRUITS_BY_POWER[state.bids[p]] if state.bids[p] else None,
            "to_act": p in acting, "secret": secret_status(p) if state.secret_purpose >= 0 else "not_asked",
            **resignation(players[p]),
        })
    areas = []
    paying = paying_ranks(n)
    for area, code in enumerate(AREA_CODES):
        areas.append({
            "code": code, "name": AREA_NAMES[area], "awards": awards(state, area),
            "counted": awards(state, area)[:paying],
            "printed": list(PRINTED_AWARDS[area]),
            "counts": [None if hidden_split and area == CASTILLO and p != seat
                       else state.count(area, p) for p in range(n)],
            "total": sum(state.count(area, p) for p in range(n)),
            "grandes": [p for p in range(n) if state.grande[p] == area],
            "king": state.king == area, "tile": next((t for t, w in enumerate(state.tiles) if w == area), None),
        })
    blocked = sorted(v for v in state.bids if v)
    veto = veto_view(state, log, names) if state.veto is not None else None
    purpose = SECRET_PURPOSES[state.secret_purpose] if state.secret_purpose >= 0 else None
    phase = state.phase_name
    return {
        "game_id": game_id,
        "rules": state.config.options.rule_set,  # "yucata", "box" (or "custom")
        "castillo_hidden": hidden_split,
        "veto": veto,
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
        # The round of the committed game: a finished draft may reach into the next one.
        "round": committed.round,
        "shown_round": state.round,
        "round_labels": list(state.config.round_labels),
        "scoring_rounds": [3, 6, 9],
        "phase": phase,
        "active": state.active if state.active >= 0 else None,
        "to_act": acting,
        "order": state.order[:],
        "start_player": state.start_player if state.start_player >= 0 else None,
        "blocked_bids": blocked,
        "cards": [card_json(c) for c in state.available],
        "card_taken": ALL_CARDS[state.card].id if state.card >= 0 else None,
        "card_taken_text": ALL_CARDS[state.card].text if state.card >= 0 else None,
        "card_taken_card": card_json(state.card) if state.card >= 0 else None,
        "progress": progress(state, names, seat) if legal else {"text": "", "held": None, "dealing": None},
        "secret": {
            "purpose": purpose, "title": SECRET_TITLES.get(purpose or "", ""), "mine": own_secret,
            "chosen": [p for p in range(n) if committed.secret[p] >= 0] if purpose else [],
            "waiting": [p for p in range(n) if committed.secret[p] == PENDING] if purpose else [],
            **secret_context(state, seat, names),
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


# At most this many boards per request for watching moves step by step (a whole round of
# five players stays under it; a page that fell further behind gets the latest ones).
BOARDS_LIMIT = 60


def public_boards(match: Match, players: list[dict], game_id: int, after: int,
                  events: list[list[dict[str, Any]]] | None = None,
                  limit: int = BOARDS_LIMIT) -> dict[str, Any]:
    """What a spectator was shown after each log entry from ``after`` on, for watching
    the others' moves step by step: board ``k`` is the spectator's view at sequence ``k``
    (redacted as it was then, without a move log but with the lines of entry ``k``).

    It stops before the first secret choice still unrevealed now (``hidden_secrets``):
    a board is made only of the log before that, so no hidden choice, nor anything that
    follows from it, leaves. Drafts are not read at all. At most ``limit`` boards, the
    latest ones; ``until`` is the last sequence that may be shown."""
    log = match.actions
    hidden = hidden_secrets(match.state, log)
    until = min(hidden) if hidden else len(log)
    first = max(after + 1, until - limit + 1)
    names = [p.get("name") or f"Seat {p['seat'] + 1}" for p in players]
    made: list[dict[str, Any]] = []
    if first <= until:
        lines = entry_lines(log[:until], events, names)
        state = new_game(match.config)
        for action in log[:first - 1]:
            apply(state, action)
        for k in range(first, until + 1):
            apply(state, log[k - 1])
            shown = log[:k]
            view = board(redact(state, None), state, shown, k, None, players, game_id, [], None,
                         acting=to_act(state), log_shown=[])
            view["log"] = move_log(shown, events, hidden_secrets(state, shown), None, names,
                                   lines, start=k - 1)
            made.append(view)
    return {"head": len(log), "until": until, "boards": made}
