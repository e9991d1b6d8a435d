"""What the ranking, profile and "My games" pages show, read from the results and
ratings that ``server/ratings.py`` records (docs/ratings.md).

Every page reads a bounded number of indexed rows, whatever the number of games: the
profile reads a player's rating, the last HISTORY_POINTS of its history, their totals
per player count and per action card (kept up to date as games are recorded, never
summed over all their games) and their newest RECENT_GAMES results; "My games" one page
of results; the ranking one page of the ``display`` index and one count. ``elgrande
bench pages`` measures them with 100,000 finished games.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fastapi import HTTPException
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from elgrande.rules import ALL_CARDS

from .accounts import FORMER_PLAYER, user_named
from .bots import level_name
from .hardening.limits import Limiter
from .i18n import _
from .lobby import Lobby
from .ratings import PROVISIONAL_GAMES, aware, display, spread
from .tables import (
    BotRating,
    Game,
    GameResult,
    PlayerCardStat,
    PlayerCountStat,
    PlayerRating,
    RatingHistory,
    Seat,
    User,
)

RANKING_PAGE = 50  # players per ranking page
RESULTS_PAGE = 20  # finished games per "My games" page
STOPPED_SHOWN = 10  # games that ended unfinished: the newest few, under the finished ones
RECENT_GAMES = 10  # on a profile
HISTORY_POINTS = 100  # rated games drawn in a profile's chart
MIN_CARD_GAMES = 3  # a card's success rate counts from this many games with it
MAX_PAGE = 1000  # deepest page of a list (a deeper one is refused, 400 by the route)
FILTERS = ("all", "running", "finished", "rated")
CARD_NAMES = {card.id: card.name for card in ALL_CARDS}


class PageLimits:
    """Profile, ranking and "My games" page loads per client address and per player
    within a minute (0: unlimited): a script walking every profile is slowed down."""

    def __init__(self, limiter: Limiter, per_minute: int) -> None:
        self.limiter = limiter
        self.per_minute = per_minute

    def admit(self, user_id: int | None, client: str) -> None:
        """Counts one page load, or raises HTTPException 429 (counting nothing)."""
        if self.per_minute <= 0:
            return
        buckets = [f"pages:client:{client}"] + ([f"pages:user:{user_id}"] if user_id else [])
        for bucket in buckets:
            wait = self.limiter.retry_after(bucket, self.per_minute)
            if wait > 0:
                seconds = int(wait) + 1
                raise HTTPException(429, _("Too many pages loaded lately; try again in "
                                            "%(seconds)s s.", seconds=seconds),
                                    headers={"Retry-After": str(seconds)})
        for bucket in buckets:
            self.limiter.hit(bucket)


@dataclass
class RatingShown:
    """A rating as pages show it: the conservative value and the uncertainty."""

    value: int
    spread: int
    games: int
    provisional: bool

    @classmethod
    def of(cls, mu: float, sigma: float, games: int) -> RatingShown:
        return cls(display(mu, sigma), spread(sigma), games,
                   games < PROVISIONAL_GAMES)


@dataclass
class Chart:
    """A rating history as an SVG polyline (drawn by the template; no script)."""

    width: int
    height: int
    points: str
    last: tuple[float, float]
    low: int
    high: int
    first_date: datetime
    last_date: datetime
    grid: list[tuple[float, int]] = field(default_factory=list)  # (y, value)


def chart(history: list[RatingHistory], width: int = 600, height: int = 180) -> Chart | None:
    """The history (oldest first) as chart coordinates; None with fewer than 2 points."""
    if len(history) < 2:
        return None
    values = [h.display for h in history]
    low, high = min(values), max(values)
    if high - low < 20:  # a flat line in the middle, not a magnified wobble
        low, high = low - 10, high + 10
    left, right, top, bottom = 48, 8, 8, 20
    span_x = width - left - right
    span_y = height - top - bottom

    def y_of(value: float) -> float:
        return round(top + span_y * (high - value) / (high - low), 1)

    coords = [(round(left + span_x * i / (len(values) - 1), 1), y_of(v))
              for i, v in enumerate(values)]
    grid = [(y_of(v), round(v)) for v in (high, (high + low) / 2, low)]
    return Chart(width, height, " ".join(f"{x},{y}" for x, y in coords), coords[-1], low, high,
                 aware(history[0].at), aware(history[-1].at), grid)


def _seat_name(kind: str, name: str | None, level: str | None) -> str:
    if kind == "bot":
        return _("Computer (%(level)s)",
                 level=level_name(level))
    return name or _(FORMER_PLAYER)


class Profiles:
    def __init__(self, reads: sessionmaker[Session], lobby: Lobby) -> None:
        self._reads = reads
        self.lobby = lobby

    # -- results with their tables

    def _with_tables(self, db: Session, mine: list[GameResult]) -> list[dict[str, Any]]:
        """The user's results, each with every seat of its game (names, places, scores)."""
        ids = [r.game_id for r in mine]
        seats: dict[int, list[dict[str, Any]]] = {}
        if ids:
            rows = db.execute(
                select(GameResult.game_id, GameResult.seat, GameResult.kind, GameResult.bot_level,
                       GameResult.place, GameResult.score, GameResult.user_id, User.name)
                .outerjoin(User, User.id == GameResult.user_id)
                .where(GameResult.game_id.in_(ids))
                .order_by(GameResult.game_id, GameResult.place, GameResult.seat)).all()
            for game_id, seat, kind, level, place, score, user_id, name in rows:
                seats.setdefault(game_id, []).append({
                    "seat": seat, "name": _seat_name(kind, name, level), "kind": kind,
                    "place": place, "score": score, "user_id": user_id,
                    "profile": name if kind != "bot" and name else None})
        return [{"game_id": r.game_id, "place": r.place, "score": r.score, "margin": r.margin,
                 "won": r.won, "players": r.players, "rated": r.rated, "kind": r.kind,
                 "rating_change": r.rating_change, "finished_at": aware(r.finished_at),
                 "seats": seats.get(r.game_id, [])} for r in mine]

    # -- the profile

    def profile(self, name: str) -> dict[str, Any] | None:
        """A player's profile by name (as a login finds it), or None."""
        with self._reads() as db:
            user = user_named(db, name)
            if user is None:
                return None
            rating = db.get(PlayerRating, user.id)
            counts = list(db.scalars(select(PlayerCountStat).where(
                PlayerCountStat.user_id == user.id).order_by(PlayerCountStat.players)))
            recent = list(db.scalars(select(GameResult).where(GameResult.user_id == user.id)
                                     .order_by(GameResult.finished_at.desc(),
                                               GameResult.game_id.desc())
                                     .limit(RECENT_GAMES)))
            games = self._with_tables(db, recent)
            by_count = [{"players": c.players, "played": c.played, "won": c.won,
                         "win_rate": c.won / c.played if c.played else 0.0,
                         "average_score": c.score_sum / c.played if c.played else 0.0,
                         "average_margin": c.margin_sum / c.played if c.played else 0.0}
                        for c in counts]
            played = sum(c.played for c in counts)
            totals = {"played": played, "won": sum(c.won for c in counts),
                      "average_score": sum(c.score_sum for c in counts) / played if played else 0.0,
                      "average_margin": sum(c.margin_sum for c in counts) / played if played else 0.0}
            result: dict[str, Any] = {"name": user.name, "guest": user.is_guest,
                                      "since": aware(user.created_at), "totals": totals,
                                      "by_count": by_count, "recent": games}
            if user.is_guest:  # a minimal profile: no rating, no history, no cards
                return result
            history = list(db.scalars(select(RatingHistory).where(
                RatingHistory.user_id == user.id).order_by(RatingHistory.id.desc())
                .limit(HISTORY_POINTS)))[::-1]
            cards = list(db.scalars(select(PlayerCardStat).where(
                PlayerCardStat.user_id == user.id)))
            result.update(rating=self._rating(db, rating), history=history,
                          chart=chart(history), cards=self._cards(cards))
            return result

    def _rating(self, db: Session, row: PlayerRating | None) -> dict[str, Any] | None:
        if row is None or row.rated_games == 0:
            return None
        place = 1 + (db.scalar(select(func.count()).select_from(PlayerRating).where(
            PlayerRating.rated_games > 0, PlayerRating.display > row.display)) or 0)
        return {"shown": RatingShown.of(row.mu, row.sigma, row.rated_games), "place": place}

    @staticmethod
    def _cards(cards: list[PlayerCardStat]) -> dict[str, Any]:
        """The favourite cards (taken most) and the most successful (highest share of
        won games among the games the card was taken in, from MIN_CARD_GAMES games)."""
        def label(card: str) -> str:
            found = CARD_NAMES.get(card)
            return f"{card} {found}" if found else card

        favourite = sorted(cards, key=lambda c: (-c.taken, c.card))[:3]
        tried = [c for c in cards if c.games >= MIN_CARD_GAMES]
        best = sorted(tried, key=lambda c: (-c.won / c.games, -c.games, c.card))[:3]
        return {"favourite": [{"card": label(c.card), "taken": c.taken, "games": c.games}
                              for c in favourite],
                "best": [{"card": label(c.card), "won": c.won, "games": c.games,
                          "rate": c.won / c.games} for c in best]}

    # -- the ranking

    def ranking(self, user: User | None, page: int = 1) -> dict[str, Any]:
        """One page of the rated players, best first (by the conservative value, which
        keeps provisional ratings low until they settle); the user's own place; the
        computer levels from their calibration pool."""
        established = PlayerRating.rated_games > 0
        with self._reads() as db:
            rows = db.execute(
                select(PlayerRating, User.name).join(User, User.id == PlayerRating.user_id)
                .where(established)
                .order_by(PlayerRating.display.desc(), PlayerRating.user_id)
                .offset((page - 1) * RANKING_PAGE).limit(RANKING_PAGE + 1)).all()
            more = len(rows) > RANKING_PAGE
            rows = rows[:RANKING_PAGE]
            ranked = db.scalar(select(func.count()).select_from(PlayerRating).where(established)) or 0

            def place_of(value: int) -> int:
                return 1 + (db.scalar(select(func.count()).select_from(PlayerRating)
                                      .where(established, PlayerRating.display > value)) or 0)

            players: list[dict[str, Any]] = []
            for index, (row, name) in enumerate(rows):
                if index == 0:
                    place = place_of(row.display)
                elif row.display != players[-1]["shown"].value:
                    place = (page - 1) * RANKING_PAGE + index + 1
                else:
                    place = players[-1]["place"]
                players.append({"place": place, "name": name, "me": user is not None and row.user_id == user.id,
                                "shown": RatingShown.of(row.mu, row.sigma, row.rated_games)})
            mine = None
            if user is not None:
                own = db.get(PlayerRating, user.id)
                if own is not None and own.rated_games > 0:
                    shown = RatingShown.of(own.mu, own.sigma, own.rated_games)
                    mine = {"shown": shown,
                            "place": place_of(own.display),
                            "to_go": max(0, PROVISIONAL_GAMES - own.rated_games)}
            bots = [{"level": b.level, "shown": RatingShown.of(b.mu, b.sigma, b.games),
                     "place": place_of(b.display), "calibrated_at": aware(b.calibrated_at)}
                    for b in db.scalars(select(BotRating).order_by(BotRating.display.desc()))]
        return {"players": players, "page": page, "more": more, "ranked": ranked, "mine": mine,
                "bots": bots, "provisional_games": PROVISIONAL_GAMES}

    # -- "My games"

    def finished(self, user: User, page: int = 1, rated_only: bool = False
                 ) -> tuple[list[dict[str, Any]], bool]:
        """One page of the user's finished games, newest first; whether there are more."""
        query = select(GameResult).where(GameResult.user_id == user.id)
        if rated_only:
            query = query.where(GameResult.rated.is_(True))
        with self._reads() as db:
            mine = list(db.scalars(query.order_by(GameResult.finished_at.desc(),
                                                  GameResult.game_id.desc())
                                   .offset((page - 1) * RESULTS_PAGE).limit(RESULTS_PAGE + 1)))
            more = len(mine) > RESULTS_PAGE
            return self._with_tables(db, mine[:RESULTS_PAGE]), more

    def stopped(self, user: User, limit: int = STOPPED_SHOWN) -> list[Game]:
        """The user's newest games that ended without finishing: expired before the
        start, abandoned (nobody left at the table, or left untouched) or cancelled."""
        with self._reads() as db:
            return list(db.scalars(
                select(Game).join(Seat, Seat.game_id == Game.id)
                .where(Seat.user_id == user.id,
                       Game.status.in_(("expired", "abandoned", "cancelled")))
                .order_by(Game.updated_at.desc(), Game.id.desc()).limit(limit)))

    def running(self, user: User, rated_only: bool = False) -> list[dict[str, Any]]:
        """The user's games that are not over (waiting or running), with whose turn it
        is, the round and the other players."""
        entries = self.lobby.my_games(user, ended=0)
        out = []
        for entry in entries:
            game: Game = entry["game"]
            if game.status not in ("lobby", "starting", "active"):
                continue  # one that ended as it was looked at
            if rated_only and not game.rated:
                continue
            seats = self.lobby.started_seats(game)
            entry["opponents"] = [s["name"] or ("open seat" if s["kind"] == "open" else "invited")
                                  for s in seats if s["seat"] != entry["seat"]]
            out.append(entry)
        return out
