"""A secret choice confirmed while another seat commits at the same moment: the answer
must say what was stored. A ``moved_on`` refusal means nothing changed; a success
means the choice is in the log (issue 11, item 17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from elgrande.rules import parse_action, to_act
from elgrande.server.commands import Command
from elgrande.server.errors import PlayError
from elgrande.server.lobby import SeatSpec
from elgrande.server.play import Play
from elgrande.server.settings import Settings
from tests.apps import app_for

from .helpers import advance, at_general_secret

pytestmark = pytest.mark.timeout(60)


class CommitsInBetween:
    """The match store, except that right after the first write of the seat acting, the
    other seat commits its own secret choice (a deterministic interleaving of two
    players confirming at once)."""

    def __init__(self, store: Any, match_id: str, other: int, choice: str) -> None:
        self.store = store
        self.match_id, self.other, self.choice = match_id, other, choice
        self.fired = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def _then_other_commits(self) -> None:
        if not self.fired:
            self.fired = True
            self.store.step(self.match_id, self.other, self.choice)
            self.store.finish(self.match_id, self.other)

    def play(self, *args: Any, **kw: Any) -> Any:
        result = self.store.play(*args, **kw)
        self._then_other_commits()
        return result

    def play_turn(self, *args: Any, **kw: Any) -> Any:
        result = self.store.play_turn(*args, **kw)
        self._then_other_commits()
        return result


def test_a_secret_choice_is_stored_exactly_when_the_answer_says_so(tmp_path: Path) -> None:
    app: Any = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'race.db'}",
                                secret_key="k" * 32, bot_delay=0.0))
    svc = app.state.services
    anna = svc.accounts.register("anna", "long enough")
    bert = svc.accounts.register("bert", "long enough")
    game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
    svc.lobby.join(game.id, bert)
    svc.lobby.start(game.id, anna)
    match = advance(svc, game.id, at_general_secret)
    game = svc.lobby.get(game.id)
    mine, other = to_act(match.state)[:2]
    choice = svc.store.view(game.match_id, mine).legal[0]
    other_choice = svc.store.view(game.match_id, other).legal[0]
    command = Command("step", match.seq, parse_action(choice))
    assert command.commits_at_once, "a Castillo destination is a secret choice"

    racing = CommitsInBetween(svc.store, game.match_id, other, other_choice)
    play = Play(racing, svc.lobby, svc.views)  # type: ignore[arg-type]
    try:
        play.act(game, mine, command)
        refused = None
    except PlayError as exc:
        refused = exc
    assert racing.fired
    after = svc.store.load(game.match_id)
    committed = [str(e.action) for e in after.log[match.seq:]]
    assert other_choice in committed, "the other seat's commit went in"
    draft = after.drafts.get(mine)
    if refused is not None:
        assert refused.code == "moved_on"
        assert choice not in committed and (draft is None or not draft.steps), \
            "a refusal must mean nothing was stored"
    else:
        assert choice in committed and (draft is None or not draft.steps)
