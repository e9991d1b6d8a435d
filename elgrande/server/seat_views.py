"""Seat views: what each seat (or a spectator) of a running game is shown, built once
per change and kept as JSON text, shared by the HTTP answers and every page of that
seat. The secrets are cut in ``present`` (the one place); this module only builds and
caches what it returns, keyed by what a view is a function of.

All methods are synchronous; the web layer calls them from worker threads, except
``remembered_state``, which reads no database and may run on the event loop."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import orjson

from elgrande.cache import Lru
from elgrande.matches import Match, MatchStore, draft_version
from elgrande.rules import Action, Event, State, apply, new_game

from .errors import PlayError
from .i18n import _, current
from .lobby import Lobby
from .present import EntryLines, entry_lines, hidden_secrets, move_log, present, seat_names
from .tables import Game

EVENT_CACHE_SIZE = 256  # matches whose replay (for the log's scorings) is kept in memory
VIEW_CACHE_SIZE = 4096  # seat views (as JSON) kept in memory
# Estimated bytes the caches may hold: their entries grow with the length of a game, so
# a count alone lets memory climb as long games fill them (docs/deploy.md, soak run).
VIEW_CACHE_BYTES = 32 << 20
LOG_CACHE_BYTES = 16 << 20  # each of: the logs as shown, the public logs, the log in words
LINE_BYTES = 400  # a log entry in words (its sentences and their parts), estimated


@dataclass(frozen=True)
class ShownLog:
    """A move log as sent: the JSON of each line, and whether it is the public one (no
    secret choice unrevealed: the same for everyone, and only ever extended). The lines
    are shared with the log one entry shorter; the whole text is joined when sent, not
    kept (kept, every cached view pinned a copy of its whole log)."""

    lines: tuple[str, ...]
    public: bool

    @classmethod
    def of(cls, lines: tuple[str, ...], public: bool) -> ShownLog:
        return cls(lines, public)

    @property
    def text(self) -> str:
        """The whole log as a JSON array."""
        return f"[{','.join(self.lines)}]"

    def weight(self) -> int:
        """Estimated bytes, its lines counted in full (they may be shared)."""
        return 8 * len(self.lines) + sum(map(len, self.lines)) + 100


@dataclass(frozen=True)
class SeatState:
    """One seat's (or a spectator's) view of a game as sent to its pages. ``key`` names
    what it was built from, the committed sequence and the seat's draft, so equal keys
    mean equal views: each is built once per change, whoever asks. Only JSON text is
    kept (cheap for the garbage collector, however many views are cached)."""

    key: tuple[Any, ...]
    head: str  # the view's JSON object without its log and closing brace
    log: ShownLog

    @property
    def text(self) -> str:
        return f'{self.head},"log":{self.log.text}}}'

    @property
    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = orjson.loads(self.text)
        return found

    def text_after(self, lines_seen: int | None) -> str:
        """The view for a page that holds the first ``lines_seen`` lines of the public
        log: only the lines after them ("log_from" says where they go)."""
        if lines_seen is None or not self.log.public or lines_seen > len(self.log.lines):
            return self.text
        rest = ",".join(self.log.lines[lines_seen:])
        return f'{self.head},"log_from":{lines_seen},"log":[{rest}]}}'


def to_json(value: Any) -> str:
    """Compact JSON, as the pages get it (orjson: views are built many times a second)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _view_weight(key: Any, view: SeatState) -> int:
    # Its log's lines are shared with the other views of the match: only its own tuple.
    return len(view.head) + 8 * len(view.log.lines) + 300


def view_key(match_id: str, seat: int | None, seq: int, version: str) -> tuple[Any, ...]:
    """What a seat's view is a function of: the committed sequence and its draft."""
    return (match_id, seat, seq, version if seat is not None else "")


