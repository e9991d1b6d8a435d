"""The moderators' page (/admin): open reports with what can be done about them, one
form per action, and the moderation log. Anyone who is not an administrator gets 404:
the page's existence is no one else's business."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from .i18n import _
from .moderation import ModerationRefused, is_admin
from .tables import User
from .web import Fields, check_csrf, current_user, redirect, render, services

router = APIRouter(include_in_schema=False)


def _admin(request: Request) -> User:
    user = current_user(request)
    if not is_admin(user):
        raise HTTPException(404, "Not Found")
    assert user is not None
    return user


def _page(request: Request, user: User, error: str | None = None, message: str | None = None,
          status: int = 200) -> Response:
    moderation = services(request).moderation
    return render(request, "admin.html", status_code=status, user=user, error=error,
                  message=message, reports=moderation.open_reports(), entries=moderation.log())


@router.get("/admin", response_class=HTMLResponse)
def admin_page(request: Request) -> Response:
    return _page(request, _admin(request))


@router.post("/admin/act")
def act(request: Request, fields: Fields) -> Response:
    """One moderation action (the form's "action" field); refused ones change nothing
    and say why."""
    admin = _admin(request)
    check_csrf(request, admin, fields.get("csrf_token"))
    moderation = services(request).moderation
    action, name, why = fields.get("action", ""), fields.get("name", ""), fields.get("why", "")
    try:
        if action == "mute":
            until = moderation.mute(admin, name, float(fields.get("days", "1")), why)
            when = until.strftime("%Y-%m-%d %H:%M")
            done = _("%(name)s is muted in the chats until %(until)s UTC.", name=name,
                     until=when)
        elif action == "ban":
            moderation.ban(admin, name, why)
            done = _("%(name)s is banned.", name=name)
        elif action == "unban":
            moderation.unban(admin, name)
            done = _("%(name)s may log in again.", name=name)
        elif action == "rename":
            new_name = moderation.rename(admin, name, fields.get("new_name", ""))
            done = _("%(name)s is now called %(new_name)s.", name=name, new_name=new_name)
        elif action == "hide":
            moderation.hide(admin, int(fields.get("message_id", "")))
            done = _("The chat line is hidden.")
        elif action == "cancel":
            moderation.cancel_game(admin, int(fields.get("game_id", "")), why)
            done = _("The game is cancelled.")
        elif action == "close":
            moderation.close_report(admin, int(fields.get("report_id", "")))
            done = _("Report closed.")
        else:
            raise ModerationRefused(_("Unknown action."))
    except ModerationRefused as exc:
        return _page(request, admin, error=str(exc), status=409)
    except ValueError:
        return _page(request, admin, error=_("Give a number where one is asked for."), status=400)
    return _page(request, admin, message=done)


@router.get("/admin/", include_in_schema=False)
def admin_slash() -> Response:
    return redirect("/admin")
