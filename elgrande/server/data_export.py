"""A player's data, as the account page's "Download my data" gives it: the account (no
password hash, no session secrets) and every game with a seat of theirs."""

from __future__ import annotations

from typing import Any

from .tables import User


def account_data(svc: Any, user: User) -> dict[str, Any]:
    """``svc``: the app's Services."""
    fresh = svc.accounts.get(user.id) or user
    games = []
    for entry in svc.lobby.my_games(fresh):
        game = entry["game"]
        seats = svc.lobby.seats(game.id)
        games.append({
            "game": game.id, "status": game.status, "players": game.players,
            "rounds": game.rounds, "your_seat": entry["seat"],
            "created_at": game.created_at.isoformat() if game.created_at else None,
            "seats": [{"seat": s["seat"], "name": s["name"], "kind": s["kind"],
                       "resigned_round": s["resigned_round"]} for s in seats],
            "round": entry["round"],
        })
    return {
        "account": {
            "name": fresh.name, "guest": fresh.is_guest,
            "created_at": fresh.created_at.isoformat() if fresh.created_at else None,
            "email": fresh.email, "email_confirmed": fresh.email_confirmed,
            "email_preference": fresh.email_pref, "time_zone": fresh.time_zone,
        },
        "games": games,
    }
