"""Request helpers shared by the page, API and WebSocket routes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from .security import SESSION_COOKIE, SESSION_MAX_AGE
from .tables import User

if TYPE_CHECKING:
    from .app import Services

CSRF_HEADER = "x-csrf-token"


def services(conn: HTTPConnection) -> Services:
    return cast("Services", conn.app.state.services)


def current_user(conn: HTTPConnection) -> User | None:
    svc = services(conn)
    return svc.accounts.get(svc.signer.user_id(conn.cookies.get(SESSION_COOKIE)))


def require_user(request: Request) -> User:
    user = current_user(request)
    if user is None:
        raise HTTPException(status_code=401, detail="Log in first.")
    return user


def csrf_token(request: Request, user: User | None) -> str:
    token: str = services(request).signer.csrf_token(user.id if user else None)
    return token


def check_csrf(request: Request, user: User | None, token: str | None) -> None:
    """Forms send the token as a field, scripts in the X-CSRF-Token header. A forged
    cross-site request has neither (it cannot read our pages)."""
    token = token or request.headers.get(CSRF_HEADER)
    if not services(request).signer.check_csrf(token, user.id if user else None):
        raise HTTPException(status_code=403, detail="Invalid or missing CSRF token; reload the page and try again.")


def log_in(response: Response, request: Request, user: User) -> Response:
    svc = services(request)
    response.set_cookie(
        SESSION_COOKIE, svc.signer.session_cookie(user.id), max_age=SESSION_MAX_AGE,
        httponly=True, samesite="lax", secure=svc.settings.secure_cookies, path="/",
    )
    return response


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    user = context.pop("user", None) if "user" in context else current_user(request)
    context.update(user=user, csrf=csrf_token(request, user))
    response: HTMLResponse = services(request).templates.TemplateResponse(
        request, template, context, status_code=status_code
    )
    return response


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def safe_next(url: str | None) -> str:
    """Only local paths, so a crafted link cannot send people elsewhere after login."""
    if url and url.startswith("/") and not url.startswith("//") and "\\" not in url:
        return url
    return "/lobby"
