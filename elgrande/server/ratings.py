"""Ratings and results of finished games (docs/ratings.md).

One overall rating per registered player, from openskill's Plackett-Luce model (made for
free-for-all games of any number of players, with ties). When a game is marked finished
(``Lobby.mark_finished`` calls ``Ratings.record``), its result is recorded exactly once:

- one row per seat in ``game_results`` (placement, score, margin), the players' totals
  per player count and per action card (from the log's ``take`` actions);
- if the table was rated and at least two eligible players sat at it: their ratings,
  from their placements. A player who resigned, or whose seat a computer still held at
  the end (their clock ran out and they never came back), is placed last; computer
  seats are left out (nobody is rated against a computer).

Exactly once: the recording's first write is the game's ``game_outcomes`` row (its
primary key), in the same transaction as everything else; a second recording of the
same game (another process heard the finish too) fails on it and changes nothing.
Two games finishing at once with a player in common: each transaction locks its
players' ``player_ratings`` rows in user order first (PostgreSQL ``FOR UPDATE``; SQLite
has one writer at a time), so the second reads what the first wrote.

``Ratings.catch_up`` records the finished games a crash left unrecorded (run now and
then in the background). All methods are synchronous, for worker threads."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from openskill.models import PlackettLuce
from sqlalchemy import Table, delete, exists, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from elgrande.matches import MatchStore

from .i18n import _
from .periodic import Periodic
from .tables import (
    BotRating,
    Game,
    GameOutcome,
    GameResult,
    PlayerCardStat,
    PlayerCountStat,
    PlayerRating,
    RatingHistory,
    User,
    utcnow,
)

log = logging.getLogger(__name__)

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
PROVISIONAL_GAMES = 10  # a rating is provisional until this many rated games
MIN_ACCOUNT_AGE = timedelta(days=1)  # rated games need accounts at least this old
# The display value: a conservative estimate (mu - 3 sigma: the player is better than
# this with 99.9% confidence), on a scale players know (a new player: 1000).
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40
CATCH_UP_BATCH = 200


def display(mu: float, sigma: float) -> int:
    """The number shown as a rating: rises as the estimate gets surer, never overstates."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def spread(sigma: float) -> int:
    """The uncertainty shown beside the rating (one sigma, in display points): the
    rating is the skill estimate less three of these."""
    return round(DISPLAY_SCALE * sigma)


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def ineligible(user: User, now: datetime | None = None) -> str | None:
    """Why ``user`` may not play rated games (None: they may): registered accounts at
    least a day old only, so fresh accounts cannot be made to feed a rating."""
    if user.is_guest or user.password_hash is None:
        return _("%(name)s plays as a guest: rated games are for registered players.",
                 name=user.name)
    if aware(user.created_at) > (now or utcnow()) - MIN_ACCOUNT_AGE:
        return _("%(name)s's account is less than a day old: rated games are for "
                 "accounts at least a day old.", name=user.name)
    return None


def placements(scores: list[int], last: set[int]) -> list[int]:
    """Each seat's place (1 first; tied scores share a place); the seats in ``last``
    (resigned, or still away at the end) share the last place whatever their score."""
    stayed = [p for p in range(len(scores)) if p not in last]
    places = [0] * len(scores)
    for p in stayed:
        places[p] = 1 + sum(1 for q in stayed if scores[q] > scores[p])
    for p in last:
        places[p] = len(stayed) + 1
    return places


