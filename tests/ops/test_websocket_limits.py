"""Issue 11, item 7, against a real `elgrande serve` and a real WebSocket client: huge
frames are refused by the server before they are read into memory, and one address
cannot open more game sockets than the setting allows."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.ops.serve import Serve

LIMIT = 3  # sockets per address


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Serve, int]]:
    folder: Path = tmp_path_factory.mktemp("serve")
    with Serve(folder, ws_per_client=str(LIMIT), max_ws_message="4096") as serve:
        client, game_id = serve.play_now()
        client.close()
        yield serve, game_id


def test_a_huge_frame_is_refused_with_close_1009(server: tuple[Serve, int]) -> None:
    serve, game_id = server

    async def scenario() -> tuple[dict[str, object], int | None]:
        async with websockets.connect(f"{serve.ws_url}/ws/games/{game_id}",
                                      max_size=None) as ws:
            await ws.recv()  # the spectator's view
            # A little too long: the app's clear answer, the socket stays.
            await ws.send(json.dumps({"type": "sync", "pad": "x" * 5000}))
            too_long = json.loads(await ws.recv())
            try:
                # 2 MiB: never read in full. The server may close with 1009 while
                # this send is still draining, so the send is inside the wait.
                await ws.send("x" * (2 * 1024 * 1024))
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as closed:
                return too_long, closed.rcvd.code if closed.rcvd else None
        raise AssertionError("unreachable")

    too_long, code = asyncio.run(scenario())
    assert too_long["code"] == "too_large"
    assert code == 1009  # "message too big", from uvicorn's ws_max_size


def test_sockets_per_address_are_limited(server: tuple[Serve, int]) -> None:
    serve, game_id = server
    url = f"{serve.ws_url}/ws/games/{game_id}"

    async def scenario() -> tuple[int, str]:
        held = [await websockets.connect(url) for _ in range(LIMIT)]
        for ws in held:
            await ws.recv()
        extra = await websockets.connect(url)
        try:
            await asyncio.wait_for(extra.recv(), 10)
            raise AssertionError("the extra socket was served")
        except ConnectionClosed as closed:
            assert closed.rcvd is not None
            refused = (closed.rcvd.code, closed.rcvd.reason)
        # A closed socket frees its place (once the server has seen it close).
        await held.pop().close()
        for _attempt in range(100):
            again = await websockets.connect(url)
            try:
                first = json.loads(await asyncio.wait_for(again.recv(), 10))
                break
            except ConnectionClosed:
                await asyncio.sleep(0.02)
        assert first["type"] == "state"
        for ws in [*held, again]:
            await ws.close()
        return refused

    code, reason = asyncio.run(scenario())
    assert code == 4429 and "too many connections" in reason
