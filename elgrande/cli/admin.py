"""`elgrande admin`: who may moderate (the moderators' page is /admin). Settings (the
database) come from ELGRANDE_* variables and a .env file, as for `elgrande serve`."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "admin", help="give or take the moderator role, list the moderators",
        description="Moderators see the players' reports on /admin and may mute, ban or "
        "rename players, hide chat lines and cancel games; every action is logged.")
    sub = parser.add_subparsers(dest="admin_command", metavar="ACTION", required=True)
    grant = sub.add_parser("grant", help="make a registered player a moderator",
                           description="Make the registered player NAME a moderator: they "
                           "see /admin and its actions. Logged in the moderation log.")
    grant.add_argument("name")
    revoke = sub.add_parser("revoke", help="take the moderator role away",
                            description="NAME is a player again, without /admin. Logged.")
    revoke.add_argument("name")
    sub.add_parser("list", help="list the moderators",
                   description="Print the names of the moderators, one per line.")
    parser.add_argument("--database-url", help="SQLAlchemy URL (default: as `elgrande serve`)")
    parser.set_defaults(func=cmd_admin)


def cmd_admin(args: argparse.Namespace) -> int:
    from sqlalchemy.orm import sessionmaker

    from elgrande.asgi import prepare_database
    from elgrande.db.engine import make_engine, writer
    from elgrande.server.moderation import ADMIN, Moderation, ModerationRefused
    from elgrande.server.settings import Settings, SettingsError
    from elgrande.server.tables import utcnow

    try:
        settings = Settings.load(database_url=args.database_url)
    except SettingsError as exc:
        print(f"elgrande admin: {exc}", file=sys.stderr)
        return 2
    prepare_database(settings.database_url)
    engine = make_engine(settings.database_url, sqlite_sync=settings.sqlite_sync)
    try:
        moderation = Moderation(sessionmaker(writer(engine), expire_on_commit=False),
                                sessionmaker(engine, expire_on_commit=False), utcnow)
        if args.admin_command == "list":
            print("\n".join(moderation.admins()) or "(no moderators)")
            return 0
        try:
            if args.admin_command == "grant":
                user = moderation.set_role(args.name, ADMIN)
                print(f"{user.name} is a moderator now: /admin")
            else:
                user = moderation.set_role(args.name, "player")
                print(f"{user.name} is no longer a moderator")
        except ModerationRefused as exc:
            print(f"elgrande admin: {exc}", file=sys.stderr)
            return 1
        return 0
    finally:
        engine.dispose()
