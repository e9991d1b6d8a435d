"""HTML pages: home, accounts, lobby, game rooms and the game page."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup, escape

from .accounts import AccountError
from .bots import BOT_LEVELS
from .clocks import DEFAULT_PRESET, PRESETS, ClockRefused, table_clock
from .clocks.zones import ZONES, valid_zone
from .errors import LobbyError
from .hardening import admit_new_account
from .hardening.limits import client_address
from .i18n import N_, _, current
from .lobby import SeatSpec
from .lobby_caps import CapReached
from .mail import MailRefused
from .passwords import WeakPassword, check_strength
from .security import SESSION_COOKIE
from .tables import User
from .web import (
    Fields,
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
LOBBY_ENDED_GAMES = 10  # the lobby lists the newest few games that are over
# ... and at most this many in all (your turn first, then running, waiting, over), so
# that many games against computers do not push the rest of the lobby down; the others
# are one click away on /my-games.
LOBBY_MY_GAMES = 10


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    user = current_user(request)
    if user is not None:
        return redirect("/lobby")
    return render(request, "home.html", user=None)


@router.get("/register", response_class=HTMLResponse)
def register_form(request: Request, next: str = "/lobby") -> Response:
    return render(request, "register.html", next=safe_next(next), error=None)


def _field(fields: dict[str, str], name: str) -> str:
    value = fields.get(name)
    if value is None:
        raise HTTPException(400, _("The field '%(name)s' is missing.", name=name))
    return value


@router.post("/register")
def register(request: Request, fields: Fields) -> Response:
    name, password = _field(fields, "name"), _field(fields, "password")
    next = safe_next(fields.get("next"))
    check_csrf(request, current_user(request), fields.get("csrf_token"))
    admit_new_account(request, "registration")  # 429 when this address made too many
    svc = services(request)
    try:
        check_strength(password, name, svc.settings.min_password_score)
        user = svc.accounts.register(name, password)
    except (AccountError, WeakPassword) as exc:
        return render(request, "register.html", status_code=400, next=next, error=str(exc), name=name)
    return log_in(redirect(next), request, user)


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/lobby") -> Response:
    return render(request, "login.html", next=safe_next(next), error=None)


@router.post("/login")
def login(request: Request, fields: Fields) -> Response:
    """Each field once (400 otherwise): the name limited is the name looked up. Limits
    and the hashing pool's queue answer 429 with Retry-After."""
    name, password = _field(fields, "name"), _field(fields, "password")
    next = safe_next(fields.get("next"))
    check_csrf(request, current_user(request), fields.get("csrf_token"))
    user = services(request).accounts.login(name, password, client_address(request.scope))
    if user is None:
        return render(request, "login.html", status_code=400, next=next,
                      error=_("Wrong name or password."), name=name)
    if user.banned_at is not None:
        return render(request, "login.html", status_code=403, next=next,
                      error=_("A moderator has banned this account."), name=name)
    return log_in(redirect(next), request, user)


@router.post("/logout")
def logout(request: Request, fields: Fields) -> Response:
    """Ends the session for good (the generation advances, so a copy of the cookie is
    worth nothing). A guest is asked first: the account and its games are lost."""
    user = current_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    if user is not None and user.is_guest and fields.get("confirm") != "yes":
        return render(request, "logout_guest.html", user=user)
    if user is not None:
        services(request).accounts.end_sessions(user.id)
    response = redirect("/")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/account", response_class=HTMLResponse)
def account(request: Request, done: str = "") -> Response:
    user = current_user(request)
    if user is None:
        return redirect("/login?next=/account")
    return render(request, "account.html", user=user, error=None, message=_(_DONE[done]) if done in _DONE else None,
                  zones=ZONES)


_DONE = {"everywhere": N_("Every other session has ended; you are still logged in here."),
         "password": N_("Password changed. Every other session has ended."),
         "registered": N_("Welcome: this account is registered now, with all its games."),
         "reset": N_("Your new password is saved. Every other session has ended.")}


