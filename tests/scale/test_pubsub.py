"""The Redis broker against a real redis-server: events cross processes (two brokers
stand for two processes), a restart of Redis is survived, bad input is ignored."""

from __future__ import annotations

import queue
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from elgrande.matches import InProcessBroker, MatchEvent
from elgrande.scale.pubsub import CHANNEL, RedisBroker, make_broker
from tests.scale.servers import RedisServer


def collect(broker: RedisBroker) -> queue.Queue[MatchEvent]:
    got: queue.Queue[MatchEvent] = queue.Queue()
    broker.subscribe(got.put)
    assert broker.connected.wait(5), "the listener did not subscribe"
    return got


def test_make_broker_by_url(redis_server: RedisServer) -> None:
    assert isinstance(make_broker(None), InProcessBroker)
    assert isinstance(make_broker("memory://"), InProcessBroker)
    broker = make_broker(redis_server.url)
    assert isinstance(broker, RedisBroker)
    broker.close()
    with pytest.raises(ValueError, match="unknown pub/sub URL"):
        make_broker("amqp://nowhere")


def test_events_cross_between_processes(redis_server: RedisServer) -> None:
    a, b = RedisBroker(redis_server.url), RedisBroker(redis_server.url)
    try:
        got_a, got_b = collect(a), collect(b)
        event = MatchEvent("m1", 7, "commit", 2)
        a.publish(event)
        assert got_a.get(timeout=1) == event  # locally, at once
        assert got_b.get(timeout=2) == event  # through Redis
        time.sleep(0.2)
        assert got_a.empty(), "a process must not hear its own event twice"
    finally:
        a.close()
        b.close()


def test_a_burst_of_events_crosses_whole_and_in_order(redis_server: RedisServer) -> None:
    """Events go out from a sender thread, several per round trip: none is lost or
    reordered, and every field (draft versions, a commit's new entries) arrives."""
    a, b = RedisBroker(redis_server.url), RedisBroker(redis_server.url)
    try:
        got_b = collect(b)
        collect(a)
        b.watch("m1", 1)  # a page of seat 1 is open in b: it hears that seat's drafts
        assert got_b.get(timeout=5) == MatchEvent("m1", -1, "draft", 1)  # the catch-up
        assert eventually(lambda: a.listening_elsewhere("m1", 1) == 1)
        sent = [MatchEvent("m1", n, "commit", n % 3, ((0, ""), (1, f"{n}|p1 bid 3|")), n - 1,
                           (f"p{n % 3} bid {1 + n % 13}",), "2026-11-29T12:00:00.000001+00:00")
                if n % 4 else MatchEvent("m1", n, "draft", 1, ((1, f"{n}|p1 bid 3|"),))
                for n in range(1, 301)]
        for event in sent:
            a.publish(event)
        assert [news(got_b) for _ in sent] == sent
    finally:
        a.close()
        b.close()


def news(got: queue.Queue[MatchEvent]) -> MatchEvent:
    """The next event, past the catch-up notices of watched seats (seq -1: pages refresh;
    one comes whenever the processes (re)learn what this one listens to)."""
    while (event := got.get(timeout=5)).seq == -1:
        pass
    return event


