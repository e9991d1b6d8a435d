"""`elgrande db upgrade|current|check`: the database's schema (docs/deploy.md)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "db", help="upgrade or inspect the database's schema",
        description="The database's schema. The database is ELGRANDE_DATABASE_URL (or "
        "--database-url); `elgrande serve` upgrades it at start by itself.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--database-url",
                        help="SQLAlchemy URL (default: the server's setting)")
    actions = parser.add_subparsers(dest="db_action", metavar="ACTION", required=True)
    actions.add_parser("upgrade", parents=[common], help="bring the schema up to this version",
                       description="Apply every migration the database lacks, in one "
                       "transaction. Safe to run while other processes start.")
    actions.add_parser("current", parents=[common], help="print the database's and the code's revision",
                       description="Print the schema revision the database is at and the "
                       "one this version of El Grande needs.")
    actions.add_parser("check", parents=[common], help="exit 1 unless the schema is exactly the code's",
                       description="Compare the database's tables with the ones the code "
                       "declares; exit 0 when they agree, 1 (with the differences) when not.")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from elgrande.db.engine import make_engine
    from elgrande.migrations import SchemaError, check, current, heads, upgrade
    from elgrande.server.settings import Settings, SettingsError

    try:
        url = args.database_url or Settings.load().database_url
    except SettingsError as exc:
        print(f"elgrande db: {exc}", file=sys.stderr)
        return 2
    engine = make_engine(url)
    try:
        if args.db_action == "upgrade":
            before = current(engine)
            upgrade(engine)
            after = current(engine)
            print(f"schema at {after}" + (" (unchanged)" if before == after else
                                          f" (was {before or 'empty'})"))
            return 0
        if args.db_action == "current":
            print(f"database: {current(engine) or '(empty)'}; code: {', '.join(heads())}")
            return 0
        differences = check(engine)
        if differences:
            print("the schema differs from the code's tables:", file=sys.stderr)
            for difference in differences:
                print(f"  {difference}", file=sys.stderr)
            return 1
        print(f"schema at {current(engine)}: matches the code")
        return 0
    except SchemaError as exc:
        print(f"elgrande db: {exc}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        print(f"elgrande db: the database cannot be used: {exc.__class__.__name__}: "
              f"{str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
