"""HTML pages: home, accounts, lobby, game rooms and the game page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response

from .accounts import AccountError
from .bots import BOT_LEVELS
from .errors import LobbyError
from .hardening import admit_new_account
from .lobby import SeatSpec
from .security import SESSION_COOKIE
from .web import (
    check_csrf,
    current_user,
    log_in,
    redirect,
    render,
    require_user,
    safe_next,
    services,
)

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    user = current_user(request)
    if user is not None:
        return redirect("/lobby")
    return render(request, "home.html", user=None)


@router.get("/register", response_class=HTMLResponse)
def register_form(request: Request, next: str = "/lobby") -> Response:
    return render(request, "register.html", next=safe_next(next), error=None)


@router.post("/register")
def register(request: Request, name: Annotated[str, Form()], password: Annotated[str, Form()],
             csrf_token: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/lobby") -> Response:
    check_csrf(request, current_user(request), csrf_token)
    admit_new_account(request, "registration")  # 429 when this address made too many
    try:
        user = services(request).accounts.register(name, password)
    except AccountError as exc:
        return render(request, "register.html", status_code=400, next=safe_next(next), error=str(exc), name=name)
    return log_in(redirect(safe_next(next)), request, user)


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/lobby") -> Response:
    return render(request, "login.html", next=safe_next(next), error=None)


@router.post("/login")
def login(request: Request, name: Annotated[str, Form()], password: Annotated[str, Form()],
          csrf_token: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/lobby") -> Response:
    check_csrf(request, current_user(request), csrf_token)
    user = services(request).accounts.login(name, password)
    if user is None:
        return render(request, "login.html", status_code=400, next=safe_next(next),
                      error="Wrong name or password.", name=name)
    return log_in(redirect(safe_next(next)), request, user)


@router.post("/logout")
def logout(request: Request, csrf_token: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, current_user(request), csrf_token)
    response = redirect("/")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.post("/guest")
def guest(request: Request, csrf_token: Annotated[str, Form()] = "",
          next: Annotated[str, Form()] = "/lobby") -> Response:
    """Play without registering: a guest account that lives in this browser's cookie."""
    user = current_user(request)
    check_csrf(request, user, csrf_token)
    if user is None:
        admit_new_account(request, "guest")  # 429 when this address made too many
        user = services(request).accounts.guest()
    return log_in(redirect(safe_next(next)), request, user)


@router.post("/play-now")
def play_now(request: Request, csrf_token: Annotated[str, Form()] = "") -> Response:
    """One click to a game: (a guest account if needed and) a 3-player game against two
    computer opponents, started at once."""
    user = current_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    if user is None:
        admit_new_account(request, "guest")  # 429 when this address made too many
        user = svc.accounts.guest()
    game = svc.lobby.create(user, 3, 9, [SeatSpec("me"), SeatSpec("bot", bot_level="easy"),
                                         SeatSpec("bot", bot_level="easy")])
    svc.lobby.start(game.id, user)
    svc.bots.kick(game.id)
    return log_in(redirect(f"/games/{game.id}"), request, user)


@router.get("/lobby", response_class=HTMLResponse)
def lobby(request: Request) -> Response:
    user = current_user(request)
    if user is None:
        return redirect("/login?next=/lobby")
    svc = services(request)
    return render(request, "lobby.html", user=user, my_games=svc.lobby.my_games(user),
                  invitations=svc.lobby.invitations(user), open_games=svc.lobby.open_games(),
                  bot_levels=BOT_LEVELS, error=None)


@router.post("/games")
async def create_game(request: Request) -> Response:
    user = require_user(request)
    form = await request.form()
    check_csrf(request, user, str(form.get("csrf_token", "")))
    svc = services(request)
    try:
        players = int(str(form.get("players", "3")))
        rounds = int(str(form.get("rounds", "9")))
        specs = []
        for index in range(players):
            kind = str(form.get(f"seat{index}", "open"))
            specs.append(SeatSpec(kind, invited_name=str(form.get(f"invite{index}", "")) or None,
                                  bot_level=str(form.get(f"level{index}", "random"))))
        game = await run_in_threadpool(svc.lobby.create, user, players, rounds, specs)
    except ValueError as exc:
        message = str(exc) if isinstance(exc, LobbyError) else "Players and rounds must be numbers."
        return render(request, "lobby.html", status_code=400, user=user, my_games=svc.lobby.my_games(user),
                      invitations=svc.lobby.invitations(user), open_games=svc.lobby.open_games(),
                      bot_levels=BOT_LEVELS, error=message)
    return redirect(f"/games/{game.id}")


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(request: Request, game_id: int) -> Response:
    svc = services(request)
    game = svc.lobby.get(game_id)
    if game is None:
        raise HTTPException(404, "No such game.")
    user = current_user(request)
    if game.status in ("lobby", "starting"):
        return room_page(request, game_id, None)
    seat = svc.lobby.seat_of(game_id, user.id if user else None)
    # The SHA-256 commitment to the secret seed is public from the start, so anyone can
    # check every card draw once the seed is published at the end. It is on the page, not
    # in the views: those stay functions of what the seat may see of the game itself.
    commitment = svc.views.match(game).commitment
    return render(request, "game.html", user=user, game=game, seat=seat, commitment=commitment)


def room_page(request: Request, game_id: int, error: str | None) -> Response:
    """The waiting room; `error` (with status 409) when a join or start was refused."""
    svc = services(request)
    game = svc.lobby.get(game_id)
    if game is None:
        raise HTTPException(404, "No such game.")
    user = current_user(request)
    seats = svc.lobby.seats(game_id)
    mine = any(s["user_id"] == user.id for s in seats) if user else False
    can_join = user is not None and not mine and game.status == "lobby" and any(
        s["kind"] == "open" or (s["kind"] == "invited" and s["invited_name"] == user.name) for s in seats)
    invite_url = str(request.url_for("invite", token=game.invite_token))
    return render(request, "room.html", status_code=409 if error else 200, user=user, game=game, seats=seats,
                  can_join=can_join, is_creator=user is not None and user.id == game.creator_id,
                  invite_url=invite_url, error=error)


@router.get("/invite/{token}", response_class=HTMLResponse, name="invite")
def invite(request: Request, token: str) -> Response:
    svc = services(request)
    game = svc.lobby.by_invite(token)
    if game is None:
        raise HTTPException(404, "This invitation link is not valid.")
    if current_user(request) is None:
        return render(request, "invite.html", user=None, game=game, next=f"/games/{game.id}")
    return redirect(f"/games/{game.id}")


@router.post("/games/{game_id}/join")
def join(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "") -> Response:
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    try:
        services(request).lobby.join(game_id, user)
    except LobbyError as exc:
        return room_page(request, game_id, str(exc))
    services(request).hub.publish(f"room:{game_id}")
    return redirect(f"/games/{game_id}")


@router.post("/games/{game_id}/start")
def start(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "",
          fill_with_bots: Annotated[str, Form()] = "") -> Response:
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    try:
        svc.lobby.start(game_id, user, fill_with_bots=bool(fill_with_bots))
    except LobbyError as exc:
        return room_page(request, game_id, str(exc))
    svc.hub.publish(f"room:{game_id}")
    svc.bots.kick(game_id)
    return redirect(f"/games/{game_id}")
