"""Two server processes on one PostgreSQL and one Redis, all real and started here:
a game crossing between them, a bot move abandoned by a dead process picked up, Redis
restarted, PostgreSQL stopped and started, one process SIGKILLed during a stream of
moves. The tests of this module share the servers and run in file order."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, insert, select

from elgrande.db.engine import make_engine, writer
from elgrande.loadgen.client import ClientError, SeatClient, Turn
from elgrande.matches.tables import MoveRow
from elgrande.scale.leases import utcnow
from elgrande.scale.tables import BotLease
from elgrande.server.tables import Game
from tests.scale.servers import RedisServer, RestartablePostgres, ServerProcess

LEASE_SECONDS = 2.0

pytestmark = pytest.mark.timeout(180)


@dataclass
class Cluster:
    postgres: RestartablePostgres
    redis: RedisServer
    database_url: str
    a: ServerProcess
    b: ServerProcess


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    logs = tmp_path_factory.mktemp("servers")
    postgres = RestartablePostgres()
    postgres.start()
    redis = RedisServer().start()
    servers: list[ServerProcess] = []
    try:
        url = postgres.create_database("scale")
        for _ in range(2):
            servers.append(ServerProcess(url, redis.url, logs, lease_seconds=LEASE_SECONDS).start())
        yield Cluster(postgres, redis, url, servers[0], servers[1])
    finally:
        for server in servers:
            server.stop()
        redis.cleanup()
        postgres.stop()


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


async def new_game(host: str, guest_host: str, others: list[str]) -> list[SeatClient]:
    """Seat 0 on ``host``, seat 1 on ``guest_host``; the rest as ``others`` says."""
    creator, guest = SeatClient(host), SeatClient(guest_host)
    await creator.guest()
    await guest.guest()
    game_id = await creator.create_game(1 + len(others), 6, others)
    await guest.join(game_id)
    await creator.start()
    for client in (creator, guest):
        await client.connect()
    return [creator, guest]


async def play_turns(clients: list[SeatClient], rng: random.Random, *,
                     stop: Callable[[list[Turn]], bool], timeout: float = 60,
                     failover: str | None = None) -> list[Turn]:
    """The clients play whenever their page says they may, until ``stop(turns)`` or the
    game ends; returns the committed (acknowledged) turns. With ``failover``, a client
    whose server stops answering carries on through that server instead."""
    turns: list[Turn] = []
    done = asyncio.Event()

    async def seat(client: SeatClient) -> None:
        floor = 0
        while not done.is_set():
            try:
                state = await client.wait_for(lambda s, f=floor: s["finished"] or (
                    s["seq"] >= f and bool(s["legal"] or s["draft"]["can_finish"])), timeout)
                if state["finished"]:
                    break
                turn = await client.play_turn(state, rng)
            except (httpx.HTTPError, ClientError):
                if failover is None or client.base_url == failover:
                    raise
                await client.move_to(failover)
                continue
            if turn.committed_seq is not None:
                turns.append(turn)
                floor = turn.committed_seq
                if stop(turns):
                    break
            elif turn.status == 409:  # the game moved on meanwhile: wait for the news
                floor = int(turn.body["state"]["seq"])
            elif turn.status != 200:
                raise AssertionError(f"refused: {turn.status} {turn.body.get('error')}")
        done.set()

    tasks = [asyncio.create_task(seat(c)) for c in clients]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    done.set()
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            raise result
    return turns


def assert_in_log(log: dict[int, str], turn: Turn) -> None:
    """The turn's acknowledged steps are in the committed block it created."""
    assert turn.committed_seq is not None
    block = [log[seq] for seq in range(turn.base_seq + 1, turn.committed_seq + 1)]
    k = len(turn.steps)
    assert any(block[i:i + k] == turn.steps for i in range(len(block) - k + 1)), (turn, block)


async def whose_turn(players: list[SeatClient], timeout: float = 10) -> SeatClient:
    """The client whose page (as last received) lets it act."""
    deadline = time.monotonic() + timeout
    while True:
        for client in players:
            if client.state and (client.state["legal"] or client.state["draft"]["can_finish"]):
                return client
        assert time.monotonic() < deadline, "nobody's page shows a turn"
        await asyncio.sleep(0.02)


