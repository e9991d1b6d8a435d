"""Several server processes on one database and one Redis: a Redis pub/sub broker
(``pubsub``), bot-move leases in the database (``leases``, ``bots``), the ``elgrande
bench server`` load driver (``bench``). ``install(app, settings)`` wires them into an
app built by ``elgrande.server.app.create_app``; see docs/deploy.md."""

from __future__ import annotations

from typing import Any


def install(app: Any, settings: Any) -> None:
    """See ``elgrande.scale.wiring.install`` (imported on use: ``elgrande.scale.models``
    must stay importable without the web app, for the migrations)."""
    from .wiring import install as wire

    wire(app, settings)


__all__ = ["install"]
