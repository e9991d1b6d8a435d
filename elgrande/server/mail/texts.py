"""The words of every email. Only what any seat may know goes in: the game's number,
the players' names, whose turn it is, and links (never a draft, a hidden choice, the
seed or the internal match id)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime


def confirm(name: str, link: str) -> tuple[str, str]:
    return ("Confirm your email address for El Grande",
            f"Hello {name},\n\nPlease confirm that this address should receive El Grande "
            f"notifications by opening this link (valid for two days):\n\n{link}\n\n"
            "If you did not ask for this, ignore this email: nothing more will be sent.\n")


def _footer(unsubscribe: str) -> str:
    return f"\n--\nNo more emails from El Grande (one click): {unsubscribe}\n"


def turn(name: str, game_id: int, opponents: Sequence[str], link: str,
         unsubscribe: str) -> tuple[str, str]:
    against = ", ".join(opponents) or "nobody"
    return (f"El Grande game {game_id}: your turn",
            f"Hello {name},\n\nIt is your turn in game {game_id} (with {against}).\n\n"
            f"Open the game: {link}\n" + _footer(unsubscribe))


def digest(name: str, games: Sequence[tuple[int, Sequence[str], str]],
           unsubscribe: str) -> tuple[str, str]:
    """``games``: (number, opponents, link) of each game waiting for the player."""
    lines = [f"- Game {number} (with {', '.join(opponents) or 'nobody'}): {link}"
             for number, opponents, link in games]
    count = len(games)
    return (f"El Grande: {count} game{'s' if count != 1 else ''} waiting for you",
            f"Hello {name},\n\nThese games are waiting for your move:\n\n" + "\n".join(lines)
            + "\n" + _footer(unsubscribe))


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def reminder(name: str, game_id: int, deadline: datetime, link: str,
             unsubscribe: str) -> tuple[str, str]:
    return (f"El Grande game {game_id}: your time runs out soon",
            f"Hello {name},\n\nIt is your turn in game {game_id}, and your clock runs out at "
            f"{_when(deadline)}. After that a computer plays your turns until you come "
            f"back.\n\nOpen the game: {link}\n" + _footer(unsubscribe))


def timed_out(name: str, game_id: int, deadline: datetime, link: str,
              unsubscribe: str) -> tuple[str, str]:
    return (f"El Grande game {game_id}: a computer is playing for you",
            f"Hello {name},\n\nYour clock in game {game_id} ran out at {_when(deadline)}, so a "
            "computer plays your turns for now. Make a move or click \"Take my seat back\" "
            f"to play on yourself.\n\nOpen the game: {link}\n" + _footer(unsubscribe))


def reset(name: str, link: str) -> tuple[str, str]:
    return ("Reset your El Grande password",
            f"Hello {name},\n\nSomeone (we hope you) asked to reset the password of your El "
            f"Grande account. Open this link within an hour to choose a new one (it works "
            f"once):\n\n{link}\n\nIf you did not ask, ignore this email: your password stays "
            "as it is.\n")
