"""Tables of the web app: accounts, and lobby games with their seats. The play itself
(log, drafts, seed) lives in the turn framework's tables (`elgrande.matches.tables`); a game
points at its match once it has started. Created by migration 0002_web."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from elgrande.db.base import Base


def utcnow() -> datetime:
    return datetime.now(UTC)


class User(Base):
    __tablename__ = "web_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    # NFKC + case fold (server/names.py): one account per key. Migration 0004 suffixed
    # the keys of older duplicates ("~" and the id), so they still log in by exact name.
    name_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    name_skeleton: Mapped[str] = mapped_column(String(96), index=True)  # look-alikes
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)  # None: guest
    is_guest: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # In every session cookie and CSRF token; logout, a password change and "log out
    # everywhere" advance it, which ends the sessions that carry the old value.
    session_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Email notifications (server/mail/): nothing but the confirmation link is sent to an
    # address until it is confirmed; changing it starts over. Preference: turn, digest, none.
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    email_confirmed: Mapped[bool] = mapped_column(default=False, server_default=false())
    email_pref: Mapped[str] = mapped_column(String(8), default="turn", server_default="turn")
    email_digest_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # IANA zone name: playing hours of daily tables count in it (server/clocks/).
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    # Moderation (server/moderation.py): "admin" (set by `elgrande admin grant`) or
    # "player"; a ban ends every session and refuses logins; a chat mute silences the chat.
    role: Mapped[str] = mapped_column(String(16), default="player", server_default="player")
    banned_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    chat_muted_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                              nullable=True)
    # The language picked in the header's switch (server/i18n/); None: the browser's
    # Accept-Language decides.
    language: Mapped[str | None] = mapped_column(String(8), nullable=True)


class Game(Base):
    __tablename__ = "web_games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    invite_token: Mapped[str] = mapped_column(String(64), unique=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("web_users.id"))
    players: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    # lobby, starting, active, finished; expired (never started in time), abandoned
    # (no human left at the table, or a "Play now" game left untouched): server/seats.py
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), nullable=True, unique=True)
    # The creator's client address, for the lobby caps per address (None: unknown).
    created_from: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Rated (the result changes the players' ratings, server/ratings.py) or friendly;
    # chosen at creation.
    rated: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Who reads the table chat (server/chat.py): "all" (spectators read it, only players
    # write) or "players" (spectators see none).
    chat: Mapped[str] = mapped_column(String(8), default="all", server_default="all")
    # The rule set, chosen at creation: "yucata" (the default) or "box" (the publisher's
    # rules, docs/box-rules.md); the match's configuration records it too.
    rules: Mapped[str] = mapped_column(String(8), default="yucata", server_default="yucata")


class Seat(Base):
    __tablename__ = "web_seats"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_web_seats_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # open, invited, human, bot
    # Indexed (0009_ratings): a player's games are looked up by it ("My games", lobby).
    user_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id"), nullable=True,
                                                index=True)
    invited_name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # Set when the player (user_id, kept) resigned: the seat is then a "bot" standing in;
    # the committed move and the round at which they resigned (server/seats.py).
    resigned_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    resigned_round: Mapped[int | None] = mapped_column(Integer, nullable=True)


class MailOutbox(Base):
    """Emails waiting to be sent (server/mail/outbox.py): queued in the request or the
    commit's aftermath, sent by a background worker; a row is claimed by one process."""

    __tablename__ = "mail_outbox"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                                nullable=True, index=True)
    kind: Mapped[str] = mapped_column(String(16))  # confirm, turn, digest
    to_addr: Mapped[str] = mapped_column(String(254), index=True)
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    unsubscribe_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    status: Mapped[str] = mapped_column(String(8), default="queued", index=True)  # queued, sent, failed
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class MailTurn(Base):
    """A human seat whose turn has been announced (one email per game per turn): made
    when the turn passes to the seat, removed when it has moved. The primary key makes
    the announcement happen once, whichever process hears the commit first."""

    __tablename__ = "mail_turns"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)  # the commit that handed the turn over


class GameClock(Base):
    """A clocked game's pace (``clocks.rules.ClockRules`` as a dict, fixed at creation)
    and the match commit its seats' clocks are settled at (server/clocks/keeper.py)."""

    __tablename__ = "game_clocks"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    seq: Mapped[int] = mapped_column(Integer, default=-1)  # -1: not started


class SeatClockRow(Base):
    """One human seat's clock (``clocks.bank.SeatClock``). ``deadline`` and
    ``remind_at`` are indexed: the keeper sleeps until the earliest of all."""

    __tablename__ = "seat_clocks"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bank: Mapped[float] = mapped_column(Float)
    started: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True,
                                                      index=True)
    remind_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True,
                                                       index=True)
    away_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    paused_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    holiday_used: Mapped[float] = mapped_column(Float, default=0.0)  # seconds
    timeouts: Mapped[int] = mapped_column(Integer, default=0)


class StandInTurn(Base):
    """A turn a computer played for a player whose clock had run out: the commit that
    ended at ``seq``. (A resigned player's turns are known from ``Seat.resigned_seq``.)"""

    __tablename__ = "stand_in_turns"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)


# -- ratings, results and the players' statistics (server/ratings.py, server/profiles.py,
# docs/ratings.md). Created by migration 0009_ratings.


