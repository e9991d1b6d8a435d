"""The load generator's players hold no dead connections, and their errors say what the
system said (loadgen/client.py, loadgen/play.py)."""

from __future__ import annotations

import asyncio
import errno

import httpx
import pytest

from elgrande.loadgen.addresses import source_address
from elgrande.loadgen.client import SeatClient
from elgrande.loadgen.play import _describe


@pytest.mark.timeout(30)
def test_closing_idle_connections_frees_the_socket_and_keeps_the_session() -> None:
    seen: list[tuple[str, str]] = []  # (peer address, cookie header) per request
    closed = asyncio.Event()

    async def main() -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            peer = writer.get_extra_info("peername")[0]
            while True:  # keep-alive: requests until the client closes
                try:
                    head = (await reader.readuntil(b"\r\n\r\n")).decode()
                except asyncio.IncompleteReadError:
                    closed.set()
                    return
                cookie = next((line.split(":", 1)[1].strip() for line in head.split("\r\n")
                               if line.lower().startswith("cookie:")), "")
                seen.append((peer, cookie))
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n"
                             b"set-cookie: session=abc; Path=/\r\n\r\nok")
                await writer.drain()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        client = SeatClient(url, source=source_address(url, 7))
        try:
            assert (await client.http.get("/")).text == "ok"
            await asyncio.sleep(0.05)
            assert not closed.is_set()  # kept alive, as httpx does
            await client.close_idle_connections()
            await asyncio.wait_for(closed.wait(), 5)  # the server sees it closed
            assert (await client.http.get("/again")).text == "ok"
        finally:
            await client.close()
            server.close()

    asyncio.run(main())
    assert seen == [("127.1.0.8", ""), ("127.1.0.8", "session=abc")]


def test_an_error_names_the_system_errors_beneath_it() -> None:
    refused = ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    files = OSError(errno.EMFILE, "Too many open files")
    try:
        try:
            raise OSError("All connection attempts failed") from ExceptionGroup(
                "attempts", [refused, files])
        except OSError as exc:
            raise httpx.ConnectError(str(exc),
                                     request=httpx.Request("POST", "http://h/games")) from exc
    except httpx.ConnectError as exc:
        text = _describe(exc)
    assert text == ("ConnectError: All connection attempts failed (POST /games) "
                    "[[Errno 111] Connection refused; [Errno 24] Too many open files]")
    assert _describe(ValueError("bad")) == "ValueError: bad"
