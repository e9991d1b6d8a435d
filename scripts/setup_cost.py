"""Server CPU per step of setting up a game, as the load generator's players do it.

Starts a server on a fresh SQLite file (as `elgrande bench server` does), then sets up
games one after the other, each with three guests: GET /login, POST /guest and GET /lobby
for each, POST /games, two joins, the start, and each page's WebSocket until its first
state. The server's CPU time is read after every step (one step at a time, so each step
owns the CPU the server spent meanwhile); the first three games warm up and are not
counted. docs/bench.md ("Setting up a game") has figures.

    .venv/bin/python scripts/setup_cost.py [--games 60]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from elgrande.loadgen.client import CSRF_FIELD, ClientError, SeatClient  # noqa: E402
from elgrande.loadgen.launch import ServerProcess  # noqa: E402
from elgrande.loadgen.proc import cpu_seconds  # noqa: E402

WARM_UP = 3


async def _set_up(url: str, pid: int, games: int) -> dict[str, list[float]]:
    spent: dict[str, list[float]] = defaultdict(list)
    for number in range(games + WARM_UP):
        before = cpu_seconds(pid)

        def step(name: str, counted: bool = number >= WARM_UP) -> None:
            nonlocal before
            now = cpu_seconds(pid)
            if counted:
                spent[name].append(now - before)
            before = now

        seats = [SeatClient(url) for _ in range(3)]
        try:
            for client in seats:
                client.csrf = await client._form_token("/login")
                step("GET /login")
                await client._post_form("/guest", {"next": "/lobby"})
                step("POST /guest")
                lobby = await client.http.get("/lobby")
                found = CSRF_FIELD.search(lobby.text)
                if found is None:
                    raise ClientError(f"no lobby ({lobby.status_code})")
                client.csrf = found.group(1)
                step("GET /lobby")
            game_id = await seats[0].create_game(3, 6)
            step("POST /games")
            for client in seats[1:]:
                await client.join(game_id)
                step("POST join")
            await seats[0].start()
            step("POST start")
            for client in seats:
                client.game_id = game_id
                await client.connect()
                while client.state is None:
                    await asyncio.sleep(0.002)
                step("WebSocket to first state")
        finally:
            for client in seats:
                await client.close()
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games counted (default 60)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(f"sqlite:///{Path(tmp) / 'setup.db'}", None, Path(tmp)).start()
        try:
            assert server.process is not None
            spent = asyncio.run(_set_up(server.url, server.process.pid, args.games))
        finally:
            server.stop()
    total = 0.0
    for name, seconds in spent.items():
        per_game = 1000 * sum(seconds) / args.games
        total += per_game
        print(f"{name:26s} {1000 * sum(seconds) / len(seconds):6.2f} ms each, "
              f"{per_game:6.2f} ms a game")
    print(f"{'a game set up':26s} {total:6.1f} ms of server CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
