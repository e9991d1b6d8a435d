"""Pages about players and their games: the ranking, a profile per player, "My games"
(running and finished, paginated, filtered) and "Play again with the same players".
What they show is read by ``profiles.Profiles`` from what ``ratings.Ratings`` records
(docs/ratings.md). Page loads are limited per client address and per player
(``profile_pages_per_minute``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from .errors import LobbyError
from .hardening.limits import client_address
from .i18n import _
from .lobby_caps import CapReached
from .pages import lobby_page
from .profiles import FILTERS, MAX_PAGE, PageLimits, Profiles
from .rematch import invitations, play_again
from .tables import User
from .web import check_csrf, current_user, redirect, render, require_user, services

router = APIRouter(include_in_schema=False)

Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="page number, from 1")]


def _profiles(request: Request, user: User | None) -> Profiles:
    """The reader, once this request is admitted under the page limits (429 if not)."""
    svc = services(request)
    limits: PageLimits | None = svc.page_limits
    if limits is not None:
        limits.admit(user.id if user else None, client_address(request.scope))
    assert svc.profiles is not None
    return svc.profiles


@router.get("/ranking", response_class=HTMLResponse)
def ranking(request: Request, page: Page = 1) -> Response:
    user = current_user(request)
    data = _profiles(request, user).ranking(user, page)
    return render(request, "ranking.html", user=user, **data)


@router.get("/players/{name}", response_class=HTMLResponse)
def profile(request: Request, name: str) -> Response:
    user = current_user(request)
    if len(name) > 64:
        raise HTTPException(404, _("There is no player of that name."))
    found = _profiles(request, user).profile(name)
    if found is None:
        raise HTTPException(404, _("There is no player of that name."))
    return render(request, "profile.html", user=user, player=found,
                  mine=user is not None and user.name == found["name"])


@router.get("/my-games", response_class=HTMLResponse)
def my_games(request: Request, show: str = "all", page: Page = 1) -> Response:
    user = current_user(request)
    if user is None:
        return redirect("/login?next=/my-games")
    if show not in FILTERS:
        raise HTTPException(400, _("Unknown filter %(filter)s: use one of %(filters)s.",
                                   filter=repr(show), filters=", ".join(FILTERS)))
    profiles = _profiles(request, user)
    svc = services(request)
    running = profiles.running(user, rated_only=show == "rated") if show != "finished" else []
    for entry in running:  # time left on the player's own clock, in clocked games
        game = entry["game"]
        clocks = svc.clocks.public(game.id) if game.status == "active" else None
        entry["clock"] = next((c for c in clocks["seats"] if c["seat"] == entry["seat"]),
                              None) if clocks else None
    finished, more = ([], False) if show == "running" else profiles.finished(
        user, page, rated_only=show == "rated")
    stopped = profiles.stopped(user) if show in ("all", "finished") and page == 1 else []
    return render(request, "my_games.html", user=user, running=running, finished=finished,
                  more=more, page=page, show=show, filters=FILTERS, stopped=stopped)


@router.post("/games/{game_id}/again")
def again(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "") -> Response:
    """A new waiting game with the finished game's players, computers and options."""
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    address = client_address(request.scope)
    try:
        # Each invitation by name tells whether the name exists: limited (429) as when
        # a game is created by hand.
        svc.accounts.lookups.admit(user.id, address, invitations(svc.lobby.seats(game_id), user))
        game = play_again(svc.lobby, svc.clocks, game_id, user, address)
    except LobbyError as exc:
        if svc.lobby.get(game_id) is None:
            raise HTTPException(404, _("No such game.")) from None
        status = 429 if isinstance(exc, CapReached) else 409
        return lobby_page(request, user, str(exc), status)
    return redirect(f"/games/{game.id}")
