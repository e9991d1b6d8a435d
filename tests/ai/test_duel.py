"""The paired sequential duel: SPRT maths, pairing, stopping, replay, command line."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from elgrande.ai import sprt
from elgrande.ai.duel import DuelConfig, pair_specs, run_duel
from elgrande.ai.stats import ThinkTimes, quantile
from elgrande.ai.tournament import GameSpec, play_game
from elgrande.cli import main

EVEN, ELO30 = 0.5, sprt.elo_to_score(30)


def config(candidate: str, baseline: str, max_games: int, **kw: object) -> DuelConfig:
    base: dict[str, object] = dict(opponents="random", players=2, rounds=6, mu0=EVEN, mu1=ELO30)
    base.update(kw)
    return DuelConfig(candidate, baseline, max_games=max_games, **base)  # type: ignore[arg-type]


# --- the test's maths ------------------------------------------------------------------


def test_wald_bounds_from_alpha_and_beta() -> None:
    b = sprt.Bounds.of(0.05, 0.05)
    assert b.lower == pytest.approx(-2.944439, abs=1e-6)  # ln(0.05 / 0.95)
    assert b.upper == pytest.approx(2.944439, abs=1e-6)  # ln(0.95 / 0.05)
    b = sprt.Bounds.of(0.05, 0.10)
    assert (b.lower, b.upper) == pytest.approx((math.log(0.10 / 0.95), math.log(0.90 / 0.05)))
    assert [b.verdict(x) for x in (-2.3, 0.0, 2.9)] == [sprt.H0, sprt.CONTINUE, sprt.H1]
    with pytest.raises(ValueError):
        sprt.Bounds.of(0.6, 0.5)


def test_elo_and_score() -> None:
    assert sprt.elo_to_score(0) == 0.5
    assert sprt.elo_to_score(400) == pytest.approx(10 / 11)
    assert sprt.score_to_elo(sprt.elo_to_score(-123.0)) == pytest.approx(-123.0)


def test_win_or_loss_pairs_give_wald_binomial_llr() -> None:
    # 7 pairs won, 3 lost: 7 ln(0.6/0.5) + 3 ln(0.4/0.5) = 0.606820 by hand.
    assert sprt.llr([1.0] * 7 + [0.0] * 3, 0.5, 0.6) == pytest.approx(0.606820, abs=1e-6)
    assert sprt.llr([], 0.5, 0.6) == 0.0


def test_fitted_multinomial_is_the_constrained_maximum() -> None:
    counts = {0.0: 3.0, 0.5: 10.0, 1.0: 5.0}
    mu = 0.6
    p = sprt.fitted_probabilities(counts, mu)
    assert sum(p.values()) == pytest.approx(1.0)
    assert sum(x * v for x, v in p.items()) == pytest.approx(mu)

    def loglik(q: dict[float, float]) -> float:
        return sum(n * math.log(q[x]) for x, n in counts.items())

    # Brute force over the one free parameter (p0; then p1 and p(1/2) follow from the
    # constraints): nothing on the grid does better.
    grid = []
    for i in range(1, 2000):
        p0 = i / 5000
        p1 = mu - 0.5 * (1 - p0)  # mean: 0.5 (1 - p0 - p1) + p1 = mu
        if 0 < p1 and p0 + p1 < 1:
            grid.append(loglik({0.0: p0, 1.0: p1, 0.5: 1 - p0 - p1}))
    assert loglik(p) >= max(grid) - 1e-9
    # At the sample mean the fit is the observed frequencies.
    mean = sum(x * n for x, n in counts.items()) / 18
    fit = sprt.fitted_probabilities(counts, mean)
    assert fit == pytest.approx({x: n / 18 for x, n in counts.items()})


def test_llr_sign_follows_the_evidence() -> None:
    assert sprt.llr([1.0, 0.5, 0.5, 1.0, 0.5], EVEN, ELO30) > 0
    assert sprt.llr([0.0, 0.5, 0.5, 0.5, 1.0], EVEN, ELO30) < 0
    # Only draws: slowly towards H0, never towards H1.
    assert sprt.llr([0.5] * 10, EVEN, ELO30) < sprt.llr([0.5] * 5, EVEN, ELO30) < 0


def test_quantiles_of_think_times() -> None:
    assert quantile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert quantile([0.0, 10.0], 0.95) == pytest.approx(9.5)
    t = ThinkTimes.of([float(v) for v in range(1, 101)])
    assert (t.count, t.p50, t.p95, t.max) == (100, 50.5, pytest.approx(95.05), 100.0)
    assert math.isnan(ThinkTimes.of([]).p95)


def test_a_game_records_think_times_per_decision_and_per_turn() -> None:
    spec = GameSpec(0, ("heuristic", "random"), chance_seed=3, bot_seeds=(1, 2), rounds=6)
    record = play_game(spec)
    for seat in range(2):
        decisions, turns = record.decision_seconds[seat], record.turn_seconds[seat]
        assert len(decisions) == record.decisions[seat]
        # At least a bid and a turn per round; a turn holds one or more decisions.
        assert 12 <= len(turns) <= len(decisions)
        assert sum(turns) >= sum(decisions) - 1e-9 and min(turns) >= 0


# --- pairing and the sequential run --------------------------------------------------


def test_the_two_games_of_a_pair_differ_only_in_the_tested_seat() -> None:
    c = config("heuristic", "random", 40, opponents="easy", players=4, seed=3)
    for pair in range(8):
        cand, base = pair_specs(c, pair)
        seat = pair % 4
        assert cand.chance_seed == base.chance_seed
        assert cand.bot_seeds == base.bot_seeds  # the tested seat's too, by default
        assert cand.bots[seat] == "heuristic" and base.bots[seat] == "random"
        assert all(cand.bots[s] == base.bots[s] == "easy" for s in range(4) if s != seat)
        assert (cand.index, base.index) == (2 * pair, 2 * pair + 1)
    # Deals and seeds differ between pairs and between duel seeds.
    assert len({pair_specs(c, k)[0].chance_seed for k in range(8)}) == 8
    assert pair_specs(c, 0)[0].bot_seeds != pair_specs(c, 1)[0].bot_seeds
    other = config("heuristic", "random", 40, opponents="easy", players=4, seed=4)
    assert pair_specs(other, 0)[0].chance_seed != pair_specs(c, 0)[0].chance_seed
    # Independent seeds change the tested seat's baseline seed only.
    ind = config("heuristic", "random", 40, opponents="easy", players=4, seed=3,
                 independent_seeds=True)
    cand, base = pair_specs(ind, 5)
    differ = [s for s in range(4) if cand.bot_seeds[s] != base.bot_seeds[s]]
    assert differ == [1] and cand == pair_specs(c, 5)[0]


def test_heuristic_against_random_is_accepted_early() -> None:
    result = run_duel(config("heuristic", "random", 200))
    assert result.verdict == sprt.H1
    assert result.llr >= result.bounds.upper
    assert result.games < 200 and result.games == 2 * len(result.pairs)
    assert result.win_rate(0).mean > result.win_rate(1).mean
    assert result.share_difference().low > 0
    assert [p.seat for p in result.pairs[:4]] == [0, 1, 0, 1]
    decisions, turns = result.think_times("candidate")
    assert decisions.count > 0 and turns.count > 0 and turns.p95 >= 0


def test_a_bot_against_itself_is_not_accepted() -> None:
    # Different seeds: two different games per deal, the test sees only noise.
    noisy = run_duel(config("random", "random", 120, independent_seeds=True))
    assert noisy.verdict != sprt.H1
    # The same seeds: both games of every pair are the same game.
    same = run_duel(config("easy", "easy", 12))
    assert same.verdict != sprt.H1 and same.llr < 0
    for p in same.pairs:
        assert p.candidate.scores == p.baseline.scores and p.score == 0.5


def test_a_duel_replays_exactly_with_two_workers() -> None:
    c = config("heuristic", "random", 200, seed=11)
    one, two = run_duel(c, workers=1), run_duel(c, workers=2)
    assert two.verdict == one.verdict == sprt.H1
    assert len(two.pairs) == len(one.pairs)
    assert [(p.candidate.scores, p.baseline.scores) for p in two.pairs] \
        == [(p.candidate.scores, p.baseline.scores) for p in one.pairs]
    assert two.llr == one.llr


def test_undecided_at_max_games() -> None:
    result = run_duel(config("random", "random", 7, independent_seeds=True))
    assert result.verdict == sprt.CONTINUE and result.games == 6  # whole pairs only


# --- the command ---------------------------------------------------------------------


def test_duel_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["duel", "--candidate", "heuristic", "--baseline", "random", "--opponents",
                 "random", "--players", "2", "--rounds", "6", "--max-games", "200",
                 "--p0", "0", "--p1", "0.2", "--json", "--no-progress"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "H1" and data["games"] == 2 * data["pairs"] < 200
    assert data["hypotheses"]["mu0"] == 0.5 and data["hypotheses"]["mu1"] == 0.6
    assert data["win_rate"]["candidate"]["low"] <= data["win_rate"]["candidate"]["mean"]
    assert set(data["think_seconds"]) == {"candidate", "baseline", "opponents"}
    assert data["bounds"][0] < data["llr"] and data["bounds"][1] <= data["llr"]


def test_duel_command_report(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["duel", "--candidate", "random", "--players", "3", "--baseline", "random",
                 "--rounds", "6", "--max-games", "4", "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    for text in ("games 4 (2 pairs)", "opponents random", "LLR", "undecided at --max-games",
                 "win rate in the tested seat", "p95"):
        assert text in out


@pytest.mark.parametrize("extra,message", [
    (["--candidate", "nobody"], "argument --candidate: unknown bot 'nobody'"),
    (["--opponents", "grandmaster"], "argument --opponents: unknown bot 'grandmaster'"),
    (["--players", "6"], "argument --players: 6 is not allowed; it takes 2 to 5"),
    (["--players", "1"], "argument --players: 1 is not allowed"),
    (["--elo0", "30", "--elo1", "10"], "--elo0 (30) must be less than --elo1 (10)"),
    (["--elo0", "5", "--elo1", "5"], "--elo0 (5) must be less than --elo1 (5)"),
    (["--p0", "0", "--p1", "0.1", "--elo1", "30"], "not both"),
    (["--p0", "0.1"], "--p0 and --p1 go together"),
    (["--p0", "0.2", "--p1", "0.1"], "--p0 must be less than --p1"),
    (["--alpha", "0.7"], "argument --alpha"),
    (["--max-games", "1"], "a pair is 2 games"),
])
def test_duel_command_rejects_bad_arguments(capsys: pytest.CaptureFixture[str],
                                            extra: list[str], message: str) -> None:
    args = {"--candidate": "random", "--baseline": "random", "--players": "2"}
    args.update(zip(extra[::2], extra[1::2], strict=True))
    argv = ["duel", *itertools.chain.from_iterable(args.items()), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.startswith("usage: elgrande duel")


def test_duel_command_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["duel", "--candidate", "random", "--players", "2", "--max-games", "0"])
    assert exited.value.code == 2
    assert "--max-games" in capsys.readouterr().err
