"""The load generator's source addresses (loadgen/addresses.py): each game's clients
connect from an address of its own on loopback, over HTTP and WebSocket alike."""

from __future__ import annotations

import asyncio
import resource

import pytest
from websockets.exceptions import InvalidHandshake

from elgrande.loadgen.addresses import raise_open_files, source_address
from elgrande.loadgen.client import SeatClient


def test_games_get_addresses_of_their_own_on_loopback_only() -> None:
    url = "http://127.0.0.1:8000"
    assert source_address(url, 0) == "127.1.0.1"
    assert source_address(url, 1) == "127.1.0.2"
    assert source_address(url, 300) == "127.1.1.45"
    assert len({source_address(url, i) for i in range(10_000)}) == 10_000
    # Elsewhere the system chooses: a loopback source cannot reach another host.
    assert source_address("http://192.0.2.10:8000", 0) is None
    assert source_address("https://example.org", 0) is None
    assert source_address("http://localhost:8000", 0) is None  # may resolve to ::1


def test_raising_the_open_files_limit_never_lowers_it() -> None:
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert raise_open_files() >= before[0]
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= before[0]


@pytest.mark.timeout(30)
def test_a_clients_requests_and_socket_come_from_its_address() -> None:
    peers: list[str] = []

    async def main() -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            peers.append(writer.get_extra_info("peername")[0])
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        client = SeatClient(url, source=source_address(url, 41))
        try:
            assert (await client.http.get("/")).text == "ok"
            client.game_id = 1
            with pytest.raises(InvalidHandshake):  # not a WebSocket server
                await client.connect()
        finally:
            await client.close()
            server.close()

    asyncio.run(main())
    assert peers == ["127.1.0.42", "127.1.0.42"]
