"""What one seat (or a spectator) gets to see: the single place where the server cuts
secrets out before anything leaves it.

A seat sees the committed public state with its own draft on top, its own secret
choice, and for every other seat only whether it has chosen. Spectators see the
committed public state. The order of the action stacks is not in the state at all.
"""

from __future__ import annotations

import functools
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

from .i18n import N_, current, ngettext
from .i18n import _ as _

# Okabe-Ito colours, each with a letter and an SVG pattern so no one needs to tell hues apart.
COLOURS = (
    {"name": N_("blue"), "hex": "#0072B2", "letter": "B", "pattern": "stripes", "text": "#ffffff"},
    {"name": N_("orange"), "hex": "#E69F00", "letter": "O", "pattern": "dots", "text": "#000000"},
    {"name": N_("green"), "hex": "#009E73", "letter": "G", "pattern": "cross", "text": "#000000"},
    {"name": N_("pink"), "hex": "#CC79A7", "letter": "P", "pattern": "rings", "text": "#000000"},
    {"name": N_("yellow"), "hex": "#F0E442", "letter": "Y", "pattern": "zigzag", "text": "#000000"},
)

AREA_KINDS = {"recall", "place", "drop", "from", "secret", "score", "grande", "king", "evict"}
OWNER_AREA_KINDS = {"pick", "remove"}
NUMBER_KINDS = {"bid", "recruit", "retrieve", "court"}

PROMPTS = {
    "bid": N_("Play a power card (values already played this round are blocked)."),
    "recruit": N_("Recruit Caballeros from your provinces to your court."),
    "recall": N_("Your provinces are short: choose a region to recall a Caballero from."),
    "take": N_("Take one of the action cards."),
    "choose": N_("Deploy first, or use the card's special action first?"),
    "deploy": N_("Deploy Caballeros from your court next to the King or into the Castillo."),
    "after_deploy": N_("Use the special action, or end your turn."),
    "move": N_("Pick a Caballero to move (or stop)."),
    "move_drop": N_("Choose where the picked Caballero goes."),
    "empty_choose": N_("Choose the region to empty."),
    "empty_drop": N_("Choose where your Caballeros from that region go."),
    "court_place": N_("Place Caballeros from your court in any region or the Castillo."),
    "option": N_("Choose one of the card's two effects."),
    "secret": N_("Choose a region secretly."),
    "remove": N_("Choose an opponent's Caballero to send back to the provinces."),
    "lose": N_("Choose Caballeros of yours to send back to the provinces."),
    "score_choice": N_("Choose the region to score."),
    "retrieve": N_("Choose a played power card to take back."),
    "grande": N_("Choose your Grande's new region."),
    "court_card": N_("Bring Caballeros from your provinces into your court."),
    "king": N_("Choose the King's new region."),
    "tile": N_("Place or move a mobile scoreboard."),
    "evict": N_("Name the region the opponents must leave."),
    # Box rules (docs/box-rules.md).
    "veto": N_("Stop the rest of this special action with your Veto, or let it go on."),
    "source": N_("Name the region your Caballeros will leave."),
}

