"""A process committing a stream of moves is killed with SIGKILL; the reopened database
holds every game whole, replaying to its stored state, with no committed move lost."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

from elgrande.matches import MatchStore
from elgrande.rules import replay

WORKER = Path(__file__).with_name("match_worker.py")


def test_sigkill_during_a_stream_of_commits(db_url: str) -> None:
    reader = MatchStore(db_url)  # migrated before the worker starts
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), "stream", db_url, "7"], stdout=subprocess.PIPE, text=True
    )
    committed: dict[str, int] = {}
    try:
        assert worker.stdout is not None
        while len(committed) < 3 or sum(committed.values()) < 150:
            line = worker.stdout.readline()
            assert line, "the worker stopped by itself"
            _, match_id, seq = line.split()
            committed[match_id] = max(committed.get(match_id, 0), int(seq))
            # Reading while the worker writes: always one consistent snapshot.
            seen = reader.load(match_id)
            assert seen.seq >= int(seq)
            assert replay(seen.config, seen.actions) == seen.state
    finally:
        worker.send_signal(signal.SIGKILL)  # in the middle of its next transaction
        worker.wait(timeout=30)
    assert worker.returncode == -signal.SIGKILL
    reader.engine.dispose()

    store = MatchStore(db_url)
    if store.engine.dialect.name == "sqlite":
        with store.engine.connect() as conn:
            assert conn.execute(sa.text("PRAGMA integrity_check")).scalar() == "ok"
    ids = store.match_ids()
    assert set(committed) <= set(ids)
    for match_id in ids:
        match = store.load(match_id)  # the stored head state, and every draft
        assert [e.seq for e in match.log] == list(range(1, match.seq + 1))
        assert replay(match.config, match.actions) == match.state
        assert match.seq >= committed.get(match_id, 0)  # no committed move lost
        for draft in match.drafts.values():
            assert draft.base_seq == match.seq
            assert draft.current == replay(match.config, [*match.actions, *draft.steps])
