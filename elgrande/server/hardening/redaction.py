"""Log redaction: passwords, session cookies, tokens and the secret key never reach a
log, whichever handler writes the record."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

_SENSITIVE = re.compile(
    r"""(?ix)
    (?P<key>password|passwd|secret(?:_key)?|csrf_token|x-csrf-token|token|authorization|
            elgrande_session|session|cookie)
    (?P<sep>["']?\s*[:=]\s*["']?|%3D)
    (?P<value>(?!\[REDACTED\])[^\s"'&,;}\]]+)
    """
)
# itsdangerous tokens (our session cookies and CSRF tokens): payload.timestamp.signature
_SIGNED_TOKEN = re.compile(r"\b[\w-]+\.[\w-]{6}\.[\w-]{27}\b")
# Process-wide, as the log record factory is: every app of the process adds its secrets.
_secrets: set[str] = set()
_installed = False
_lock = threading.Lock()


def redact(text: str) -> str:
    """``text`` with values of password/secret/token/session fields and the known
    secrets replaced by [REDACTED]."""
    text = _SENSITIVE.sub(lambda m: f"{m.group('key')}{m.group('sep')}[REDACTED]", text)
    text = _SIGNED_TOKEN.sub("[REDACTED]", text)
    for secret in _secrets:
        text = text.replace(secret, "[REDACTED]")
    return text


def _redact_arg(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact(value if isinstance(value, str) else str(value))


def _redact_record(record: logging.LogRecord) -> None:
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    full = record.getMessage()
    clean = redact(full)
    if clean == full:
        return  # nothing secret: leave the record as it is
    if record.args:
        # Keep the arguments (formatters such as uvicorn's access log read them), each
        # redacted, if that is enough; otherwise the whole message becomes plain text.
        args = record.args
        record.args = (tuple(_redact_arg(a) for a in args) if isinstance(args, tuple)
                       else {k: _redact_arg(v) for k, v in args.items()})
        try:
            if redact(record.getMessage()) == record.getMessage():
                return
        except (TypeError, ValueError):
            pass
    record.msg, record.args = clean, None


def install_log_redaction(*secrets: str) -> None:
    """Every log record of the process is redacted when it is created (whatever handler
    later writes it), exception tracebacks included. ``secrets`` (e.g. the secret key)
    are removed wherever they appear."""
    global _installed
    with _lock:
        _secrets.update(s for s in secrets if s and len(s) >= 8)
        if _installed:
            return
        _installed = True
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            try:
                _redact_record(record)
            except Exception:  # never lose a log line over redaction
                record.msg, record.args = "[log message withheld: redaction failed]", None
            return record

        logging.setLogRecordFactory(factory)
