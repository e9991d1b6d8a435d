"""The turn framework on SQLite and on a real PostgreSQL server: the same tests."""

from __future__ import annotations

import gc
import random
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from elgrande.db import make_engine
from elgrande.matches import (
    ExportRefused,
    GameMovedOn,
    IllegalStep,
    MatchEvent,
    MatchNotFound,
    MatchStore,
    verify,
)
from elgrande.matches.store import draft_sig
from elgrande.matches.tables import CommitRow, MatchRow, MoveRow
from elgrande.migrations import heads, upgrade
from elgrande.rules import GameConfig, replay, to_act

from .match_helpers import at_secret_choice


def test_one_migration_head() -> None:
    assert len(heads()) == 1  # revisions form one chain (web tables build on 0001_matches)


def test_migrations_create_the_tables_and_are_idempotent(db_url: str) -> None:
    engine = make_engine(db_url)
    upgrade(engine)
    upgrade(engine)
    tables = set(sa.inspect(engine).get_table_names())
    assert {"matches", "match_commits", "match_moves", "match_drafts", "alembic_version"} <= tables
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    engine.dispose()


def _table_of(diff: Any) -> str | None:
    """The table an Alembic autogenerate difference is about."""
    if isinstance(diff, list):  # column modifications: (op, schema, table, column, ...)
        return str(diff[0][2])
    if len(diff) > 2 and isinstance(diff[2], str):  # (op, schema, table, column)
        return diff[2]
    target = diff[1]
    if isinstance(target, sa.Table):
        return target.name
    table = getattr(target, "table", None)
    if table is None:
        table = getattr(target, "parent", None)
    return getattr(table, "name", None)


