"""Request helpers shared by the page, API and WebSocket routes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, cast

from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from .i18n import _
from .i18n.negotiate import LANG_COOKIE, LANG_MAX_AGE
from .security import (
    BROWSER_COOKIE,
    BROWSER_MAX_AGE,
    SESSION_COOKIE,
    SESSION_MAX_AGE,
    new_browser_id,
)
from .tables import User

if TYPE_CHECKING:
    from .app import Services

CSRF_HEADER = "x-csrf-token"


def services(conn: HTTPConnection) -> Services:
    return cast("Services", conn.app.state.services)


def current_user(conn: HTTPConnection) -> User | None:
    """The user of a valid session cookie of the user's current generation (logout, a
    password change or "log out everywhere" advanced it: older cookies are worth
    nothing)."""
    svc = services(conn)
    session = svc.signer.session(conn.cookies.get(SESSION_COOKIE))
    if session is None:
        return None
    user = svc.accounts.get(session[0])
    if user is None or user.banned_at is not None:  # a ban ends every session for good
        return None
    return user if user.session_generation == session[1] else None


def require_user(request: Request) -> User:
    user = current_user(request)
    if user is None:
        raise HTTPException(status_code=401, detail=_("Log in first."))
    return user


def _session_of(user: User | None) -> tuple[int, int] | None:
    return (user.id, user.session_generation) if user is not None else None


def browser_id(request: Request) -> str:
    """This browser's random id (its cookie), or a new one that ``render`` sets."""
    found = request.cookies.get(BROWSER_COOKIE) or getattr(request.state, "new_browser", None)
    if not found:
        found = request.state.new_browser = new_browser_id()
    return str(found)


def csrf_token(request: Request, user: User | None) -> str:
    browser = None if user is not None else browser_id(request)
    token: str = services(request).signer.csrf_token(_session_of(user), browser)
    return token


def check_csrf(request: Request, user: User | None, token: str | None) -> None:
    """Forms send the token as a field, scripts in the X-CSRF-Token header. A forged
    cross-site request has neither (it cannot read our pages); a logged-out visitor's
    token is good only with the browser cookie it was made for."""
    token = token or request.headers.get(CSRF_HEADER)
    if not services(request).signer.check_csrf(token, _session_of(user),
                                               request.cookies.get(BROWSER_COOKIE)):
        raise HTTPException(status_code=403, detail=_("Invalid or missing CSRF token; reload the page and try again."))


def log_in(response: Response, request: Request, user: User) -> Response:
    svc = services(request)
    response.set_cookie(
        SESSION_COOKIE, svc.signer.session_cookie(user.id, user.session_generation),
        max_age=SESSION_MAX_AGE, httponly=True, samesite="lax",
        secure=svc.settings.secure_cookies, path="/",
    )
    if user.language:  # the account's language follows the player to a new browser
        set_language_cookie(response, request, user.language)
    return response


def set_language_cookie(response: Response, request: Request, code: str) -> None:
    """Read by ``i18n.LanguageMiddleware`` on every request (no database read)."""
    response.set_cookie(LANG_COOKIE, code, max_age=LANG_MAX_AGE, httponly=True,
                        samesite="lax", secure=services(request).settings.secure_cookies,
                        path="/")


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    user = context.pop("user", None) if "user" in context else current_user(request)
    context.update(user=user, csrf=csrf_token(request, user))
    response: HTMLResponse = services(request).templates.TemplateResponse(
        request, template, context, status_code=status_code
    )
    new = getattr(request.state, "new_browser", None)
    if new:  # the first page this browser sees: its id for logged-out CSRF tokens
        response.set_cookie(BROWSER_COOKIE, new, max_age=BROWSER_MAX_AGE, httponly=True,
                            samesite="lax", secure=services(request).settings.secure_cookies,
                            path="/")
    return response


async def single_fields(request: Request) -> dict[str, str]:
    """The form's fields, each sent once and as text; a repeated field is refused (400):
    what is checked (the limits, the CSRF token) must be what is used."""
    form = await request.form()
    repeated = sorted(key for key in form.keys() if len(form.getlist(key)) > 1)
    if repeated:
        raise HTTPException(400, _("The field '%(name)s' is sent more than once; send "
                                   "each field once.", name=repeated[0]))
    fields: dict[str, str] = {}
    for key, value in form.items():
        if not isinstance(value, str):
            raise HTTPException(400, _("The field '%(name)s' must be text, not a file.", name=key))
        fields[key] = value
    return fields


Fields = Annotated[dict[str, str], Depends(single_fields)]


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def safe_next(url: str | None) -> str:
    """Only local paths, so a crafted link cannot send people elsewhere after login."""
    if url and url.startswith("/") and not url.startswith("//") and "\\" not in url:
        return url
    return "/lobby"
