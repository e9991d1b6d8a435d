"""The rest of a complete account: a guest becomes a registered player (same account,
same games), a forgotten password is reset through the confirmed email address, the
account is deleted (its seats keep "former player N"), its data downloaded as JSON, and
the operator's privacy and imprint pages."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from markupsafe import Markup

from .accounts import AccountError
from .data_export import account_data
from .farewell import delete_account
from .hardening import admit_new_account
from .hardening.limits import client_address
from .i18n import N_, _
from .passwords import WeakPassword, check_strength
from .security import SESSION_COOKIE
from .web import Fields, check_csrf, current_user, log_in, redirect, render, require_user, services

router = APIRouter(include_in_schema=False)

FORGOT_ANSWER = N_("If that is the name or confirmed email address of an account, a link to "
                 "choose a new password is on its way there; it works once, within an hour.")


def _account_page(request: Request, user: object, error: str | None = None,
                  message: str | None = None, status: int = 200) -> Response:
    from .clocks.zones import ZONES

    return render(request, "account.html", status_code=status, user=user, error=error,
                  message=message, zones=ZONES)


@router.post("/account/upgrade")
def upgrade(request: Request, fields: Fields) -> Response:
    """A guest chooses a name and a password and keeps everything: the same account."""
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    name, password = fields.get("name", ""), fields.get("password", "")
    svc = services(request)
    try:
        check_strength(password, name, svc.settings.min_password_score)
        user = svc.accounts.upgrade_guest(user, name, password)
    except (AccountError, WeakPassword) as exc:
        return _account_page(request, user, error=str(exc), status=400)
    # The session generation moved on (the guest cookie elsewhere ends): a new cookie here.
    return log_in(redirect("/account?done=registered"), request, user)


@router.get("/password/forgot", response_class=HTMLResponse)
def forgot_form(request: Request) -> Response:
    return render(request, "password_forgot.html", message=None,
                  mail=services(request).mail is not None)


@router.post("/password/forgot")
def forgot(request: Request, fields: Fields) -> Response:
    """The same answer whatever was asked, so nobody learns which accounts exist or
    have an address; limited per client address like sign-ups."""
    check_csrf(request, current_user(request), fields.get("csrf_token"))
    svc = services(request)
    if svc.mail is None:
        raise HTTPException(404, _("This server sends no emails: ask its operator."))
    admit_new_account(request, "password reset")  # 429 when this address asked too often
    svc.mail.send_reset(fields.get("name", "")[:254])
    return render(request, "password_forgot.html", message=_(FORGOT_ANSWER), mail=True)


@router.get("/password/reset/{token}", response_class=HTMLResponse)
def reset_form(request: Request, token: str) -> Response:
    mail = services(request).mail
    user = mail.check_reset(token) if mail is not None else None
    return render(request, "password_reset.html", status_code=200 if user else 400,
                  ok=user is not None, token=token, error=None)


@router.post("/password/reset/{token}")
def reset(request: Request, token: str, fields: Fields) -> Response:
    check_csrf(request, current_user(request), fields.get("csrf_token"))
    svc = services(request)
    user = svc.mail.check_reset(token) if svc.mail is not None else None
    if user is None:
        return render(request, "password_reset.html", status_code=400, ok=False, token=token,
                      error=None)
    password = fields.get("password", "")
    try:
        check_strength(password, user.name, svc.settings.min_password_score)
    except WeakPassword as exc:
        return render(request, "password_reset.html", status_code=400, ok=True, token=token,
                      error=str(exc))
    changed = svc.accounts.set_password(user.id, password)  # every session ends
    return log_in(redirect("/account?done=reset"), request, changed)


@router.post("/account/delete")
def delete(request: Request, fields: Fields) -> Response:
    """Deletes the account after the player typed its name (and, registered, gave the
    password): running games go on with a computer in the seat, waiting games are left."""
    user = require_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    svc = services(request)
    if fields.get("confirm_name", "").strip() != user.name:
        return _account_page(request, user, error=_("Type your name exactly to delete the account."),
                             status=400)
    if not user.is_guest:
        svc.accounts.logins.admit(user.name_key, client_address(request.scope))
        if not svc.accounts.hashes.verify(user.password_hash, fields.get("password", "")):
            svc.accounts.logins.failed(user.name_key, client_address(request.scope))
            return _account_page(request, user, error=_("The password is wrong."), status=400)
    delete_account(svc, user)
    response = render(request, "account_deleted.html", user=None)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/account/data")
def download(request: Request) -> Response:
    """Everything the server keeps about the player, as JSON (no password hash)."""
    user = require_user(request)
    return JSONResponse(account_data(services(request), user), headers={
        "Content-Disposition": f'attachment; filename="elgrande-{user.id}.json"'})


def _legal(request: Request, name: str, title: str) -> Response:
    """The operator's own text (``legal_dir``/name.html, trusted HTML written by the
    operator), or a page saying it has not been written."""
    folder = services(request).settings.legal_dir
    path = Path(folder) / f"{name}.html" if folder else None
    body = Markup(path.read_text(encoding="utf-8")) if path and path.is_file() else None  # noqa: S704
    return render(request, "legal.html", title=title, body=body, name=name)


@router.get("/privacy", response_class=HTMLResponse)
def privacy(request: Request) -> Response:
    return _legal(request, "privacy", _("Privacy"))


@router.get("/imprint", response_class=HTMLResponse)
def imprint(request: Request) -> Response:
    return _legal(request, "imprint", _("Imprint"))
