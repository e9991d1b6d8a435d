"""`elgrande serve`: run the web app (settings from ELGRANDE_* variables, a .env file
and options)."""

from __future__ import annotations

import argparse
import sys

from . import port


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the web server (SQLite file by default) and print its address",
        description="Serve El Grande online. Settings come from ELGRANDE_* environment "
        "variables and a .env file in the current folder (docs/server.md lists them all); "
        "these options override them. The database's schema is upgraded at start.",
    )
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port, help="port, 0 to 65535 (default 8000; 0 picks a "
                        "free one)")
    parser.add_argument("--database-url", help="SQLAlchemy URL (default sqlite:///elgrande.db)")
    parser.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    import socket

    from elgrande.asgi import (
        STARTUP_DATABASE_ERRORS,
        database_failure,
        prepare_database,
        ws_frame_limit,
    )
    from elgrande.migrations import SchemaError
    from elgrande.server.logs import configure_logging
    from elgrande.server.settings import Settings, SettingsError

    try:
        settings = Settings.load(host=args.host, port=args.port, database_url=args.database_url)
    except SettingsError as exc:
        print(f"elgrande serve: {exc}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.log_format)
    from elgrande.server.collector import tune_collector

    tune_collector(settings.gc_young_threshold)  # this process is a server: fewer, not longer, pauses
    # Listen first, so the printed address is right (even for port 0) and usable at once.
    sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
        sock.listen(128)  # connections wait in the backlog until the app is up
    except OSError as exc:
        print(f"elgrande serve: cannot listen on {settings.host}:{settings.port}: "
              f"{exc.strerror}", file=sys.stderr)
        return 1
    import uvicorn

    from elgrande.server.app import create_app
    from elgrande.server.game_sockets import GAME_SOCKETS

    try:
        prepare_database(settings.database_url)
        app = create_app(settings)
    except SchemaError as exc:
        print(f"elgrande serve: {exc}", file=sys.stderr)
        return 1
    except STARTUP_DATABASE_ERRORS as exc:
        print(f"elgrande serve: {database_failure(exc)}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"El Grande is running at http://{shown}:{port}/ (database {settings.database_url}); "
          "press Ctrl+C to stop.", flush=True)
    # Logging as configured above (log_config=None); frames bounded before they are read;
    # the game pages' sockets served by game_sockets.py (a few KB each), every other
    # WebSocket by uvicorn's sans-I/O protocol.
    config = uvicorn.Config(app, log_config=None, log_level=settings.log_level,
                            access_log=False, ws=GAME_SOCKETS,
                            ws_max_size=ws_frame_limit(settings),
                            ws_per_message_deflate=settings.ws_deflate)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
