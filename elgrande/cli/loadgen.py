"""`elgrande bench server`: load on the web app over real HTTP and WebSocket
(elgrande.loadgen.bench), and `elgrande bench page`: what one game page's connection and
commands cost (elgrande.loadgen.page). Registered by `register_bench(bench_subparsers)`."""

from __future__ import annotations

import argparse
import json
import math
import sys

from elgrande.loadgen.model import MODELS

from . import non_negative_int, positive_float, positive_int


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def non_negative_float(text: str) -> float:
    value = _number(text)
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; it takes a number of 0 "
                                          "or more")
    return value


def fraction(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not allowed; it takes a number from 0 "
                                          "to 1")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    """No top-level command of our own; the benchmark hangs under `elgrande bench`."""


def register_bench(bench_sub: argparse._SubParsersAction) -> None:
    parser = bench_sub.add_parser(
        "server", help="load on the web app: committed moves/s and update latency",
        description="Drive G concurrent games with scripted clients over real HTTP and "
        "WebSocket against P server processes; report commits, steps and committed moves "
        "per second, latency percentiles from a finishing command to every open page's "
        "update, errors, the servers' CPU per commit and memory per open game, and the "
        "load generator's own CPU and event-loop lag. --model chooses how the players "
        "behave (docs/bench.md).")
    parser.add_argument("--games", type=positive_int, default=8, metavar="G",
                        help="concurrent games, 1 or more (default 8)")
    parser.add_argument("--processes", type=positive_int, default=1, metavar="P",
                        help="server processes to start, 1 or more (default 1)")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="N",
                        help="seats per game, every one a scripted client (default 3)")
    parser.add_argument("--rounds", type=int, default=9, choices=(6, 9),
                        help="rounds per game (default 9, the standard game); finished games are replaced")
    parser.add_argument("--seconds", type=positive_float, metavar="T",
                        help="how long to measure, in seconds (default: 20 with the flat "
                        "model, 60 with live and daily; after their warm-up)")
    parser.add_argument("--model", default="flat", choices=sorted(MODELS),
                        help="how the players behave (default flat): flat, they never think "
                        "(the most the servers take); live, lognormal think times per turn, "
                        "step and secret choice (medians 15, 3 and 20 s), 0.5 spectators per "
                        "game, 4 reconnects per page-hour, games under way at random stages; "
                        "daily, as live but 90%% of the games idle (their players think for "
                        "hours: median 4 h per turn). See docs/bench.md")
    parser.add_argument("--spectators", type=non_negative_float, metavar="S",
                        help="spectators per game on average: the whole part in every game, "
                        "one more in that fraction of them (default: the model's, 0 / 0.5 / "
                        "0.1)")
    parser.add_argument("--reconnects-per-hour", type=non_negative_float, metavar="R",
                        help="how often each open page's WebSocket drops and reconnects, per "
                        "hour (exponential intervals; default: the model's, 0 / 4 / 4)")
    parser.add_argument("--live-fraction", type=fraction, metavar="F",
                        help="share of the games played live, the others idle with the daily "
                        "model's think times (0 to 1; default: the model's, 0.1 with daily)")
    parser.add_argument("--think-scale", type=positive_float, metavar="K",
                        help="multiply every think time by K (0.1: players ten times faster; "
                        "default 1)")
    parser.add_argument("--stagger", action=argparse.BooleanOptionalAction, default=None,
                        help="warm up first: play every game without thinking to a random "
                        "stage, so that games finish and new ones start while measuring "
                        "(default: with the live and daily models)")
    parser.add_argument("--set-up-first", action="store_true",
                        help="set every game up (accounts, lobby, joining, starting, pages "
                        "open) before measuring, and measure the games held from their start, "
                        "not their arrival (instead of --stagger's warm-up)")
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
                        help="seed of the scripted players' choices and think times, so that a "
                        "run's draws are reproducible (default 0)")
    parser.add_argument("--memory-every", type=positive_float, metavar="SECONDS",
                        help="sample the started servers' memory (RSS) this often and "
                        "report the curve (for soak runs; docs/deploy.md)")
    parser.add_argument("--pace", default="none",
                        choices=("none", "live", "daily-1", "daily-2", "daily-3"),
                        help="the tables' clock (docs/clocks.md; default none): with a clock "
                        "every commit also settles the seats' clocks")
    parser.add_argument("--ramp", type=non_negative_int, default=0, metavar="N",
                        help="set up at most N games at once (over all client processes), "
                        "as players arriving over time; default 0: every game at once")
    parser.add_argument("--deflate", action=argparse.BooleanOptionalAction, default=False,
                        help="whether the started servers offer per-message deflate on "
                        "their WebSockets (default: no, as `elgrande serve` by default, "
                        "ELGRANDE_WS_DEFLATE; --deflate measures the CPU and memory it "
                        "costs)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=cmd_bench_server)

    parser = bench_sub.add_parser(
        "page", help="what one game page costs the server: a connection, a command",
        description="Start one server on a fresh SQLite file, play a guest's game against "
        "two computers to E log entries, wait for the guest's turn, then open and close "
        "that seat's page socket N times, and send M syncs (the state again, from memory) "
        "and M draft steps and undos, each waiting for its answer; report the server's "
        "CPU per connection, per sync and per draft step (docs/bench.md).")
    parser.add_argument("--connections", type=positive_int, default=300, metavar="N",
                        help="connections to measure, 1 or more (default 300)")
    parser.add_argument("--commands", type=positive_int, default=200, metavar="M",
                        help="syncs, and steps and undos, to measure (default 200 each)")
    parser.add_argument("--entries", type=positive_int, default=150, metavar="E",
                        help="log entries the game has when measuring (default 150, about "
                        "the middle of a 3-seat game)")
    parser.add_argument("--deflate", action=argparse.BooleanOptionalAction, default=False,
                        help="whether the server offers per-message deflate (default: no, "
                        "as `elgrande serve` by default)")
    parser.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                        help="seed of the guest's random moves (default 0)")
    parser.add_argument("--idle-sockets", type=non_negative_int, default=1000, metavar="K",
                        help="sockets of the page then opened at once and left idle, to "
                        "measure the server memory an idle page holds (default 1000; 0: "
                        "none)")
    parser.add_argument("--ws", choices=("game", "asgi"), default="game",
                        help="the server's WebSocket path: the game pages' own, as "
                        "`elgrande serve` (default), or through the ASGI app (uvicorn's "
                        "sans-I/O protocol), to compare")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=cmd_bench_page)