@router.post("/account/password")
def change_password(request: Request, fields: Fields) -> Response:
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    current, new = _field(fields, "current_password"), _field(fields, "new_password")
    svc = services(request)
    try:
        check_strength(new, user.name, svc.settings.min_password_score)
        user = svc.accounts.change_password(user, current, new, client_address(request.scope))
    except (AccountError, WeakPassword) as exc:
        return render(request, "account.html", status_code=400, user=user, error=str(exc),
                      message=None, zones=ZONES)
    return log_in(redirect("/account?done=password"), request, user)  # a new cookie here


@router.post("/account/logout-everywhere")
def logout_everywhere(request: Request, fields: Fields) -> Response:
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    svc = services(request)
    svc.accounts.end_sessions(user.id)
    fresh = svc.accounts.get(user.id)
    assert fresh is not None
    return log_in(redirect("/account?done=everywhere"), request, fresh)  # this one stays


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
def play_now(request: Request, csrf_token: Annotated[str, Form()] = "",
             players: Annotated[int, Form(ge=2, le=5)] = 3,
             level: Annotated[str, Form(max_length=20)] = "easy",
             rounds: Annotated[int, Form()] = 9) -> Response:
    """One click to a game: (a guest account if needed and) a game against computer
    opponents (2 by default, of the chosen level), started at once."""
    user = current_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    if user is None:
        admit_new_account(request, "guest")  # 429 when this address made too many
        user = svc.accounts.guest()
    if level not in BOT_LEVELS or rounds not in (6, 9):
        raise HTTPException(400, _("Unknown computer level or number of rounds."))
    seats = [SeatSpec("me")] + [SeatSpec("bot", bot_level=level) for _seat in range(players - 1)]
    try:  # created and started in one go: a refused start leaves no waiting game behind
        game = svc.lobby.create(user, players, rounds, seats, client_address(request.scope),
                                start_now=True)
    except CapReached as exc:
        return log_in(lobby_page(request, user, str(exc), 429), request, user)
    svc.bots.kick(game.id)
    return log_in(redirect(f"/games/{game.id}"), request, user)


@router.get("/lobby", response_class=HTMLResponse)
def lobby(request: Request, page: Annotated[int, Query(ge=1, le=10_000)] = 1) -> Response:
    user = current_user(request)
    if user is None:
        return redirect("/login?next=/lobby")
    return lobby_page(request, user, None, 200, page)


def lobby_page(request: Request, user: User, error: str | None, status: int,
               page: int = 1) -> Response:
    """The lobby; ``error`` when a request was refused (``status`` says how)."""
    svc = services(request)
    open_games, more = svc.lobby.open_games(page)
    my_games = svc.lobby.my_games(user, ended=LOBBY_ENDED_GAMES)  # all: /my-games
    my_games_more = max(0, len(my_games) - LOBBY_MY_GAMES)
    my_games = my_games[:LOBBY_MY_GAMES]
    for entry in my_games:  # time left on the player's own clock, in clocked games
        game = entry["game"]
        clocks = svc.clocks.public(game.id) if game.status == "active" else None
        mine = next((c for c in clocks["seats"] if c["seat"] == entry["seat"]), None) if clocks else None
        entry["clock"] = mine
    return render(request, "lobby.html", status_code=status, user=user,
                  my_games=my_games, my_games_more=my_games_more, invitations=svc.lobby.invitations(user),
                  open_games=open_games, page=page, more=more, error=error,
                  lobby_forms=partial(_lobby_forms, svc.templates.env))


# The lobby's forms to start a game (about half of its rendering: every option of every
# seat, pace and hour, in words): made once per language, the CSRF token put in after.
_FORMS_TOKEN = "csrf-token-of-the-page"
_lobby_forms_made: dict[str, str] = {}


