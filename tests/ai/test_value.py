"""The learned evaluation (elgrande/ai/value.py) and its training (train_value.py)."""

from __future__ import annotations

import json
import math
import random
import re

import numpy as np
import pytest

from elgrande.ai import make_bot
from elgrande.ai.evaluate import DEFAULT_WEIGHTS, evaluate, scorings_left
from elgrande.ai.ismcts import IsmctsBot
from elgrande.ai.tournament import derive_seed
from elgrande.ai.train_value import (
    Field,
    fit,
    fit_stage,
    game_bots,
    generate,
    play_and_record,
)
from elgrande.ai.value import FEATURES, NUM_FEATURES, ValueModel, features, load_model
from elgrande.cli import main
from elgrande.rules import (
    GameConfig,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    sample_chance,
    to_act,
)
from elgrande.rules.state import BID


def _positions(players: int, seed: int, every: int = 3) -> list:
    """Positions of a random game (every ``every``-th decision)."""
    rng = random.Random(seed)
    s = new_game(GameConfig(players=players))
    out = []
    step = 0
    while not is_terminal(s):
        if is_chance(s):
            apply(s, sample_chance(s, rng))
            continue
        step += 1
        if step % every == 0:
            out.append(s.copy())
        seat = to_act(s)[0]
        apply(s, rng.choice(legal_actions(s, seat)))
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_features_are_the_parts_of_the_hand_set_evaluation(players: int) -> None:
    # evaluate() is a weighted sum of the same parts: with its weights for the stage, the
    # features add up to it exactly. So each feature measures what its name says.
    w = DEFAULT_WEIGHTS
    checked = 0
    for s in _positions(players, seed=players, every=1):
        generals, rounds = scorings_left(s)
        if generals == 0:
            continue
        region = w.next_scoring + w.later_scoring * (generals - 1) + w.special_per_round * rounds
        castillo = w.next_scoring + w.special_per_round * rounds
        release = w.castillo_release * (w.next_scoring + w.later_scoring * (generals - 1))
        coefficients = [1.0, region, castillo, release, w.court, w.provinces, w.tempo, w.hand,
                        0.0, 0.0, 0.0, 0.0]
        expected = evaluate(s)
        for p, row in enumerate(features(s)):
            assert sum(c * f for c, f in zip(coefficients, row, strict=True)) == \
                pytest.approx(expected[p], abs=1e-9)
        checked += 1
    assert checked > 100


def test_leads_and_board_count_the_regions() -> None:
    s = _positions(4, seed=11)[40]
    n = s.n
    rows = features(s)
    for p in range(n):
        counts = [s.cab[a * n + p] for a in range(9)]
        assert rows[p][FEATURES.index("board")] == sum(counts)
        alone = sum(1 for a in range(9)
                    if s.cab[a * n + p] > 0
                    and all(s.cab[a * n + q] < s.cab[a * n + p] for q in range(n) if q != p))
        assert rows[p][FEATURES.index("leads")] == alone


def test_chances_are_a_softmax_of_the_stage_weights() -> None:
    model = load_model()
    for players in (2, 3, 4, 5):
        for s in _positions(players, seed=20 + players, every=15):
            chances = model.chances(s)
            assert len(chances) == players
            assert sum(chances) == pytest.approx(1.0)
            assert all(0.0 < c < 1.0 for c in chances)
            rounds = max(scorings_left(s)[1], 1)
            w = model.weights_for(players, rounds)
            u = [sum(a * b for a, b in zip(w, row, strict=True)) for row in features(s)]
            # A seat with the higher utility has the higher chance, by the softmax.
            for p in range(players):
                for q in range(players):
                    ratio = math.exp(u[p] - u[q])
                    assert chances[p] / chances[q] == pytest.approx(ratio, rel=1e-9)


def test_the_shipped_model_covers_every_player_count_and_round() -> None:
    model = load_model()
    for players in (2, 3, 4, 5):
        for rounds in range(1, 10):
            w = model.weights_for(players, rounds)
            assert len(w) == NUM_FEATURES and all(math.isfinite(v) for v in w)
        # Points already scored are worth more the fewer rounds are left: a lead late in the
        # game is harder to catch up (checked between the first and the last rounds).
        score = FEATURES.index("score")
        assert model.weights_for(players, 1)[score] > model.weights_for(players, 9)[score] > 0
    assert model.info["command"].startswith("elgrande train-value")


