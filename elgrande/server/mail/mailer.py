"""What the rest of the server asks of email: a player's address and preference, the
confirmation and unsubscribe links, the "your turn" emails after a commit, the daily
digest, and the background thread that does the slow work (nothing here runs in a
request but short database writes)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from elgrande.matches import MatchEvent, MatchStore

from ..accounts import user_named
from ..clocks.zones import valid_zone
from ..i18n import _, current, using
from ..lobby import Lobby
from ..tables import Game, MailOutbox, MailTurn, User
from . import texts
from .outbox import Outbox
from .tokens import MailTokens

log = logging.getLogger(__name__)

PREFERENCES = {"turn": "An email at every turn", "digest": "A daily digest of waiting games",
               "none": "No emails"}
# Deliberately plain: one @, no spaces or control characters, a dot in the domain.
EMAIL = re.compile(r"^[^@\s\x00-\x1f\x7f]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
DAY = timedelta(days=1)
LOOKS = 10  # rounds a new match is looked at again while its game is still starting
POLL = 30.0  # seconds between looks at the outbox when nothing wakes the worker


class MailRefused(ValueError):
    """A request about email that cannot be done; the message is for the player,
    ``status`` the HTTP status that says why (400 bad input, 429 too many)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Mailer:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 lobby: Lobby, store: MatchStore, tokens: MailTokens, outbox: Outbox,
                 base_url: str, confirmations_per_day: int) -> None:
        self.sessions, self.reads = sessions, reads
        self.lobby, self.store = lobby, store
        self.tokens, self.outbox = tokens, outbox
        self.base_url = base_url.rstrip("/")
        self.confirmations_per_day = confirmations_per_day
        self._pending: dict[str, int] = {}  # match ids to look at: how often looked
        self._lock = threading.Lock()
        self._round = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.outbox.clock

    # -- the account page and its links

    def set_email(self, user: User, email: str) -> bool:
        """Sets (or, empty, removes) the player's address; a new one gets a confirmation
        link and nothing else until it is confirmed. True when a link was sent."""
        if user.is_guest:
            raise MailRefused(_("Guests cannot receive emails: register first."))
        email = email.strip()
        if not email:
            with self.sessions.begin() as db:
                row = db.get_one(User, user.id)
                row.email, row.email_confirmed = None, False
            return False
        if len(email) > 254 or not EMAIL.match(email):
            raise MailRefused(_("That does not look like an email address."))
        with self.sessions.begin() as db:
            row = db.get_one(User, user.id, with_for_update=True)
            if row.email == email and row.email_confirmed:
                return False
            limit = self.confirmations_per_day
            if (self.outbox.recent(db, "confirm", user_id=user.id) >= limit
                    or self.outbox.recent(db, "confirm", to=email.lower()) >= limit):
                raise MailRefused(_("Too many confirmation emails today; try again tomorrow."),
                                  429)
            row.email, row.email_confirmed = email, False
            _drop_notices(db, user.id)  # nothing more for the old address
            link = f"{self.base_url}/email/confirm/{self.tokens.confirm(user.id, email)}"
            with using(language_of(row)):
                subject, body = texts.confirm(row.name, link)
            # The address is counted lower-cased: case variants are one mailbox.
            self.outbox.queue(db, user_id=user.id, kind="confirm", to=email.lower(),
                              subject=subject, body=body)
        self._wake.set()
        return True

    def confirm(self, token: str) -> bool:
        """Confirms the address the link was made for, if it is still the player's."""
        found = self.tokens.check_confirm(token)
        if found is None:
            return False
        with self.sessions.begin() as db:
            row = db.get(User, found[0])
            if row is None or row.email != found[1]:
                return False
            row.email_confirmed = True
        return True

    # -- password reset: a link to the confirmed address, valid an hour, once

    def send_reset(self, name_or_email: str) -> None:
        """Sends a reset link if the name or address is an account's with a confirmed
        address. Says nothing either way (the caller answers the same), so nobody learns
        which accounts exist; limited per account as confirmations are."""
        wanted = name_or_email.strip()
        if not wanted:
            return
        with self.sessions.begin() as db:
            user = (db.scalars(select(User).where(func.lower(User.email) == wanted.lower(),
                                                  User.email_confirmed.is_(True))).first()
                    if "@" in wanted else user_named(db, wanted))
            if (user is None or user.is_guest or user.email is None or not user.email_confirmed
                    or user.password_hash is None):
                return
            if self.outbox.recent(db, "reset", user_id=user.id) >= self.confirmations_per_day:
                return
            link = f"{self.base_url}/password/reset/{self.tokens.reset(user.id, reset_fingerprint(user))}"
            with using(language_of(user)):
                subject, body = texts.reset(user.name, link)
            self.outbox.queue(db, user_id=user.id, kind="reset", to=user.email, subject=subject,
                              body=body)
        self._wake.set()

    def check_reset(self, token: str) -> User | None:
        """The account a reset link is for, while the link is good (an hour, once)."""
        found = self.tokens.check_reset(token)
        if found is None:
            return None
        with self.reads() as db:
            user = db.get(User, found[0])
        if user is None or user.password_hash is None or not hmac.compare_digest(
                reset_fingerprint(user), found[1]):
            return None
        return user

    def set_preference(self, user: User, preference: str) -> None:
        if preference not in PREFERENCES:
            raise MailRefused(_("Choose one of the offered preferences."))
        with self.sessions.begin() as db:
            db.get_one(User, user.id).email_pref = preference

    def unsubscribe_url(self, user_id: int, email: str) -> str:
        return f"{self.base_url}/email/unsubscribe/{self.tokens.unsubscribe(user_id, email)}"

    def unsubscribe(self, token: str) -> bool:
        found = self.tokens.check_unsubscribe(token)
        if found is None:
            return False
        with self.sessions.begin() as db:
            row = db.get(User, found[0])
            if row is None:
                return False
            if row.email == found[1]:  # a link to an earlier address changes nothing
                row.email_pref = "none"
                _drop_notices(db, row.id)
        return True

    # -- turns

    def on_event(self, event: MatchEvent) -> None:
        """Broker listener (the committing thread): only note the match. "created" too:
        the first mover of a new game is told as well."""
        if event.kind in ("commit", "created"):
            with self._lock:
                self._pending.setdefault(event.match_id, 0)
            self._wake.set()

    def announce_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for match_id, looks in pending.items():
            try:
                if not self.announce(match_id) and looks < LOOKS:
                    with self._lock:  # a game still starting: look again next round
                        self._pending.setdefault(match_id, looks + 1)
            except Exception:  # one game's trouble must not stop the others' emails
                log.exception("turn emails of a game failed")

    def announce(self, match_id: str) -> bool:
        """Each human seat the turn has just passed to is announced once (a MailTurn
        row); a seat that has moved is forgotten, so its next turn is announced again.
        False while the match's game is not known to be running yet."""
        game = self.lobby.by_match(match_id)
        if game is None or game.status in ("lobby", "starting"):
            return False
        if game.status != "active":
            return True
        view = self.store.view(match_id, None)
        waiting = set(view.to_act) if not view.over else set()
        if view.view["phase"] == "veto":
            waiting = set()  # a veto window sends no email (its holder has a minute)
        seats = {s["seat"]: s for s in self.lobby.started_seats(game)
                 if s["kind"] == "human" and s["user_id"] is not None}
        with self.reads() as db:  # most commits change nothing here: no write then
            announced = set(db.scalars(select(MailTurn.seat).where(MailTurn.game_id == game.id)))
        moved = announced - waiting
        if moved:
            with self.sessions.begin() as db:
                db.execute(delete(MailTurn).where(MailTurn.game_id == game.id,
                                                  MailTurn.seat.in_(moved)))
        for seat in sorted((waiting & set(seats)) - announced):
            try:
                with self.sessions.begin() as db:
                    db.add(MailTurn(game_id=game.id, seat=seat, seq=view.seq))
                    db.flush()  # another process announced it first: IntegrityError
                    user = db.get_one(User, seats[seat]["user_id"])
                    if _wants(user, "turn"):
                        self._queue_turn(db, user, game, seat)
            except IntegrityError:
                pass
        return True

    def _queue_turn(self, db: Session, user: User, game: Game, seat: int) -> None:
        assert user.email is not None
        unsubscribe = self.unsubscribe_url(user.id, user.email)
        with using(language_of(user)):  # the others' names too ("Computer 2 (easy)")
            others = [s["name"] for s in self.lobby.started_seats(game) if s["seat"] != seat]
            subject, body = texts.turn(user.name, game.id, others, self._game_link(game.id),
                                       unsubscribe)
        self.outbox.queue(db, user_id=user.id, kind="turn", to=user.email, subject=subject,
                          body=body, unsubscribe_url=unsubscribe)

    def _game_link(self, game_id: int) -> str:
        return f"{self.base_url}/games/{game_id}"

    # -- clocks (server/clocks/): a deadline near, a seat taken over

    def clock_notice(self, kind: str, game_id: int, user_id: int | None, deadline: datetime) -> bool:
        """``kind`` "reminder" (the deadline is near) or "timeout" (a computer plays
        the seat now); sent to players who want turn emails or digests. True if queued."""
        if user_id is None:
            return False
        with self.sessions.begin() as db:
            user = db.get(User, user_id)
            if user is None or not (_wants(user, "turn") or _wants(user, "digest")):
                return False
            assert user.email is not None
            url = self.unsubscribe_url(user.id, user.email)
            make = texts.reminder if kind == "reminder" else texts.timed_out
            with using(language_of(user)):
                subject, body = make(user.name, game_id, deadline, self._game_link(game_id),
                                     url, user.time_zone if valid_zone(user.time_zone or "") else "UTC")
            self.outbox.queue(db, user_id=user.id, kind=kind, to=user.email, subject=subject,
                              body=body, unsubscribe_url=url)
        self._wake.set()
        return True

    # -- the daily digest

    def digest(self) -> int:
        """One email to each digest player due one (a day after the last) with games
        waiting for them; returns how many were queued."""
        now = self.clock()
        with self.reads() as db:
            users = list(db.scalars(select(User).where(
                User.email_pref == "digest", User.email_confirmed.is_(True),
                User.is_guest.is_(False))).all())
        queued = 0
        for user in users:
            if user.email_digest_at is not None and _aware(user.email_digest_at) > now - DAY:
                continue
            with using(language_of(user)):
                games = [self._digest_line(g["game"], g["seat"])
                         for g in self.lobby.my_games(user) if g["my_turn"]]
            with self.sessions.begin() as db:
                row = db.get_one(User, user.id, with_for_update=True)
                if row.email_digest_at is not None and _aware(row.email_digest_at) > now - DAY:
                    continue  # another process sent it meanwhile
                row.email_digest_at = now
                if games and _wants(row, "digest"):
                    assert row.email is not None
                    url = self.unsubscribe_url(row.id, row.email)
                    with using(language_of(row)):
                        subject, body = texts.digest(row.name, games, url)
                    self.outbox.queue(db, user_id=row.id, kind="digest", to=row.email,
                                      subject=subject, body=body, unsubscribe_url=url)
                    queued += 1
        return queued

    def _digest_line(self, game: Game, seat: int) -> tuple[int, list[str], str]:
        names = [s["name"] for s in self.lobby.started_seats(game) if s["seat"] != seat]
        return game.id, names, self._game_link(game.id)

    # -- the background thread

    def work(self) -> None:
        """One round of the worker: announce turns, queue digests, send what is due.
        One round at a time: a round that has returned has seen every earlier commit."""
        with self._round:
            self.announce_pending()
            self.digest()
            self.outbox.send_due()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mail", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.work()
            except Exception:  # e.g. the database away for a moment: try again later
                log.exception("the mail worker's round failed")
            self._wake.wait(POLL)
            self._wake.clear()


def reset_fingerprint(user: User) -> str:
    """Changes with the password and the sessions: a used reset link is worth nothing."""
    made = f"{user.password_hash}:{user.session_generation}".encode()
    return hashlib.sha256(made).hexdigest()[:24]


def language_of(user: User) -> str:
    """The language of the emails to ``user``: the one chosen in the header's switch,
    kept in the account; else the language of the request that makes the email (a
    confirmation or a reset link), which outside a request is English."""
    return user.language or current().code


def _drop_notices(db: Session, user_id: int) -> None:
    """Unsent turn emails and digests of the user (confirmations stay: they count
    towards the limits)."""
    db.execute(delete(MailOutbox).where(MailOutbox.user_id == user_id,
                                        MailOutbox.status == "queued",
                                        MailOutbox.kind != "confirm"))


def _wants(user: User, kind: str) -> bool:
    return (not user.is_guest and user.email is not None and user.email_confirmed
            and user.email_pref == kind)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

