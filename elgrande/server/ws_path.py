"""The game page's WebSocket, taken before the framework's routing.

An open game page holds its socket for as long as it is open, most of the time idle,
and each of its messages passes every layer the socket was opened through. Through
the app's whole stack, that is about thirty layers of exception handlers, routers and
dependency set-up, each a suspended frame per socket and a call per message. This
middleware sits outermost and sends ``/ws/games/<id>`` to the handler (``ws.py``)
through the few layers a socket needs: its request id, its language and the hardening
(the bound on a message's size, ids too long for any game); everything else goes on
down the stack as before."""

from __future__ import annotations

import re
from typing import Any

from starlette.websockets import WebSocket

from .hardening.limits import Limits
from .hardening.middleware import HardeningMiddleware
from .i18n.negotiate import LanguageMiddleware
from .logs import RequestIdMiddleware
from .ws import game_socket

GAME_SOCKET = re.compile(r"/ws/games/(\d+)")


class GameSocketPath:
    def __init__(self, app: Any, limits: Limits, pseudo: bool = False) -> None:
        self.app = app
        self.socket = RequestIdMiddleware(
            LanguageMiddleware(HardeningMiddleware(_serve, limits, hsts=False), pseudo=pseudo))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and GAME_SOCKET.fullmatch(scope.get("path", "")):
            await self.socket(scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def _serve(scope: Any, receive: Any, send: Any) -> None:
    found = GAME_SOCKET.fullmatch(scope["path"])
    assert found is not None  # (GameSocketPath sent it here)
    await game_socket(WebSocket(scope, receive, send), int(found.group(1)))
