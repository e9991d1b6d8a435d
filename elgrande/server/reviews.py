"""The coach's reviews (docs/coach.md): who may ask for one, the cache (table ``reviews``,
one row per game, seat and log length), the quota per player, and the work, done one
decision at a time in the bot workers' low-priority lane (``BotRunner.work_low``),
behind every game move, never on the event loop or in a request's thread.

Who may ask: anyone signed in, for any seat of a finished game (finished games are
public: their record, seed included, is published); during a game only a player of a
friendly table, for their own seat; never during a rated game. Reading follows the same
rule (anyone may read a finished game's reviews). Every judgement is made from the
reviewed seat's redacted view at the time (``elgrande.ai.coach.decision_points``), and
the coach's randomness comes from the match's secret seed."""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from elgrande.ai.coach import Budget, decision_points
from elgrande.matches import MatchStore
from elgrande.rules import Action, parse_action

from .bot_runner import BotRunner
from .bots import coach_judge, coach_seed
from .hardening.limits import Limiter
from .i18n import _, ngettext
from .lobby import Lobby
from .present import AREA_NAMES, describe
from .tables import Game, Review, User, utcnow

log = logging.getLogger(__name__)

STALE = timedelta(minutes=15)  # a review still unfinished after this was lost: redo it
DAY = 24 * 3600.0

Judge = Callable[[dict[str, Any], int, dict[str, Any]], dict[str, Any]]


