"""`elgrande bench server`: load on the web app over real HTTP and WebSocket
(elgrande.loadgen.bench). Registered by `register_bench(bench_subparsers)`."""

from __future__ import annotations

import argparse
import json
import sys

from . import positive_float, positive_int


def register(subparsers: argparse._SubParsersAction) -> None:
    """No top-level command of our own; the benchmark hangs under `elgrande bench`."""


def register_bench(bench_sub: argparse._SubParsersAction) -> None:
    parser = bench_sub.add_parser(
        "server", help="load on the web app: committed moves/s and update latency",
        description="Drive G concurrent games with scripted clients over real HTTP and "
        "WebSocket against P server processes; report committed moves per second, latency "
        "percentiles from a finishing request to every seat's update, and errors.")
    parser.add_argument("--games", type=positive_int, default=8, metavar="G",
                        help="concurrent games, 1 or more (default 8)")
    parser.add_argument("--processes", type=positive_int, default=1, metavar="P",
                        help="server processes to start, 1 or more (default 1)")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="N",
                        help="seats per game, every one a scripted client (default 3)")
    parser.add_argument("--rounds", type=int, default=9, choices=(6, 9),
                        help="rounds per game (default 9, the standard game); finished games are replaced")
    parser.add_argument("--seconds", type=positive_float, default=20.0, metavar="T",
                        help="how long to drive the games, in seconds (default 20)")
    parser.add_argument("--database-url", metavar="URL",
                        help="database of the started servers (default: a fresh SQLite file)")
    parser.add_argument("--pubsub-url", metavar="URL",
                        help="redis://host:port/db, needed with several processes")
    parser.add_argument("--url", action="append", metavar="URL", dest="urls",
                        help="drive already running servers instead (repeatable)")
    parser.add_argument("--via", choices=("ws", "http"), default="ws",
                        help="send the moves over the game page's WebSocket, as the page "
                        "does (default), or as JSON API requests")
    parser.add_argument("--clients", type=positive_int, default=2, metavar="C",
                        help="processes running the scripted players, games split between "
                        "them (default 2: one loop of players can itself be the limit)")
    parser.add_argument("--client-nice", type=int, default=10, choices=range(0, 20), metavar="N",
                        help="niceness of the client processes, so the servers under test "
                        "get the CPU first on a shared machine, 0 to 19 (default 10; 0: equal)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the scripted players (default 0)")
    parser.add_argument("--memory-every", type=positive_float, metavar="SECONDS",
                        help="sample the started servers' memory (RSS) this often and "
                        "report the curve (for soak runs; docs/deploy.md)")
    parser.add_argument("--pace", default="none",
                        choices=("none", "live", "daily-1", "daily-2", "daily-3"),
                        help="the tables' clock (docs/clocks.md; default none): with a clock "
                        "every commit also settles the seats' clocks")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=cmd_bench_server)


def cmd_bench_server(args: argparse.Namespace) -> int:
    from elgrande.loadgen import bench

    try:
        result = bench.run(games=args.games, processes=args.processes, players=args.players,
                           rounds=args.rounds, seconds=args.seconds,
                           database_url=args.database_url, pubsub_url=args.pubsub_url,
                           urls=args.urls, seed=args.seed, via=args.via,
                           clients=args.clients, client_nice=args.client_nice,
                           memory_every=args.memory_every, pace=args.pace)
    except ValueError as exc:
        print(f"elgrande bench server: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        lat, req = result["latency_ms"], result["request_ms"]
        print(f"{result['processes']} process(es), {result['games']} games of "
              f"{result['players']} seats, pace {result['pace']}, moves via {result['via']}, "
              f"{result['client_processes']} client process(es), {result['seconds']} s")
        print(f"committed moves: {result['moves']} ({result['moves_per_s']}/s); commits "
              f"{result['commits']} ({result['commits_per_s']}/s); requests "
              f"{result['requests']} ({result['requests_per_s']}/s)")
        print(f"latency request -> every seat's update (ms): p50 {lat['p50']}  p95 {lat['p95']}"
              f"  p99 {lat['p99']}")
        print(f"request time (ms): p50 {req['p50']}  p95 {req['p95']}  p99 {req['p99']}")
        print(f"conflicts (409 moved on): {result['conflicts']}; errors: {result['errors']}")
        for sample in result["error_samples"]:
            print(f"  {sample}")
        print(f"load average during the run: {result['load_average']}")
        if "memory" in result:
            memory = result["memory"]
            curve = "  ".join(f"{s['t']:.0f}s:{sum(x or 0 for x in s['rss_mb']):.0f}"
                              for s in memory["samples"])
            print(f"servers' memory (RSS, MiB): start {memory['start_mb']}  end "
                  f"{memory['end_mb']}  peak {memory['peak_mb']}")
            print(f"  {curve}")
    return 0 if result["errors"] == 0 else 1


def main(argv: list[str] | None = None) -> int:
    """`python -m elgrande.cli.loadgen [options]` = `elgrande bench server [options]`
    (until the `elgrande bench` command discovers this module)."""
    parser = argparse.ArgumentParser(prog="elgrande bench")
    register_bench(parser.add_subparsers(dest="target", required=True))
    args = parser.parse_args(["server", *(argv if argv is not None else sys.argv[1:])])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
