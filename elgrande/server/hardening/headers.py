"""The security headers of every response: a strict Content-Security-Policy, the usual
companions, and HSTS when the server is reached over HTTPS."""

from __future__ import annotations

CSP = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",  # Bootstrap's form controls use data: SVG images
    "font-src 'self'",
    "connect-src 'self'",  # the game page's own WebSocket and API
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
HSTS = "max-age=31536000; includeSubDomains"


def security_headers(hsts: bool) -> list[tuple[bytes, bytes]]:
    """The headers as raw ASGI pairs; ``hsts`` when the server is reached over HTTPS."""
    headers = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
    if hsts:
        headers.append((b"strict-transport-security", HSTS.encode()))
    return headers