# Each card's effect in a few words, for its face (the full text is in rules/cards.py).
CARD_SHORT = {
    "1a": N_("Move up to 3 Caballeros, any colours"),
    "1b": N_("Move all yours out of one region"),
    "1c": N_("Place up to 2 more from court, anywhere"),
    "1d": N_("Move up to 2 own and 2 opposing"),
    "1e": N_("Move up to 4 of your own"),
    "1f": N_("Move up to 3 opposing"),
    "1g": N_("Move up to 5 out of one region"),
    "1h": N_("Move up to 4, any colours"),
    "1i": N_("Place 2 more, or empty one region"),
    "2a": N_("Opponents each lose one region (secret pick)"),
    "2b": N_("One of each opponent's to provinces"),
    "2c": N_("Opponents each lose 3"),
    "2d": N_("Score a region of your choice"),
    "2e": N_("Opponents each lose 2 in a region (secret pick)"),
    "2f": N_("Opponents lose their whole court"),
    "2g": N_("Opponents lose up to 3 from court"),
    "3a": N_("Score the fullest region"),
    "3b": N_("Score every region worth 4"),
    "3c": N_("Score a region of your choice"),
    "3d": N_("Score the emptiest occupied region"),
    "3e": N_("First places only, all regions"),
    "3f": N_("Score the Castillo"),
    "3g": N_("Score every region worth 6 or 7"),
    "3h": N_("Score every region worth 5"),
    "4a": N_("Take a played power card back"),
    "4b": N_("Move your Grande"),
    "4c": N_("Up to 2 from provinces to court"),
    "4d": N_("King to a neighbouring region"),
    "4e": N_("Place or move a mobile scoreboard"),
    "4f": N_("Everyone names a region secretly; lone picks score"),
    "4g": N_("Evict opponents from a region"),
    "5a": N_("Move the King anywhere"),
    "2v": N_("Veto: stop another player's special action"),
}


def paying_ranks(n: int) -> int:
    """How many awards of a region pay: the first with 2 players, two with 3, else all."""
    return 1 if n == 2 else 2 if n == 3 else 3


def card_name(card: int) -> str:
    """A card's name in the reader's language (the rules' English is the message id;
    ``i18n.extract`` puts the names and texts in the catalogs)."""
    return _(ALL_CARDS[card].name)


def card_text(card: int) -> str:
    return _(ALL_CARDS[card].text)


def card_short(card: int) -> str:
    c = ALL_CARDS[card]
    return _(CARD_SHORT[c.id]) if c.id in CARD_SHORT else card_name(card)


_CARDS_BY_LANGUAGE: dict[tuple[int, str], dict[str, Any]] = {}


def card_json(card: int) -> dict[str, Any]:
    """A card's face in the reader's language (made once per language; a copy each time)."""
    key = (card, current().code)
    found = _CARDS_BY_LANGUAGE.get(key)
    if found is None:
        c = ALL_CARDS[card]
        found = _CARDS_BY_LANGUAGE[key] = {
            "id": c.id, "name": card_name(card), "text": card_text(card),
            "short": card_short(card), "stack": c.stack}
    return dict(found)


