""""Play again with the same players": a finished game's seats as a new waiting game.

The player who asks takes their own seat again; every other player who sat at the table
(one who resigned, or whose clock ran out, too) is invited by name; every computer seat
gets a computer of the same level; the players, rounds, pace and rated or friendly are
the old game's. It is an ordinary new game: the lobby's caps and checks apply (a rated
table needs every player eligible), and the others find the invitation in their lobby."""

from __future__ import annotations

from .clocks import ClockKeeper
from .errors import LobbyError
from .i18n import _
from .lobby import UNKNOWN_ADDRESS, Lobby, SeatSpec
from .tables import Game, User


def seat_specs(seats: list[dict[str, object]], user: User) -> list[SeatSpec]:
    """The new game's seats from the old game's (``Lobby.seats``), for ``user``."""
    specs = []
    for s in seats:
        if s["user_id"] == user.id:
            specs.append(SeatSpec("me"))
        elif s["user_id"] is not None and s["name"]:
            specs.append(SeatSpec("invited", invited_name=str(s["name"])))
        elif s["kind"] == "bot":
            specs.append(SeatSpec("bot", bot_level=str(s["bot_level"] or "random")))
        else:  # a seat whose account is gone: open for anyone
            specs.append(SeatSpec("open"))
    return specs


def play_again(lobby: Lobby, clocks: ClockKeeper, game_id: int, user: User,
               address: str = UNKNOWN_ADDRESS) -> Game:
    """The new waiting game (LobbyError, nothing created, if refused)."""
    game = lobby.get(game_id)
    if game is None:
        raise LobbyError(_("No such game."))
    seats = lobby.seats(game_id)
    if not any(s["user_id"] == user.id for s in seats):
        raise LobbyError(_("Only the players of a game can play it again."))
    if game.status != "finished":
        raise LobbyError(_("Only a finished game can be played again."))
    return lobby.create(user, game.players, game.rounds, seat_specs(seats, user), address,
                        clock=clocks.rules_of(game_id), rated=game.rated,
                        rules=game.rules or "yucata")


def invitations(seats: list[dict[str, object]], user: User) -> int:
    """How many players by name the new game invites (each is a name lookup)."""
    return sum(1 for spec in seat_specs(seats, user) if spec.kind == "invited")