class ReviewRefused(Exception):
    """Not allowed, not found or over the quota: an HTTP status and a translated message."""

    def __init__(self, status: int, code: str, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


@dataclass(frozen=True)
class ReviewQuota:
    """New reviews per player within a day (0: no limit); a cached review is free."""

    limiter: Limiter  # its window is a day
    per_day: int

    def admit(self, user_id: int) -> None:
        if self.per_day <= 0:
            return
        key = f"coach:user:{user_id}"
        wait = self.limiter.retry_after(key, self.per_day)
        if wait > 0:
            hours = max(1, math.ceil(wait / 3600))
            raise ReviewRefused(429, "quota", ngettext(
                "You have asked for many reviews lately; try again in %(num)s hour.",
                "You have asked for many reviews lately; try again in %(num)s hours.", hours),
                int(wait) + 1)
        self.limiter.hit(key)


class Reviews:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 lobby: Lobby, store: MatchStore, runner: BotRunner, quota: ReviewQuota,
                 budget: Budget, now: Callable[[], datetime] = utcnow,
                 judge: Judge = coach_judge) -> None:
        self.sessions, self.reads = sessions, reads
        self.lobby, self.store, self.runner = lobby, store, runner
        self.quota, self.budget, self.now, self.judge = quota, budget, now, judge
        self.started = 0  # reviews set to work by this process (tests: cache hits add none)

    # ------------------------------------------------------------------ asking

    def request(self, game_id: int, seat: int, user: User) -> dict[str, Any]:
        """A review of ``seat`` up to the game's last committed move: the cached one, or a
        new one queued (counted against the user's quota). Raises ReviewRefused."""
        game = self._reviewable(game_id, seat, user)
        assert game.match_id is not None
        upto = self.store.load(game.match_id).seq
        with self.reads() as db:
            row = db.scalar(select(Review).where(Review.game_id == game.id, Review.seat == seat,
                                                 Review.upto == upto))
        if row is not None and not self._redo(row):
            return self.shown(row, game)
        self.quota.admit(user.id)
        row = self._queue(game.id, seat, upto, user.id, row)
        review_id, match_id = row.id, game.match_id
        seed = coach_seed(self.store.load(match_id).seed, seat)
        self.started += 1
        if not self.runner.spawn(lambda: self._work(review_id, match_id, seat, upto, seed)):
            self._mark(review_id, status="failed", error="not serving")
        return self.shown(row, game)

    def read(self, game_id: int, seat: int, user: User | None) -> dict[str, Any]:
        """The latest review of the seat (status "none" if nobody asked for one yet)."""
        game = self._reviewable(game_id, seat, user, reading=True)
        with self.reads() as db:
            row = db.scalar(select(Review).where(Review.game_id == game.id, Review.seat == seat)
                            .order_by(Review.upto.desc()).limit(1))
        if row is None:  # (not an error: the page asks on opening)
            return {"status": "none", "seat": seat}
        return self.shown(row, game)

    def _reviewable(self, game_id: int, seat: int, user: User | None,
                    reading: bool = False) -> Game:
        game = self.lobby.get(game_id)
        if game is None:
            raise ReviewRefused(404, "no_game", _("No such game."))
        if game.match_id is None:
            raise ReviewRefused(409, "not_started", _("This game has not started yet."))
        if not 0 <= seat < game.players:
            raise ReviewRefused(404, "no_seat", _("No such seat in this game."))
        if game.status == "finished":
            return game  # public, for every seat
        if game.status != "active":
            raise ReviewRefused(409, "stopped", _("This game was stopped before its end: "
                                                  "there is nothing to review."))
        if game.rated:
            raise ReviewRefused(403, "rated", _("Rated games are reviewed only when they end."))
        own = self.lobby.seat_of(game.id, user.id) if user is not None else None
        if own != seat:
            message = (_("During a game only the player of a seat may read its review.")
                       if reading else _("During a game only your own play can be reviewed."))
            raise ReviewRefused(403, "not_your_seat", message)
        return game

    def _redo(self, row: Review) -> bool:
        """A failed review, or one lost with its process, is made again."""
        if row.status == "failed":
            return True
        return row.status != "done" and self.now() - _aware(row.updated_at) > STALE

    def _queue(self, game_id: int, seat: int, upto: int, user_id: int,
               row: Review | None) -> Review:
        now = self.now()
        with self.sessions() as db:
            if row is not None:
                found = db.get(Review, row.id)
                assert found is not None
                found.status, found.done, found.total = "pending", 0, 0
                found.result, found.error, found.updated_at = None, None, now
                found.requested_by = user_id
                db.commit()
                return found
            fresh = Review(game_id=game_id, seat=seat, upto=upto, status="pending",
                           requested_by=user_id, done=0, total=0, created_at=now,
                           updated_at=now)
            db.add(fresh)
            try:
                db.commit()
            except IntegrityError:  # asked for twice at once: the other one works on it
                db.rollback()
                other = db.scalar(select(Review).where(Review.game_id == game_id,
                                                       Review.seat == seat, Review.upto == upto))
                assert other is not None
                return other
            return fresh

    # ------------------------------------------------------------------ the work

    async def _work(self, review_id: int, match_id: str, seat: int, upto: int,
                    seed: int) -> None:
        """On the event loop: hands the decisions to the workers one by one (so a game
        move waits for at most one of them); the database in threads."""
        loop = asyncio.get_running_loop()
        try:
            points = await loop.run_in_executor(None, self._points, match_id, seat, upto)
            await loop.run_in_executor(None, lambda: self._mark(
                review_id, status="running", total=len(points)))
            findings: list[dict[str, Any]] = []
            budget = self.budget.to_dict()
            for point in points:
                findings.append(await self.runner.work_low(self.judge, point, seed, budget))
                await loop.run_in_executor(None, lambda: self._mark(
                    review_id, done=len(findings)))
            result = {"decisions": len(points), "budget": budget, "findings": findings}
            await loop.run_in_executor(None, lambda: self._mark(
                review_id, status="done", result=result))
        except asyncio.CancelledError:
            raise  # shutting down: the row goes stale and is made again when asked
        except Exception:
            log.exception("coach review %s failed", review_id)
            await loop.run_in_executor(None, lambda: self._mark(
                review_id, status="failed", error="failed"))

    def _points(self, match_id: str, seat: int, upto: int) -> list[dict[str, Any]]:
        """The seat's decisions up to ``upto``, each with the seat's redacted view only."""
        match = self.store.load(match_id)
        points = decision_points(match.config, match.actions[:upto], seat)
        return [p.to_dict() for p in points]

    def _mark(self, review_id: int, **values: Any) -> None:
        with self.sessions() as db:
            db.execute(update(Review).where(Review.id == review_id)
                       .values(updated_at=self.now(), **values))
            db.commit()

    # ------------------------------------------------------------------ shown

    def shown(self, row: Review, game: Game) -> dict[str, Any]:
        """The review for the page, worded in the reader's language: the decisions the
        coach would have made otherwise and that its playouts price above zero, the
        biggest first."""
        names = [s.get("name") or f"{s['seat'] + 1}" for s in self.lobby.started_seats(game)]
        out: dict[str, Any] = {"seat": row.seat, "upto": row.upto, "status": row.status,
                               "done": row.done, "total": row.total, "error": None,
                               "decisions": None, "agreed": None, "mistakes": []}
        if row.status == "failed":
            out["error"] = _("The coach could not finish this review. Ask again later.")
        result = row.result or {}
        findings = result.get("findings") or []
        if row.status == "done":
            out["decisions"] = result.get("decisions", len(findings))
            out["agreed"] = sum(1 for f in findings if f["delta"] is None)
        worse = sorted((f for f in findings if f["delta"] is not None and f["delta"] > 0),
                       key=lambda f: (-f["delta"], f["index"]))
        out["mistakes"] = [dict(f, played_text=describe_line(f["played"], names),
                                coach_text=describe_line(f["coach"], names)) for f in worse]
        return out


def describe_line(notation: list[str], names: list[str]) -> str:
    """A decision in words: one action, or a whole deployment in one sentence."""
    actions: list[Action] = [parse_action(a) for a in notation]
    places = [a for a in actions if a.kind == "place"]
    if len(places) < 2:
        return " ".join(describe(a, names) for a in actions)
    counts = Counter(AREA_NAMES[a.arg] for a in places)
    where = ", ".join(area if n == 1 else f"{area} ×{n}" for area, n in counts.items())
    text = ngettext("%(who)s places %(num)s Caballero: %(where)s.",
                    "%(who)s places %(num)s Caballeros: %(where)s.", len(places),
                    who=names[places[0].seat], where=where)
    rest = [describe(a, names) for a in actions if a.kind != "place"]
    return " ".join([text, *rest])


def _aware(at: datetime) -> datetime:
    """SQLite gives naive datetimes back: they are UTC."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)

