"""The project's one Alembic environment. ``elgrande.db.upgrade(engine)`` passes its
connection in ``config.attributes["connection"]``; the ``alembic`` command line
(``alembic -c elgrande/db/alembic.ini ...``) connects to $ELGRANDE_DATABASE_URL."""

from alembic import context

# Import every module that declares tables on Base here, so autogenerate sees them.
import elgrande.scale.models  # noqa: F401  (bot_leases)
import elgrande.server.models  # noqa: F401
from elgrande.db.engine import make_engine, writer
from elgrande.db.models import Base

target_metadata = Base.metadata


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
    with writer(make_engine()).connect() as connection:
        run(connection)
        connection.commit()
