"""web: account name keys (unique after NFKC and case folding), look-alike skeletons and
session generations (elgrande/server/tables.py)

Existing users get their key and skeleton computed here. Names that already share a key
(`Mallory` and `mallory`, registered before names were folded): the oldest account
(earliest created_at, then lowest id) keeps the plain key; each other one gets its key
followed by "~" and its id (`mallory~7`), which no new name can take ("~" is not allowed
in names). Those accounts still log in with their exact name.

Revision ID: 0004_accounts
Revises: 0003_bot_leases
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from elgrande.server.names import name_key, skeleton

revision = "0004_accounts"
down_revision = "0003_bot_leases"
branch_labels = None
depends_on = None

users = sa.table("web_users", sa.column("id", sa.Integer()), sa.column("name", sa.String()),
                 sa.column("created_at", sa.DateTime(timezone=True)),
                 sa.column("name_key", sa.String()), sa.column("name_skeleton", sa.String()))


def upgrade() -> None:
    # Plain ADD COLUMN and CREATE INDEX: SQLite does them in place, where a batch (table
    # copy) would trip over the foreign keys that point at web_users.
    op.add_column("web_users", sa.Column("name_key", sa.String(64), nullable=False,
                                         server_default=""))
    op.add_column("web_users", sa.Column("name_skeleton", sa.String(96), nullable=False,
                                         server_default=""))
    op.add_column("web_users", sa.Column("session_generation", sa.Integer(), nullable=False,
                                         server_default="0"))
    conn = op.get_bind()
    taken: set[str] = set()
    rows = conn.execute(sa.select(users.c.id, users.c.name)
                        .order_by(users.c.created_at, users.c.id)).all()
    for user_id, name in rows:
        key = name_key(name)
        if key in taken:
            key = f"{key}~{user_id}"
        taken.add(key)
        conn.execute(users.update().where(users.c.id == user_id)
                     .values(name_key=key, name_skeleton=skeleton(name)))
    op.create_index("ix_web_users_name_key", "web_users", ["name_key"], unique=True)
    op.create_index("ix_web_users_name_skeleton", "web_users", ["name_skeleton"])


def downgrade() -> None:
    op.drop_index("ix_web_users_name_skeleton", table_name="web_users")
    op.drop_index("ix_web_users_name_key", table_name="web_users")
    op.drop_column("web_users", "session_generation")
    op.drop_column("web_users", "name_skeleton")
    op.drop_column("web_users", "name_key")