def _lobby_forms(env: Any, csrf: str) -> Markup:
    language = current().code
    made = _lobby_forms_made.get(language)
    if made is None:
        made = env.get_template("lobby_forms.html").render(
            csrf=_FORMS_TOKEN, bot_levels=BOT_LEVELS, paces=PRESETS.values(),
            default_pace=DEFAULT_PRESET)
        _lobby_forms_made[language] = made
    return Markup(made.replace(_FORMS_TOKEN, str(escape(csrf))))


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
        for index in range(min(max(players, 0), 5)):  # a huge number must not loop
            kind = str(form.get(f"seat{index}", "open"))
            specs.append(SeatSpec(kind, invited_name=str(form.get(f"invite{index}", "")) or None,
                                  bot_level=str(form.get(f"level{index}", "random"))))
        clock = _table_clock(form)
        rated = _rated(form)
        # Each invitation by name tells whether the name exists: limited per user and
        # address (429) before the lobby looks any up.
        lookups = sum(1 for spec in specs if spec.kind == "invited" and spec.invited_name)
        await run_in_threadpool(svc.accounts.lookups.admit, user.id,
                                client_address(request.scope), lookups)
        game = await run_in_threadpool(partial(svc.lobby.create, clock=clock, rated=rated,
                                               chat=str(form.get("chat", "all")),
                                               rules=str(form.get("rules", "yucata"))),
                                       user, players,
                                       rounds, specs, client_address(request.scope))
    except ValueError as exc:
        message = str(exc) if isinstance(exc, LobbyError) else _("Players, rounds, hours and holidays must be whole numbers.")
        status = 429 if isinstance(exc, CapReached) else 400
        return await run_in_threadpool(lobby_page, request, user, message, status)
    return redirect(f"/games/{game.id}")


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(request: Request, game_id: int) -> Response:
    svc = services(request)
    game = svc.lobby.get(game_id)
    if game is None:
        raise HTTPException(404, _("No such game."))
    user = current_user(request)
    if game.status in ("lobby", "starting", "expired"):  # no match (yet, or ever)
        return room_page(request, game_id, None)
    seat = svc.lobby.seat_of(game_id, user.id if user else None)
    # The SHA-256 commitment to the secret seed is public from the start, so anyone can
    # check every card draw once the seed is published at the end. It is on the page, not
    # in the views: those stay functions of what the seat may see of the game itself.
    commitment = svc.views.match(game).commitment
    clock = svc.clocks.rules_of(game_id)
    pace = PRESETS.get(clock.preset) if clock is not None else None
    # The coach's panel (server/reviews.py): a finished game's, or a player's own at a
    # friendly table during the game.
    coach = svc.reviews is not None and (game.status == "finished" or (
        game.status == "active" and not game.rated and seat is not None))
    return render(request, "game.html", user=user, game=game, seat=seat, commitment=commitment,
                  clock=clock, pace=pace, reads_chat=svc.chat.may_read(game, seat), coach=coach)


def room_page(request: Request, game_id: int, error: str | None, status: int = 409) -> Response:
    """The waiting room; `error` (with `status`) when a join or start was refused."""
    svc = services(request)
    game = svc.lobby.get(game_id)
    if game is None:
        raise HTTPException(404, _("No such game."))
    user = current_user(request)
    seats = svc.lobby.seats(game_id)
    mine = any(s["user_id"] == user.id for s in seats) if user else False
    can_join = user is not None and not mine and game.status == "lobby" and any(
        s["kind"] == "open" or (s["kind"] == "invited" and s["invited_name"] == user.name) for s in seats)
    invite_url = str(request.url_for("invite", token=game.invite_token))
    return render(request, "room.html", status_code=status if error else 200, user=user, game=game, seats=seats,
                  can_join=can_join, is_creator=user is not None and user.id == game.creator_id,
                  invite_url=invite_url, error=error)


@router.get("/invite/{token}", response_class=HTMLResponse, name="invite")
def invite(request: Request, token: str) -> Response:
    svc = services(request)
    game = svc.lobby.by_invite(token)
    if game is None:
        raise HTTPException(404, _("This invitation link is not valid."))
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


@router.post("/games/{game_id}/cancel")
def cancel(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "") -> Response:
    """The creator removes a game still waiting for players (frees a place under the cap)."""
    return _room_change(request, game_id, csrf_token, services(request).lobby.cancel)


