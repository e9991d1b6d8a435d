"""A scripted player over real HTTP and WebSocket, as a browser page would be: a guest
account, the lobby forms (with their CSRF tokens), the game page's WebSocket for live
updates and the JSON API for its commands. Used by ``elgrande bench server`` and the
multi-process tests."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import re
import ssl
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import websockets

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
CSRF_DATA = re.compile(r'data-csrf="([^"]+)"')


# A connection idle this long is not reused: uvicorn closes one after 5 s, and a request
# sent on it just as the server closes it fails (ReadError) though the server never saw
# it. A browser retries such a request; closing first, as browsers do, avoids the race.
LIMITS = httpx.Limits(keepalive_expiry=4.0)


class ClientError(RuntimeError):
    pass


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every client: building one (loading the CA certificates) costs
    more than a whole game's requests, and httpx would build one per client."""
    return ssl.create_default_context()


class SeatClient:
    """One player (a guest) talking to one server (``base_url``)."""

    def __init__(self, base_url: str, *, timeout: float = 30.0, source: str | None = None
                 ) -> None:
        """``source``: the local address to connect from (``addresses.source_address``)."""
        self.base_url = base_url.rstrip("/")
        self.timeout, self.source = timeout, source
        self.http = self._new_http()
        self.name = ""
        self.csrf = ""
        self.game_id: int | None = None
        self.seat: int | None = None
        self.state: dict[str, Any] | None = None  # latest state from the WebSocket
        self.ws_states = 0
        self.arrivals: list[tuple[int, float]] = []  # (seq, monotonic time) of each state
        self.connections = 0  # WebSockets opened so far (a reconnect opens another)
        self.ws_errors: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = True
        self.on_state: Any = None  # optional callback(client, state, monotonic time)
        self._next_id = 0
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}  # by message id
        self._error: dict[str, Any] | None = None  # an error waiting for its answer

    def _new_http(self, cookies: httpx.Cookies | None = None) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(verify=_tls(), limits=LIMITS,
                                             local_address=self.source)
        return httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout,
                                 follow_redirects=False, transport=transport, cookies=cookies)

    async def close(self) -> None:
        await self.disconnect()
        await self.http.aclose()

    async def close_idle_connections(self) -> None:
        """Closes the HTTP connections kept open between requests (the session is kept).
        The server closes an idle one after its keep-alive time and a browser then closes
        its end, but httpx notices only at its next request: a page that talks over its
        WebSocket alone would hold a dead socket, and an open file, for the rest of the
        game (10,000 seats in one client process then ran out of files)."""
        idle = self.http
        self.http = self._new_http(idle.cookies)
        await idle.aclose()

    # -- account and lobby ------------------------------------------------------------

    async def _form_token(self, path: str) -> str:
        page = await self.http.get(path)
        found = CSRF_FIELD.search(page.text) or CSRF_DATA.search(page.text)
        if found is None:
            raise ClientError(f"no CSRF token on {path} ({page.status_code})")
        return found.group(1)

    async def _post_form(self, path: str, data: dict[str, str]) -> httpx.Response:
        response = await self.http.post(path, data={"csrf_token": self.csrf, **data})
        if response.status_code not in (200, 303):
            raise ClientError(f"POST {path}: {response.status_code} {response.text[:200]}")
        return response

    async def guest(self) -> None:
        """Plays as a new guest (one click, like "play now" without the game)."""
        self.csrf = await self._form_token("/login")
        await self._post_form("/guest", {"next": "/lobby"})
        lobby = await self.http.get("/lobby")
        found = CSRF_FIELD.search(lobby.text)
        if lobby.status_code != 200 or found is None:
            raise ClientError(f"guest login failed ({lobby.status_code})")
        self.csrf = found.group(1)
        name = re.search(r"(guest-[0-9a-f]{6})", lobby.text)
        self.name = name.group(1) if name else ""

    async def create_game(self, players: int, rounds: int = 6,
                          others: list[str] | None = None, pace: str = "none") -> int:
        """A game with us in seat 0 and ``others`` ("open", "bot:LEVEL") in the rest;
        ``pace``: the table's clock (docs/clocks.md)."""
        others = others or ["open"] * (players - 1)
        form = {"players": str(players), "rounds": str(rounds), "seat0": "me", "pace": pace}
        for index, kind in enumerate(others, start=1):
            if kind.startswith("bot"):
                form[f"seat{index}"] = "bot"
                form[f"level{index}"] = kind.partition(":")[2] or "random"
            else:
                form[f"seat{index}"] = kind
        response = await self._post_form("/games", form)
        found = re.fullmatch(r"/games/(\d+)", response.headers.get("location", ""))
        if found is None:
            raise ClientError(f"creating a game failed: {response.text[:300]}")
        self.game_id = int(found.group(1))
        return self.game_id

    async def join(self, game_id: int) -> None:
        await self._post_form(f"/games/{game_id}/join", {})
        self.game_id = game_id

    async def start(self, fill_with_bots: bool = False) -> None:
        await self._post_form(f"/games/{self.game_id}/start",
                              {"fill_with_bots": "1" if fill_with_bots else ""})

    # -- live updates ---------------------------------------------------------------------

    async def connect(self) -> None:
        """Opens the game page's WebSocket; states arrive in ``self.state``."""
        url = self.base_url.replace("http", "ws", 1) + f"/ws/games/{self.game_id}"
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        self._closed = False
        self.connections += 1
        # As long as an HTTP request may take: a handshake waits for the server as a
        # request does (a browser waits longer still).
        extra: dict[str, Any] = {"local_addr": (self.source, 0)} if self.source else {}
        self._ws = await websockets.connect(
            url, additional_headers={"Cookie": cookie}, open_timeout=self.timeout,
            max_size=2**22, **extra)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def disconnect(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
            self._ws = None

    async def _read(self) -> None:
        assert self._ws is not None
        log: list[Any] = []  # the move log so far
        try:
            async for text in self._ws:
                message = orjson.loads(text)
                now = time.monotonic()
                if message.get("type") == "state":
                    state = message["state"]
                    if "log_from" in state:  # only the new lines of the move log, as the page
                        state["log"] = log[:state.pop("log_from")] + state["log"]
                    log = state["log"]
                    answer = self._answers.pop(message.get("ack", -1), None)
                    if answer is not None and not answer.done():
                        answer.set_result({"error": self._error, "state": state})
                    self._error = None
                    if self.state is None or state["seq"] >= self.state["seq"]:
                        self.state = state
                        self.seat = state.get("seat")
                    self.ws_states += 1
                    self.arrivals.append((state["seq"], now))
                    if self.on_state is not None:
                        self.on_state(self, state, now)
                elif message.get("type") == "error":
                    self.ws_errors.append(message)
                    self._error = {"code": message.get("code"), "message": message.get("message")}
                async with self._changed:
                    self._changed.notify_all()
        except websockets.ConnectionClosed:
            pass
        finally:
            self._closed = True
            for answer in self._answers.values():
                if not answer.done():
                    answer.set_exception(ClientError("the WebSocket closed"))
            self._answers.clear()
            async with self._changed:  # waiters learn that nothing more will come
                self._changed.notify_all()

    @property
    def connected(self) -> bool:
        return self._reader is not None and not self._closed

    async def send(self, message: dict[str, Any] | str) -> None:
        assert self._ws is not None
        await self._ws.send(message if isinstance(message, str) else json.dumps(message))

    async def wait_for(self, predicate: Any, timeout: float | None = 10.0) -> dict[str, Any]:
        """Waits until the latest WebSocket state satisfies ``predicate`` (``timeout``
        None: for as long as it takes)."""
        async def check() -> dict[str, Any]:
            async with self._changed:
                while self.state is None or not predicate(self.state):
                    if not self.connected:
                        raise ClientError("the WebSocket closed")
                    await self._changed.wait()
                return self.state

        return await asyncio.wait_for(check(), timeout)

    async def wait_seq(self, seq: int, timeout: float = 10.0) -> dict[str, Any]:
        return await self.wait_for(lambda s: s["seq"] >= seq, timeout)

    # -- playing ----------------------------------------------------------------------

    async def command(self, command: str, seq: int | None, action: str | None = None
                      ) -> tuple[int, dict[str, Any]]:
        body: dict[str, Any] = {"seq": seq}
        if action is not None:
            body["action"] = action
        response = await self.http.post(f"/api/games/{self.game_id}/{command}", json=body,
                                        headers={"x-csrf-token": self.csrf})
        try:
            data = response.json()
        except ValueError:
            data = {"error": {"code": "http", "message": response.text[:300]}}
        return response.status_code, data

    async def command_ws(self, command: str, seq: int | None, action: str | None = None,
                         timeout: float = 30.0) -> tuple[int, dict[str, Any]]:
        """The same command over the WebSocket, as the game page sends it: answered by a
        state carrying the message's id (after an error message if it was refused).
        Returns (200, or 409 if refused; {"error", "state"})."""
        self._next_id += 1
        message: dict[str, Any] = {"type": command, "id": self._next_id, "seq": seq}
        if action is not None:
            message["action"] = action
        answer = asyncio.get_running_loop().create_future()
        self._answers[self._next_id] = answer
        await self.send(message)
        body = await asyncio.wait_for(answer, timeout)
        return (200 if body["error"] is None else 409), body

    async def view(self) -> dict[str, Any]:
        response = await self.http.get(f"/api/games/{self.game_id}")
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data

    async def play_turn(self, state: dict[str, Any], rng: random.Random) -> Turn:
        """Plays this seat's turn from ``state``: random legal steps, then finish. Stops
        at the commit, at a refusal, or when there is nothing to do."""
        turn = Turn(state["seq"])
        current = state
        while True:
            if current["draft"]["can_finish"]:
                turn.status, turn.body = await self.command("finish", current["seq"])
                turn.requests += 1
            elif current["legal"]:
                action = rng.choice(current["legal"])["text"]
                turn.status, turn.body = await self.command("step", current["seq"], action)
                turn.requests += 1
                if turn.status == 200:
                    turn.steps.append(action)
            else:
                return turn
            if turn.status != 200:
                return turn
            current = turn.body["state"]
            if current["seq"] != turn.base_seq:  # finished, or a secret choice committed
                turn.committed_seq = current["seq"]
                return turn

    async def move_to(self, base_url: str) -> None:
        """Carries on through another server (same account: the session cookie is
        signed with the secret key all processes share)."""
        await self.disconnect()
        old = self.http
        self.base_url = base_url.rstrip("/")
        self.http = self._new_http(old.cookies)
        await old.aclose()
        await self.connect()


@dataclass
class Turn:
    base_seq: int
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    requests: int = 0
    steps: list[str] = field(default_factory=list)  # steps accepted into the draft
    committed_seq: int | None = None  # the new sequence number if the turn was committed