class SeatViews:
    def __init__(self, lobby: Lobby, store: MatchStore) -> None:
        self.lobby = lobby
        self.store = store
        # per match: (entries replayed, the state after them frozen, their events); frozen,
        # the state is not walked by the garbage collector (State.frozen)
        self._events: dict[str, tuple[int, tuple[object, ...], list[list[dict[str, Any]]]]] = {}
        self._events_lock = threading.Lock()
        self._views: Lru[tuple[Any, ...], SeatState] = Lru(
            VIEW_CACHE_SIZE, budget=VIEW_CACHE_BYTES, weigh=_view_weight)
        self._lines: Lru[tuple[str, str], tuple[EntryLines, ...]] = Lru(  # log in words
            EVENT_CACHE_SIZE, budget=LOG_CACHE_BYTES, weigh=lambda _, v: LINE_BYTES * len(v))
        self._logs: Lru[tuple[Any, ...], ShownLog] = Lru(
            EVENT_CACHE_SIZE, budget=LOG_CACHE_BYTES, weigh=lambda _, log: log.weight())
        # per match: (entries, log) of the public log last made
        self._public_logs: Lru[tuple[str, str], tuple[int, ShownLog]] = Lru(
            EVENT_CACHE_SIZE, budget=LOG_CACHE_BYTES, weigh=lambda _, v: v[1].weight())

    def match(self, game: Game) -> Match:
        if game.match_id is None:
            raise PlayError("not_started", _("this game has not started"))
        return self.store.load(game.match_id)

    def snapshot(self, game: Game, seat: int | None) -> dict[str, Any]:
        return self.seat_state(game, seat).data

    def seat_state(self, game: Game, seat: int | None) -> SeatState:
        """What ``seat`` (None: a spectator) is shown now."""
        if game.match_id is None:
            raise PlayError("not_started", _("this game has not started"))
        # Only this seat's draft is read: no other seat's draft is ever in the view.
        return self.view_of(game, self.store.load_seat(game.match_id, seat), seat)

    def remembered_state(self, game: Game, seat: int | None, seq: int, version: str
                         ) -> SeatState | None:
        """``seat_state`` when a change notice said the match is at ``seq`` with the
        seat's draft at ``version``, from this process's memory alone (no database, no
        waiting: fit for the event loop); None if it does not hold it."""
        if game.match_id is None:
            return None
        found = self.known_state(view_key(game.match_id, seat, seq, version))
        if found is not None:
            return found
        match = self.store.cached_seat(game.match_id, seq, seat, version)
        return None if match is None else self.view_of(game, match, seat)

    def known_state(self, key: tuple[Any, ...]) -> SeatState | None:
        """A view already built (in this process) for ``key``, in the reader's language."""
        return self._views.get(key + (current().code,))

    def view_of(self, game: Game, match: Match, seat: int | None) -> SeatState:
        """The view of ``seat`` of ``match`` (loaded with that seat's draft only)."""
        draft = match.drafts.get(seat) if seat is not None else None
        key = view_key(match.id, seat, match.seq, draft_version(draft))
        # Texts are made in the reader's language (i18n): every cache below is per language.
        lang = current().code
        found = self._views.get(key + (lang,))
        if found is not None:
            return found
        events = self.events(match)
        names = self._names(game)
        known = self._lines.get((match.id, lang)) or ()
        lines = entry_lines(match.actions, events, names, known)
        if len(lines) > len(known):
            self._lines.put((match.id, lang), lines)
        # The move log is most of a view and, but for unrevealed secret choices, the same
        # for everyone: its JSON is made once per (match, sequence, what is hidden).
        log = match.actions
        unrevealed = hidden_secrets(match.state, log)
        hidden = {i for i in unrevealed if log[i].seat != seat}
        # (The seat whose secret choice alone is unrevealed sees it: its own log.)
        log_key = (match.id, match.seq, tuple(sorted(hidden)), bool(unrevealed), lang)
        shown_log = self._logs.get(log_key)
        if shown_log is None:
            shown_log = self._log_shown(match.id, log, events, hidden, seat, names, lines,
                                        public=not unrevealed)
            self._logs.put(log_key, shown_log)
        data = present(match, seat, self.lobby.started_seats(game), game.id, events, log_shown=[])
        del data["log"]
        made = SeatState(key, to_json(data)[:-1], shown_log)
        self._views.put(key + (lang,), made)
        return made

    def _log_shown(self, match_id: str, log: list[Action], events: list[list[dict[str, Any]]],
                   hidden: set[int], seat: int | None, names: list[str],
                   lines: tuple[EntryLines, ...], public: bool) -> ShownLog:
        """The move log as ``seat`` sees it. When it is ``public`` (no secret choice
        unrevealed, so the same for everyone), the last one made for the match is
        extended by the new entries (the log only grows)."""
        if not public:
            made = move_log(log, events, hidden, seat, names, lines)
            return ShownLog.of(tuple(to_json(line) for line in made), False)
        lang = current().code
        seen, old = self._public_logs.get((match_id, lang)) or (0, ShownLog.of((), True))
        if seen > len(log):
            seen, old = 0, ShownLog.of((), True)
        added = move_log(log, events, hidden, seat, names, lines, start=seen)
        if not added:
            return old
        shown = ShownLog.of(old.lines + tuple(to_json(line) for line in added), True)
        self._public_logs.put((match_id, lang), (len(log), shown))
        return shown

    def _names(self, game: Game) -> list[str]:
        return seat_names(self.lobby.started_seats(game))

    def events(self, match: Match) -> list[list[dict[str, Any]]]:
        """The engine's events (scorings, reveals) after each log entry, in their JSON
        form (docs/api.md), as the move log shows them. The log
        only grows, so each match's replay is kept and extended."""
        with self._events_lock:
            cached = self._events.get(match.id)
            if cached is None or cached[0] > match.seq:
                cached = (0, new_game(match.config).frozen(), [])
            seq, frozen, events = cached
            added = match.log.actions[seq:]
            if added:
                state = State.thawed(frozen)
                for action in added:
                    produced: list[Event] = []
                    apply(state, action, produced)
                    events.append([event.to_dict() for event in produced])
                frozen = state.frozen()
            self._events.pop(match.id, None)
            self._events[match.id] = (match.seq, frozen, events)  # most recent last
            while len(self._events) > EVENT_CACHE_SIZE:
                self._events.pop(next(iter(self._events)))
            return events[:match.seq]
