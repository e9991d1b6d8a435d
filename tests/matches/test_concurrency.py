"""Two simultaneous finishes on one base, in two threads and in two processes: one
success, one clear "the game moved on" with the new state; never a forked log."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from elgrande.matches import GameMovedOn, MatchStore
from elgrande.rules import GameConfig, replay

from .match_helpers import at_secret_choice

WORKER = Path(__file__).with_name("match_worker.py")


def _two_pending_secrets(store: MatchStore) -> tuple[str, int, int, int, dict[int, str]]:
    match_id = store.add(at_secret_choice(4, seed="race"))
    a, b, *_ = store.view(match_id, None).to_act
    chosen = {}
    for seat in (a, b):
        chosen[seat] = store.view(match_id, seat).legal[0]
        store.step(match_id, seat, chosen[seat])
    return match_id, a, b, store.view(match_id, a).seq, chosen


def _check_log(store: MatchStore, match_id: str, base: int) -> None:
    match = store.load(match_id)
    assert [e.seq for e in match.log] == list(range(1, match.seq + 1))
    assert match.seq == base + 1  # exactly one of the two commits went in
    assert replay(match.config, match.actions) == match.state


def test_two_threads_finish_on_one_base(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id, a, b, base, chosen = _two_pending_secrets(store)
    barrier = threading.Barrier(2)
    results: dict[int, object] = {}

    def finish(seat: int) -> None:
        barrier.wait()
        try:
            results[seat] = store.finish(match_id, seat, base_seq=base)
        except GameMovedOn as moved:
            results[seat] = moved

    threads = [threading.Thread(target=finish, args=(seat,)) for seat in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    moved = [r for r in results.values() if isinstance(r, GameMovedOn)]
    assert len(results) == 2 and len(moved) == 1
    loser = next(seat for seat, r in results.items() if r is moved[0])
    assert moved[0].seq == base + 1
    assert moved[0].view["draft"]["steps"] == [str(chosen[loser])]  # its draft is kept
    _check_log(store, match_id, base)


def test_two_processes_finish_on_one_base(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id, a, b, base, chosen = _two_pending_secrets(store)
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "finish", db_url, match_id, str(seat), str(base)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        for seat in (a, b)
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        for worker in workers:  # both are connected and waiting: start them together
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        answers = [worker.communicate(timeout=60)[0].split() for worker in workers]
    finally:
        for worker in workers:
            worker.kill()
    assert sorted(answer[0] for answer in answers) == ["moved", "ok"]
    for seat, answer in zip((a, b), answers, strict=True):
        assert answer[1] == str(base + 1)
        if answer[0] == "moved":
            assert answer[2:] == str(chosen[seat]).split()
    _check_log(store, match_id, base)


def test_processes_starting_together_migrate_once(empty_db_url: str) -> None:
    db_url = empty_db_url
    script = "import sys; from elgrande.asgi import prepare_database; prepare_database(sys.argv[1])"
    starters = [
        subprocess.Popen([sys.executable, "-c", script, db_url], stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    errors = [starter.communicate(timeout=120)[1] for starter in starters]
    assert [starter.returncode for starter in starters] == [0, 0, 0], errors
    store = MatchStore(db_url)
    assert store.load(store.create(GameConfig(players=2))).seq > 0
    store.close()