@router.post("/games/{game_id}/leave")
def leave(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "") -> Response:
    """A player who joined a waiting game gives the seat up (it is open again)."""
    return _room_change(request, game_id, csrf_token, services(request).lobby.leave)


def _room_change(request: Request, game_id: int, csrf_token: str,
                 change: Callable[[int, User], object]) -> Response:
    """A change to a waiting room by its user: refused in the room, told to its pages."""
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    try:
        change(game_id, user)
    except LobbyError as exc:
        if svc.lobby.get(game_id) is None:
            raise HTTPException(404, _("No such game.")) from None
        return room_page(request, game_id, str(exc))
    svc.hub.publish(f"room:{game_id}")  # the others' rooms reload
    return redirect("/lobby")


@router.post("/games/{game_id}/resign")
def resign(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "") -> Response:
    """A player gives up a running game: a computer plays the seat on, the player is
    ranked last. Refused (409, nothing changed): see ``Resign.resign``."""
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    try:
        game = svc.play.resign(game_id, user)
    except LobbyError as exc:
        if svc.lobby.get(game_id) is None:
            raise HTTPException(404, _("No such game.")) from None
        raise HTTPException(409, str(exc)) from None
    if game.match_id is not None:  # every page of the game shows who resigned
        svc.hub.publish(f"match:{game.match_id}")
    svc.bots.kick(game_id)  # the stand-in may be to move now
    return redirect(f"/games/{game_id}")


@router.post("/games/{game_id}/start")
def start(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "",
          fill_with_bots: Annotated[str, Form()] = "") -> Response:
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    try:
        svc.lobby.start(game_id, user, fill_with_bots=bool(fill_with_bots),
                        address=client_address(request.scope))
    except LobbyError as exc:
        return room_page(request, game_id, str(exc), 429 if isinstance(exc, CapReached) else 409)
    svc.clocks.settle(game_id)  # the first clock runs from the start (none: nothing)
    svc.hub.publish(f"room:{game_id}")
    svc.bots.kick(game_id)
    return redirect(f"/games/{game_id}")


# -- email notifications (server/mail/): the account page's email section and the links
# sent by email (these work without logging in: the signed token is the authority).


def _mail_page(request: Request, user: User, error: str | None = None,
               message: str | None = None, status: int = 200) -> Response:
    fresh = services(request).accounts.get(user.id) or user
    return render(request, "account.html", status_code=status, user=fresh, error=error,
                  message=message, zones=ZONES)


@router.post("/account/email")
def set_email(request: Request, fields: Fields) -> Response:
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    mail = services(request).mail
    if mail is None:
        raise HTTPException(404, _("This server sends no emails."))
    try:
        sent = mail.set_email(user, _field(fields, "email"))
    except MailRefused as exc:
        return _mail_page(request, user, error=str(exc), status=exc.status)
    return _mail_page(request, user, message=_("We sent you a confirmation link: open it to "
                      "receive emails there.") if sent else _("Email address saved."))


@router.post("/account/email-preference")
def set_email_preference(request: Request, fields: Fields) -> Response:
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    mail = services(request).mail
    if mail is None:
        raise HTTPException(404, _("This server sends no emails."))
    try:
        mail.set_preference(user, _field(fields, "preference"))
    except MailRefused as exc:
        return _mail_page(request, user, error=str(exc), status=exc.status)
    return _mail_page(request, user, message=_("Email preference saved."))


def _mail_link_page(request: Request, ok: bool, done: str, token: str = "") -> Response:
    return render(request, "email_link.html", status_code=200 if ok else 400, ok=ok,
                  done=done, token=token)


@router.get("/email/confirm/{token}", response_class=HTMLResponse)
def confirm_email(request: Request, token: str) -> Response:
    mail = services(request).mail
    ok = mail is not None and mail.confirm(token)
    return _mail_link_page(request, ok, "confirmed")


