"""The coach's reviews over HTTP (docs/coach.md): ask for one (POST, CSRF token in the
X-CSRF-Token header as the play API's commands) and read it (GET, polled by the page
while the bot workers judge it; status "none" before anyone asked). Refusals are
{"detail": message, "code": code}, as the other APIs' (with the code a script can test),
with 401, 403 (a rated game still running, another's seat during a game, bad CSRF
token), 404 (no such game or seat), 409 (not started, stopped) or 429 (the quota, with
Retry-After)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from .i18n import _
from .reviews import ReviewRefused, Reviews
from .web import check_csrf, current_user, require_user, services

router = APIRouter(prefix="/api", tags=["coach"])


class ReviewRequest(BaseModel):
    seat: int = Field(..., description="the seat whose decisions are reviewed")


def _reviews(request: Request) -> Reviews:
    reviews = services(request).reviews
    if reviews is None:
        raise ReviewRefused(404, "no_coach", _("The coach is not available here."))
    return reviews


def _refused(exc: ReviewRefused) -> JSONResponse:
    headers = {"retry-after": str(exc.retry_after)} if exc.retry_after else None
    return JSONResponse({"detail": exc.message, "code": exc.code},
                        status_code=exc.status, headers=headers)


@router.post("/games/{game_id}/review", summary="Ask the coach to review a seat's play")
def request_review(request: Request, game_id: int, body: ReviewRequest) -> Any:
    """The review up to the last committed move: cached, or queued for the bot workers
    (status ``pending``, then ``running`` with ``done`` of ``total``, then ``done`` or
    ``failed``)."""
    user = require_user(request)
    check_csrf(request, user, None)
    try:
        return _reviews(request).request(game_id, body.seat, user)
    except ReviewRefused as exc:
        return _refused(exc)


@router.get("/games/{game_id}/review", summary="The coach's latest review of a seat")
def read_review(request: Request, game_id: int,
                seat: int = Query(..., description="the reviewed seat")) -> Any:
    """Mistakes biggest first: what was played, what the coach would play (notation and
    words in the reader's language), ``delta`` the coach's estimate of the points it
    would have added to the seat's final score, ``se`` its standard error, ``index`` the
    log position before the decision (the replay's ``seq``)."""
    try:
        return _reviews(request).read(game_id, seat, current_user(request))
    except ReviewRefused as exc:
        return _refused(exc)
