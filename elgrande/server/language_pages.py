"""The language switch in every page's header, and the scripts' message catalogs
(docs/i18n.md)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from .i18n import LOCALES, PSEUDO, _, lang_for
from .web import (
    Fields,
    check_csrf,
    current_user,
    redirect,
    safe_next,
    services,
    set_language_cookie,
)

router = APIRouter(include_in_schema=False)


def _offered(request: Request) -> tuple[str, ...]:
    return LOCALES + ((PSEUDO,) if services(request).settings.pseudo_locale else ())


@router.post("/language")
def choose_language(request: Request, fields: Fields) -> Response:
    """A registered player's choice is kept in the account too; a guest's or a visitor's
    only in the cookie (a guest account is thrown away)."""
    user = current_user(request)
    check_csrf(request, user, fields.get("csrf_token"))
    code = fields.get("lang", "")
    if code not in _offered(request):
        raise HTTPException(400, _("Unknown language."))
    if user is not None and not user.is_guest:
        services(request).accounts.set_language(user.id, code)
    response = redirect(safe_next(fields.get("next")))
    set_language_cookie(response, request, code)
    return response


@router.get("/i18n/{code}.json")
def script_catalog(request: Request, code: str) -> Response:
    """The pages' scripts' messages in one language. Its URL carries the catalog's
    version (``Lang.script_url``), so browsers may keep it for good."""
    if code not in _offered(request):
        raise HTTPException(404, _("Unknown language."))
    lang = lang_for(code)
    cache = ("public, max-age=31536000, immutable"
             if request.query_params.get("v") == lang.script_version else "no-cache")
    return Response(lang.script_json, media_type="application/json",
                    headers={"cache-control": cache})