class PlayerRating(Base):
    """A player's rating (openskill's mu and sigma) and running totals, one row per
    player who finished a game. Every recording locks the rows of its game's players
    first (in user order), so two games finishing at once update one player in turn."""

    __tablename__ = "player_ratings"
    user_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                         primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    # The conservative display value (mu - 3 sigma, scaled): what the ranking sorts by.
    display: Mapped[int] = mapped_column(Integer, index=True)
    rated_games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingHistory(Base):
    """A player's rating after each rated game (the profile's chart); once per game."""

    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("user_id", "game_id", name="uq_rating_history_game"),
                      Index("ix_rating_history_user", "user_id", "id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    display: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameOutcome(Base):
    """A finished game, recorded once: the primary key is what makes the recording (and
    the rating update) happen exactly once, whichever process sees the finish first."""

    __tablename__ = "game_outcomes"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    rated: Mapped[bool] = mapped_column(default=False)  # ratings changed
    note: Mapped[str] = mapped_column(String(80), default="")  # why not, if not


class GameResult(Base):
    """One seat of a finished game: who, how it placed (resigned and away players last),
    its score and margin (over the best other score)."""

    __tablename__ = "game_results"
    __table_args__ = (
        Index("ix_game_results_user_time", "user_id", "finished_at", "game_id"),
        Index("ix_game_results_user_rated_time", "user_id", "rated", "finished_at", "game_id"),
    )
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id", ondelete="SET NULL"),
                                                nullable=True)
    kind: Mapped[str] = mapped_column(String(8))  # human, bot, resigned, away
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    place: Mapped[int] = mapped_column(Integer)  # 1: first (shared when tied)
    score: Mapped[int] = mapped_column(Integer)
    margin: Mapped[int] = mapped_column(Integer)  # score minus the best other score
    won: Mapped[bool] = mapped_column(default=False)
    players: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(default=False)  # the game changed ratings
    rating_change: Mapped[int | None] = mapped_column(Integer, nullable=True)  # display points
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerCountStat(Base):
    """A player's totals per player count (the profile reads these few rows, not every
    game): kept up to date as games are recorded."""

    __tablename__ = "player_count_stats"
    user_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                         primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    score_sum: Mapped[int] = mapped_column(Integer, default=0)
    margin_sum: Mapped[int] = mapped_column(Integer, default=0)


class PlayerCardStat(Base):
    """A player's action cards (from the game logs, ``take`` actions): how often taken,
    in how many games, and in how many won games."""

    __tablename__ = "player_card_stats"
    user_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                         primary_key=True)
    card: Mapped[str] = mapped_column(String(4), primary_key=True)
    taken: Mapped[int] = mapped_column(Integer, default=0)
    games: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)


class BotRating(Base):
    """A computer level's rating from the calibration pool (`elgrande ratings
    calibrate`): its own games against the other levels, never against players."""

    __tablename__ = "bot_ratings"
    level: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    display: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer, default=0)
    calibrated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatMessage(Base):
    """A line of a game's table chat (server/chat.py): kept with the game, never in its
    record; ``hidden`` by a moderator."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_game", "game_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(String(500))
    hidden: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatMute(Base):
    """A player does not want to read another player's chat lines (anywhere)."""

    __tablename__ = "chat_mutes"
    user_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                         primary_key=True)
    muted_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                          primary_key=True)


class Report(Base):
    """A player's report of a chat line or of a name, for the moderators."""

    __tablename__ = "reports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))  # message, name
    target_id: Mapped[int] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                           index=True)
    message_id: Mapped[int | None] = mapped_column(
        ForeignKey("chat_messages.id", ondelete="CASCADE"), nullable=True)
    reason: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(8), default="open", index=True)  # open, done
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ModerationEntry(Base):
    """What a moderator did, and to whom: every action is logged."""

    __tablename__ = "moderation_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    admin_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id", ondelete="SET NULL"),
                                                 nullable=True)
    action: Mapped[str] = mapped_column(String(16))  # grant, revoke, mute, ban, unban, ...
    target_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id", ondelete="SET NULL"),
                                                  nullable=True)
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    detail: Mapped[str] = mapped_column(String(500), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class VetoPreference(Base):
    """A Veto holder's "no veto this turn / this round" (server/veto.py): the server
    answers his veto windows with ``pass`` while it holds. ``scope`` "turn": while
    ``active`` is the active player in round ``round``; "round": all of round ``round``."""

    __tablename__ = "veto_preferences"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    scope: Mapped[str] = mapped_column(String(8))  # turn, round
    round: Mapped[int] = mapped_column(Integer)
    active: Mapped[int] = mapped_column(Integer)  # -1 for a round
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class VetoWait(Base):
    """An open veto window of a game, waiting for a human holder until ``deadline``;
    then the server passes for him (server/veto.py). One per game; removed by the pass
    that ends it, whichever process enters it (a conditional delete in that commit)."""

    __tablename__ = "veto_waits"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)  # the match's head when the window opened
    seat: Mapped[int] = mapped_column(Integer)
    deadline: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class Review(Base):
    """The coach's review of one seat's decisions (docs/coach.md), cached per game, seat and
    the log length it covers (``upto``): a finished game's once, a running friendly game's
    again only after new moves. ``status``: pending, running, done, failed; ``result``: the
    findings (JSON, no text: worded for each reader); ``done`` of ``total`` decisions judged
    so far. Written by server/reviews.py; created by migration 0013_reviews."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("game_id", "seat", "upto", name="uq_reviews_game_seat_upto"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    upto: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(8))
    requested_by: Mapped[int | None] = mapped_column(
        ForeignKey("web_users.id", ondelete="SET NULL"), nullable=True)
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