def eventually(check: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_draft_changes_reach_only_processes_with_a_page_of_that_seat(
        redis_server: RedisServer) -> None:
    """A seat's draft changes go out only while another process has said it has a page
    of that seat open (most steps concern no other process)."""
    a, b = RedisBroker(redis_server.url), RedisBroker(redis_server.url)
    try:
        collect(a)
        got_b = collect(b)
        a.publish(MatchEvent("m1", 5, "draft", 0, ((0, "5|p0 bid 3|"),)))
        a.publish(MatchEvent("m1", 5, "commit", 1))
        assert news(got_b).kind == "commit", "no page of seat 0 in b: no draft news"
        b.watch("m1", 0)
        b.watch("m1", 0)  # two pages of the seat
        assert got_b.get(timeout=5) == MatchEvent("m1", -1, "draft", 0)  # pages catch up
        assert eventually(lambda: a.listening_elsewhere("m1", 0) == 1)
        draft = MatchEvent("m1", 5, "draft", 0, ((0, "5|p0 bid 4|"),))
        a.publish(draft)
        assert news(got_b) == draft
        b.unwatch("m1", 0)  # one page left: still listening
        a.publish(draft)
        assert news(got_b) == draft
        b.unwatch("m1", 0)
        assert eventually(lambda: a.listening_elsewhere("m1", 0) == 0)
        a.publish(draft)
        a.publish(MatchEvent("m1", 6, "commit", 1))
        assert news(got_b).kind == "commit"
        # A process that joins later learns what the others listen to.
        b.watch("m1", 2)
        assert eventually(lambda: a.listening_elsewhere("m1", 2) == 1)
        c = RedisBroker(redis_server.url)
        try:
            collect(c)
            assert eventually(lambda: c.listening_elsewhere("m1", 2) == 1)
        finally:
            c.close()
    finally:
        a.close()
        b.close()


def test_updates_resume_after_redis_restart(redis_server: RedisServer) -> None:
    a, b = RedisBroker(redis_server.url, retry_delay=0.05), RedisBroker(redis_server.url,
                                                                           retry_delay=0.05)
    reconnected: queue.Queue[bool] = queue.Queue()
    b.on_reconnect(lambda: reconnected.put(True))
    try:
        got_b = collect(b)
        collect(a)
        redis_server.stop()
        a.publish(MatchEvent("m1", 1, "commit"))  # lost, and it must not raise
        redis_server.start()
        assert reconnected.get(timeout=10)
        deadline = time.monotonic() + 10
        while not a.connected.is_set() and time.monotonic() < deadline:
            time.sleep(0.02)
        a.publish(MatchEvent("m1", 2, "commit"))
        while True:
            event = got_b.get(timeout=5)
            if event.seq == 2:
                break
    finally:
        a.close()
        b.close()


def test_malformed_messages_are_ignored(redis_server: RedisServer) -> None:
    b = RedisBroker(redis_server.url)
    try:
        got = collect(b)
        client = redis.Redis.from_url(redis_server.url)
        client.publish(CHANNEL, "not json")
        client.publish(CHANNEL, '{"o": "x"}')
        good = RedisBroker(redis_server.url)
        good.send(MatchEvent("m2", 3, "commit"))
        good.close()
        assert got.get(timeout=2) == MatchEvent("m2", 3, "commit")
        assert b.connected.is_set()
    finally:
        b.close()


def test_two_processes_hear_each_other_without_echo(redis_server: RedisServer) -> None:
    remote_a, remote_b = RedisBroker(redis_server.url), RedisBroker(redis_server.url)
    got_a: queue.Queue[MatchEvent] = queue.Queue()
    got_b: queue.Queue[MatchEvent] = queue.Queue()
    remote_a.subscribe(got_a.put)
    remote_b.subscribe(got_b.put)
    try:
        assert remote_a.connected.wait(5) and remote_b.connected.wait(5)
        remote_a.publish(MatchEvent("m3", 4, "commit"))
        assert got_a.get(timeout=1).seq == 4
        assert got_b.get(timeout=2) == MatchEvent("m3", 4, "commit")
        time.sleep(0.2)  # no echo back and forth
        assert got_a.empty() and got_b.empty()
    finally:
        remote_a.close()
        remote_b.close()


def test_login_limits_are_shared_through_redis(redis_server: RedisServer) -> None:
    from elgrande.server.hardening import RedisLimiter, make_limiter

    one, two = make_limiter(60, redis_server.url), make_limiter(60, redis_server.url)
    assert isinstance(one, RedisLimiter)
    for _ in range(3):
        one.hit("login:name:victim")
    assert two.retry_after("login:name:victim", 3) > 0, "the other process sees the failures"
    assert two.retry_after("login:name:someone", 3) == 0
    redis_server.stop()
    assert one.retry_after("login:name:victim", 3) == 0, "without Redis, logins still work"
    one.hit("login:name:victim")  # and failures are not fatal


def test_pages_of_matches_that_moved_during_an_outage_are_refreshed(
        redis_server: RedisServer, tmp_path: Path) -> None:
    """What another process committed while Redis was down was never heard; once Redis
    is back, every match changed since the outage began gets a refresh event."""
    from elgrande.matches import MatchStore
    from elgrande.rules import GameConfig
    from elgrande.scale.pubsub import refresh_after_outage
    from tests.apps import migrated

    remote = RedisBroker(redis_server.url, retry_delay=0.05)
    store = MatchStore(migrated(f"sqlite:///{tmp_path / 'outage.db'}"), broker=remote)
    remote.on_reconnect(refresh_after_outage(store.engine, remote))
    heard: queue.Queue[MatchEvent] = queue.Queue()
    try:
        collect(remote)
        redis_server.stop()
        deadline = time.monotonic() + 5
        while remote.connected.is_set():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        other_process = MatchStore(f"sqlite:///{tmp_path / 'outage.db'}")
        moved = other_process.create(GameConfig(players=2))  # unheard: Redis is down
        other_process.close()
        store.broker.subscribe(heard.put)
        redis_server.start()
        event = heard.get(timeout=10)
        assert (event.match_id, event.kind) == (moved, "commit")
    finally:
        remote.close()
        store.close()
