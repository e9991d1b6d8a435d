"""JSON API for playing: a seat's view, and its commands (step, undo, redo, finish).

Errors: 400 malformed, 401 not logged in, 403 not your seat or bad CSRF token,
404 unknown game, 409 not allowed now or stale; the body then carries
{"error": {"code", "message"}, "state": the caller's current view}.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from elgrande.rules import replay

from .commands import CommandKind, parse_command
from .errors import PlayError, http_status
from .i18n import _
from .present import board, public_boards, ranking
from .summary import game_summary
from .tables import Game
from .web import check_csrf, current_user, require_user, services

router = APIRouter(prefix="/api", tags=["play"])


class Command(BaseModel):
    seq: int | None = Field(None, description="the committed log length the page is based on; "
                            "a stale one is refused with 409 moved_on")


class StepCommand(Command):
    action: str = Field(..., description="one action in notation, e.g. 'p1 bid 7'", max_length=60)


def _game(request: Request, game_id: int, *, started: bool = True) -> Game:
    game: Game | None = services(request).lobby.get(game_id)
    if game is None:
        raise HTTPException(404, _("No such game."))
    if started and game.match_id is None:
        raise HTTPException(409, _("This game has not started yet."))
    return game


@router.get("/games/{game_id}", summary="The game as the caller's seat (or a spectator) sees it")
def game_view(request: Request, game_id: int) -> dict[str, Any]:
    game = _game(request, game_id)
    user = current_user(request)
    svc = services(request)
    seat = svc.lobby.seat_of(game_id, user.id if user else None)
    view: dict[str, Any] = svc.views.snapshot(game, seat)
    return view


@router.get("/games/{game_id}/clocks", summary="The game's turn clocks (public), or null if it has none")
def game_clocks(request: Request, game_id: int) -> dict[str, Any] | None:
    """Each seat's time left, whose clock runs and until when (ISO 8601, UTC), who is
    away (a computer plays for them since their time ran out) or on holiday."""
    _game(request, game_id)
    return services(request).clocks.public(game_id)


class VetoChoice(BaseModel):
    scope: str = Field(..., description="'turn' (no veto this turn), 'round' (no veto this "
                       "round) or 'none' (ask me again)", max_length=8)


@router.get("/games/{game_id}/veto", summary="Box rules: whose 'no veto' holds, the open window's deadline")
def game_veto(request: Request, game_id: int) -> dict[str, Any] | None:
    """Public; null for a table without the Veto cards."""
    game = _game(request, game_id)
    veto = services(request).veto
    return veto.public(game.id) if veto is not None else None


@router.post("/games/{game_id}/veto", summary="Box rules: no veto this turn / this round")
def choose_veto(request: Request, game_id: int, body: VetoChoice) -> Response:
    """Your choice as a Veto holder: the server then answers your veto windows with
    ``pass`` at once (public: the table shows it). 400 malformed, 409 not now."""
    user = require_user(request)
    check_csrf(request, user, None)
    game = _game(request, game_id)
    svc = services(request)
    seat = svc.lobby.seat_of(game_id, user.id)
    if seat is None:
        raise HTTPException(403, _("You have no seat in this game."))
    if svc.veto is None:
        raise HTTPException(409, _("Veto windows are not served here."))
    try:
        svc.veto.choose(game.id, seat, body.scope)
    except PlayError as exc:
        return Response(json.dumps({"error": exc.to_dict()}), status_code=http_status(exc.code),
                        media_type="application/json")
    return Response(json.dumps({"error": None, "veto": svc.veto.public(game.id)}),
                    media_type="application/json")


@router.get("/games/{game_id}/replay/{seq}", summary="A finished game's public board after `seq` log entries")
def game_replay(request: Request, game_id: int, seq: int) -> dict[str, Any]:
    game = _game(request, game_id)
    if game.status != "finished":
        raise HTTPException(409, _("Stepping through the log is for finished games."))
    svc = services(request)
    match = svc.views.match(game)
    if not 0 <= seq <= match.seq:
        raise HTTPException(400, _("seq must be between 0 and %(last)s", last=match.seq))
    actions = match.actions[:seq]
    state = replay(match.config, actions)
    events = svc.views.events(match)[:seq]
    return board(state, state, actions, seq, None, svc.lobby.seats(game_id), game_id, [], None, events)


@router.get("/games/{game_id}/boards", summary="The public boards after each log entry since `after`")
def game_boards(request: Request, game_id: int,
                after: int = Query(..., ge=0, description="the sequence the page shows")) -> dict[str, Any]:
    """For watching the others' moves step by step, in a running game too: what a
    spectator was shown after each log entry from ``after`` on (at most
    ``present.BOARDS_LIMIT``, the latest). It stops before any secret choice still
    unrevealed (``until``); drafts are never read."""
    game = _game(request, game_id)
    svc = services(request)
    if game.match_id is None:  # (_game refuses a game not started)
        raise HTTPException(409, _("This game has not started yet."))
    match = svc.store.load_seat(game.match_id, None)
    if after > match.seq:
        raise HTTPException(400, _("after must be between 0 and %(last)s", last=match.seq))
    return public_boards(match, svc.lobby.started_seats(game), game_id, after, svc.views.events(match))


@router.get("/games/{game_id}/summary", summary="A finished game's scores explained, over time, by turn")
def game_summary_view(request: Request, game_id: int) -> dict[str, Any]:
    """Each seat's points by source (general scorings, special scorings, Castillo,
    bonuses), the scores after every scoring, where each round and turn begins."""
    game = _game(request, game_id)
    if game.status != "finished":
        raise HTTPException(409, _("The summary is made when the game ends."))
    svc = services(request)
    match = svc.views.match(game)
    names = [p.get("name") or f"Seat {p['seat'] + 1}" for p in svc.lobby.started_seats(game)]
    return game_summary(match.config, match.log, names)


@router.get("/games/{game_id}/record", summary="A finished game's record (configuration, seed, log)")
def game_record(request: Request, game_id: int) -> dict[str, Any]:
    game = _game(request, game_id)
    if game.status != "finished" or game.match_id is None:
        raise HTTPException(409, _("The record, with the secret seed, is published when the game ends."))
    svc = services(request)
    record: dict[str, Any] = svc.store.export(game.match_id)
    # The table's result beside the engine's: who resigned when, and the ranking that
    # puts them last (the log and the scores stay the engine's, as `elgrande verify` reads).
    seats = svc.lobby.seats(game_id)
    record["resigned"] = [{"seat": s["seat"], "round": s["resigned_round"],
                           "after_move": s["resigned_seq"]}
                          for s in seats if s.get("resigned_seq") is not None]
    # Turns a computer played for a player whose clock had run out (log entries
    # ``from`` to ``to``, 0-based, end excluded).
    record["stand_in_turns"] = svc.clocks.stand_in_turns(game_id)
    final = svc.views.match(game).state
    record["ranking"] = ranking(seats, list(final.scores))
    return record


async def _command(request: Request, game_id: int, kind: CommandKind, body: Command) -> Response:
    user = require_user(request)
    check_csrf(request, user, None)
    game = _game(request, game_id)
    svc = services(request)
    seat = svc.lobby.seat_of(game_id, user.id)
    if seat is None:
        raise HTTPException(403, _("You have no seat in this game."))
    try:
        command = parse_command(kind, body.seq, getattr(body, "action", None))
        shown = await svc.threads.play(svc.play.act, game, seat, command)
        status, error = 200, "null"
    except PlayError as exc:
        shown = exc.shown if exc.shown is not None else await svc.threads.play(
            svc.views.seat_state, game, seat)
        status = http_status(exc.code)
        error = json.dumps(exc.to_dict(), ensure_ascii=False)
    # The view is already JSON (built once per change, shared with the WebSockets).
    return Response(f'{{"error":{error},"state":{shown.text}}}', status_code=status,
                    media_type="application/json")


@router.post("/games/{game_id}/step", summary="Add one action to your draft")
async def step(request: Request, game_id: int, body: StepCommand) -> Response:
    return await _command(request, game_id, "step", body)


@router.post("/games/{game_id}/undo", summary="Take back the last step of your draft")
async def undo(request: Request, game_id: int, body: Command) -> Response:
    return await _command(request, game_id, "undo", body)


@router.post("/games/{game_id}/redo", summary="Re-apply the step you took back")
async def redo(request: Request, game_id: int, body: Command) -> Response:
    return await _command(request, game_id, "redo", body)


@router.post("/games/{game_id}/finish", summary="Commit your draft: finish your turn")
async def finish(request: Request, game_id: int, body: Command) -> Response:
    return await _command(request, game_id, "finish", body)
