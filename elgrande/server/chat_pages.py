"""The table chat's requests outside the WebSocket: muting and unmuting another player,
and reporting a chat line or a name to the moderators. JSON in, JSON out, with the
page's CSRF token in the X-CSRF-Token header."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field

from .chat import ChatRefused
from .i18n import _
from .web import check_csrf, require_user, services

router = APIRouter(prefix="/api/chat", tags=["chat"])


class Someone(BaseModel):
    name: str = Field(..., max_length=40, description="the other player's name")


class ReportBody(BaseModel):
    # Bounded like the database's ids: a larger number is refused with 422, not a 500.
    message_id: int | None = Field(None, ge=1, le=2**63 - 1, description="the chat line reported")
    name: str | None = Field(None, max_length=40, description="or: the name reported")
    reason: str = Field("", max_length=500)


def _refused(exc: ChatRefused) -> HTTPException:
    return HTTPException(404 if exc.code == "not_found" else 409, str(exc))


@router.post("/mute", summary="Stop reading another player's chat lines")
def mute(request: Request, body: Someone) -> dict[str, Any]:
    return _muting(request, body, mute=True)


@router.post("/unmute", summary="Read another player's chat lines again")
def unmute(request: Request, body: Someone) -> dict[str, Any]:
    return _muting(request, body, mute=False)


def _muting(request: Request, body: Someone, *, mute: bool) -> dict[str, Any]:
    """Mutes or unmutes ``body.name`` for the user; the names they now mute."""
    user = require_user(request)
    check_csrf(request, user, None)
    chat = services(request).chat
    try:
        (chat.mute if mute else chat.unmute)(user.id, body.name)
    except ChatRefused as exc:
        raise _refused(exc) from None
    return {"muted": chat.muted(user.id)}


@router.post("/report", summary="Report a chat line or a name to the moderators")
def report(request: Request, body: ReportBody) -> dict[str, Any]:
    user = require_user(request)
    check_csrf(request, user, None)
    if (body.message_id is None) == (body.name is None):
        raise HTTPException(400, _("Report either a chat line (message_id) or a name."))
    try:
        services(request).chat.report(user, message_id=body.message_id, name=body.name,
                                      reason=body.reason)
    except ChatRefused as exc:
        raise _refused(exc) from None
    return {"reported": True}