def test_a_model_with_other_features_is_refused() -> None:
    data = load_model().to_dict()
    data["features"] = ["board", *data["features"][1:]]
    with pytest.raises(ValueError, match="train it again"):
        ValueModel.from_dict(data)
    data["features"] = []
    with pytest.raises(ValueError, match="train it again"):
        ValueModel.from_dict(data)
    with pytest.raises(ValueError, match="weights"):
        ValueModel({"4:1": [0.0] * (NUM_FEATURES - 1)})
    # An older file's features with this code's number of weights is refused too.
    short = load_model().to_dict()
    short["features"] = short["features"][:10]
    with pytest.raises(ValueError, match="weights"):
        ValueModel.from_dict(short)


def test_a_model_fitted_before_features_were_added_judges_as_before() -> None:
    # A model with the first ten features (as fitted before to_play and placeable existed)
    # weighs the new ones 0: its chances are those of its ten weights alone.
    data = load_model().to_dict()
    old = {"features": data["features"][:10],
           "weights": {k: w[:10] for k, w in data["weights"].items()}}
    model = ValueModel.from_dict(old)
    assert all(w[10:] == [0.0] * (NUM_FEATURES - 10) for w in model.weights.values())
    for s in _positions(4, seed=31, every=20):
        w = model.weights_for(4, max(scorings_left(s)[1], 1))[:10]
        u = [sum(a * b for a, b in zip(w, row[:10], strict=True)) for row in features(s)]
        e = [math.exp(x - max(u)) for x in u]
        assert model.chances(s) == pytest.approx([x / sum(e) for x in e], rel=1e-12)


def test_to_play_and_placeable_say_whose_turn_of_the_round_is_still_to_come() -> None:
    to_play, placeable = FEATURES.index("to_play"), FEATURES.index("placeable")
    seen_mid_round = 0
    for s in _positions(4, seed=32, every=1):
        rows = features(s)
        if s.phase == BID or not s.order:
            # Bidding, or between rounds: every seat alike, so no chance changes.
            assert len({(r[to_play], r[placeable]) for r in rows}) == 1
            continue
        for p in range(s.n):
            still = p in s.order[s.turn:]
            assert rows[p][to_play] == (1.0 if still else 0.0)
            if still:
                assert 0 <= rows[p][placeable] <= 5
                assert rows[p][placeable] >= min(s.court[p], 5)
            else:
                assert rows[p][placeable] == 0.0
        if 0 < s.turn < s.n:
            seen_mid_round += 1
    assert seen_mid_round > 20


