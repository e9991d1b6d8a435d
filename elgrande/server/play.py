"""Play: a seat's commands (step, undo, redo, finish) through the turn framework, and
the computer seats' turns. Each answer is the seat's view after the command.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

from typing import Any

from elgrande.matches import GameMovedOn, MatchError, MatchStore

from .commands import Command
from .errors import PlayError, from_match_error
from .lobby import Lobby
from .seat_views import SeatState, SeatViews
from .tables import Game


class Play:
    def __init__(self, store: MatchStore, lobby: Lobby, views: SeatViews) -> None:
        self.store = store
        self.lobby = lobby
        self.views = views

    def act(self, game: Game, seat: int, command: Command) -> SeatState:
        """One command of a seat; returns the seat's view after it. A refused one raises
        PlayError (carrying the fresh view when the game moved on) and changes nothing."""
        if game.match_id is None:
            raise PlayError("not_started", "this game has not started")
        mid = game.match_id
        try:
            match = self.store.play(mid, seat, command.kind, command.action,
                                    base_seq=command.seq)
            if command.commits_at_once:
                match = self.store.play(mid, seat, "finish", base_seq=match.seq)
        except GameMovedOn as exc:
            raise from_match_error(exc, self.views.view_of(game, exc.match, seat)) from None
        except MatchError as exc:
            raise from_match_error(exc) from None
        if match.over:  # only a commit ends a match
            self.lobby.mark_finished(mid)
        return self.views.view_of(game, match, seat)

    def after_commit(self, match_id: str) -> None:
        """Marks a game finished if its match is over (for commits made elsewhere)."""
        if self.store.load(match_id).over:
            self.lobby.mark_finished(match_id)

    # ------------------------------------------------------------------ bots

    def bot_work(self, game_id: int) -> list[tuple[int, str, dict[str, Any], int]]:
        """(seat, level, committed state, seq) for each bot seat that is to act now."""
        game = self.lobby.get(game_id)
        if game is None or game.status != "active" or game.match_id is None:
            return []
        levels = {s["seat"]: s["bot_level"] or "random"
                  for s in self.lobby.started_seats(game) if s["kind"] == "bot"}
        match = self.store.load(game.match_id)
        if match.over:
            return []
        # A bot gets only what its seat may see: never another seat's unrevealed secret choice.
        return [(s, levels[s], match.redacted_state(s).to_dict(), match.seq)
                for s in match.seat_view(None).to_act if s in levels]

    def play_bot_steps(self, game_id: int, seat: int, steps: list[str], seq: int) -> bool:
        """Enters a bot's thought-out turn and finishes it; False if the game moved on
        meanwhile (the bot will think again on the new state)."""
        game = self.lobby.get(game_id)
        if game is None or game.match_id is None or not steps:
            return False
        mid = game.match_id
        try:
            view = self.store.view(mid, seat)
            if view.draft and view.draft["steps"]:
                return False  # never happens for a bot seat; never clobber a draft
            for text in steps:
                self.store.play(mid, seat, "step", text, base_seq=seq)
            over = self.store.play(mid, seat, "finish", base_seq=seq).over
        except MatchError:
            for _ in range(len(steps)):  # drop whatever part of the turn got in
                try:
                    self.store.play(mid, seat, "undo")
                except MatchError:
                    break
            return False
        if over:
            self.lobby.mark_finished(mid)
        return True
