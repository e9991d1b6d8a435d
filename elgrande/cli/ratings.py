"""`elgrande ratings calibrate` (the computer levels' ratings, from their own pool of games
against each other) and `elgrande bench pages` (the profile, ranking and "My games"
pages with 100,000 finished games in the database). docs/ratings.md."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import UsageError, positive_int, progress


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ratings", help="the computer levels' ratings (calibration)",
        description="Ratings (docs/ratings.md). Players' ratings change by themselves as "
        "rated games finish; the computer levels are rated here, in a pool of their own.")
    actions = parser.add_subparsers(dest="ratings_action", metavar="ACTION", required=True)
    calibrate = actions.add_parser(
        "calibrate", help="play the computer levels against each other and store their ratings",
        description="Play G games between the computer levels (every combination of "
        "--players levels in turn, seats rotated, one chance seed per game), rate the levels "
        "from the results with the players' rating model (openskill, Plackett-Luce, starting "
        "where a new player starts) and store them in the database, where the ranking page "
        "shows them. The pool is then anchored on the players' scale: the levels are shifted "
        "together by how far their results against rated players (the newest games in the "
        "database, players' ratings held fixed) place them. A new calibration replaces the "
        "last one.")
    calibrate.add_argument("--database-url", help="SQLAlchemy URL (default: the server's setting)")
    calibrate.add_argument("--levels", default="random,easy,medium", metavar="LEVELS",
                           help="comma-separated levels, 2 or more (default random,easy,medium; "
                           "hard thinks about a second a move: allow hours)")
    calibrate.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="N",
                           help="players per game, 2 to 5 and at most the number of levels "
                           "(default 3)")
    calibrate.add_argument("--games", type=positive_int, default=60, metavar="G",
                           help="games to play, 1 or more (default 60)")
    calibrate.add_argument("--rounds", type=int, default=6, choices=(6, 9),
                           help="rounds per game (default 6)")
    calibrate.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    calibrate.add_argument("--workers", type=positive_int, default=1, metavar="W",
                           help="worker processes (default 1)")
    calibrate.add_argument("--no-anchor", action="store_true",
                           help="keep the pool's own scale (do not shift it by the levels' "
                           "results against rated players)")
    calibrate.add_argument("--json", action="store_true", help="print JSON")
    calibrate.set_defaults(func=calibrate_command)
    bench = subparsers.choices.get("bench")
    if bench is not None:
        for action in bench._actions:
            if isinstance(action, argparse._SubParsersAction):
                register_bench(action)


# -- calibration


def lineups(levels: Sequence[str], players: int, games: int) -> list[tuple[str, ...]]:
    """The levels at each game's table: every combination in turn, seats rotated."""
    combos = list(itertools.combinations(levels, players))
    out = []
    for game in range(games):
        combo = combos[game % len(combos)]
        turn = (game // len(combos)) % players
        out.append(tuple(combo[(seat + turn) % players] for seat in range(players)))
    return out


def pool_ratings(results: Sequence[tuple[tuple[str, ...], tuple[int, ...]]]
                 ) -> dict[str, tuple[float, float, int]]:
    """Each level's (mu, sigma, games) after the games (levels per seat, scores), rated
    in order from a new player's rating, as players' games are."""
    from elgrande.server.ratings import MODEL, placements, rate

    ratings: dict[str, tuple[float, float]] = {}
    games: dict[str, int] = {}
    for seats, scores in results:
        before = [ratings.get(level, (MODEL.mu, MODEL.sigma)) for level in seats]
        after = rate(before, placements(list(scores), set()))
        for level, new in zip(seats, after, strict=True):
            ratings[level] = new
            games[level] = games.get(level, 0) + 1
    return {level: (mu, sigma, games[level]) for level, (mu, sigma) in ratings.items()}


def calibrate_command(args: argparse.Namespace) -> int:
    from elgrande.ai.tournament import GameSpec, derive_seed, run_games
    from elgrande.server.bots import BOT_LEVELS
    from elgrande.server.ratings import display, spread

    levels = [name.strip() for name in args.levels.split(",") if name.strip()]
    unknown = [name for name in levels if name not in BOT_LEVELS]
    if unknown:
        raise UsageError(f"argument --levels: unknown level {unknown[0]!r}; the levels are "
                         f"{', '.join(BOT_LEVELS)}")
    if len(set(levels)) != len(levels) or len(levels) < 2:
        raise UsageError("argument --levels: give 2 or more different levels")
    if args.players > len(levels):
        raise UsageError(f"argument --players: {args.players} players need as many levels; "
                         f"--levels lists {len(levels)}")
    sessions = _sessions(args.database_url)  # refused before hours of play, not after
    specs = [GameSpec(index=g, bots=seats, chance_seed=derive_seed("calibrate", args.seed, g),
                      bot_seeds=tuple(derive_seed("bot", args.seed, g, s) for s in range(len(seats))),
                      rounds=args.rounds)
             for g, seats in enumerate(lineups(levels, args.players, args.games))]
    from tqdm import tqdm

    # (a bar on a terminal only, as every command's)
    with tqdm(total=len(specs), unit="game", file=sys.stderr, disable=None) as bar:
        records = run_games(specs, args.workers, progress=lambda _record: bar.update(1))
    found = pool_ratings([(r.bots, r.scores) for r in records])
    from elgrande.server.ratings import (
        anchor_offset,
        anchor_results,
        player_ratings,
        store_bot_ratings,
    )

    shift, anchor_games = 0.0, 0
    if not args.no_anchor:
        shift, anchor_games = anchor_offset(found, anchor_results(sessions, levels),
                                            player_ratings(sessions))
        found = {level: (mu + shift, sigma, games) for level, (mu, sigma, games) in found.items()}
    store_bot_ratings(sessions, found)
    rows = sorted(found.items(), key=lambda item: -display(item[1][0], item[1][1]))
    if args.json:
        print(json.dumps({"levels": {level: {"mu": mu, "sigma": sigma, "games": games,
                                             "rating": display(mu, sigma),
                                             "uncertainty": spread(sigma)}
                                     for level, (mu, sigma, games) in rows},
                          "anchor": {"games": anchor_games, "shift_mu": shift}}, indent=2))
    else:
        print(f"{'level':<8} {'rating':>7} {'±':>5} {'games':>6}")
        for level, (mu, sigma, games) in rows:
            print(f"{level:<8} {display(mu, sigma):>7} {spread(sigma):>5} {games:>6}")
        if args.no_anchor:
            print("not anchored (--no-anchor): the pool's own scale")
        elif anchor_games:
            print(f"anchored on {anchor_games} games of rated players against these levels "
                  f"(shift {shift:+.2f} mu)")
        else:
            print("not anchored: no finished games of rated players against these levels "
                  "yet; run the calibration again once there are some")
        print("stored: the ranking page shows them")
    return 0


def _sessions(url: str | None) -> Any:
    """Sessions on the server's database (which must have the current schema)."""
    from sqlalchemy.orm import sessionmaker

    from elgrande.db.engine import make_engine, writer
    from elgrande.migrations import SchemaError, require_current
    from elgrande.server.settings import Settings, SettingsError

    try:
        engine = make_engine(url or Settings.load().database_url)
        require_current(engine)
    except (SettingsError, SchemaError) as exc:
        raise UsageError(str(exc)) from None
    return sessionmaker(writer(engine), expire_on_commit=False)


# -- the benchmark of the pages


def register_bench(bench_sub: Any) -> None:
    if "pages" in bench_sub.choices:
        return
    parser = bench_sub.add_parser(
        "pages", help="profile, ranking and My games pages with many finished games",
        description="Fill a database with G finished games between P registered players "
        "(bulk inserts of the rows the pages read: games, seats, results, ratings and their "
        "history, each player's totals), then load the profile, ranking and My games pages "
        "through the app (in this process, over its ASGI interface) and report their "
        "latency percentiles, per round of requests.")
    parser.add_argument("--games", type=int, default=100_000, metavar="G",
                        help="finished games, 0 or more (default 100000)")
    parser.add_argument("--players", type=positive_int, default=3000, metavar="P",
                        help="registered players (default 3000)")
    parser.add_argument("--requests", type=positive_int, default=200, metavar="R",
                        help="requests per page kind and round (default 200)")
    parser.add_argument("--rounds", type=positive_int, default=3, metavar="K",
                        help="rounds of requests, for the spread (default 3)")
    parser.add_argument("--database-url", help="an EMPTY database to fill (default: a "
                        "temporary SQLite file)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=bench_pages_command)


def fill_pages(url: str, games: int, players: int, seed: int = 0) -> dict[str, Any]:
    """``games`` finished games between ``players`` registered players (a few play most:
    activity follows a Zipf law), rated in order; a few running games for the players
    whose pages are loaded. Returns what the measurement needs."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import insert

    from elgrande.asgi import prepare_database
    from elgrande.rules import CARDS
    from elgrande.server.app import build_services
    from elgrande.server.lobby import SeatSpec
    from elgrande.server.names import name_key, skeleton
    from elgrande.server.ratings import MODEL, display, placements, rate
    from elgrande.server.settings import Settings
    from elgrande.server.tables import (
        Game,
        GameOutcome,
        GameResult,
        PlayerCardStat,
        PlayerCountStat,
        PlayerRating,
        RatingHistory,
        Seat,
        User,
    )

    prepare_database(url)
    svc = build_services(Settings.load(database_url=url, secret_key="bench-pages-" + "k" * 20))
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    with svc.sessions.begin() as db:
        db.execute(insert(User), [
            {"name": f"player{i:05d}", "name_key": name_key(f"player{i:05d}"),
             "name_skeleton": skeleton(f"player{i:05d}"), "password_hash": "$argon2id$bench",
             "is_guest": False, "created_at": start - timedelta(days=30)}
            for i in range(players)])
    with svc.sessions() as db:
        from sqlalchemy import select

        ids = list(db.scalars(select(User.id).order_by(User.id)))
    weights = [1 / (rank + 1) ** 0.8 for rank in range(players)]  # Zipf: a few play a lot
    cards = [c.id for c in CARDS]
    ratings: dict[int, tuple[float, float, int]] = {}
    counts: dict[tuple[int, int], list[int]] = {}
    card_stats: dict[tuple[int, str], list[int]] = {}
    batch = 2000
    first_id = 1_000_000  # clear of any game the lobby makes
    for first in progress(range(0, games, batch), desc="games", unit="batch",
                          total=math.ceil(games / batch)):
        made: dict[Any, list[dict[str, Any]]] = {t: [] for t in (Game, Seat, GameOutcome, GameResult, RatingHistory)}
        for number in range(first, min(games, first + batch)):
            game_id = first_id + number
            at = start + timedelta(minutes=5 * number)
            n = rng.choice((2, 3, 3, 4, 4, 5))
            table: list[int] = []
            while len(table) < n:
                pick = rng.choices(ids, weights)[0]
                if pick not in table:
                    table.append(pick)
            rated = rng.random() < 0.7
            scores = [rng.randint(20, 110) for _ in table]
            places = placements(scores, set())
            made[Game].append({"id": game_id, "invite_token": f"bench{game_id}",
                               "creator_id": table[0], "players": n, "rounds": 9,
                               "status": "finished", "created_at": at - timedelta(days=3),
                               "updated_at": at, "rated": rated})
            made[GameOutcome].append({"game_id": game_id, "finished_at": at, "rated": rated,
                                      "note": "" if rated else "friendly"})
            changes: dict[int, int] = {}
            if rated:
                before = [ratings.get(u, (MODEL.mu, MODEL.sigma, 0)) for u in table]
                after = rate([(mu, sigma) for mu, sigma, _ in before], places)
                for u, (mu, sigma), old in zip(table, after, before, strict=True):
                    changes[u] = display(mu, sigma) - display(old[0], old[1])
                    ratings[u] = (mu, sigma, old[2] + 1)
                    made[RatingHistory].append({"user_id": u, "game_id": game_id, "mu": mu,
                                                "sigma": sigma, "display": display(mu, sigma),
                                                "at": at})
            for seat, u in enumerate(table):
                best_other = max(s for i, s in enumerate(scores) if i != seat)
                won = places[seat] == 1
                made[Seat].append({"game_id": game_id, "seat": seat, "kind": "human", "user_id": u})
                made[GameResult].append({
                    "game_id": game_id, "seat": seat, "user_id": u, "kind": "human",
                    "place": places[seat], "score": scores[seat],
                    "margin": scores[seat] - best_other, "won": won, "players": n,
                    "rated": rated, "rating_change": changes.get(u), "finished_at": at})
                total = counts.setdefault((u, n), [0, 0, 0, 0])
                total[0] += 1
                total[1] += won
                total[2] += scores[seat]
                total[3] += scores[seat] - best_other
                for card in rng.sample(cards, 6):
                    stat = card_stats.setdefault((u, card), [0, 0, 0])
                    stat[0] += 1
                    stat[1] += 1
                    stat[2] += won
        with svc.sessions.begin() as db:
            for t in (Game, Seat, GameOutcome, GameResult, RatingHistory):
                if made[t]:
                    db.execute(insert(t), made[t])
    end = start + timedelta(minutes=5 * games)
    with svc.sessions.begin() as db:
        if ratings:
            db.execute(insert(PlayerRating), [
                {"user_id": u, "mu": mu, "sigma": sigma, "display": display(mu, sigma),
                 "rated_games": n, "updated_at": end} for u, (mu, sigma, n) in ratings.items()])
        if counts:
            db.execute(insert(PlayerCountStat), [
                {"user_id": u, "players": n, "played": v[0], "won": v[1], "score_sum": v[2],
                 "margin_sum": v[3]} for (u, n), v in counts.items()])
        if card_stats:
            db.execute(insert(PlayerCardStat), [
                {"user_id": u, "card": card, "taken": v[0], "games": v[1], "won": v[2]}
                for (u, card), v in card_stats.items()])
    # The pages are loaded as the most active players and a sample of the rest; each
    # of them has two running games (real ones, with their matches).
    sample = ids[:5] + rng.sample(ids[5:], min(len(ids) - 5, 25))
    accounts = {u.id: u for u in (svc.accounts.get(i) for i in sample) if u is not None}
    for index, user_id in enumerate(sample):
        other = accounts[sample[(index + 1) % len(sample)]]
        for _ in range(2):
            game = svc.lobby.create(accounts[user_id], 2, 9, [SeatSpec("me"), SeatSpec("open")])
            svc.lobby.join(game.id, other)
            svc.lobby.start(game.id, accounts[user_id])
    svc.accounts.close()
    svc.engine.dispose()
    return {"sample": [(u, accounts[u].name, accounts[u].session_generation) for u in sample]}


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def measure_pages(url: str, sample: list[tuple[int, str, int]], requests: int, rounds: int,
                  seed: int = 0) -> dict[str, Any]:
    """Per page kind, the latency (ms) of each round of ``requests`` loads."""
    from fastapi.testclient import TestClient

    from elgrande.server.app import create_app
    from elgrande.server.security import SESSION_COOKIE, Signer
    from elgrande.server.settings import Settings

    secret = "bench-pages-" + "k" * 20
    settings = Settings.load(database_url=url, secret_key=secret, profile_pages_per_minute=0,
                             bot_processes=1)
    signer = Signer(secret)
    rng = random.Random(seed)
    kinds = {
        "profile": lambda name, page: f"/players/{name}",
        "ranking": lambda name, page: f"/ranking?page={page}",
        "my-games": lambda name, page: f"/my-games?page={page}",
        "my-games rated": lambda name, page: f"/my-games?show=rated&page={page}",
    }
    found: dict[str, list[list[float]]] = {kind: [] for kind in kinds}
    with TestClient(create_app(settings), follow_redirects=False) as client:
        for path in kinds.values():  # warm up: the first loads compile templates
            user_id, name, generation = sample[0]
            client.cookies.set(SESSION_COOKIE, signer.session_cookie(user_id, generation))
            client.get(path(name, 1))
        for _ in range(rounds):
            for kind, path in kinds.items():
                times = []
                for _ in range(requests):
                    user_id, name, generation = rng.choice(sample)
                    client.cookies.set(SESSION_COOKIE, signer.session_cookie(user_id, generation))
                    target = path(rng.choice(sample)[1] if kind == "profile" else name,
                                  rng.choice((1, 1, 1, 2, 3)))
                    began = time.perf_counter()
                    answer = client.get(target)
                    times.append((time.perf_counter() - began) * 1000)
                    if answer.status_code != 200:
                        raise RuntimeError(f"{target}: {answer.status_code} {answer.text[:200]}")
                found[kind].append(times)
    return found


def bench_pages_command(args: argparse.Namespace) -> int:
    if args.games < 0:
        raise UsageError("argument --games: 0 or more")
    with tempfile.TemporaryDirectory(prefix="elgrande-bench-pages-") as folder:
        url = args.database_url or f"sqlite:///{Path(folder) / 'pages.db'}"
        began = time.perf_counter()
        filled = fill_pages(url, args.games, args.players, args.seed)
        fill_seconds = time.perf_counter() - began
        found = measure_pages(url, filled["sample"], args.requests, args.rounds, args.seed)
    report: dict[str, Any] = {"games": args.games, "players": args.players,
                              "database": url.split(":", 1)[0], "fill_seconds": round(fill_seconds, 1),
                              "requests_per_round": args.requests, "pages": {}}
    for kind, rounds in found.items():
        p95s = [percentile(r, 0.95) for r in rounds]
        every = [t for r in rounds for t in r]
        report["pages"][kind] = {
            "p50_ms": round(statistics.median(every), 1),
            "p95_ms": round(percentile(every, 0.95), 1),
            "p99_ms": round(percentile(every, 0.99), 1),
            "max_ms": round(max(every), 1),
            "p95_per_round_ms": [round(p, 1) for p in p95s],
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.games} finished games, {args.players} players, {report['database']}; "
          f"filled in {report['fill_seconds']} s; {args.rounds} rounds of {args.requests} "
          "requests per page")
    print(f"{'page':<16} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7}  p95 per round (ms)")
    for kind, row in report["pages"].items():
        print(f"{kind:<16} {row['p50_ms']:>7} {row['p95_ms']:>7} {row['p99_ms']:>7} "
              f"{row['max_ms']:>7}  {', '.join(map(str, row['p95_per_round_ms']))}")
    return 0

