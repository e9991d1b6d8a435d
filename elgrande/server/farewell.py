"""Deleting an account: the player's running games go on with a computer in the seat
(as after resigning: ranked last), the games waiting for players are left (or, their
own, cancelled), unsent emails dropped; then the account forgets its name, password and
address (``Accounts.forget``): its seats in past games read "former player N"."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import delete

from .errors import LobbyError
from .tables import MailOutbox, User

log = logging.getLogger(__name__)


def leave_games(svc: Any, user: User) -> None:
    """The player's running games go on with a computer in their seat; their waiting
    games are left (their own: cancelled). ``svc``: the app's Services."""
    for entry in svc.lobby.my_games(user):
        game = entry["game"]
        try:
            if game.status == "active":
                svc.play.resign(game.id, user)
                svc.bots.kick(game.id)
            elif game.status == "lobby":
                (svc.lobby.cancel if game.creator_id == user.id else svc.lobby.leave)(game.id, user)
                svc.hub.publish(f"room:{game.id}")
        except LobbyError:
            pass  # resigned already, finished meanwhile: nothing to do


def delete_account(svc: Any, user: User) -> str:
    """``svc``: the app's Services. Returns the name the account's seats keep."""
    leave_games(svc, user)
    with svc.sessions.begin() as db:
        db.execute(delete(MailOutbox).where(MailOutbox.user_id == user.id,
                                            MailOutbox.status == "queued"))
    name = str(svc.accounts.forget(user.id))
    log.info("account %s deleted", user.id)
    return name