SECRET_TITLES = {
    "general": N_("General scoring: where do your Castillo Caballeros go?"),
    "2a": N_("Province: in which region do you lose all your Caballeros?"),
    "2e": N_("Province: in which region do you lose 2 Caballeros?"),
    "4f": N_("Secret scoring: which region do you name?"),
    "4g": N_("Eviction: where do your Caballeros go?"),
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
            return _("%(who)s's Grande starts in %(area)s.", who=names[arg // 10],
                     area=AREA_NAMES[arg % 10])
        if kind == "king":
            return _("The King starts in %(area)s.", area=AREA_NAMES[arg])
        if kind == "start":
            return _("%(who)s is the first start player.", who=names[arg])
        if kind == "reveal":
            return _("Card %(card)s (%(name)s) is revealed.", card=ALL_CARDS[arg].id,
                     name=card_name(arg))
        return str(action)
    who = names[action.seat]
    area = AREA_NAMES[arg] if kind in AREA_KINDS and arg < len(AREA_NAMES) else ""
    simple = {
        "bid": N_("%(who)s plays power card %(value)s."),
        "recall": N_("%(who)s recalls a Caballero from %(area)s."),
        "deploy": N_("%(who)s deploys first."),
        "special": N_("%(who)s uses the special action."),
        "end": N_("%(who)s stops."),
        "done": N_("%(who)s ends the turn."),
        "place": N_("%(who)s places a Caballero in %(area)s."),
        "drop": N_("%(who)s puts the Caballero in %(area)s."),
        "from": N_("%(who)s chooses %(area)s."),
        "secret": N_("%(who)s chooses %(area)s secretly."),
        "score": N_("%(who)s scores %(area)s."),
        "retrieve": N_("%(who)s takes back power card %(value)s."),
        "grande": N_("%(who)s moves the Grande to %(area)s."),
        "king": N_("%(who)s moves the King to %(area)s."),
        "evict": N_("%(who)s names %(area)s for the eviction."),
    }
    if kind in simple:
        return _(simple[kind], who=who, area=area, value=arg)
    if kind == "recruit":
        return ngettext("%(who)s recruits %(num)s Caballero to court.",
                        "%(who)s recruits %(num)s Caballeros to court.", arg, who=who)
    if kind == "court":
        return ngettext("%(who)s brings %(num)s Caballero to court.",
                        "%(who)s brings %(num)s Caballeros to court.", arg, who=who)
    if kind == "take":
        return _("%(who)s takes card %(card)s (%(name)s).", who=who, card=ALL_CARDS[arg].id,
                 name=card_name(arg))
    if kind == "veto":
        return _("%(who)s plays the Veto: the rest of the special action is stopped.", who=who)
    if kind == "pass":
        return _("%(who)s lets the special action go on.", who=who)
    if kind == "pick":
        if arg // 10 == action.seat:
            return _("%(who)s picks up one of their own Caballeros in %(area)s.", who=who,
                     area=AREA_NAMES[arg % 10])
        return _("%(who)s picks up a Caballero of %(owner)s in %(area)s.", who=who,
                 owner=names[arg // 10], area=AREA_NAMES[arg % 10])
    if kind == "remove":
        return _("%(who)s sends a Caballero of %(owner)s from %(area)s to the provinces.",
                 who=who, owner=names[arg // 10], area=AREA_NAMES[arg % 10])
    if kind == "lose":
        if arg == 10:
            return _("%(who)s sends a Caballero from court to the provinces.", who=who)
        return _("%(who)s sends a Caballero from %(area)s to the provinces.", who=who,
                 area=AREA_NAMES[arg])
    if kind == "tile":
        return _("%(who)s puts the %(values)s scoreboard on %(area)s.", who=who,
                 values="-".join(map(str, TILES[arg // 10])), area=AREA_NAMES[arg % 10])
    if kind == "option":
        return _("%(who)s chooses option %(option)s.", who=who, option=words[-1])
    return str(action)


VETO_STOPPED = {  # what a veto stopped (the window's ``next``), for the log
    "begin": N_("before it began"), "effect": N_("before its effect"),
    "reveal": N_("before the reveal"), "score": N_("before the next scoring"),
    "remove": N_("before the next removal"), "lose": N_("before the next player's losses"),
    "step": N_("before the next Caballero"),
}


WORDED_EVENTS = ("vetoed", "veto_expired", "score")  # the events describe_event words


def describe_event(event: dict[str, Any], names: list[str]) -> str | None:
    """A scoring as a log line ("Scoring of Aragón (general): Anna 5, Bert 4."); a
    veto (who stopped whose card where) and an expired Veto too (box rules)."""
    if event.get("type") == "vetoed":
        stopped = event["stopped"]
        return _("%(who)s vetoes %(active)s's card %(card)s: the rest of it is stopped "
                 "(%(when)s).", who=names[event["seat"]], active=names[event["active"]],
                 card=event["card"],
                 when=_(VETO_STOPPED[stopped]) if stopped in VETO_STOPPED else stopped)
    if event.get("type") == "veto_expired":
        return _("%(who)s's Veto (taken in round %(round)s) expires unused.",
                 who=names[event["seat"]], round=event["taken_round"])
    if event.get("type") != "score":
        return None
    points = event["points"]
    reason = event.get("reason") or ""
    why = (_("general scoring") if reason == "general"
           else _("card %(card)s", card=reason) if reason else _("scoring"))
    who = ", ".join(f"{names[p]} {v}" for p, v in enumerate(points) if v) or _("nobody scores")
    return _("Scoring of %(area)s (%(why)s): %(who)s.", area=AREA_NAMES[event["area"]],
             why=why, who=who)


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
            text = _("%(who)s has chosen secretly.", who=names[a.seat])
        # ``verb``: the notation's verb, so that pages tell moves apart in any language
        # (public: the line itself says as much, a hidden choice only "secret").
        out.append({"seq": i, "seat": None if a.is_chance else a.seat, "text": text,
                    "verb": a.kind})
        # Each scoring line with its region's code and the points per seat, likewise.
        worded = [e for e in (events[i] if events is not None and i < len(events) else [])
                  if e.get("type") in WORDED_EVENTS]  # those entry_lines made lines of
        for line, event in zip(scorings, worded, strict=False):
            entry: dict[str, Any] = {"seq": i, "seat": None, "text": line, "event": True}
            if event.get("type") == "score":
                entry["score"] = {"area": AREA_CODES[event["area"]],
                                  "points": list(event["points"])}
            out.append(entry)
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


@functools.lru_cache(maxsize=4096)
def _hand_values(mask: int) -> tuple[int, ...]:
    return tuple(v for v in range(1, 14) if mask >> v & 1)


def hand_values(mask: int) -> list[int]:
    """The power-card values of a hand (a mask with bit v for value v)."""
    return list(_hand_values(mask))


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


def _plural(k: int) -> str:
    return ngettext("%(num)s Caballero", "%(num)s Caballeros", k)


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
        out["text"] = _("%(placed)s of %(stack)s placed (%(court)s left in court)",
                        placed=placed, stack=stack, court=_plural(state.court[p]))
    elif phase in ("move", "move_drop"):
        parts = []
        if state.own_left:
            parts.append(_("%(count)s of yours", count=state.own_left))
        if state.opp_left:
            parts.append(_("%(count)s opposing", count=state.opp_left))
        if state.any_left:
            parts.append(_("%(count)s of any colour", count=state.any_left))
        moves = _(" and ").join(parts) or _("none")
        out["text"] = (_("Moves left: %(moves)s out of %(area)s.", moves=moves,
                         area=AREA_NAMES[state.source]) if state.source >= 0
                       else _("Moves left: %(moves)s.", moves=moves))
        if phase == "move_drop" and state.picked >= 0:
            owner, area = divmod(state.picked, 10)
            out["held"] = {"owner": owner, "area": AREA_CODES[area]}
            out["text"] += " " + (
                _("In hand: your Caballero from %(area)s.", area=AREA_NAMES[area]) if owner == p
                else _("In hand: %(owner)s's Caballero from %(area)s.", owner=names[owner],
                       area=AREA_NAMES[area]))
    elif phase == "empty_drop" and state.source >= 0:
        left = state.count(state.source, p)
        out["text"] = ngettext("%(num)s Caballero still to leave %(area)s.",
                               "%(num)s Caballeros still to leave %(area)s.", left,
                               area=AREA_NAMES[state.source])
    elif phase == "court_place":
        out["text"] = _("Up to %(count)s more may be placed (%(court)s in court).",
                        count=state.count_left, court=_plural(state.court[p]))
    elif phase == "recall":
        out["text"] = ngettext("%(num)s Caballero still to recall.",
                               "%(num)s Caballeros still to recall.", state.count_left)
    elif phase == "remove" and state.queue:
        q = state.queue[0]
        out["dealing"] = q
        rest = [names[x] for x in state.queue[1:]]
        out["text"] = (_("Now dealing with %(who)s: pick one of their Caballeros.", who=names[q])
                       + (" " + _("Then: %(names)s.", names=", ".join(rest)) if rest else ""))
    elif phase == "lose" and state.queue:
        q = state.queue[0]
        out["dealing"] = q
        out["text"] = (_("You still lose %(count)s (card 2c, dealt by %(by)s).",
                         count=state.count_left, by=names[p]) if q == seat
                       else _("%(who)s still loses %(count)s (card 2c, dealt by %(by)s).",
                              who=names[q], count=state.count_left, by=names[p]))
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
        out["text"] = ngettext(
            "You have %(num)s Caballero in the Castillo; after it is scored it goes to the "
            "region you pick.",
            "You have %(num)s Caballeros in the Castillo; after it is scored they all go to the "
            "region you pick.", k)
        for r in regions:
            if r != state.king:
                out["effects"][AREA_CODES[r]] = ngettext(
                    "your %(num)s Caballero from the Castillo goes to %(area)s",
                    "your %(num)s Caballeros from the Castillo go to %(area)s", k,
                    area=AREA_NAMES[r])
    elif name in ("2a", "2e"):
        out["text"] = (_("You lose every Caballero in the region you pick.") if name == "2a"
                       else _("You lose 2 Caballeros (as many as you have) in the region you "
                              "pick."))
        for r in regions:
            have = state.count(r, seat)
            lose = have if name == "2a" else min(2, have)
            out["effects"][AREA_CODES[r]] = (
                _("you lose %(lose)s of your %(have)s there", lose=lose, have=have) if have
                else _("you have none there"))
    elif name == "4f":
        out["text"] = _("Each region named by exactly one player is scored.")
        for r in regions:
            out["effects"][AREA_CODES[r]] = _(
                "%(area)s is scored if nobody else names it (you have %(count)s there)",
                area=AREA_NAMES[r], count=state.count(r, seat))
    elif name == "4g" and state.source >= 0:
        src = state.source
        k = state.count(src, seat)
        by = names[state.active] if state.active >= 0 else _("The active player")
        out["text"] = ngettext(
            "%(who)s evicts %(area)s: your %(num)s Caballero there must go to the region you "
            "pick (back to your court if you pick %(area)s or the King's region).",
            "%(who)s evicts %(area)s: your %(num)s Caballeros there must all go to the region "
            "you pick (back to your court if you pick %(area)s or the King's region).", k,
            who=by, area=AREA_NAMES[src])
        for r in regions:
            to_court = r == src or r == state.king
            out["effects"][AREA_CODES[r]] = (
                ngettext("your %(num)s Caballero goes back to your court",
                         "your %(num)s Caballeros go back to your court", k) if to_court
                else ngettext("your %(num)s Caballero moves to %(area)s",
                              "your %(num)s Caballeros move to %(area)s", k,
                              area=AREA_NAMES[r]))
    return out


WINDOW_REST = {  # what the rest of the special action does next, by the window's ``next``
    "begin": N_("the whole special action: %(card)s"),
    "effect": N_("the declared effect: %(declared)s"),
    "reveal": N_("the secret choices are revealed and take effect"),
    "score": N_("the scoring of %(regions)s"),
    "remove": N_("a Caballero of %(players)s goes back to the provinces"),
    "lose": N_("%(players)s lose Caballeros"),
    "step": N_("the next Caballero of card %(card_id)s is moved or placed"),
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
             "life": (_("this round and the next") if state.round_index <= r
                      else _("to the end of this round"))}
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
    card_said = " ".join((card.id, f"({card_short(card.index)})")) if card else ""
    rest = _(WINDOW_REST[nxt],
             card=card_said,
             card_id=card.id if card else "",
             declared=describe(declared, names) if declared else "",
             regions=", ".join(AREA_NAMES[a] for a in v.regions) or _("the next region"),
             players=_(", then ").join(left) or _("the next player"))
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


_COLOURS_BY_LANGUAGE: dict[str, tuple[dict[str, str], ...]] = {}


def _colours() -> tuple[dict[str, str], ...]:
    """``COLOURS`` with their names in the reader's language (made once per language;
    each view copies its own)."""
    lang = current().code
    found = _COLOURS_BY_LANGUAGE.get(lang)
    if found is None:
        found = _COLOURS_BY_LANGUAGE[lang] = tuple(
            {**colour, "name": _(colour["name"])} for colour in COLOURS)
    return found


def seat_names(players: list[dict]) -> list[str]:
    """The players' names; an empty seat's in the reader's language."""
    return [p.get("name") or _("Seat %(number)s", number=p["seat"] + 1) for p in players]


def board(state: State, committed: State, log: list[Action], seq: int, seat: int | None,
          players: list[dict], game_id: int, legal: list[dict[str, Any]], draft: Draft | None,
          events: list[list[dict[str, Any]]] | None = None,
          acting: list[int] | None = None,
          log_shown: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """`state` is what the viewer may see (redacted); `acting` who is to act in the true
    state (a redacted copy would count seats that have chosen as still choosing);
    `log_shown`: the viewer's move log if already made (``move_log``)."""
    n = state.n
    names = seat_names(players)
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
    hands_public = state.config.options.hands_public
    choosing = state.secret_purpose >= 0
    cab, bids, scores, court, provinces, grande = (state.cab, state.bids, state.scores,
                                                    state.court, state.provinces, state.grande)
    colours = _colours()
    seats = []
    for p in range(n):
        castillo = cab[CASTILLO * n + p]
        shows_split = p == seat or not hidden_split
        bid = bids[p]
        seats.append({
            "seat": p, "name": names[p], "kind": players[p]["kind"], "colour": dict(colours[p]),
            "score": scores[p], "court": court[p],
            "provinces": provinces[p] if shows_split else None,
            "castillo": castillo if shows_split else None,
            "reserve": provinces[p] + castillo,
            "grande": AREA_CODES[grande[p]] if grande[p] >= 0 else None,
            "hand": hand_values(state.hand[p]) if p == seat or hands_public else None,
            "bid": bid or None,
            "recruit": RECRUITS_BY_POWER[bid] if bid else None,
            "to_act": p in acting, "secret": secret_status(p) if choosing else "not_asked",
            **resignation(players[p]),
        })
    paying = paying_ranks(n)
    tile_at: dict[int, int] = {}  # the first mobile scoreboard in each region (``awards``)
    for index, where in reversed(list(enumerate(state.tiles))):
        tile_at[where] = index
    areas = []
    for area, code in enumerate(AREA_CODES):
        counts = cab[area * n: area * n + n]
        tile = tile_at.get(area)
        pays = list(TILES[tile]) if tile is not None else list(PRINTED_AWARDS[area])
        if hidden_split and area == CASTILLO:
            shown_counts: list[int | None] = [None] * n
            if seat is not None:
                shown_counts[seat] = counts[seat]
        else:
            shown_counts = list(counts)
        areas.append({
            "code": code, "name": AREA_NAMES[area], "awards": pays,
            "counted": pays[:paying],
            "printed": list(PRINTED_AWARDS[area]),
            "counts": shown_counts,
            "total": sum(counts),
            "grandes": [p for p in range(n) if grande[p] == area],
            "king": state.king == area, "tile": tile,
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
        "card_taken_text": card_text(state.card) if state.card >= 0 else None,
        "card_taken_card": card_json(state.card) if state.card >= 0 else None,
        "progress": progress(state, names, seat) if legal else {"text": "", "held": None, "dealing": None},
        "secret": {
            "purpose": purpose, "mine": own_secret,
            "title": _(SECRET_TITLES[purpose]) if purpose in SECRET_TITLES else "",
            "chosen": [p for p in range(n) if committed.secret[p] >= 0] if purpose else [],
            "waiting": [p for p in range(n) if committed.secret[p] == PENDING] if purpose else [],
            **secret_context(state, seat, names),
        },
        "legal": legal,
        "prompt": _(PROMPTS[phase]) if legal and phase in PROMPTS else "",
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
    names = seat_names(players)
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