@router.get("/email/unsubscribe/{token}", response_class=HTMLResponse)
def unsubscribe_form(request: Request, token: str) -> Response:
    """A page with one button: a link scanner's GET must not unsubscribe anybody."""
    mail = services(request).mail
    ok = mail is not None and mail.tokens.check_unsubscribe(token) is not None
    return _mail_link_page(request, ok, "ask", token)


@router.post("/email/unsubscribe/{token}", response_class=HTMLResponse)
def unsubscribe(request: Request, token: str) -> Response:
    """The button, and mail clients' one-click unsubscribe (RFC 8058, no login)."""
    mail = services(request).mail
    ok = mail is not None and mail.unsubscribe(token)
    return _mail_link_page(request, ok, "unsubscribed")


def _rated(form: Any) -> bool:
    """Rated or friendly, from the creation form (LobbyError for anything else)."""
    kind = str(form.get("rating", "friendly"))
    if kind not in ("rated", "friendly"):
        raise LobbyError(_("A table is rated or friendly."))
    return kind == "rated"


def _table_clock(form: Any) -> Any:
    """The table's pace from the creation form (LobbyError or ValueError if refused)."""
    pace = str(form.get("pace", DEFAULT_PRESET))
    if pace in PRESETS and PRESETS[pace].rules is None:
        return None  # no clock: the clock's other fields do not apply
    hours_from, hours_to = str(form.get("hours_from", "")), str(form.get("hours_to", ""))
    hours = (int(hours_from), int(hours_to)) if hours_from and hours_to else None
    holidays = str(form.get("holiday_days", ""))
    stand_in = str(form.get("stand_in", "")) or None
    return table_clock(pace, stand_in=stand_in, hours=hours,
                       holiday_days=int(holidays) if holidays else None)


# -- turn clocks (server/clocks/): taking a seat back from the computer, holidays


def _own_seat(request: Request, game_id: int, csrf_token: str) -> tuple[Any, int]:
    user = require_user(request)
    check_csrf(request, user, csrf_token)
    svc = services(request)
    game = svc.lobby.get(game_id)
    if game is None:
        raise HTTPException(404, _("No such game."))
    seat = svc.lobby.seat_of(game_id, user.id)
    if seat is None:
        raise HTTPException(403, _("You have no seat in this game."))
    return game, seat


@router.post("/games/{game_id}/back")
def take_seat_back(request: Request, game_id: int,
                   csrf_token: Annotated[str, Form()] = "") -> Response:
    """One click: the computer that played since the player's clock ran out stops."""
    game, seat = _own_seat(request, game_id, csrf_token)
    services(request).play.take_back(game, seat)  # already back: nothing to do
    return redirect(f"/games/{game_id}")


@router.post("/games/{game_id}/holiday")
def take_holiday(request: Request, game_id: int, csrf_token: Annotated[str, Form()] = "",
                 days: Annotated[str, Form()] = "") -> Response:
    """The player's clock in this game stands still for ``days`` (within the table's
    limit); 409 with the reason if refused."""
    game, seat = _own_seat(request, game_id, csrf_token)
    try:
        services(request).clocks.pause(game_id, seat, int(days))
    except ValueError as exc:
        message = str(exc) if isinstance(exc, ClockRefused) else _("Give a whole number of days.")
        raise HTTPException(409, message) from None
    return redirect(f"/games/{game_id}")


@router.post("/games/{game_id}/holiday/end")
def end_holiday(request: Request, game_id: int,
                csrf_token: Annotated[str, Form()] = "") -> Response:
    """Back early: the days not used are given back."""
    _game, seat = _own_seat(request, game_id, csrf_token)
    services(request).clocks.end_holiday(game_id, seat)
    return redirect(f"/games/{game_id}")


@router.post("/account/time-zone")
def set_time_zone(request: Request, fields: Fields) -> Response:
    """The player's time zone: playing hours of daily tables count in it."""
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    zone = _field(fields, "time_zone")
    if not valid_zone(zone):
        return _mail_page(request, user, error=_("Choose a time zone from the list."), status=400)
    services(request).accounts.set_time_zone(user.id, zone)
    return _mail_page(request, user, message=_("Time zone saved: %(zone)s.", zone=zone))
