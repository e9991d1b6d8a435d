"""`elgrande bench clocks`: what running clocked games cost an idle server. Fills a
database with G running daily games (each with its clocks running, no deadline near),
starts `elgrande serve` on it, and measures the server process's CPU time while nobody
plays, as a share of one core. Run it with --games 0 for the same server's idle cost
without any game."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from . import positive_float, progress


def register(subparsers: argparse._SubParsersAction) -> None:
    """No top-level command of our own; the benchmark hangs under `elgrande bench`."""


def register_bench(bench_sub: argparse._SubParsersAction) -> None:
    parser = bench_sub.add_parser(
        "clocks", help="the idle CPU cost of many running clocked games",
        description="Fill a fresh SQLite database with G running daily-clock games (no "
        "deadline within the run), start `elgrande serve` on it and measure the server's "
        "CPU while nobody plays, as a share of one core.")
    parser.add_argument("--games", type=int, default=10_000, metavar="G",
                        help="running clocked games, 0 or more (default 10000)")
    parser.add_argument("--seconds", type=positive_float, default=60.0, metavar="T",
                        help="how long to measure the idle server, in seconds (default 60)")
    parser.add_argument("--settle", type=positive_float, default=5.0, metavar="S",
                        help="the start-up is over after a window of this many seconds "
                        "using under 5%% of a core (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=cmd_bench_clocks)


def fill(url: str, games: int) -> None:
    """``games`` running 2-player daily games: one made through the lobby, the rest
    copies of its rows (fast), each with its own match id and invitation."""
    from sqlalchemy import insert, select
    from sqlalchemy.orm import Session

    from elgrande.asgi import prepare_database
    from elgrande.matches.tables import CommitRow, MatchRow, MoveRow
    from elgrande.server.app import build_services
    from elgrande.server.clocks import table_clock
    from elgrande.server.lobby import SeatSpec
    from elgrande.server.settings import Settings
    from elgrande.server.tables import Game, GameClock, Seat, SeatClockRow

    prepare_database(url)
    svc = build_services(Settings.load(database_url=url, secret_key="bench-clocks-" + "k" * 20))
    if games <= 0:
        return
    players = [svc.accounts.guest(), svc.accounts.guest()]
    game = svc.lobby.create(players[0], 2, 9, [SeatSpec("me"), SeatSpec("open")],
                            clock=table_clock("daily-1"))
    svc.lobby.join(game.id, players[1])
    svc.lobby.start(game.id, players[0])
    svc.clocks.settle(game.id)
    # In the order of their foreign keys.
    tables = (MatchRow, CommitRow, MoveRow, Game, Seat, GameClock, SeatClockRow)

    def rows(db: Session, table: Any, *where: Any) -> list[dict[str, Any]]:
        columns = table.__table__.columns
        return [{c.key: getattr(r, c.key) for c in columns if c.key != "id"}
                for r in db.scalars(select(table).where(*where))]

    with Session(svc.engine) as db:
        start = db.get(Game, game.id)
        assert start is not None and start.match_id is not None
        match_id = start.match_id
        template = {
            Game: rows(db, Game, Game.id == game.id), Seat: rows(db, Seat, Seat.game_id == game.id),
            GameClock: rows(db, GameClock, GameClock.game_id == game.id),
            SeatClockRow: rows(db, SeatClockRow, SeatClockRow.game_id == game.id),
            MatchRow: rows(db, MatchRow, MatchRow.id == match_id),
            CommitRow: rows(db, CommitRow, CommitRow.match_id == match_id),
            MoveRow: rows(db, MoveRow, MoveRow.match_id == match_id)}
    batch = 500
    with Session(svc.engine) as db:
        next_id = game.id + 1
        for first in progress(range(1, games, batch), shown=True, desc="games",
                              total=(games + batch - 2) // batch):
            made: dict[Any, list[dict[str, Any]]] = {t: [] for t in tables}
            for number in range(first, min(games, first + batch)):
                new_match = secrets.token_hex(16)
                game_id = next_id + number - 1
                for t in tables:
                    for row in template[t]:
                        copy = dict(row)
                        if t is Game:
                            copy.update(id=game_id, match_id=new_match,
                                        invite_token=secrets.token_urlsafe(16))
                        elif t is MatchRow:
                            copy["id"] = new_match
                        elif "match_id" in copy:
                            copy["match_id"] = new_match
                        if "game_id" in copy:
                            copy["game_id"] = game_id
                        made[t].append(copy)
            for t in tables:
                if made[t]:
                    db.execute(insert(t), made[t])
            db.commit()
    svc.accounts.close()
    svc.engine.dispose()


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its children (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks


def cmd_bench_clocks(args: argparse.Namespace) -> int:
    if args.games < 0:
        print("elgrande bench clocks: --games must be 0 or more", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="elgrande-bench-clocks-") as folder:
        url = f"sqlite:///{Path(folder) / 'clocks.db'}"
        started = time.perf_counter()
        fill(url, args.games)
        filled = time.perf_counter() - started
        env = {**os.environ, "ELGRANDE_DATABASE_URL": url,
               "ELGRANDE_SECRET_FILE": str(Path(folder) / "secret"), "ELGRANDE_PORT": "0",
               "ELGRANDE_BOT_PROCESSES": "1"}
        server = subprocess.Popen([sys.executable, "-m", "elgrande", "serve"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            address = line.split("running at ", 1)[1].split("/ ", 1)[0] if "running at" in line else ""
            if not address:
                print(f"elgrande bench clocks: the server did not start: {line.strip()}",
                      file=sys.stderr)
                return 1
            urllib.request.urlopen(f"{address}/readyz", timeout=30).read()
            # Start-up work (finishing interrupted starts, waking every game's computer
            # opponents, the clocks' first catch-up) is measured apart: until a window
            # of ``settle`` seconds uses under 5% of a core.
            while True:
                mark = cpu_seconds(server.pid)
                time.sleep(args.settle)
                if cpu_seconds(server.pid) - mark < 0.05 * args.settle:
                    break
            startup = cpu_seconds(server.pid)
            before, t0 = startup, time.perf_counter()
            time.sleep(args.seconds)
            used, elapsed = cpu_seconds(server.pid) - before, time.perf_counter() - t0
        finally:
            server.terminate()
            server.wait(timeout=30)
    result = {"games": args.games, "seconds": round(elapsed, 1), "cpu_seconds": round(used, 3),
              "core_percent": round(100 * used / elapsed, 3), "fill_seconds": round(filled, 1),
              "startup_cpu_seconds": round(startup, 2)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.games} running clocked games; idle server measured {result['seconds']} s: "
              f"{result['cpu_seconds']} s of CPU = {result['core_percent']}% of one core "
              f"(start-up took {result['startup_cpu_seconds']} s of CPU; database filled in "
              f"{result['fill_seconds']} s)")
    return 0