def logged_steps(database_url: str, match_id: str) -> dict[int, str]:
    engine = make_engine(database_url)
    with engine.connect() as conn:
        rows = conn.execute(select(MoveRow.seq, MoveRow.action)
                            .where(MoveRow.match_id == match_id)).all()
    engine.dispose()
    return {int(seq): str(action) for seq, action in rows}


def match_of(database_url: str, game_id: int) -> str:
    engine = make_engine(database_url)
    with engine.connect() as conn:
        match_id = conn.execute(select(Game.match_id).where(Game.id == game_id)).scalar_one()
    engine.dispose()
    return str(match_id)


def test_a_full_game_crosses_between_processes(cluster: Cluster) -> None:
    """Seat 0 plays through process A, seat 1 through B, seat 2 is a computer opponent
    that either process may move (under a lease): the game runs to its end."""
    async def scenario() -> None:
        players = await new_game(cluster.a.url, cluster.b.url, ["open", "bot:random"])
        on_a, on_b = players
        try:
            turns = await play_turns(players, random.Random(1), stop=lambda t: False)
            final_a = await on_a.wait_for(lambda s: s["finished"], 20)
            final_b = await on_b.wait_for(lambda s: s["finished"], 20)
            assert final_a["seq"] == final_b["seq"]
            assert [p["score"] for p in final_a["players"]] == [p["score"] for p in final_b["players"]]
            assert {t.body["state"]["seat"] for t in turns} == {0, 1}, "both humans played"
            log = logged_steps(cluster.database_url, match_of(cluster.database_url, on_a.game_id or 0))
            assert sorted(log) == list(range(1, final_a["seq"] + 1)), "one straight log"
            assert any(text.startswith("p2 ") for text in log.values()), "the bot played"
            for turn in turns:
                assert_in_log(log, turn)
        finally:
            for client in players:
                await client.close()

    run(scenario())


def test_updates_reach_the_other_process_within_a_second(cluster: Cluster) -> None:
    async def scenario() -> None:
        players = await new_game(cluster.a.url, cluster.b.url, ["open"])
        try:
            rng = random.Random(2)
            for _ in range(6):
                mover = await whose_turn(players)
                other = players[1 - players.index(mover)]
                turn = await mover.play_turn(mover.state or {}, rng)
                assert turn.committed_seq is not None, turn.body.get("error")
                await other.wait_seq(turn.committed_seq, timeout=1.0)
                await mover.wait_seq(turn.committed_seq, timeout=1.0)
        finally:
            for client in players:
                await client.close()

    run(scenario())


def test_a_dead_processs_bot_move_is_picked_up(cluster: Cluster) -> None:
    """A lease taken by a process that then died (a row nobody renews) holds the bot
    back only until it runs out; then a live process's sweeper plays the move."""
    async def scenario() -> None:
        creator = SeatClient(cluster.b.url)
        await creator.guest()
        game_id = await creator.create_game(2, 6, ["bot:random"])
        match_id = None
        engine = make_engine(cluster.database_url)
        try:
            await creator.start()
            await creator.connect()
            state = await creator.wait_for(lambda s: s["seq"] > 0, 10)
            match_id = match_of(cluster.database_url, game_id)
            rng = random.Random(3)
            # Play until the bot is the one to move next, with a "dead" lease on it.
            for _ in range(20):
                state = await creator.wait_for(lambda s: bool(s["legal"] or s["draft"]["can_finish"]
                                                              or s["finished"]), 20)
                assert not state["finished"]
                # Before our turn, plant a lease of a dead process on the bot's seat.
                with writer(engine).begin() as conn:
                    conn.execute(delete(BotLease).where(BotLease.match_id == match_id))
                    conn.execute(insert(BotLease).values(
                        match_id=match_id, seat=1, owner="dead-host:1:0",
                        expires_at=utcnow() + timedelta(seconds=LEASE_SECONDS)))
                planted = time.monotonic()
                turn = await creator.play_turn(state, rng)
                assert turn.committed_seq is not None, turn.body.get("error")
                after = turn.body["state"]
                if 1 in after["to_act"]:
                    moved = await creator.wait_seq(turn.committed_seq + 1, timeout=20)
                    waited = time.monotonic() - planted
                    assert waited >= LEASE_SECONDS * 0.8, "nobody may play under a live lease"
                    assert moved["seq"] > turn.committed_seq
                    return
            raise AssertionError("the bot never came to move")
        finally:
            engine.dispose()
            await creator.close()

    run(scenario())