def rate(before: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) of each player, from their (mu, sigma) and places (ties shared)."""
    teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in before]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [(team[0].mu, team[0].sigma) for team in rated]


def cards_taken(actions: Iterable[object]) -> dict[int, dict[str, int]]:
    """Per seat, how often it took each action card (the log's ``pN take CARD``)."""
    taken: dict[int, dict[str, int]] = {}
    for action in actions:
        words = str(action).split()
        if len(words) == 3 and words[1] == "take" and words[0].startswith("p"):
            seat = int(words[0][1:])
            taken.setdefault(seat, {})
            taken[seat][words[2]] = taken[seat].get(words[2], 0) + 1
    return taken


@dataclass(frozen=True)
class SeatResult:
    seat: int
    user_id: int | None
    kind: str  # human, bot, resigned, away
    bot_level: str | None
    place: int
    score: int
    margin: int
    won: bool


def results(seats: list[dict[str, Any]], scores: list[int], away: set[int]) -> list[SeatResult]:
    """The seats' results: ``seats`` as ``Lobby.seats`` gives them, the final scores, the
    seats a computer held at the end because their player's clock ran out."""
    kinds = []
    for s in seats:
        if s.get("resigned_seq") is not None:
            kinds.append("resigned")
        elif s["kind"] == "human" and s["seat"] in away:
            kinds.append("away")
        else:
            kinds.append("human" if s["kind"] == "human" else "bot")
    last = {i for i, kind in enumerate(kinds) if kind in ("resigned", "away")}
    places = placements(scores, last)
    out = []
    for i, s in enumerate(seats):
        best_other = max((scores[q] for q in range(len(scores)) if q != i), default=0)
        out.append(SeatResult(i, s["user_id"] if kinds[i] != "bot" else None, kinds[i],
                              s["bot_level"] if kinds[i] == "bot" else None, places[i],
                              scores[i], scores[i] - best_other, places[i] == 1 and i not in last))
    return out


class Ratings:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 store: MatchStore, seats: Callable[[int], list[dict[str, Any]]],
                 away: Callable[[int], set[int]] | None = None,
                 now: Callable[[], datetime] = utcnow) -> None:
        self._sessions = sessions  # writes (BEGIN IMMEDIATE on SQLite)
        self._reads = reads
        self.store = store
        self._seats = seats  # a game's seats, as the lobby gives them
        self._away = away  # the seats whose clock ran out and are still away
        self.now = now

    # -- recording a finished game

    def record(self, game_id: int) -> bool:
        """Records the finished game ``game_id`` (and rates it, if it is rated); False
        if it is not finished or was recorded already (by this or another process)."""
        with self._reads() as db:
            game = db.get(Game, game_id)
            if game is None or game.status != "finished" or game.match_id is None:
                return False
            if db.get(GameOutcome, game_id) is not None:
                return False
            db.expunge(game)
        match = self.store.load(game.match_id)
        if not match.over:
            return False
        seats = self._seats(game_id)
        away = self._away(game_id) if self._away is not None else set()
        outcome = results(seats, list(match.state.scores), away)
        cards = cards_taken(match.actions)
        return self.save(game, outcome, cards)

    def save(self, game: Game, outcome: list[SeatResult],
             cards: dict[int, dict[str, int]] | None = None) -> bool:
        """Stores a finished game's result and rates it, in one transaction; False if
        the game was recorded already (nothing changed)."""
        finished_at = aware(game.updated_at)
        try:
            with self._sessions.begin() as db:
                # First: the game's one outcome row. A second recording fails here.
                row = GameOutcome(game_id=game.id, finished_at=finished_at)
                db.add(row)
                db.flush()
                self._write(db, game, row, outcome, cards or {}, finished_at)
        except IntegrityError:
            return False  # recorded meanwhile (another process heard the finish too)
        return True

    def _write(self, db: Session, game: Game, outcome_row: GameOutcome, outcome: list[SeatResult],
               cards: dict[int, dict[str, int]], finished_at: datetime) -> None:
        humans = sorted({r.user_id for r in outcome if r.user_id is not None})
        statements = _statements(db)
        conn = db.connection()
        # Every player's row exists, then is locked in user order: two games with a
        # player in common are recorded one after the other, never interleaved.
        if humans:
            conn.execute(statements.new_rating, [
                {"user_id": user_id, "mu": MODEL.mu, "sigma": MODEL.sigma,
                 "display": display(MODEL.mu, MODEL.sigma), "rated_games": 0,
                 "updated_at": finished_at} for user_id in humans])
        rows = {row.user_id: row for row in db.scalars(
            select(PlayerRating).where(PlayerRating.user_id.in_(humans))
            .order_by(PlayerRating.user_id).with_for_update())}
        users = {u.id: u for u in db.scalars(select(User).where(User.id.in_(humans)))}
        rated, note = self._rated(game, outcome, users, finished_at)
        changes: dict[int, int] = {}
        history: list[dict[str, Any]] = []
        if rated:
            players = [r for r in outcome if r.user_id is not None]
            before = [(rows[r.user_id].mu, rows[r.user_id].sigma) for r in players]  # type: ignore[index]
            after = rate(before, [r.place for r in players])
            for r, (mu, sigma) in zip(players, after, strict=True):
                assert r.user_id is not None
                row = rows[r.user_id]
                new_display = display(mu, sigma)
                changes[r.user_id] = new_display - row.display
                row.mu, row.sigma, row.display = mu, sigma, new_display
                row.rated_games += 1
                row.updated_at = finished_at
                history.append({"user_id": r.user_id, "game_id": game.id, "mu": mu,
                                "sigma": sigma, "display": new_display, "at": finished_at})
        outcome_row.rated, outcome_row.note = rated, note
        db.flush()  # the ratings' and the outcome's rows, before the rows that refer to them
        # The rest in a few multi-row statements (executemany), not a statement per row:
        # a game's results, counts and cards are some twenty rows.
        if history:
            conn.execute(statements.history, history)
        conn.execute(statements.result, [
            {"game_id": game.id, "seat": r.seat, "user_id": r.user_id, "kind": r.kind,
             "bot_level": r.bot_level, "place": r.place, "score": r.score,
             "margin": r.margin, "won": r.won, "players": len(outcome), "rated": rated,
             "rating_change": changes.get(r.user_id) if r.user_id else None,
             "finished_at": finished_at} for r in outcome])
        counted = [r for r in outcome if r.user_id is not None]
        if counted:
            conn.execute(statements.count, [
                {"user_id": r.user_id, "players": len(outcome), "played": 1, "won": int(r.won),
                 "score_sum": r.score, "margin_sum": r.margin} for r in counted])
        taken = [{"user_id": r.user_id, "card": card, "taken": times, "games": 1,
                  "won": int(r.won)}
                 for r in counted for card, times in sorted(cards.get(r.seat, {}).items())]
        if taken:
            conn.execute(statements.card, taken)

    @staticmethod
    def _rated(game: Game, outcome: list[SeatResult], users: dict[int, User],
               at: datetime) -> tuple[bool, str]:
        """Whether the game changes ratings, and why not if not."""
        if not game.rated:
            return False, "friendly"
        players = [r for r in outcome if r.user_id is not None]
        if len(players) < 2:
            return False, "fewer than two players to rate"
        for r in players:
            user = users.get(r.user_id)  # type: ignore[arg-type]
            # At the game's creation every player was eligible; checked again here.
            if user is None or ineligible(user, at) is not None:
                return False, "a player may not play rated games"
        return True, ""

    def catch_up(self, limit: int = CATCH_UP_BATCH) -> int:
        """Records up to ``limit`` finished games that are not yet (a crash fell between
        the finish and its recording); how many it recorded."""
        with self._reads() as db:
            ids = db.scalars(select(Game.id).where(
                Game.status == "finished",
                ~exists().where(GameOutcome.game_id == Game.id)).limit(limit)).all()
        done = 0
        for game_id in ids:
            try:
                done += self.record(game_id)
            except Exception:  # one bad game must not stop the others
                log.exception("recording the result of game %s failed", game_id)
        return done

    def on_finished(self, game_id: int) -> None:
        """``Lobby.mark_finished``'s listener: never lets a failure reach the move that
        ended the game (the catch-up records it later)."""
        try:
            self.record(game_id)
        except Exception:
            log.exception("recording the result of game %s failed; the catch-up retries",
                          game_id)

    # -- the computer levels' calibration pool

    def store_bot_ratings(self, ratings: dict[str, tuple[float, float, int]]) -> None:
        """Replaces the computer levels' ratings: level -> (mu, sigma, games)."""
        store_bot_ratings(self._sessions, ratings, self.now())

    def bot_ratings(self) -> list[BotRating]:
        with self._reads() as db:
            return list(db.scalars(select(BotRating).order_by(BotRating.display.desc())))


