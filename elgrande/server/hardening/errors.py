"""Error answers that are not the app's bugs: a database that is away (503), too many
accounts from one address (429); and the error answers every /api/ operation may give,
added to the OpenAPI schema."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..i18n import N_, _
from .limits import AccountLimitReached

log = logging.getLogger(__name__)

# Connection refused or lost, server shutting down, SQLite busy or read-only, a file that
# cannot be opened: not our bug, the database is away. SQLAlchemy wraps the driver's
# errors, but plain-SQL fast paths (the store's) raise the driver's own (sqlite3, psycopg).
DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (
    OperationalError, InterfaceError, PoolTimeout, DisconnectionError,
    sqlite3.OperationalError, sqlite3.InterfaceError)
try:  # psycopg is the optional "postgres" extra
    import psycopg

    DATABASE_UNAVAILABLE += (psycopg.OperationalError, psycopg.InterfaceError)
except ImportError:  # pragma: no cover
    pass
UNAVAILABLE_MESSAGE = N_("The database is unavailable at the moment; please try again shortly.")


def database_problem(exc: BaseException) -> str:
    """One line for an operator about a database error (no traceback, no URL)."""
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no details'}"


def add_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AccountLimitReached, _account_limit_reached)
    for error in DATABASE_UNAVAILABLE:
        app.add_exception_handler(error, _database_unavailable)


def _account_limit_reached(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AccountLimitReached)
    headers = {"retry-after": str(exc.retry_after)}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"code": "rate_limited", "message": exc.message}},
                            status_code=429, headers=headers)
    return PlainTextResponse(exc.message, status_code=429, headers=headers)


def _database_unavailable(request: Request, exc: Exception) -> Response:
    log.warning("database unavailable for %s %s: %s", request.method, request.url.path,
                database_problem(exc))
    message = _(UNAVAILABLE_MESSAGE)
    headers = {"retry-after": "5"}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"code": "unavailable", "message": message}},
                            status_code=503, headers=headers)
    return PlainTextResponse(message, status_code=503, headers=headers)


# ------------------------------------------------------------- documented error answers

_REFUSAL = {  # the play API's own refusals: {"error": {...}, "state": the caller's view}
    "type": "object", "required": ["error"],
    "properties": {
        "error": {"type": "object", "required": ["code", "message"],
                  "properties": {"code": {"type": "string"}, "message": {"type": "string"}}},
        "state": {"type": ["object", "null"]},
    },
}
_DETAIL = {"type": "object", "required": ["detail"], "properties": {"detail": {}}}
ERROR_RESPONSES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "400": ("Malformed request", [_REFUSAL, _DETAIL]),
    "401": ("Not logged in", [_DETAIL]),
    "403": ("Not your seat, or a missing or wrong CSRF token", [_DETAIL]),
    "404": ("No such game", [_DETAIL, _REFUSAL]),
    "409": ("Not allowed now, or based on an old position (moved_on)", [_REFUSAL, _DETAIL]),
    "413": ("Request body too large", [_REFUSAL]),
    "503": ("The database is unavailable; try again shortly", [_REFUSAL]),
}


def document_error_responses(app: FastAPI) -> None:
    """Adds the error answers every /api/ operation may give to the OpenAPI schema
    (where a route does not document them itself), so clients and schema-based tests
    know them."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        for path, operations in schema.get("paths", {}).items():
            if not path.startswith("/api/"):
                continue
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                for status, (description, shapes) in ERROR_RESPONSES.items():
                    body = shapes[0] if len(shapes) == 1 else {"anyOf": shapes}
                    responses.setdefault(status, {
                        "description": description,
                        "content": {"application/json": {"schema": body}},
                    })
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
