"""Play: a seat's commands (step, undo, redo, finish) through the turn framework, and
the computer seats' turns. Each answer is the seat's view after the command.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session, sessionmaker

from elgrande.db.plain import PlainSql
from elgrande.matches import Check, GameMovedOn, Match, MatchError, MatchStore, Within
from elgrande.rules import parse_action

from .bots import bot_seed
from .commands import Command
from .errors import LobbyError, PlayError, from_match_error
from .i18n import _
from .lobby import Lobby
from .metrics import Metrics
from .seat_views import SeatState, SeatViews
from .seats import Resign
from .tables import Game, User

if TYPE_CHECKING:
    from .clocks import ClockKeeper
    from .veto import VetoWatch


STOPPED = ("abandoned", "cancelled")  # games stopped before their end (no more commits)

# Read inside every commit's transaction (plain SQL: it runs at every commit). With
# PostgreSQL the seat row is share-locked, so a resignation being written is waited for.
_GUARD_SQL = {
    "seat_in_play": "SELECT g.status, s.resigned_seq FROM web_games g "
                    "JOIN web_seats s ON s.game_id = g.id "
                    "WHERE g.id = %(game)s AND s.seat = %(seat)s {FOR SHARE OF s}",
}


def both(first: Within, then: Within) -> Within:
    """Two parts of a commit's transaction, in order."""

    def within(conn: Connection, match: Match) -> None:
        first(conn, match)
        then(conn, match)

    return within


@dataclass(frozen=True)
class BotTurn:
    """A bot seat to move: what it may see, and its seed (from the match's SECRET seed,
    so nobody can rerun the bot before the reveal; the same again on a replay)."""

    seat: int
    level: str
    state: dict[str, Any]
    seq: int
    seed: int
    user_id: int  # whose game it is: thinking is shared fairly between users


