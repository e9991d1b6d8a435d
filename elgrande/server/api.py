"""JSON API for playing: a seat's view, and its commands (step, undo, redo, finish).

Errors: 400 malformed, 401 not logged in, 403 not your seat or bad CSRF token,
404 unknown game, 409 not allowed now or stale; the body then carries
{"error": {"code", "message"}, "state": the caller's current view}.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, Field

from elgrande.rules import replay

from .commands import CommandKind, parse_command
from .errors import PlayError, http_status
from .present import board, ranking
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
        raise HTTPException(404, "No such game.")
    if started and game.match_id is None:
        raise HTTPException(409, "This game has not started yet.")
    return game


@router.get("/games/{game_id}", summary="The game as the caller's seat (or a spectator) sees it")
def game_view(request: Request, game_id: int) -> dict[str, Any]:
    game = _game(request, game_id)
    user = current_user(request)
    svc = services(request)
    seat = svc.lobby.seat_of(game_id, user.id if user else None)
    view: dict[str, Any] = svc.views.snapshot(game, seat)
    return view


@router.get("/games/{game_id}/replay/{seq}", summary="A finished game's public board after `seq` log entries")
def game_replay(request: Request, game_id: int, seq: int) -> dict[str, Any]:
    game = _game(request, game_id)
    if game.status != "finished":
        raise HTTPException(409, "Stepping through the log is for finished games.")
    svc = services(request)
    match = svc.views.match(game)
    if not 0 <= seq <= match.seq:
        raise HTTPException(400, f"seq must be between 0 and {match.seq}")
    actions = match.actions[:seq]
    state = replay(match.config, actions)
    events = svc.views.events(match)[:seq]
    return board(state, state, actions, seq, None, svc.lobby.seats(game_id), game_id, [], None, events)


@router.get("/games/{game_id}/record", summary="A finished game's record (configuration, seed, log)")
def game_record(request: Request, game_id: int) -> dict[str, Any]:
    game = _game(request, game_id)
    if game.status != "finished" or game.match_id is None:
        raise HTTPException(409, "The record, with the secret seed, is published when the game ends.")
    svc = services(request)
    record: dict[str, Any] = svc.store.export(game.match_id)
    # The table's result beside the engine's: who resigned when, and the ranking that
    # puts them last (the log and the scores stay the engine's, as `elgrande verify` reads).
    seats = svc.lobby.seats(game_id)
    record["resigned"] = [{"seat": s["seat"], "round": s["resigned_round"],
                           "after_move": s["resigned_seq"]}
                          for s in seats if s.get("resigned_seq") is not None]
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
        raise HTTPException(403, "You have no seat in this game.")
    try:
        command = parse_command(kind, body.seq, getattr(body, "action", None))
        shown = await run_in_threadpool(svc.play.act, game, seat, command)
        status, error = 200, "null"
    except PlayError as exc:
        shown = exc.shown if exc.shown is not None else await run_in_threadpool(
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