def test_updates_resume_after_redis_restarts(cluster: Cluster) -> None:
    async def scenario() -> None:
        players = await new_game(cluster.a.url, cluster.b.url, ["open"])
        try:
            rng = random.Random(4)
            cluster.redis.restart()
            deadline = time.monotonic() + 15
            delivered = 0
            while delivered < 3:
                assert time.monotonic() < deadline, "updates did not resume after Redis restarted"
                mover = await whose_turn(players)
                other = players[1 - players.index(mover)]
                turn = await mover.play_turn(mover.state or {}, rng)
                assert turn.committed_seq is not None, turn.body.get("error")
                await other.wait_seq(turn.committed_seq, timeout=5.0)
                delivered += 1
        finally:
            for client in players:
                await client.close()

    run(scenario())


def test_failed_logins_count_across_processes(cluster: Cluster) -> None:
    """The login limit lives in Redis: failures through A count on B."""
    async def scenario() -> None:
        owner = SeatClient(cluster.a.url)
        await owner.guest()
        await owner.close()
        anon = {server.url: SeatClient(server.url) for server in (cluster.a, cluster.b)}
        try:
            statuses = []
            for attempt in range(11):  # the default limit is 10 failures per name
                client = anon[(cluster.a, cluster.b)[attempt % 2].url]
                token = await client._form_token("/login")
                response = await client.http.post("/login", data={
                    "name": "shared-victim", "password": f"guess {attempt}", "csrf_token": token})
                statuses.append(response.status_code)
            assert statuses == [400] * 10 + [429], statuses
        finally:
            for client in anon.values():
                await client.close()

    run(scenario())


def test_database_outage_gives_503_and_recovers(cluster: Cluster) -> None:
    async def scenario() -> None:
        players = await new_game(cluster.a.url, cluster.b.url, ["open"])
        on_a = players[0]
        game_id = on_a.game_id
        try:
            cluster.postgres.halt()
            try:
                for server in (cluster.a, cluster.b):
                    with httpx.Client(base_url=server.url, cookies=on_a.http.cookies) as http:
                        view = http.get(f"/api/games/{game_id}")
                        assert view.status_code == 503, view.text
                        assert view.json()["error"]["code"] == "unavailable"
                        assert "database is unavailable" in view.json()["error"]["message"]
                        step = http.post(f"/api/games/{game_id}/step",
                                         json={"seq": 1, "action": "p0 bid 1"},
                                         headers={"x-csrf-token": on_a.csrf})
                        assert step.status_code == 503, step.text
                        page = http.get("/lobby")
                        assert page.status_code == 503 and "try again" in page.text
            finally:
                cluster.postgres.resume()
            deadline = time.monotonic() + 15
            for server in (cluster.a, cluster.b):
                while True:
                    view = httpx.get(f"{server.url}/api/games/{game_id}", cookies=on_a.http.cookies)
                    if view.status_code == 200:
                        break
                    assert view.status_code == 503
                    assert time.monotonic() < deadline, "the server did not recover"
                    await asyncio.sleep(0.2)
        finally:
            for client in players:
                await client.close()

    run(scenario())


def test_sigkill_one_process_during_a_stream_of_moves(cluster: Cluster) -> None:
    async def scenario() -> None:
        players = await new_game(cluster.a.url, cluster.b.url, ["open"])
        on_a = players[0]
        try:
            turns_at_kill = -1

            def stop(turns: list[Turn]) -> bool:
                nonlocal turns_at_kill
                if len(turns) == 5:  # in the middle of the stream, A crashes
                    turns_at_kill = len(turns)
                    cluster.a.kill()
                return len(turns) >= 16

            turns = await play_turns(players, random.Random(5), stop=stop, failover=cluster.b.url)
            assert turns_at_kill == 5 and not cluster.a.alive
            assert on_a.base_url == cluster.b.url, "the client on A carried on through B"
            assert len(turns) >= 16 or players[1].state and players[1].state["finished"]
            assert {t.body["state"]["seat"] for t in turns[turns_at_kill:]} == {0, 1}
            log = logged_steps(cluster.database_url, match_of(cluster.database_url, on_a.game_id or 0))
            assert sorted(log) == list(range(1, max(log) + 1))
            for turn in turns:  # every acknowledged commit is there
                assert_in_log(log, turn)
        finally:
            for client in players:
                await client.close()

    run(scenario())
