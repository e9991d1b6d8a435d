"""The words of every email, in the current language (the mailer makes each email inside
``i18n.using`` its recipient's language). Only what any seat may know goes in: the game's
number, the players' names, whose turn it is, and links (never a draft, a hidden choice,
the seed or the internal match id)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..i18n import _, format_datetime, ngettext


def confirm(name: str, link: str) -> tuple[str, str]:
    return (_("Confirm your email address for El Grande"),
            _("Hello %(name)s,\n\nPlease confirm that this address should receive El Grande "
              "notifications by opening this link (valid for two days):\n\n%(link)s\n\n"
              "If you did not ask for this, ignore this email: nothing more will be sent.\n",
              name=name, link=link))


def _footer(unsubscribe: str) -> str:
    return "\n--\n" + _("No more emails from El Grande (one click): %(link)s",
                        link=unsubscribe) + "\n"


def _with(opponents: Sequence[str]) -> str:
    return ", ".join(opponents) or _("nobody")


def turn(name: str, game_id: int, opponents: Sequence[str], link: str,
         unsubscribe: str) -> tuple[str, str]:
    return (_("El Grande game %(game)s: your turn", game=game_id),
            _("Hello %(name)s,\n\nIt is your turn in game %(game)s (with %(others)s).\n\n"
              "Open the game: %(link)s\n", name=name, game=game_id,
              others=_with(opponents), link=link) + _footer(unsubscribe))


def digest(name: str, games: Sequence[tuple[int, Sequence[str], str]],
           unsubscribe: str) -> tuple[str, str]:
    """``games``: (number, opponents, link) of each game waiting for the player."""
    lines = ["- " + _("Game %(game)s (with %(others)s): %(link)s", game=number,
                      others=_with(opponents), link=link)
             for number, opponents, link in games]
    return (ngettext("El Grande: %(num)s game waiting for you",
                     "El Grande: %(num)s games waiting for you", len(games)),
            _("Hello %(name)s,\n\nThese games are waiting for your move:\n\n", name=name)
            + "\n".join(lines) + "\n" + _footer(unsubscribe))


def _when(moment: datetime, zone: str) -> str:
    """In the reader's language and time zone, with its offset ("Dec 1, 2026, 5:00:00 PM
    GMT+01:00")."""
    return format_datetime(moment, "medium", zone) + " " + format_datetime(moment, "ZZZZ", zone)


def reminder(name: str, game_id: int, deadline: datetime, link: str,
             unsubscribe: str, zone: str = "UTC") -> tuple[str, str]:
    return (_("El Grande game %(game)s: your time runs out soon", game=game_id),
            _("Hello %(name)s,\n\nIt is your turn in game %(game)s, and your clock runs out "
              "at %(deadline)s. After that a computer plays your turns until you come "
              "back.\n\nOpen the game: %(link)s\n", name=name, game=game_id,
              deadline=_when(deadline, zone), link=link) + _footer(unsubscribe))


def timed_out(name: str, game_id: int, deadline: datetime, link: str,
              unsubscribe: str, zone: str = "UTC") -> tuple[str, str]:
    return (_("El Grande game %(game)s: a computer is playing for you", game=game_id),
            _("Hello %(name)s,\n\nYour clock in game %(game)s ran out at %(deadline)s, so a "
              "computer plays your turns for now. Make a move or click \"%(button)s\" to "
              "play on yourself.\n\nOpen the game: %(link)s\n", name=name, game=game_id,
              deadline=_when(deadline, zone), button=_("Take my seat back"), link=link)
            + _footer(unsubscribe))


def reset(name: str, link: str) -> tuple[str, str]:
    return (_("Reset your El Grande password"),
            _("Hello %(name)s,\n\nSomeone (we hope you) asked to reset the password of your "
              "El Grande account. Open this link within an hour to choose a new one (it "
              "works once):\n\n%(link)s\n\nIf you did not ask, ignore this email: your "
              "password stays as it is.\n", name=name, link=link))