def cmd_bench_page(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from elgrande.loadgen import page

    # (a bar only on a terminal: tqdm's disable=None)
    with tqdm(total=args.connections + 2 * args.commands + args.idle_sockets,
              desc="measured", file=sys.stderr, disable=None) as bar:
        result = page.run(args.connections, args.commands, args.entries, args.deflate,
                          args.seed, progress=lambda done, total: bar.update(1),
                          idle=args.idle_sockets, ws_path=args.ws)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"a seat's page of a game of {result['log_entries']} log entries (first state "
              f"{result['first_state_bytes']} bytes, deflate "
              f"{'on' if result['deflate'] else 'off'}), server CPU: "
              f"{result['server_cpu_ms_per_connection']} ms per connection "
              f"({result['wall_ms_per_connection']} ms wall), "
              f"{result['server_cpu_ms_per_sync']} ms per sync, "
              f"{result['server_cpu_ms_per_draft_step']} ms per draft step"
              + (f"; {result['server_kb_per_idle_socket']} KB of server memory per idle "
                 f"socket ({result['idle_sockets']} open)" if result["idle_sockets"] else "")
              + f" (WebSocket path: {result['ws']})")
    return 0


def cmd_bench_server(args: argparse.Namespace) -> int:
    from elgrande.loadgen import bench

    try:
        result = bench.run(games=args.games, processes=args.processes, players=args.players,
                           rounds=args.rounds, seconds=args.seconds,
                           database_url=args.database_url, pubsub_url=args.pubsub_url,
                           urls=args.urls, seed=args.seed, via=args.via,
                           clients=args.clients, client_nice=args.client_nice,
                           memory_every=args.memory_every, pace=args.pace,
                           model=args.model, spectators=args.spectators,
                           reconnects_per_hour=args.reconnects_per_hour,
                           live_fraction=args.live_fraction, think_scale=args.think_scale,
                           stagger=args.stagger, deflate=args.deflate,
                           ramp=args.ramp, set_up_first=args.set_up_first)
    except ValueError as exc:
        print(f"elgrande bench server: {exc}", file=sys.stderr)
        return 2
    except bench.BenchError as exc:
        print(f"elgrande bench server: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
    else:
        _print_text(result)
    return 0 if result["errors"] == 0 else 1


def _print_text(result: dict) -> None:
    lat, req = result["latency_ms"], result["request_ms"]
    model = result["model"]
    print(f"{result['processes']} process(es), {result['games']} games of "
          f"{result['players']} seats, model {model['name']}, pace {result['pace']}, moves via "
          f"{result['via']}, {result['client_processes']} client process(es), "
          f"{result['seconds']} s measured after a {result['warmup_s']} s warm-up")
    print(f"commits {result['commits']} ({result['commits_per_s']}/s); steps "
          f"{result['steps']} ({result['steps_per_s']}/s); committed moves {result['moves']} "
          f"({result['moves_per_s']}/s); requests {result['requests']} "
          f"({result['requests_per_s']}/s)")
    print(f"games: {result['open_games']} open at the end, {result['games_started']} started "
          f"and {result['games_finished']} finished while measuring; {result['spectators']} "
          f"spectators; {result['reconnects']} reconnects")
    print(f"latency command -> every page's update (ms): p50 {lat['p50']}  p95 {lat['p95']}"
          f"  p99 {lat['p99']}")
    print(f"request time (ms): p50 {req['p50']}  p95 {req['p95']}  p99 {req['p99']}")
    print(f"conflicts (409 moved on): {result['conflicts']}; errors: {result['errors']}")
    for sample in result["error_samples"]:
        print(f"  {sample}")
    server = result["server"]
    if server is not None:
        print(f"servers: CPU {server['cpu_s']} s ({server['cpu_percent']}% of a core), "
              f"{server['cpu_ms_per_commit']} ms per commit, {server['cpu_ms_per_move']} ms "
              f"per move; RSS {server['rss_idle_mb']} MiB idle, {server['rss_end_mb']} MiB at "
              f"the end, {server['rss_mb_per_open_game']} MiB per open game")
    client = result["loadgen"]
    lag = client["loop_lag_ms"]
    print(f"load generator: CPU {client['cpu_s']} s ({client['cpu_percent']}% of a core); "
          f"event-loop lag (ms) p50 {lag['p50']}  p99 {lag['p99']}  max {lag['max']}")
    print(f"load average during the run: {result['load_average']}")
    if result.get("machine_stolen_percent") is not None:
        print(f"CPU time taken by the hypervisor while measuring: "
              f"{result['machine_stolen_percent']}% (above a few per cent the figures "
              f"measure the host)")
    if "memory" in result:
        memory = result["memory"]
        curve = "  ".join(f"{s['t']:.0f}s:{sum(x or 0 for x in s['rss_mb']):.0f}"
                          for s in memory["samples"])
        print(f"servers' memory (RSS, MiB): start {memory['start_mb']}  end "
              f"{memory['end_mb']}  peak {memory['peak_mb']}")
        print(f"  {curve}")


def main(argv: list[str] | None = None) -> int:
    """`python -m elgrande.cli.loadgen [options]` = `elgrande bench server [options]`
    (until the `elgrande bench` command discovers this module)."""
    parser = argparse.ArgumentParser(prog="elgrande bench")
    register_bench(parser.add_subparsers(dest="target", required=True))
    args = parser.parse_args(["server", *(argv if argv is not None else sys.argv[1:])])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
