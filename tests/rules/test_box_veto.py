"""The Veto cards of the box rules (rules.md §12.1): every veto window of every card in the
three ``veto_windows`` settings, what a veto at each window leaves done, the Veto's life,
two Vetos in one hand, the order holders are asked in, the 2-player game.

Each card is played from the same position (``box.BOARD``, p0 active, p1 holding a Veto
taken this round) with a script of the decisions of its special action. The driver answers
every window with ``pass``, or vetoes at one window; the expected windows are the table of
rules.md §12.1 (where each falls: after how many script actions, and what it precedes).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from elgrande.rules import (
    GameConfig,
    Options,
    Vetoed,
    VetoExpired,
    apply,
    legal_actions,
    new_game,
    replay,
    view,
)
from elgrande.rules.cards import VETO_CARD
from elgrande.rules.state import NOT_ASKED, VETO

from .box import (
    BOARD,
    BOX,
    BOX_NO_VETO,
    CASTILLO,
    HOMES,
    board_state,
    box_scenario,
    drive,
    play_random,
)
from .scenario import legal, play, scenario

# card: (script of the special action's decisions, windows with veto_windows="parts",
# the extra "step" windows of "every_step"). A window is (script actions played, next).
CASES: dict[str, tuple[list[str], list[tuple[int, str]], list[tuple[int, str]]]] = {
    "1a": (["p0 pick p1 GAL", "p0 drop CAS", "p0 pick p2 PVA", "p0 drop SEV", "p0 done"],
           [(0, "begin")], [(2, "step"), (4, "step")]),
    "1b": (["p0 from CLV", "p0 drop GAL", "p0 drop GAL", "p0 drop SEV"],
           [(1, "effect")], [(2, "step"), (3, "step")]),
    "1c": (["p0 place SEV", "p0 place CAS"], [(0, "begin")], [(1, "step")]),
    "1d": (["p0 pick p0 GAL", "p0 drop ARA", "p0 pick p2 VAL", "p0 drop GAL", "p0 done"],
           [(0, "begin")], [(2, "step"), (4, "step")]),
    "1e": (["p0 pick p0 CLV", "p0 drop VAL", "p0 done"], [(0, "begin")], [(2, "step")]),
    "1f": (["p0 pick p1 PVA", "p0 drop CAS", "p0 done"], [(0, "begin")], [(2, "step")]),
    "1g": (["p0 from CLV", "p0 pick p1 CLV", "p0 drop GAL", "p0 pick p0 CLV", "p0 drop CAS",
            "p0 done"], [(1, "effect")], [(3, "step"), (5, "step")]),
    "1h": (["p0 pick p3 CAT", "p0 drop SEV", "p0 pick p0 GRA", "p0 drop VAL", "p0 done"],
           [(0, "begin")], [(2, "step"), (4, "step")]),
    "1i": (["p0 option 1b", "p0 from GAL", "p0 drop SEV", "p0 drop SEV"],
           [(2, "effect")], [(3, "step")]),
    "2a": (["p1 secret PVA", "p2 secret VAL", "p3 secret CAT"], [(0, "begin"), (3, "reveal")], []),
    "2b": (["p0 remove p1 GAL", "p0 remove p2 ARA", "p0 remove p3 CAT", "p0 remove p0 GAL"],
           [(0, "begin"), (1, "remove"), (2, "remove"), (3, "remove"), (4, "remove")], []),
    "2c": (["p1 lose court", "p1 lose court", "p1 lose GAL", "p2 lose VAL", "p2 lose VAL",
            "p2 lose court", "p3 lose court", "p3 lose CAT", "p3 lose SEV"],
           [(0, "begin"), (3, "lose"), (6, "lose")], []),
    "2d": (["p0 score CLV"], [(1, "effect")], []),
    "2e": (["p1 secret GRA", "p2 secret ARA", "p3 secret CAT"], [(0, "begin"), (3, "reveal")], []),
    "2f": ([], [(0, "begin")], []),
    "2g": ([], [(0, "begin")], []),
    "3a": ([], [(0, "begin"), (0, "score")], []),  # CLV, then VAL
    "3b": ([], [(0, "begin"), (0, "score"), (0, "score")], []),  # GAL, then CAT, SEV
    "3c": (["p0 score CAS"], [(1, "effect")], []),
    "3d": ([], [(0, "begin"), (0, "score")], []),  # CLN, then SEV
    "3e": ([], [(0, "begin")] + [(0, "score")] * 7, []),  # 8 regions with a sole leader
    "3f": ([], [(0, "begin")], []),
    "3g": ([], [(0, "begin"), (0, "score"), (0, "score")], []),  # CLV, then CLN, GRA
    "3h": ([], [(0, "begin"), (0, "score"), (0, "score")], []),  # PVA, then ARA, VAL
    "4a": (["p0 retrieve 13"], [(1, "effect")], []),
    "4b": (["p0 grande SEV"], [(1, "effect")], []),
    "4c": (["p0 court 2"], [(1, "effect")], []),
    "4d": (["p0 king SEV"], [(1, "effect")], []),
    "4e": (["p0 tile 8 GAL"], [(1, "effect")], []),
    "4f": (["p0 secret GAL", "p1 secret CLV", "p2 secret VAL", "p3 secret CAT"],
           [(0, "begin"), (4, "reveal")] + [(4, "score")] * 4, []),
    "4g": (["p0 evict CLV", "p1 secret GAL", "p2 secret VAL"], [(1, "effect"), (3, "reveal")], []),
    "5a": (["p0 king GAL"], [(1, "effect")], []),
}
# 1i's other option, and its every_step window.
CASES["1i/1c"] = (["p0 option 1c", "p0 place SEV", "p0 done"], [(1, "effect")], [(2, "step")])
INTRIGUE = {"1a", "1b", "1c", "1d", "1e", "1f", "1g", "1h", "1i", "1i/1c"}


def expected(case: str, windows: str) -> list[tuple[int, str]]:
    script, parts, steps = CASES[case]
    if windows == "announcement":
        return parts[:1]
    if windows == "every_step":
        return sorted(parts + steps)
    return parts


def start(case: str, windows: str = "parts", **kw):
    card = case[:2]
    s = box_scenario(4, holders=kw.pop("holders", {1: [1]}), windows=windows, king="CLN",
                     homes=HOMES, caballeros=BOARD, castillo=CASTILLO,
                     available=[] if card == "5a" else [card], **kw)
    return play(s, f"p0 take {card}", "p0 special")


def no_veto_result(case: str) -> tuple:
    """The board after the special action under the same rules without the Veto cards."""
    card = case[:2]
    s = scenario(4, options=BOX_NO_VETO, king="CLN", homes=HOMES, caballeros=BOARD,
                 castillo=CASTILLO, available=[] if card == "5a" else [card])
    play(s, f"p0 take {card}", "p0 special")
    script = CASES[case][0]
    if card == "1g":  # without the Veto, the first pick fixes the region
        script = script[1:]
    play(s, *script)
    return board_state(s)


@pytest.mark.parametrize("windows", ["parts", "announcement", "every_step"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_windows_of_each_card_and_passing_them_changes_nothing(case: str, windows: str) -> None:
    run = drive(start(case, windows), CASES[case][0])
    assert [(w.index, w.next) for w in run.windows] == expected(case, windows)
    assert all(w.asking == (1,) for w in run.windows)
    assert not [e for e in run.events if isinstance(e, Vetoed)]
    # Every holder passed: the effect is the one without the Veto cards.
    assert board_state(run.state) == no_veto_result(case)
    assert run.state.phase_name == "deploy" and run.state.veto.holder == (1, -1)


@pytest.mark.parametrize("windows", ["parts", "every_step"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_veto_at_any_window_stops_the_rest_and_keeps_what_was_done(case: str, windows: str) -> None:
    for k, (index, nxt) in enumerate(expected(case, windows)):
        run = drive(start(case, windows), CASES[case][0], veto_at=k)
        s = run.state
        window = run.windows[k]
        assert (window.index, window.next) == (index, nxt)
        # Nothing more happened after the window opened: what was done before stays.
        assert board_state(s) == window.board
        assert run.events[-1] == Vetoed(1, 0, case[:2], 1, nxt)
        # The Veto is spent; the special action is over; p0 still deploys.
        assert s.veto.holder == (-1, -1) and s.veto.declared == -1 and s.veto.regions == ()
        assert s.phase_name == "deploy" and s.active == 0 and "p0 place CAS" in legal(s)
        assert s.secret == [NOT_ASKED] * 4 and s.picked == -1 and s.source == -1
        if k == 0 and index == 0:  # the announcement: nothing of the card happened
            assert window.board == run.windows[0].board


def test_a_veto_at_the_announcement_window_before_the_effect_of_a_declaration() -> None:
    s = start("5a")
    play(s, "p0 king GAL")
    assert s.phase_name == "veto" and s.king == 5  # declared, not yet done
    assert view(s, 2)["veto"]["declared"] == "p0 king GAL"
    events: list = []
    play(s, "p1 veto", events=events)
    assert s.king == 5 and events == [Vetoed(1, 0, "5a", 1, "effect")]


def test_a_veto_before_the_reveal_of_secret_choices_hides_them_for_good() -> None:
    s = start("2a")
    log = ["p0 take 2a", "p0 special"]
    run = drive(s, CASES["2a"][0], veto_at=1)
    log += run.log
    assert run.windows[1].next == "reveal"
    # The choices were made and were never shown: no reveal, nothing lost.
    assert not [e for e in run.events if e.type == "secrets_revealed"]
    assert s.secret == [NOT_ASKED] * 4 and s.secret_purpose == -1
    assert board_state(s) == run.windows[0].board
    # They are in the record: the log replays to the same position.
    assert "p2 secret VAL" in log
    start_state = box_scenario(4, holders={1: [1]}, king="CLN", homes=HOMES, caballeros=BOARD,
                               castillo=CASTILLO, available=["2a"])
    for action in log:
        apply(start_state, action)
    assert start_state == s


def test_no_view_shows_another_seat_s_choice_at_any_point_of_a_vetoed_reveal() -> None:
    s = start("2e")
    moves = ["p1 pass", *CASES["2e"][0], "p1 veto"]
    for move in moves:
        play(s, move)
        for seat in (None, 0, 1, 2, 3):
            for p, entry in enumerate(view(s, seat)["player_state"]):
                assert p == seat or "secret_choice" not in entry
    assert view(s, 2)["player_state"][2].get("secret_choice") is None  # gone for good


def test_during_the_window_before_a_reveal_no_one_sees_another_s_choice() -> None:
    s = start("4f")
    play(s, "p1 pass", *CASES["4f"][0])
    assert s.phase_name == "veto" and s.veto.resume == 2  # before the reveal
    for seat in (None, 0, 1, 2, 3):
        v = view(s, seat)
        for p, entry in enumerate(v["player_state"]):
            assert ("secret_choice" in entry) == (p == seat)
            assert entry["secret_chosen"]
        assert v["veto"]["window"] == {"next": "reveal", "asking": [1], "regions_left": [],
                                       "players_left": []}


def test_the_middle_of_a_multi_region_scoring() -> None:
    s = start("3b")
    run = drive(s, [], veto_at=2)  # the window before Sevilla
    scored = [e.area for e in run.events if e.type == "score"]
    assert scored == [0, 3]  # Galicia and Cataluña stay scored, Sevilla is not
    # GAL 4/2/0: p0 4 + home 2, p1 2; CAT 4/2/1: p3 4 + home 2, p0 2. SEV (p3 alone) not.
    assert run.windows[2].next == "score" and s.scores == [8, 2, 0, 6]


def test_between_moved_caballeros() -> None:
    s = start("1a", "every_step")
    run = drive(s, CASES["1a"][0], veto_at=1)
    assert run.windows[1].index == 2  # after the first move
    # The first Caballero moved (p1 GAL to the Castillo), the second never did.
    assert s.cab[0 * 4 + 1] == 0 and s.cab[9 * 4 + 1] == 2 and s.cab[1 * 4 + 2] == 1


def test_the_2b_target_is_shown_while_its_window_is_open() -> None:
    s = start("2b")
    play(s, "p1 pass", "p0 remove p1 GAL", "p1 pass", "p0 remove p2 ARA")
    v = view(s, 3)
    assert v["phase"] == "veto" and v["picked"] == {"owner": 2, "area": "ARA"}
    assert v["veto"]["window"]["next"] == "remove"
    assert v["veto"]["window"]["players_left"] == [2, 3, 0]  # p1 done; p0 last (Y3)
    play(s, "p1 pass")
    assert s.cab[2 * 4 + 2] == 1 and s.phase_name == "remove"


def test_holders_are_asked_clockwise_from_the_active_player_s_left() -> None:
    s = box_scenario(4, holders={0: [1], 3: [1]}, active=2, king="CLN", homes=HOMES,
                     caballeros=BOARD, available=["3f"])
    play(s, "p2 take 3f", "p2 special")
    assert s.phase_name == "veto" and s.veto.asking == (3, 0)
    assert legal(s) == ["p3 veto", "p3 pass"] and legal_actions(s, 0) == []
    play(s, "p3 pass")
    assert legal(s) == ["p0 veto", "p0 pass"]
    events: list = []
    play(s, "p0 veto", events=events)
    assert events == [Vetoed(0, 2, "3f", 1, "begin")] and s.veto.holder == (-1, 3)


def test_the_active_player_s_own_veto_opens_no_window() -> None:
    s = box_scenario(4, holders={0: [1]}, king="CLN", homes=HOMES, caballeros=BOARD,
                     available=["3f"])
    play(s, "p0 take 3f", "p0 special")
    assert s.phase_name == "deploy" and s.veto.holder == (0, -1)


def test_both_vetos_in_one_hand_spend_the_older_first() -> None:
    s = box_scenario(4, holders={1: [1, 2]}, round=2, king="CLN", homes=HOMES,
                     caballeros=BOARD, available=["4d"])
    play(s, "p0 take 4d", "p0 special", "p0 king SEV")
    assert s.veto.asking == (1,)  # one question, however many Vetos he holds
    events: list = []
    play(s, "p1 veto", events=events)
    assert events == [Vetoed(1, 0, "4d", 1, "effect")]
    assert s.veto.holder == (-1, 1) and s.veto.taken == (-1, 1)
    held = view(s, None)["veto"]["held"]
    assert held == [{"seat": 1, "taken_round": 2, "expires_after_round": 3}]


def test_two_players() -> None:
    s = box_scenario(2, holders={1: [1]}, king="CLN", homes=["GAL", "PVA"],
                     caballeros={"GAL": [3, 1], "CLV": [1, 2], "GRA": [2, 0]}, available=["3g"])
    play(s, "p0 take 3g", "p0 special")
    assert legal(s) == ["p1 veto", "p1 pass"]
    play(s, "p1 pass")  # CLV scored (p1 leads); a window before GRA (CLN is empty)
    assert s.scores == [0, 6] and s.phase_name == "veto" and s.veto.regions == (7,)
    events: list = []
    play(s, "p1 veto", events=events)
    assert s.scores == [0, 6] and events == [Vetoed(1, 0, "3g", 1, "score")]


def test_taking_the_veto_card() -> None:
    s = box_scenario(4, veto_available=True, king="CLN", homes=HOMES, caballeros=BOARD)
    assert legal(s)[-1] == "p0 take 2v" and view(s, 1)["available_cards"][0] == "2v"
    play(s, "p0 take 2v")
    # Held at once and public; no special action to start; the deployment is of 2.
    assert s.veto.holder == (0, -1) and s.card == VETO_CARD
    assert legal(s) == ["p0 deploy", "p0 end"]
    assert view(s, 2)["veto"]["held"] == [{"seat": 0, "taken_round": 1, "expires_after_round": 2}]
    play(s, "p0 deploy", "p0 place ARA", "p0 place CAS")
    assert s.active == 1  # the turn ended after two Caballeros


def test_a_veto_expires_unused_at_the_end_of_the_next_round() -> None:
    s = box_scenario(3, veto_available=True, king="CLN", homes=HOMES[:3], available=["1a", "2b", "3c"])
    play(s, "p0 take 2v")
    rng = random.Random(3)
    events: list = []
    play_random(s, rng, pass_probability=1.0, stop=lambda x: x.round == 2, events=events)
    assert s.veto.holder == (0, -1)  # still held in round 2
    assert not [e for e in events if isinstance(e, VetoExpired)]
    play_random(s, rng, pass_probability=1.0, stop=lambda x: x.round == 3, events=events)
    assert [e for e in events if isinstance(e, VetoExpired)] == [VetoExpired(0, 1)]
    assert s.veto.holder == (-1, -1)


def test_stack_2_holds_eleven_cards_with_the_vetos() -> None:
    s = new_game(GameConfig(players=3, options=BOX))
    play(s, "* home p0 GAL", "* home p1 PVA", "* home p2 ARA", "* king CLN", "* start p0",
         "* reveal 1a")
    outcomes = {str(a): w for a, w in _chance(s)}
    assert outcomes["* reveal 2v"] == pytest.approx(2 / 11)
    assert sum(s.copies[c] for c in range(9, 16)) + s.copies[VETO_CARD] == 11
    y = new_game(GameConfig(players=3))
    play(y, "* home p0 GAL", "* home p1 PVA", "* home p2 ARA", "* king CLN", "* start p0",
         "* reveal 1a")
    assert "* reveal 2v" not in {str(a) for a, _ in _chance(y)}


def _chance(s):
    from elgrande.rules import chance_outcomes
    return chance_outcomes(s)


def test_announcement_setting_asks_once_per_special_action() -> None:
    for case in ("2a", "2b", "2c", "3e", "4f", "4g"):
        run = drive(start(case, "announcement"), CASES[case][0])
        assert len(run.windows) == 1, case


def test_every_step_is_for_intrigue_cards_only() -> None:
    for case in CASES:
        extra = CASES[case][2]
        assert bool(extra) == (case in INTRIGUE), case


def test_a_game_replays_with_its_veto_actions() -> None:
    config = GameConfig(players=4, options=BOX)
    for seed in range(20):  # the first seeded game with both answers
        s = new_game(config)
        log: list = []
        play_random(s, random.Random(seed), pass_probability=0.5, log=log)
        if any(a.kind == "veto" for a in log) and any(a.kind == "pass" for a in log):
            break
    else:
        pytest.fail("no game with a veto and a pass")
    assert replay(config, [str(a) for a in log]) == s


def test_options_without_the_veto_have_no_windows() -> None:
    s = scenario(4, options=replace(BOX, veto_cards=False), king="CLN", homes=HOMES,
                 caballeros=BOARD, available=["3b"])
    play(s, "p0 take 3b", "p0 special")
    assert s.phase_name == "deploy" and s.veto is None
    assert Options.preset("box").veto_cards and s.phase != VETO
