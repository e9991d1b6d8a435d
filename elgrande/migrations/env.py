"""The project's one Alembic environment. ``elgrande.migrations.upgrade(engine)`` passes
its connection in ``config.attributes["connection"]``; the ``alembic`` command line
(``alembic -c elgrande/migrations/alembic.ini ...``, for writing new migrations) connects
to $ELGRANDE_DATABASE_URL."""

from alembic import context

from elgrande.db.engine import make_engine, writer
from elgrande.migrations.tables import metadata as target_metadata


def run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite needs batch mode to alter tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported")

given = context.config.attributes.get("connection")
if given is not None:
    run(given)
else:
    import os

    url = os.environ.get("ELGRANDE_DATABASE_URL") or "sqlite:///elgrande.db"
    with writer(make_engine(url)).connect() as connection:
        run(connection)
        connection.commit()
