"""Hardening of the web app, added by ``harden(app, ...)`` with parts the composition root
builds (``Limits.from_settings``, ``make_limiters``):

- a strict Content-Security-Policy and the usual security headers on every response
  (and ``Cache-Control: no-store`` on pages and API answers: they carry a seat's view)
  (headers.py);
- request bodies bounded (413), WebSocket messages bounded, cross-site requests refused
  (middleware.py);
- the limiters, in memory or, with a ``redis://`` pub/sub URL, shared by all processes:
  logins (used by ``Accounts.login``, which alone knows the name it looks up) and
  account creation (registrations, guests) per client address (limits.py);
- a database that is away answers 503 with a clear message instead of a server error,
  and the error answers are documented in the OpenAPI schema (errors.py);
- log records redacted, so passwords, session cookies, tokens and the secret key never
  reach a log (redaction.py).

Everything is a plain ASGI middleware or a logging hook, except the account-creation
limit: the routes that create accounts call ``admit_new_account`` (only they know whether a
request creates one: "Play now" from a logged-in player does not).
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI

from .errors import ERROR_RESPONSES, add_error_handlers, document_error_responses
from .headers import CSP, HSTS, SECURITY_HEADERS
from .limits import (
    AccountKind,
    AccountLimitReached,
    AccountLimits,
    Limiter,
    Limiters,
    Limits,
    MemoryLimiter,
    RedisLimiter,
    admit_new_account,
    make_limiter,
    make_limiters,
)
from .middleware import HardeningMiddleware
from .redaction import install_log_redaction, redact

__all__ = [
    "CSP", "ERROR_RESPONSES", "HSTS", "SECURITY_HEADERS", "AccountKind", "AccountLimitReached",
    "AccountLimits", "HardeningMiddleware", "Limiter", "Limiters", "Limits", "MemoryLimiter",
    "RedisLimiter", "admit_new_account", "document_error_responses", "harden",
    "install_log_redaction", "make_limiter", "make_limiters", "redact",
]


def harden(app: FastAPI, *, limits: Limits, limiters: Limiters, hsts: bool,
           secrets: Sequence[str]) -> None:
    """Adds the hardening to ``app`` before it serves: ``hsts`` when it is reached over
    HTTPS; ``secrets`` (the secret key) are removed from every log line of the process.
    A second call changes nothing."""
    if getattr(app.state, "hardened", False):
        return
    app.state.hardened = True
    app.state.account_limits = AccountLimits(limiters.accounts, limits.registrations_per_client,
                                             limits.guests_per_client)
    add_error_handlers(app)
    app.add_middleware(HardeningMiddleware, limits=limits, hsts=hsts)
    document_error_responses(app)
    install_log_redaction(*secrets)
