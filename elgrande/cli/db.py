"""`elgrande db upgrade|current|check|backup`: the database's schema, and backups of an
SQLite database (docs/deploy.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


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
    backup = actions.add_parser(
        "backup", parents=[common], help="copy a live SQLite database into FILE",
        description="Copy the SQLite database, consistent even while servers write to it "
        "(SQLite's online backup), into FILE, which must not exist yet. Restore by "
        "pointing ELGRANDE_DATABASE_URL at the copy. PostgreSQL: use pg_dump "
        "(docs/deploy.md, Backups).")
    backup.add_argument("file", metavar="FILE", help="the new backup file")
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
    if args.db_action == "backup":
        return backup(url, Path(args.file))
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


def backup(url: str, target: Path) -> int:
    """SQLite's online backup API copies a consistent snapshot page by page while other
    connections go on writing; a plain copy of a WAL database can miss the WAL's pages."""
    import sqlite3

    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        print("elgrande db backup: only for SQLite; back up PostgreSQL with pg_dump "
              "(docs/deploy.md, Backups)", file=sys.stderr)
        return 2
    source = parsed.database or ""
    if source in ("", ":memory:") or not Path(source.removeprefix("file:").split("?")[0]
                                               ).is_file():
        print(f"elgrande db backup: no SQLite database file at {source or '(none)'}",
              file=sys.stderr)
        return 1
    if target.exists():
        print(f"elgrande db backup: {target} exists already; give a new file name",
              file=sys.stderr)
        return 1
    partial = target.with_name(target.name + ".partial")
    try:
        src = sqlite3.connect(f"file:{source.removeprefix('file:')}", uri=True, timeout=30)
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
        os.replace(partial, target)  # the backup appears complete or not at all
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        print(f"elgrande db backup: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(f"backed up {source} to {target}")
    return 0