def store_bot_ratings(sessions: sessionmaker[Session], ratings: dict[str, tuple[float, float, int]],
                      now: datetime | None = None) -> None:
    """Replaces the computer levels' ratings (``elgrande ratings calibrate``): level ->
    (mu, sigma, games); a level left out keeps none."""
    with sessions.begin() as db:
        db.execute(delete(BotRating))
        for level, (mu, sigma, games) in ratings.items():
            db.add(BotRating(level=level, mu=mu, sigma=sigma, display=display(mu, sigma),
                             games=games, calibrated_at=now or utcnow()))


ANCHOR_GAMES = 2000  # the newest games of rated players against computers the anchor reads


def anchor_results(sessions: sessionmaker[Session], levels: Iterable[str],
                   limit: int = ANCHOR_GAMES) -> list[list[tuple[str | int, int]]]:
    """The newest ``limit`` finished games where rated players (each with a rating) met
    computers of ``levels`` and nobody resigned or was away, oldest first: per game, each
    seat as (user id or level, place)."""
    wanted = set(levels)
    with sessions() as db:
        with_bots = select(GameResult.game_id).where(GameResult.kind == "bot",
                                                     GameResult.bot_level.in_(wanted))
        with_players = select(GameResult.game_id).where(
            GameResult.kind == "human",
            GameResult.user_id.in_(select(PlayerRating.user_id)))
        spoilt = select(GameResult.game_id).where(GameResult.kind.in_(("resigned", "away")))
        ids = list(db.scalars(
            select(GameResult.game_id).where(GameResult.game_id.in_(with_bots),
                                             GameResult.game_id.in_(with_players),
                                             GameResult.game_id.not_in(spoilt))
            .group_by(GameResult.game_id)
            .order_by(func.max(GameResult.finished_at).desc(), GameResult.game_id.desc())
            .limit(limit)))
        rows = db.scalars(select(GameResult).where(GameResult.game_id.in_(ids))
                          .order_by(GameResult.game_id, GameResult.seat)).all()
        rated = set(db.scalars(select(PlayerRating.user_id)))
    games: dict[int, list[tuple[str | int, int]]] = {game_id: [] for game_id in reversed(ids)}
    left_out: set[int] = set()  # a seat that cannot be placed (a guest, another level)
    for row in rows:
        who: str | int | None = row.bot_level if row.kind == "bot" else row.user_id
        if who is None or (row.kind == "bot" and who not in wanted) or (
                row.kind == "human" and who not in rated):
            left_out.add(row.game_id)
        else:
            games[row.game_id].append((who, row.place))
    return [seats for game_id, seats in games.items() if game_id not in left_out]