def test_fit_stage_recovers_the_weights_that_made_the_data() -> None:
    rng = np.random.default_rng(5)
    true = np.array([0.3, -0.5, 0.8, 0.0, 0.2, -0.1, 0.4, 0.0, 0.6, -0.2, 0.5, -0.3])
    x = rng.normal(size=(20_000, 4, NUM_FEATURES))
    u = x @ true
    p = np.exp(u - u.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    winners = np.array([rng.choice(4, p=row) for row in p])
    y = np.eye(4)[winners]
    w = np.array(fit_stage(x, y, ridge=0.0))
    assert np.abs(w - true).max() < 0.06


def test_a_recorded_game_has_positions_with_the_final_win_shares() -> None:
    data = play_and_record((3, 0, 3, 6, Field(easy_share=0.2)))
    assert len(data.records) > 20
    assert sum(data.shares) == pytest.approx(1.0)
    assert {r.rounds for r in data.records} == set(range(1, 7))
    assert all(len(r.features) == 3 and len(r.features[0]) == NUM_FEATURES
               for r in data.records)


def test_search_seats_join_the_field_without_changing_a_field_without_them() -> None:
    # Before search seats existed, each seat was easy when one draw fell under the share;
    # a field without search seats must deal the same bots, so old models train again.
    for game in range(40):
        rng = random.Random(derive_seed("train-bots", 1, 5, game))
        before = ["easy" if rng.random() < 0.2 else "medium" for _ in range(5)]
        assert game_bots(1, game, 5, Field(easy_share=0.2)) == before
    mixed = [name for game in range(200)
             for name in game_bots(1, game, 5, Field(0.1, 0.6, "ismcts:40"))]
    shares = {name: mixed.count(name) / len(mixed) for name in set(mixed)}
    assert set(shares) == {"ismcts:40", "easy", "medium"}
    assert shares["ismcts:40"] == pytest.approx(0.6, abs=0.05)
    assert shares["easy"] == pytest.approx(0.1, abs=0.03)


def test_a_training_game_with_search_seats_is_recorded() -> None:
    data = play_and_record((4, 0, 2, 6, Field(0.0, 1.0, "ismcts:20")))
    assert game_bots(4, 0, 2, Field(0.0, 1.0, "ismcts:20")) == ["ismcts:20"] * 2
    assert len(data.records) > 20 and sum(data.shares) == pytest.approx(1.0)


@pytest.mark.parametrize("field, message", [
    (dict(easy_share=-0.1), "easy share is a chance"),
    (dict(search_share=1.5), "search share is a chance"),
    (dict(easy_share=0.5, search_share=0.6), "add up to more than 1"),
    (dict(search_share=0.5, search_bot="deep-blue"), "unknown bot"),
])
def test_a_field_that_cannot_be_dealt_is_refused(field, message) -> None:
    with pytest.raises(ValueError, match=message):
        Field(**field)


def test_a_small_fit_beats_a_uniform_guess_on_held_out_games() -> None:
    data = generate(30, [2], seed=8, rounds=6)
    model, info = fit(data, [2], rounds=6)
    check = info["held_out"]["2"]
    assert check["held_out_positions"] > 100
    assert check["learned_log_loss"] < check["uniform_log_loss"]
    assert check["learned_brier"] < check["uniform_brier"]
    assert set(model.weights) == {f"2:{r}" for r in range(1, 7)}


def test_the_learned_bot_plays_a_legal_game() -> None:
    bots = [make_bot("learned:60", 1), make_bot("medium", 2)]
    assert isinstance(bots[0], IsmctsBot) and bots[0].value is load_model()
    rng = random.Random(4)
    s = new_game(GameConfig(players=2, rounds=6))
    while not is_terminal(s):
        if is_chance(s):
            apply(s, sample_chance(s, rng))
            continue
        seat = to_act(s)[0]
        apply(s, bots[seat].choose(s, seat))
    assert bots[0].decisions > 20
    with pytest.raises(ValueError, match="iteration budget"):
        make_bot("learned:0")


def test_train_value_command_writes_a_model(tmp_path, capsys) -> None:
    out = tmp_path / "model.json"
    assert main(["train-value", "--games", "10", "--players", "2", "--out", str(out),
                 "--no-progress"]) == 0
    model = ValueModel.from_dict(json.loads(out.read_text()))
    assert set(model.weights) == {f"2:{r}" for r in range(1, 10)}
    assert "held-out games" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--players", "1,4"], "player counts go from 2 to 5"),
    (["--players", "four"], "comma-separated list"),
    (["--games", "0"], "1 or more"),
])
def test_train_value_refuses_bad_options(argv, message, tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["train-value", "--out", str(tmp_path / "m.json"), *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["--easy-share", "1.5"], "a chance, from 0 to 1"),
    (["--search-share", "-1"], "a chance, from 0 to 1"),
    (["--easy-share", "0.5", "--search-share", "0.7"], "add up to more than 1"),
    (["--search-share", "0.5", "--search-bot", "nobody"], "unknown bot"),
    (["--merge"], "--merge needs a model at"),
])
def test_train_value_refuses_a_field_it_cannot_deal(argv, message, tmp_path, capsys) -> None:
    assert main(["train-value", *argv, "--out", str(tmp_path / "m.json")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_train_value_merges_one_player_count_into_a_model(tmp_path, capsys) -> None:
    out = tmp_path / "model.json"
    assert main(["train-value", "--games", "6", "--players", "2,3",
                 "--out", str(out), "--no-progress"]) == 0
    first = ValueModel.from_dict(json.loads(out.read_text()))
    assert main(["train-value", "--games", "5", "--players", "3", "--search-share", "0.5",
                 "--search-bot", "ismcts:10", "--seed", "4",
                 "--merge", "--out", str(out), "--no-progress"]) == 0
    merged = ValueModel.from_dict(json.loads(out.read_text()))
    # The two-player weights are kept, the three-player ones trained again on the new field.
    assert {k: w for k, w in merged.weights.items() if k.startswith("2:")} == \
        {k: w for k, w in first.weights.items() if k.startswith("2:")}
    assert all(merged.weights[f"3:{r}"] != first.weights[f"3:{r}"] for r in range(1, 10))
    assert merged.info["held_out"]["2"] == first.info["held_out"]["2"]
    assert merged.info["held_out"]["3"]["training_games"] == 4
    assert merged.info["games"] == first.info["held_out"]["2"]["training_games"] + 4
    # The recorded command makes the file again: the first command, then the merge.
    assert merged.info["command"] == (
        "elgrande train-value --games 6 --players 2,3 --seed 1 --easy-share 0.2 && "
        "elgrande train-value --games 5 --players 3 --seed 4 --easy-share 0.2 "
        "--search-share 0.5 --search-bot ismcts:10 --merge")


def test_a_model_file_can_be_played_without_shipping_it(tmp_path) -> None:
    # learned@FILE is hard's search judged by that file's weights: a copy of the shipped
    # model plays exactly as hard does; another file's weights are the ones used.
    shipped = load_model().to_dict()
    zero = dict(shipped, weights={k: [0.0] * NUM_FEATURES for k in shipped["weights"]})
    same, flat = tmp_path / "same.json", tmp_path / "flat.json"
    same.write_text(json.dumps(shipped))
    flat.write_text(json.dumps(zero))
    rng = random.Random(5)
    s = new_game(GameConfig(players=3, rounds=6))
    for _ in range(40):
        if is_chance(s):
            apply(s, sample_chance(s, rng))
        else:
            apply(s, rng.choice(legal_actions(s)))
    while is_chance(s):
        apply(s, sample_chance(s, rng))
    seat = to_act(s)[0]
    copy = make_bot(f"learned:200@{same}", seed=3)
    assert copy.name == f"learned:200@{same}" and copy.iterations == 200
    copy.name = "learned:200"  # a bot's randomness is seeded by its name too (base.py)
    assert copy.choose(s, seat) == make_bot("learned:200", seed=3).choose(s, seat)
    assert make_bot(f"learned@{same}").iterations == 1500
    assert make_bot(f"learned@{flat}").value.weights == zero["weights"]
    cut = make_bot(f"hard-turn:300@{flat}", seed=3)
    assert cut.turn_cut and cut.iterations == 300 and cut.value.weights == zero["weights"]
    assert not make_bot(f"learned@{flat}").turn_cut


@pytest.mark.parametrize(("name", "message"), [
    ("learned@{missing}", "cannot read the value model"),
    ("learned@{not_json}", "is not JSON"),
    ("learned@{a_list}", "is not a model written by `elgrande train-value`"),
    ("learned@{other_features}", "its features are not this code's FEATURES"),
    ("learned:0@{a_list}", "must be at least 1"),
    ("learned:x@{a_list}", "bad iteration budget"),
    ("heuristic@{a_list}", "goes with learned, learned:N, hard-turn or hard-turn:N only"),
    ("learned@", "goes with learned, learned:N, hard-turn or hard-turn:N only"),
    ("hard-turn:0@{a_list}", "must be at least 1"),
])
def test_a_bad_model_file_is_refused_with_what_is_wrong(name, message, tmp_path) -> None:
    (tmp_path / "not_json").write_text("{weights")
    (tmp_path / "a_list").write_text("[1, 2]")
    (tmp_path / "other_features").write_text(json.dumps({"features": ["score"], "weights": {}}))
    paths = {k: str(tmp_path / k) for k in ("missing", "not_json", "a_list", "other_features")}
    with pytest.raises(ValueError, match=re.escape(message)):
        make_bot(name.format(**paths))