def test_our_models_agree_with_the_migrations(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from elgrande.matches.tables import Base

    engine = make_engine(db_url)
    upgrade(engine)
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    ours = {"matches", "match_commits", "match_moves", "match_drafts"}
    assert [d for d in diffs if _table_of(d) in ours] == []
    engine.dispose()


def test_a_whole_game_through_the_store(db_url: str) -> None:
    store = MatchStore(db_url)
    events: list[MatchEvent] = []
    store.broker.subscribe(events.append)
    rng = random.Random(11)
    match_id = store.create(GameConfig(players=2, rounds=6))
    commits = 0
    while not (spectator := store.view(match_id, None)).over:
        seat = rng.choice(spectator.to_act)
        view = store.view(match_id, seat)
        while view.legal:
            view = store.step(match_id, seat, rng.choice(view.legal), base_seq=view.seq)
        store.finish(match_id, seat, base_seq=view.seq)
        commits += 1
    assert [e.kind for e in events].count("commit") == commits
    assert events[0] == MatchEvent(match_id, events[0].seq, "created")
    record = store.export(match_id)
    assert record["seed"] and verify(record)
    reopened = MatchStore(db_url).load(match_id)
    assert replay(reopened.config, reopened.actions) == reopened.state
    assert [e.seq for e in reopened.log] == list(range(1, reopened.seq + 1))


def test_drafts_and_undo_stacks_survive_a_restart(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id = store.create(GameConfig(players=3), seed="restart")
    while True:  # until some seat's turn takes three or more steps
        seat = store.view(match_id, None).to_act[0]
        view = store.view(match_id, seat)
        while view.legal:
            view = store.step(match_id, seat, view.legal[0])
        assert view.draft is not None
        if len(view.draft["steps"]) >= 3:
            break
        store.finish(match_id, seat)
    steps = view.draft["steps"]
    store.undo(match_id, seat)
    view = store.undo(match_id, seat)
    store.engine.dispose()
    again = MatchStore(db_url)
    restored = again.view(match_id, seat)
    assert restored.to_dict() == view.to_dict()
    assert restored.draft is not None and restored.draft["redo"] == steps[-2:]
    again.redo(match_id, seat)
    assert again.redo(match_id, seat).draft == {**view.draft, "steps": steps, "redo": [],
                                                 "can_redo": False, "at_boundary": True}


def test_secret_choices_through_the_store(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id = store.add(at_secret_choice(4, seed="store-secret"))
    a, b, *_ = store.view(match_id, None).to_act
    before_b = store.view(match_id, b).to_dict()
    store.step(match_id, a, store.view(match_id, a).legal[0])
    assert store.view(match_id, b).to_dict() == before_b  # b never sees a's draft
    choice_b = store.view(match_id, b).legal[-1]
    store.step(match_id, b, choice_b)
    seq = store.view(match_id, a).seq
    store.finish(match_id, a, base_seq=seq)
    with pytest.raises(GameMovedOn) as moved:  # b's request was based on the old log
        store.finish(match_id, b, base_seq=seq)
    assert moved.value.seq == seq + 1
    assert moved.value.view["draft"]["steps"] == [choice_b]  # rebased, kept
    done = store.finish(match_id, b, base_seq=moved.value.seq)
    assert done.seq == seq + 2 and b not in to_act(store.load(match_id).state)


def test_the_database_refuses_a_second_commit_on_one_base(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id = store.create(GameConfig(players=3), seed="unique")
    match = store.load(match_id)
    last = match.log[-1]
    rows = [
        CommitRow(match_id=match_id, base_seq=0, head_seq=99, seat=0, created_at=last.at),
        MoveRow(
            match_id=match_id, seq=last.seq, action=str(last.action), seat=-1, base_seq=5,
            created_at=last.at,
        ),
    ]
    for row in rows:
        with pytest.raises(IntegrityError), Session(store.engine) as session, session.begin():
            session.add(row)
    assert store.load(match_id).actions == match.actions


def test_refusals_change_nothing_in_the_database(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id = store.create(GameConfig(players=3), seed="refusals")
    seat = store.view(match_id, None).to_act[0]
    before = store.view(match_id, seat).to_dict()
    with pytest.raises(IllegalStep):
        store.step(match_id, seat, "p0 nonsense")
    with pytest.raises(MatchNotFound):
        store.view("nope", seat)
    with pytest.raises(GameMovedOn):
        store.step(match_id, seat, before["legal"][0], base_seq=before["seq"] - 1)
    with pytest.raises(ExportRefused):
        store.export(match_id)
    assert store.view(match_id, seat).to_dict() == before
    running = store.export(match_id, unfinished=True)
    assert running["seed"] is None and running["commitment"] == before["commitment"]


def test_a_commit_that_skipped_the_lock_still_cannot_fork_the_log(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MatchStore(db_url)
    match_id = store.add(at_secret_choice(4, seed="stale"))
    a, b, *_ = store.view(match_id, None).to_act
    for seat in (a, b):
        store.step(match_id, seat, store.view(match_id, seat).legal[0])
    stale = store.load(match_id)
    base = stale.seq
    store.finish(match_id, a)
    # One writer working from the stale snapshot (as if the row lock were bypassed):
    loads = [stale]
    real_load = MatchStore._load

    def stale_load(self: MatchStore, conn: Any, match_id: str, head: int, drafts: Any,
                   rows: Any = None) -> Any:
        if not loads:
            return real_load(self, conn, match_id, head, drafts, rows)
        # What the database held at the stale head: both drafts, stored on that base.
        return loads.pop(), {s: draft_sig(d) for s, d in stale.drafts.items()}

    monkeypatch.setattr(MatchStore, "_load", stale_load)
    with pytest.raises(GameMovedOn) as moved:
        store.finish(match_id, b)
    assert not loads and (moved.value.expected_seq, moved.value.seq) == (base, base + 1)
    match = store.load(match_id)
    assert [e.seq for e in match.log] == list(range(1, base + 2))
    assert match.log[-1].action.seat == a


def test_a_head_state_in_an_old_format_is_rebuilt_from_the_log(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id = store.create(GameConfig(players=3), seed="format")
    expected = store.load(match_id).state
    with store.engine.begin() as conn:
        conn.execute(
            sa.update(MatchRow).where(MatchRow.id == match_id).values(state={"format": -1})
        )
    assert store.load(match_id).state == expected
    store.close()


def test_a_seat_load_holds_only_that_seats_draft_and_the_cache_follows_commits(
    db_url: str,
) -> None:
    store = MatchStore(db_url)
    match_id = store.add(at_secret_choice(4, seed="seat-load"))
    a, b, *_ = store.view(match_id, None).to_act
    for seat in (a, b):
        store.step(match_id, seat, store.view(match_id, seat).legal[0])
    assert set(store.load(match_id).drafts) == {a, b}
    assert set(store.load_seat(match_id, a).drafts) == {a}
    assert store.load_seat(match_id, None).drafts == {}
    assert store.view(match_id, b).to_dict() == store.load(match_id).seat_view(b).to_dict()
    before = store.load(match_id)
    store.finish(match_id, a)
    # Another store (another process) on the same database, with a cold cache, agrees.
    fresh = MatchStore(db_url)
    for loaded in (store.load(match_id), fresh.load(match_id)):
        assert loaded.seq == before.seq + 1 and loaded.log[:-1] == before.log
        assert loaded.state == replay(loaded.config, loaded.actions)
    fresh.close()
    store.close()


def test_another_store_follows_commits_from_their_notices_alone(db_url: str) -> None:
    """Two stores (two processes) on one database, the second hearing the first's
    notices as a pub/sub relays them: it extends its cached log from each commit notice
    and builds the seats' matches from memory, equal to what the database holds."""
    writer_store = MatchStore(db_url)
    reader = MatchStore(db_url)
    writer_store.broker.subscribe(reader.broker.publish)  # the relay
    match_id = writer_store.add(at_secret_choice(3, seed="notices"))
    reader.load(match_id)  # warm: the reader has seen the match once
    fresh = MatchStore(db_url)  # what the database holds
    rng = random.Random(5)
    checked = 0
    notices: list[MatchEvent] = []
    writer_store.broker.subscribe(notices.append)
    while checked < 12 and not (spectator := writer_store.view(match_id, None)).over:
        seat = rng.choice(spectator.to_act)
        view = writer_store.view(match_id, seat)
        while view.legal and not view.draft["at_boundary"]:
            view = writer_store.step(match_id, seat, rng.choice(view.legal), base_seq=view.seq)
        writer_store.finish(match_id, seat, base_seq=view.seq)
        notice = notices[-1]
        assert notice.kind == "commit" and notice.base is not None
        assert notice.seq == notice.base + len(notice.added)
        versions = dict(notice.drafts)
        assert set(versions) == {0, 1, 2}
        for s in (None, 0, 1, 2):
            remembered = reader.cached_seat(match_id, notice.seq, s,
                                            "" if s is None else versions[s])
            if s is not None and versions[s]:
                continue  # a draft this store has not seen: it reads it (not from memory)
            assert remembered is not None, "built from memory, without the database"
            stored = fresh.load_seat(match_id, s)
            assert remembered.log == stored.log and remembered.state == stored.state
            assert remembered.seat_view(s).to_dict() == stored.seat_view(s).to_dict()
        checked += 1
    assert checked == 12
    # A notice that does not follow on from the cached log is ignored (the database
    # tells the rest): the reader never invents a log.
    reader._learn(MatchEvent(match_id, 10_000, "commit", 0, (), 9_999, ("p0 bid 1",),
                             notices[-1].at))
    assert reader.load(match_id).seq == writer_store.load(match_id).seq
    for store in (writer_store, reader, fresh):
        store.close()


def _walked_by_the_collector(root: object) -> list[object]:
    """Every mutable container the garbage collector would walk from ``root``."""
    seen, found, todo = set(), [], [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):  # not into classes and modules
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, dict, set)) or type(obj).__name__ == "State":
            found.append(obj)
        todo.extend(gc.get_referents(obj))
    return found


def test_a_cached_draft_holds_no_lists_and_each_load_works_on_its_own_copy(
    db_url: str,
) -> None:
    store = MatchStore(db_url)
    match_id = store.create(GameConfig(players=3), seed="kept-draft")
    while True:  # until some seat's turn takes three or more steps
        seat = store.view(match_id, None).to_act[0]
        view = store.view(match_id, seat)
        steps = 0
        while view.legal and steps < 3:
            view, steps = store.step(match_id, seat, view.legal[0]), steps + 1
        if steps == 3:
            break
        store.finish(match_id, seat)
    kept = store._drafts.get((match_id, seat))
    assert kept is not None and len(kept[1].states) == 3
    # Thousands of open games keep their drafts here: as tuples the collector skips them.
    assert _walked_by_the_collector(kept[1]) == []
    first = store.load_seat(match_id, seat).drafts[seat]
    first.states[-1].scores[0] += 99  # a load's copy is its own: the cache is untouched
    first.steps.pop()
    again = store.load_seat(match_id, seat).drafts[seat]
    assert len(again.steps) == 3 and again.states[-1] != first.states[-1]
    assert store.undo(match_id, seat).to_dict() == store.view(match_id, seat).to_dict()
    store.close()
