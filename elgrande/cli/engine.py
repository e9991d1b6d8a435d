"""`elgrande simulate`, `elgrande bench engine` and `elgrande play`."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import random
import statistics
import sys
import time
from typing import Any

from tqdm import tqdm

from elgrande.rules import (
    ENGINE_CHOICE,
    GameConfig,
    IllegalAction,
    Options,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    parse_action,
    resolve_chance,
    to_act,
    winners,
)
from elgrande.rules.simulate import play_out, play_random_game
from elgrande.server.rule_messages import illegal_action_text  # standard library only

from . import UsageError, positive_float, positive_int, progress
from .board_text import render


def register(subparsers: argparse._SubParsersAction) -> None:
    sim = subparsers.add_parser(
        "simulate", help="play seeded random games and print their results",
        description="Play seeded games with uniformly random decisions; print each game's final "
                    "scores and winners, then a summary.")
    sim.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N",
                     help="players per game, 2 to 5 (default 4)")
    sim.add_argument("--games", type=positive_int, default=10, metavar="K",
                     help="number of games, 1 or more (default 10)")
    sim.add_argument("--seed", type=int, default=0, metavar="S",
                     help="seed of the first game; game i uses seed S+i (default 0)")
    sim.add_argument("--rounds", type=int, default=9, choices=(6, 9), help="9 (default) or 6 rounds")
    sim.add_argument("--json", action="store_true", help="one JSON object per game, then a summary object")
    sim.set_defaults(func=cmd_simulate)

    bench = subparsers.add_parser(
        "bench", help="benchmarks: the engine, the bots, the web server",
        description="Measure speed: `bench engine` (the rules engine), `bench ai` (the "
                    "bots' search), `bench server` (the web app under load) and `bench "
                    "clocks` (what running clocked games cost an idle server). "
                    "`elgrande bench TARGET --help` describes each.")
    bench_sub = bench.add_subparsers(dest="bench_command", metavar="TARGET")
    bench_sub.required = True
    eng = bench_sub.add_parser(
        "engine", help="random games and decisions per second, and the cost of copy()",
        description="Random full games per second and decisions per second on one core, per "
                    "player count, and the cost of State.copy() on a mid-game state, with the "
                    "rules engine that ran: compiled or pure Python (ELGRANDE_ENGINE=auto, "
                    "pure or compiled chooses; docs/compiled-engine.md).")
    eng.add_argument("--players", type=int, choices=range(2, 6), metavar="N",
                     help="only this player count (default: 2 to 5)")
    eng.add_argument("--seconds", type=positive_float, default=3.0, metavar="T",
                     help="time per player count in seconds, above 0 (default 3)")
    eng.add_argument("--rules", choices=("yucata", "box"), default="yucata",
                     help="rule set: yucata (default) or box, the publisher's rules with the "
                          "Veto; at a veto window random play passes with probability "
                          f"{BOX_PASS_PROBABILITY}")
    eng.add_argument("--json", action="store_true", help="print one JSON object")
    eng.set_defaults(func=cmd_bench_engine)
    # Other areas add their benchmarks (`bench ai`, `bench server`) when they are installed.
    for area in ("ai", "server", "loadgen", "clocks_bench"):
        if importlib.util.find_spec(f"elgrande.cli.{area}") is not None:
            module = importlib.import_module(f"elgrande.cli.{area}")
            if hasattr(module, "register_bench"):
                module.register_bench(bench_sub)

    play = subparsers.add_parser(
        "play", help="play a game in the terminal against random opponents",
        description="Play one full game in the terminal. At each decision the board and the "
                    "numbered legal actions are shown; answer with a number or the action's text.")
    play.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N",
                      help="players, 2 to 5 (default 4)")
    play.add_argument("--seat", type=int, default=0, metavar="K", help="your seat, 0 to N-1 (default 0)")
    play.add_argument("--rounds", type=int, default=9, choices=(6, 9), help="9 (default) or 6 rounds")
    play.add_argument("--seed", type=int, default=None, help="seed for cards and opponents (default random)")
    play.set_defaults(func=cmd_play)


# ---------------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    config = GameConfig(players=args.players, rounds=args.rounds)
    n = args.players
    wins = [0.0] * n
    totals: list[list[int]] = [[] for _ in range(n)]
    lengths = []
    started = time.perf_counter()
    for i in progress(range(args.games), desc="games", unit="game", shown=args.games > 1):
        seed = args.seed + i
        state, log = play_random_game(config, random.Random(seed))
        won = winners(state)
        for p in won:
            wins[p] += 1 / len(won)
        for p in range(n):
            totals[p].append(state.scores[p])
        lengths.append(len(log))
        if args.json:
            print(json.dumps({"game": i, "seed": seed, "scores": state.scores, "winners": won,
                              "actions": len(log)}))
        else:
            # tqdm.write: on a terminal, the line goes above the progress bar.
            tqdm.write(f"game {i} (seed {seed}): scores {' '.join(map(str, state.scores))}; "
                       f"winner{'s' if len(won) > 1 else ''} {', '.join(f'p{p}' for p in won)}")
    elapsed = time.perf_counter() - started
    summary = {
        "summary": True, "players": n, "rounds": args.rounds, "games": args.games,
        "mean_scores": [round(statistics.fmean(t), 2) for t in totals] if args.games else [],
        "win_share": [round(w / args.games, 4) for w in wins] if args.games else [],
        "mean_actions": round(statistics.fmean(lengths), 1) if lengths else 0,
        "seconds": round(elapsed, 3),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"\n{args.games} games, {n} players, {args.rounds} rounds, {elapsed:.2f} s")
        for p in range(n):
            if args.games:
                print(f"  p{p}: mean score {summary['mean_scores'][p]:6.2f}   win share {summary['win_share'][p]:.3f}")
        print(f"  mean actions per game: {summary['mean_actions']}")
    return 0


# ---------------------------------------------------------------------------------------


# `bench engine --rules box`: random play passes at a veto window with this probability.
BOX_PASS_PROBABILITY = 0.9


def bench_games(players: int, seconds: float, seed: int = 0, rules: str = "yucata") -> dict[str, Any]:
    """Random full 9-round games for ``seconds``: games and decisions per second. With
    ``rules="box"`` also the veto windows per game (each holder's answer is a decision)."""
    config = GameConfig(players=players, options=Options.preset(rules))
    box = rules != "yucata"
    rng = random.Random(seed)
    games = decisions = windows = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        state = new_game(config)
        log: list = []
        if box:
            play_out(state, rng, log, pass_probability=BOX_PASS_PROBABILITY)
            windows += sum(1 for a in log if a.kind in ("veto", "pass"))
        else:
            play_out(state, rng, log)
        games += 1
        decisions += len(log)
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - started
    result: dict[str, Any] = {
        "players": players, "games": games, "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "decisions_per_second": round(decisions / elapsed),
        "decisions_per_game": round(decisions / games, 1)}
    if box:
        result["window_answers_per_game"] = round(windows / games, 2)
    return result


def bench_copy(repeat: int = 200_000) -> float:
    """Microseconds per State.copy() of a 4-player state in round 5."""
    rng = random.Random(11)
    state = new_game(GameConfig(players=4))
    while is_chance(state) or state.round < 5 or state.phase_name != "deploy":
        if is_terminal(state):  # pragma: no cover - seeded game always reaches round 5
            raise RuntimeError("no mid-game state")
        if is_chance(state):
            resolve_chance(state, rng)
        else:
            options = legal_actions(state)
            apply(state, options[rng.randrange(len(options))])
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(repeat):
            state.copy()
        best = min(best, (time.perf_counter() - started) / repeat * 1e6)
    return round(best, 3)


def cmd_bench_engine(args: argparse.Namespace) -> int:
    counts = [args.players] if args.players else [2, 3, 4, 5]
    results = []
    for n in progress(counts, desc="player counts", unit="count", shown=len(counts) > 1):
        results.append(bench_games(n, args.seconds, rules=args.rules))
    copy_us = bench_copy()
    report: dict[str, Any] = {"engine": results, "copy_microseconds": copy_us,
                              "python": sys.version.split()[0],
                              "rules_engine": ENGINE_CHOICE.engine,
                              "rules_engine_reason": ENGINE_CHOICE.reason}
    if args.rules != "yucata":
        report["rules"] = args.rules
        report["pass_probability"] = BOX_PASS_PROBABILITY
    if args.json:
        print(json.dumps(report))
        return 0
    box = args.rules != "yucata"
    print(f"rules engine: {ENGINE_CHOICE.engine} ({ENGINE_CHOICE.reason})")
    print("random full 9-round games on one core" + (
        f", {args.rules} rules (a veto window is passed with probability {BOX_PASS_PROBABILITY})"
        if box else ""))
    print(f"{'players':>8} {'games/s':>10} {'decisions/s':>12} {'decisions/game':>15}"
          + (f" {'window answers/game':>20}" if box else ""))
    for r in results:
        print(f"{r['players']:>8} {r['games_per_second']:>10} {r['decisions_per_second']:>12} "
              f"{r['decisions_per_game']:>15}"
              + (f" {r['window_answers_per_game']:>20}" if box else ""))
    print(f"State.copy() on a mid-game 4-player state: {copy_us} µs")
    return 0


# ---------------------------------------------------------------------------------------


def cmd_play(args: argparse.Namespace) -> int:
    if not 0 <= args.seat < args.players:
        raise UsageError(f"argument --seat: {args.seat} is not a seat of {args.players} "
                         f"players; it takes 0 to {args.players - 1}")
    rng = random.Random(args.seed)
    state = new_game(GameConfig(players=args.players, rounds=args.rounds))
    print(f"You are p{args.seat}. Answer with the number of an action or its text; "
          "'q' quits, '?' shows the board again.")
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, rng)
            continue
        actors = to_act(state)
        if args.seat not in actors:
            for p in actors:
                options = legal_actions(state, p)
                action = options[rng.randrange(len(options))]
                if not action.is_secret:
                    print(f"  {action}")
                apply(state, action)
            continue
        options = legal_actions(state, args.seat)
        print()
        print(render(state, args.seat))
        print()
        for i, a in enumerate(options, 1):
            print(f"  {i:2d}. {a}")
        while True:
            try:
                answer = input("your choice> ").strip()
            except EOFError:
                print()
                return 1
            if answer.lower() in ("q", "quit", "exit"):
                return 1
            if answer == "?":
                print(render(state, args.seat))
                continue
            try:
                chosen = options[int(answer) - 1] if answer.isdigit() and 1 <= int(answer) <= len(options) \
                    else parse_action(answer)
                apply(state, chosen)
                break
            except IllegalAction as error:
                print(f"  not possible: {illegal_action_text(error.code, error.params)}")
            except ValueError as error:
                print(f"  not possible: {error}")
    print()
    print(render(state, args.seat))
    won = winners(state)
    print(f"\nGame over. Scores: {' '.join(f'p{p}={v}' for p, v in enumerate(state.scores))}. "
          f"Winner{'s' if len(won) > 1 else ''}: {', '.join(f'p{p}' for p in won)}.")
    return 0
