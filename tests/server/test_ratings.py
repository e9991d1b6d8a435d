"""Ratings and results of finished games (server/ratings.py, docs/ratings.md): the
numbers are openskill's own; only rated games between eligible registered players
change them, computers are left out, resigned and timed-out players come last, and
every game is recorded exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import func, select, update

from elgrande.server.clocks import table_clock
from elgrande.server.errors import LobbyError
from elgrande.server.lobby import SeatSpec
from elgrande.server.ratings import (
    DISPLAY_BASE,
    DISPLAY_SCALE,
    cards_taken,
    display,
    ineligible,
    placements,
    rate,
    results,
)
from elgrande.server.settings import Settings
from elgrande.server.tables import (
    GameOutcome,
    GameResult,
    PlayerCardStat,
    PlayerCountStat,
    PlayerRating,
    RatingHistory,
    SeatClockRow,
    User,
    utcnow,
)
from tests.apps import app_for

from .helpers import advance

DAY = timedelta(days=1)


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Any]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'r.db'}", secret_key="k" * 32,
                           bot_delay=0.0))
    services = app.state.services
    yield services
    services.accounts.close()
    services.engine.dispose()


def player(svc: Any, name: str, age: timedelta = 2 * DAY) -> User:
    """A registered account ``age`` old (made directly: no password hashing)."""
    from elgrande.server.names import name_key, skeleton

    with svc.sessions.begin() as db:
        user = User(name=name, name_key=name_key(name), name_skeleton=skeleton(name),
                    password_hash="$argon2id$not-used-here", is_guest=False,
                    created_at=utcnow() - age)
        db.add(user)
        db.flush()
        db.expunge(user)
    return user


def table(svc: Any, users: list[User], bots: tuple[str, ...] = (), rated: bool = True,
          rounds: int = 6, **options: Any) -> Any:
    """A started game: ``users`` in seats 0.., then computers of ``bots`` levels."""
    seats = [SeatSpec("me")] + [SeatSpec("open")] * (len(users) - 1) + [
        SeatSpec("bot", bot_level=level) for level in bots]
    game = svc.lobby.create(users[0], len(seats), rounds, seats, rated=rated, **options)
    for user in users[1:]:
        svc.lobby.join(game.id, user)
    svc.lobby.start(game.id, users[0])
    return svc.lobby.get(game.id)


def play_out(svc: Any, game: Any, seed: int = 1) -> Any:
    """Plays the game to its end and marks it finished (which records it)."""
    match = advance(svc, game.id, lambda m: m.over, seed=seed)
    svc.lobby.mark_finished(game.match_id)
    return match


def ratings_of(svc: Any, *users: User) -> list[PlayerRating | None]:
    with svc.sessions() as db:
        return [db.get(PlayerRating, u.id) for u in users]


def count(svc: Any, table: Any, *where: Any) -> int:
    with svc.sessions() as db:
        return int(db.scalar(select(func.count()).select_from(table).where(*where)) or 0)


# -- the arithmetic, against openskill itself


def test_places_share_ties_and_put_quitters_last() -> None:
    assert placements([50, 60, 60, 40, 70], set()) == [4, 2, 2, 5, 1]
    # Seat 4 (the best score) resigned, seat 0 timed out: both last, whatever the score.
    assert placements([50, 60, 60, 40, 70], {0, 4}) == [4, 1, 1, 3, 4]


@pytest.mark.parametrize("places", [[1, 2, 3, 4, 5], [1, 1, 3, 4, 4], [2, 1, 2, 2, 5], [1, 1]])
def test_rating_updates_are_openskills_own_numbers(places: list[int]) -> None:
    model = PlackettLuce()  # the library's defaults, made afresh
    before = [(25.0, 25 / 3), (30.0, 4.0), (22.5, 6.0), (27.0, 2.5), (18.0, 8.0)][:len(places)]
    expected = model.rate([[model.create_rating([mu, sigma])] for mu, sigma in before],
                          ranks=[float(p) for p in places])
    got = rate(before, places)
    for (mu, sigma), [team] in zip(got, expected, strict=True):
        assert mu == pytest.approx(team.mu, abs=1e-12)
        assert sigma == pytest.approx(team.sigma, abs=1e-12)
    # A shared place is a tie: equal players who tie move alike.
    if places == [1, 1]:
        same = rate([(25.0, 25 / 3)] * 2, [1, 1])
        assert same[0] == same[1] and same[0][0] == pytest.approx(25.0)


def test_the_display_value_is_conservative() -> None:
    assert display(25.0, 25 / 3) == DISPLAY_BASE  # a new player
    assert display(30.0, 2.0) == DISPLAY_BASE + DISPLAY_SCALE * 24


def test_cards_are_read_from_the_log() -> None:
    assert cards_taken(["p0 bid 7", "p1 take 2d", "p0 take 3b", "p1 take 2d", "* reveal 2d"]) == {
        1: {"2d": 2}, 0: {"3b": 1}}


# -- recording a real game


def test_a_rated_five_player_game_with_a_tie_changes_ratings_as_openskill_says(svc: Any) -> None:
    users = [player(svc, f"p{i}name") for i in range(5)]
    game = table(svc, users)
    advance(svc, game.id, lambda m: m.over)
    seats = svc.lobby.seats(game.id)
    # The recorded outcome of chosen scores (a tie for second), through the same
    # transaction as a real finish.
    outcome = results(seats, [70, 55, 55, 40, 30], set())
    with svc.sessions.begin() as db:
        db.execute(update(type(game)).where(type(game).id == game.id).values(status="finished"))
    game = svc.lobby.get(game.id)
    assert svc.ratings.save(game, outcome, {0: {"2d": 2}})
    model = PlackettLuce()
    fresh = [[model.rating()] for _ in range(5)]
    expected = model.rate(fresh, ranks=[1.0, 2.0, 2.0, 4.0, 5.0])
    rows = [row for row in ratings_of(svc, *users) if row is not None]
    for row, [team] in zip(rows, expected, strict=True):
        assert row.rated_games == 1
        assert row.mu == pytest.approx(team.mu) and row.sigma == pytest.approx(team.sigma)
        assert row.display == display(team.mu, team.sigma)
    assert rows[1].mu == pytest.approx(rows[2].mu)  # the tie
    assert count(svc, RatingHistory, RatingHistory.game_id == game.id) == 5
    with svc.sessions() as db:
        result = db.get(GameResult, (game.id, 0))
        assert result is not None and result.won and result.margin == 15 and result.rated
        assert result.rating_change == rows[0].display - display(25.0, 25 / 3)
        cards = db.get(PlayerCardStat, (users[0].id, "2d"))
        assert cards is not None and (cards.taken, cards.games, cards.won) == (2, 1, 1)
    # Recorded once: a second recording (another process) changes nothing.
    assert not svc.ratings.save(game, outcome)
    assert not svc.ratings.record(game.id)
    assert [r.mu if r else None for r in ratings_of(svc, *users)] == [r.mu for r in rows]
    assert count(svc, RatingHistory) == 5 and count(svc, GameResult) == 5


def test_computers_are_left_out_and_the_players_rated_among_themselves(svc: Any) -> None:
    anna, bert = player(svc, "anna"), player(svc, "bert")
    game = table(svc, [anna, bert], bots=("random", "random"))
    match = play_out(svc, game, seed=3)
    scores = list(match.state.scores)
    places = placements(scores[:2], set())
    model = PlackettLuce()
    expected = model.rate([[model.rating()], [model.rating()]], ranks=[float(p) for p in places])
    rows = ratings_of(svc, anna, bert)
    for row, [team] in zip(rows, expected, strict=True):
        assert row is not None and row.mu == pytest.approx(team.mu)
    with svc.sessions() as db:
        kinds = [r.kind for r in db.scalars(select(GameResult).where(
            GameResult.game_id == game.id).order_by(GameResult.seat))]
        outcome = db.get(GameOutcome, game.id)
    assert kinds == ["human", "human", "bot", "bot"] and outcome is not None and outcome.rated
    assert count(svc, PlayerCountStat, PlayerCountStat.players == 4) == 2


def test_friendly_games_record_results_but_change_no_rating(svc: Any) -> None:
    anna, bert = player(svc, "anna"), player(svc, "bert")
    game = table(svc, [anna, bert], rated=False)
    play_out(svc, game)
    assert [r.rated_games for r in ratings_of(svc, anna, bert)] == [0, 0]  # type: ignore[union-attr]
    assert count(svc, RatingHistory) == 0
    assert count(svc, GameResult, GameResult.game_id == game.id) == 2
    with svc.sessions() as db:
        outcome = db.get(GameOutcome, game.id)
        assert outcome is not None and not outcome.rated and outcome.note == "friendly"
        stats = db.get(PlayerCountStat, (anna.id, 2))
        assert stats is not None and stats.played == 1


def test_a_player_alone_against_computers_is_not_rated(svc: Any) -> None:
    anna = player(svc, "anna")
    game = table(svc, [anna], bots=("random",))
    play_out(svc, game)
    assert ratings_of(svc, anna)[0].rated_games == 0  # type: ignore[union-attr]
    assert count(svc, RatingHistory) == 0


def test_unfinished_games_change_nothing(svc: Any) -> None:
    anna, bert = player(svc, "anna"), player(svc, "bert")
    game = table(svc, [anna, bert])
    advance(svc, game.id, lambda m: m.seq > 30)
    assert not svc.ratings.record(game.id)
    svc.lobby.mark_finished(game.match_id)  # not over: the game stays running
    assert svc.ratings.catch_up() == 0
    assert count(svc, GameOutcome) == 0 and count(svc, PlayerRating) == 0


def test_a_resigned_player_is_rated_last_whatever_the_score(svc: Any) -> None:
    anna, bert, carl = player(svc, "anna"), player(svc, "bert"), player(svc, "carl")
    game = table(svc, [anna, bert, carl])
    advance(svc, game.id, lambda m: m.seq > 40)
    svc.play.resign(game.id, carl)
    match = play_out(svc, game, seed=5)
    scores = list(match.state.scores)
    places = placements(scores, {2})
    assert places[2] == 3
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=[float(p) for p in places])
    for row, [team] in zip(ratings_of(svc, anna, bert, carl), expected, strict=True):
        assert row is not None and row.mu == pytest.approx(team.mu)
    with svc.sessions() as db:
        result = db.get(GameResult, (game.id, 2))
        assert result is not None and result.kind == "resigned" and result.user_id == carl.id
        assert result.place == 3 and not result.won


def test_a_player_whose_seat_a_computer_holds_at_the_end_is_rated_last(svc: Any) -> None:
    anna, bert, carl = player(svc, "anna"), player(svc, "bert"), player(svc, "carl")
    game = table(svc, [anna, bert, carl], clock=table_clock("daily-1"))
    svc.clocks.settle(game.id)
    with svc.sessions.begin() as db:  # bert's clock ran out and he never came back
        db.execute(update(SeatClockRow).where(SeatClockRow.game_id == game.id,
                                              SeatClockRow.seat == 1).values(away_since=utcnow()))
    assert svc.clocks.away_seats(game.id) == {1}
    match = play_out(svc, game, seed=7)
    places = placements(list(match.state.scores), {1})
    assert places[1] == 3
    with svc.sessions() as db:
        result = db.get(GameResult, (game.id, 1))
        assert result is not None and result.kind == "away" and result.place == 3
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=[float(p) for p in places])
    for row, [team] in zip(ratings_of(svc, anna, bert, carl), expected, strict=True):
        assert row is not None and row.mu == pytest.approx(team.mu)


def test_two_rated_games_in_a_row_build_on_each_other(svc: Any) -> None:
    anna, bert = player(svc, "anna"), player(svc, "bert")
    first = play_out(svc, table(svc, [anna, bert]), seed=1)
    second_game = table(svc, [bert, anna])
    second = play_out(svc, second_game, seed=2)
    model = PlackettLuce()
    a, b = model.rating(), model.rating()
    p1 = placements(list(first.state.scores), set())
    [[a], [b]] = model.rate([[a], [b]], ranks=[float(p) for p in p1])
    p2 = placements(list(second.state.scores), set())  # bert is seat 0 now
    [[b], [a]] = model.rate([[b], [a]], ranks=[float(p) for p in p2])
    rows = ratings_of(svc, anna, bert)
    assert rows[0].mu == pytest.approx(a.mu) and rows[1].mu == pytest.approx(b.mu)  # type: ignore[union-attr]
    assert rows[0].rated_games == rows[1].rated_games == 2  # type: ignore[union-attr]
    assert count(svc, RatingHistory, RatingHistory.user_id == anna.id) == 2


def test_a_finish_left_unrecorded_by_a_crash_is_caught_up(svc: Any) -> None:
    anna, bert = player(svc, "anna"), player(svc, "bert")
    game = table(svc, [anna, bert])
    advance(svc, game.id, lambda m: m.over)
    with svc.sessions.begin() as db:  # finished, and the process died before recording
        db.execute(update(type(game)).where(type(game).id == game.id).values(status="finished"))
    assert count(svc, GameOutcome) == 0
    assert svc.ratings.catch_up() == 1
    assert svc.ratings.catch_up() == 0
    assert [r.rated_games for r in ratings_of(svc, anna, bert)] == [1, 1]  # type: ignore[union-attr]


# -- who may play rated games


def test_rated_tables_are_for_registered_accounts_a_day_old(svc: Any) -> None:
    old, young, guest = player(svc, "oldhand"), player(svc, "newbie", age=DAY / 2), svc.accounts.guest()
    assert ineligible(old) is None
    assert "less than a day old" in str(ineligible(young))
    assert "guest" in str(ineligible(guest))
    two = [SeatSpec("me"), SeatSpec("open")]
    for creator in (young, guest):
        with pytest.raises(LobbyError):
            svc.lobby.create(creator, 2, 6, two, rated=True)
    with pytest.raises(LobbyError, match="less than a day old"):
        svc.lobby.create(old, 2, 6, [SeatSpec("me"), SeatSpec("invited", invited_name="newbie")],
                         rated=True)
    game = svc.lobby.create(old, 2, 6, two, rated=True)
    for joiner in (young, guest):
        with pytest.raises(LobbyError):
            svc.lobby.join(game.id, joiner)
    assert [s["kind"] for s in svc.lobby.seats(game.id)] == ["human", "open"]
    friendly = svc.lobby.create(guest, 2, 6, two)  # friendly tables: anybody
    svc.lobby.join(friendly.id, young)