class Play:
    def __init__(self, store: MatchStore, lobby: Lobby, views: SeatViews,
                 metrics: Metrics | None = None, *, sessions: sessionmaker[Session] | None = None,
                 stand_in_level: str = "medium", clocks: ClockKeeper | None = None) -> None:
        self.store = store
        self.clocks = clocks  # turn clocks: a computer plays the seats whose time ran out
        self.lobby = lobby
        self.views = views
        self.metrics = metrics or Metrics()
        # Resigning writes the web tables (``sessions``: the app's writes).
        self.resigning = Resign(sessions, lobby, store, stand_in_level) if sessions else None
        # Veto windows (box rules): set by the app once built (it needs ``pass_for``).
        self.veto: VetoWatch | None = None
        self._sql = PlainSql(store.engine.dialect.name, _GUARD_SQL)

    def resign(self, game_id: int, user: User) -> Game:
        """The user gives up their seat: a computer plays it on (LobbyError if refused)."""
        if self.resigning is None:
            raise LobbyError(_("Resigning is not available here."))
        game = self.resigning.resign(game_id, user)
        if self.clocks is not None:
            self.clocks.settle(game_id, force=True)  # the resigned seat's clock stops
        return game

    def act(self, game: Game, seat: int, command: Command,
            check: Check | None = None) -> SeatState:
        """One command of a seat; returns the seat's view after it. A refused one raises
        PlayError (carrying the fresh view when the game moved on) and changes nothing.
        ``check(conn)``: the caller's own check (the page's session still holds), run
        first in the command's transaction; what it raises refuses the command."""
        with self.metrics.command(command.kind):
            return self._act(game, seat, command, check)

    def _act(self, game: Game, seat: int, command: Command,
             check: Check | None) -> SeatState:
        if game.match_id is None:
            raise PlayError("not_started", _("this game has not started"))
        mid = game.match_id
        if self._clocked(game) and self.clocks is not None and self.clocks.is_away(game.id, seat):
            if check is not None:  # (before taking the seat back, not only in the command)
                with self.store.engine.connect() as conn:
                    check(conn)
            # Back after the clock ran out: acting takes the seat back from the computer
            # (a turn it is thinking out is then refused; one it committed stands, and
            # this command is answered against the new state).
            self.clocks.reclaim(game.id, seat)
        try:
            # Every commit checks the seat is still in play, and a clocked game's clocks
            # are settled, in the commit's own transaction.
            within = self._seat_in_play(game, seat)
            if self.clocks is not None and self._clocked(game):
                within = both(within, self.clocks.in_commit(game, seat))
            if command.commits_at_once and command.action is not None:
                # Step and finish in one transaction: a refusal then means nothing changed
                # (two separate ones could store the choice and still answer moved_on).
                match = self.store.play_turn(mid, seat, [command.action], base_seq=command.seq,
                                             within=within, check=check)
            else:
                match = self.store.play(mid, seat, command.kind, command.action,
                                        base_seq=command.seq, within=within, check=check)
            if command.kind == "step" and self.veto is not None:
                match = self._pass_if_preferred(game, seat, match)
        except GameMovedOn as exc:
            raise from_match_error(exc, self.views.view_of(game, exc.match, seat)) from None
        except MatchError as exc:
            if command.kind == "finish" or command.commits_at_once:
                # A refused commit of a seat that is out says so (not "nothing to finish").
                with self.store.engine.connect() as conn:
                    self._refuse_if_out(conn, game, seat)
            raise from_match_error(exc) from None
        if match.over:  # only a commit ends a match
            self.lobby.mark_finished(mid)
        return self.views.view_of(game, match, seat)

    def _seat_in_play(self, game: Game, seat: int) -> Within:
        """Refuses a commit (raising PlayError, so nothing is written) from a seat whose
        player resigned (a process may still remember the seat as theirs: the stand-in
        plays it now) or in a game that was stopped (the page's copy of the game is as
        old as the page): read in the commit's transaction, so neither can slip in
        between the check and the commit."""

        def within(conn: Connection, match: Match) -> None:
            self._refuse_if_out(conn, game, seat)

        return within

    def _refuse_if_out(self, conn: Connection, game: Game, seat: int) -> None:
        """Raises PlayError if the seat's player resigned or the game was stopped, as
        read on ``conn``."""
        rows = self._sql.run(conn, "seat_in_play", {"game": game.id, "seat": seat})
        if not rows:
            raise PlayError("not_found", _("No such game."))
        status, resigned_seq = rows[0]
        if resigned_seq is not None and self.resigning is not None:
            raise PlayError("resigned", _("You have resigned this game."))
        if status in STOPPED:
            raise PlayError("stopped", _("This game was stopped: nothing more can be played."))

    def _pass_if_preferred(self, game: Game, seat: int, match: Match) -> Match:
        """A step of the seat's own that opened a veto window for the seat itself (its
        losses to card 2c): its "no veto this turn / round" answers at once, in its draft."""
        draft = match.drafts.get(seat)
        assert self.veto is not None and game.match_id is not None
        if draft is None or not self.veto.prefers_pass(game.id, seat, draft.shown_state()):
            return match
        return self.store.play(game.match_id, seat, "step", parse_action(f"p{seat} pass"),
                               base_seq=match.seq)

    def _clocked(self, game: Game) -> bool:
        return (self.clocks is not None and game.match_id is not None
                and self.clocks.clocked_game(game.match_id) == game.id)

    def take_back(self, game: Game, seat: int) -> bool:
        """The one click that takes a seat back from the computer (False: it was not
        away)."""
        return self.clocks is not None and self._clocked(game) and self.clocks.reclaim(game.id, seat)

    def after_commit(self, match_id: str) -> None:
        """Marks a game finished if its match is over (for commits made elsewhere)."""
        if self.store.load(match_id).over:
            self.lobby.mark_finished(match_id)

    # ------------------------------------------------------------------ bots

    def bot_work(self, game_id: int) -> list[BotTurn]:
        """The turns of the bot seats that are to act now."""
        game = self.lobby.get(game_id)
        if game is None or game.status != "active" or game.match_id is None:
            return []
        seats = self.lobby.started_seats(game)
        levels = {s["seat"]: s["bot_level"] or "random" for s in seats if s["kind"] == "bot"}
        levels.update(self._stand_ins(game, {s["seat"] for s in seats if s["kind"] == "human"}))
        match = self.store.load(game.match_id)
        if match.over:
            return []
        turns = []
        for seat in match.seat_view(None).to_act:
            if seat in levels:
                # A bot thinks from the committed state: a draft left by a crash is dropped
                # when its turn is played (play_bot_steps).
                match.drafts.pop(seat, None)
                # Only what its seat may see: never another seat's unrevealed secret choice.
                turns.append(BotTurn(seat, levels[seat], match.redacted_state(seat).to_dict(),
                                     match.seq, bot_seed(match.seed, seat, match.seq),
                                     game.creator_id))
        return turns

    def _stand_ins(self, game: Game, humans: set[int]) -> dict[int, str]:
        """The away seats a computer plays now, with its level: only while some player
        is still at the table (a game of absent players waits for them, or is abandoned)."""
        if self.clocks is None or not self._clocked(game):
            return {}
        away = self.clocks.away_seats(game.id) & humans
        if not away or not humans - away:
            return {}
        rules = self.clocks.rules_of(game.id)
        level = rules.stand_in if rules is not None else "medium"
        return dict.fromkeys(away, level)

    def pass_for(self, game_id: int, seat: int, seq: int,
                 within: Callable[[Connection, Match], None] | None = None) -> bool:
        """The server answers a human holder's veto window with ``pass`` (his "no veto"
        choice, or the window's time is up: server/veto.py), committed as his turn the
        way a computer's turn is; False if refused (answered meanwhile, or ``within``,
        the caller's check in that transaction, refused it)."""
        game = self.lobby.get(game_id)
        if game is None or game.status != "active" or game.match_id is None:
            return False
        try:
            over = self.store.play_turn(game.match_id, seat, [f"p{seat} pass"], base_seq=seq,
                                        fresh=True, within=within).over
        except MatchError:
            return False
        if over:
            self.lobby.mark_finished(game.match_id)
        return True

    def play_bot_steps(self, game_id: int, seat: int, steps: list[str], seq: int) -> bool:
        """Enters a bot's thought-out turn and finishes it, in one transaction (a crash
        cannot leave half a turn); False if the game moved on meanwhile (the bot will
        think again on the new state)."""
        game = self.lobby.get(game_id)
        # Not once the game is stopped (abandoned: the last human resigned meanwhile).
        if game is None or game.status != "active" or game.match_id is None or not steps:
            return False
        within = None
        if self._clocked(game):
            assert self.clocks is not None
            within = self.clocks.in_commit(game, seat)
            if self.lobby.seat_kind(game_id, seat) == "human":
                # Standing in for an away player: refused if they came back meanwhile.
                within = both(self.clocks.stand_in_guard(game_id, seat), within)
        try:
            # fresh: whatever an older server left in the bot's draft is dropped (an
            # away player's unfinished turn too: their time ran out).
            over = self.store.play_turn(game.match_id, seat, steps, base_seq=seq, fresh=True,
                                        within=within).over
        except MatchError:
            return False
        if over:
            self.lobby.mark_finished(game.match_id)
        return True
