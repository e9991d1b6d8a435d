"""web: the client address a game was created from, for the lobby caps per address
(elgrande/server/tables.py, elgrande/server/lobby_caps.py)

Games created before have none and count for no address.

Revision ID: 0005_game_address
Revises: 0004_accounts
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_game_address"
down_revision = "0004_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("web_games") as batch:
        batch.add_column(sa.Column("created_from", sa.String(64), nullable=True))
        batch.create_index("ix_web_games_created_from", ["created_from"])


def downgrade() -> None:
    with op.batch_alter_table("web_games") as batch:
        batch.drop_index("ix_web_games_created_from")
        batch.drop_column("created_from")