def anchor_offset(pool: dict[str, tuple[float, float, int]],
                  games: list[list[tuple[str | int, int]]],
                  players: dict[int, tuple[float, float]]) -> tuple[float, int]:
    """How far the calibration pool sits below the players' scale, and from how many games.

    Each level is rated again from its pool rating through its games against rated
    players, whose ratings are held as they are (the players are the fixed points of the
    scale); the offset is the games-weighted mean of how far each level moved. The pool
    keeps the levels' distances from each other; the offset places them among players."""
    anchored = {level: (mu, MODEL.sigma) for level, (mu, _sigma, _games) in pool.items()}
    counts: dict[str, int] = {}
    for seats in games:
        before = [players[who] if isinstance(who, int) else anchored[who] for who, _ in seats]
        after = rate(before, [place for _, place in seats])
        moved: dict[str, list[tuple[float, float]]] = {}
        for (who, _place), new in zip(seats, after, strict=True):
            if isinstance(who, str):
                moved.setdefault(who, []).append(new)
        for level, news in moved.items():  # two seats of one level: their mean
            anchored[level] = (sum(m for m, _ in news) / len(news),
                               sum(s for _, s in news) / len(news))
            counts[level] = counts.get(level, 0) + 1
    total = sum(counts.values())
    if not total:
        return 0.0, 0
    shift = sum(n * (anchored[level][0] - pool[level][0]) for level, n in counts.items())
    return shift / total, len(games)


def player_ratings(sessions: sessionmaker[Session]) -> dict[int, tuple[float, float]]:
    with sessions() as db:
        return {r.user_id: (r.mu, r.sigma) for r in db.scalars(select(PlayerRating))}


@dataclass(frozen=True)
class _Statements:
    """The statements that record a finished game, made once per SQL dialect and run
    with a list of rows each."""

    new_rating: Any  # a player's first rating row, unless there is one
    history: Any
    result: Any
    count: Any  # per player and number of players: added to
    card: Any  # per player and card: added to


_STATEMENTS: dict[str, _Statements] = {}


def _table(model: Any) -> Table:
    return cast(Table, model.__table__)


def _statements(db: Session) -> _Statements:
    dialect = db.get_bind().dialect.name
    made = _STATEMENTS.get(dialect)
    if made is None:
        # The dialect's INSERT with ON CONFLICT (SQLite and PostgreSQL both have it).
        upsert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        counts, cards = _table(PlayerCountStat), _table(PlayerCardStat)
        count, card = upsert(counts), upsert(cards)
        made = _Statements(
            new_rating=upsert(_table(PlayerRating)).on_conflict_do_nothing(
                index_elements=["user_id"]),
            history=insert(_table(RatingHistory)),
            result=insert(_table(GameResult)),
            count=count.on_conflict_do_update(index_elements=["user_id", "players"], set_={
                "played": counts.c.played + count.excluded.played,
                "won": counts.c.won + count.excluded.won,
                "score_sum": counts.c.score_sum + count.excluded.score_sum,
                "margin_sum": counts.c.margin_sum + count.excluded.margin_sum}),
            card=card.on_conflict_do_update(index_elements=["user_id", "card"], set_={
                "taken": cards.c.taken + card.excluded.taken,
                "games": cards.c.games + card.excluded.games,
                "won": cards.c.won + card.excluded.won}))
        _STATEMENTS[dialect] = made
    return made


class CatchUp(Periodic):
    """Records, now and then, the finished games a crash left unrecorded."""

    name = "results-catch-up"

    def __init__(self, ratings: Ratings, interval: float) -> None:
        super().__init__(interval)
        self.ratings = ratings

    def _loop(self) -> None:
        # Once at the start, then every ``interval`` seconds.
        try:
            while self.ratings.catch_up() == CATCH_UP_BATCH and not self._stop.is_set():
                pass
        except Exception:
            log.exception("recording unrecorded results failed; retried later")
        super()._loop()

    def tick(self) -> None:
        while self.ratings.catch_up() == CATCH_UP_BATCH and not self._stop.is_set():
            pass
