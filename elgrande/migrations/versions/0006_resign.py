"""web: resigned seats (who resigned, at which move), for seats a computer stands in
(elgrande/server/tables.py, elgrande/server/seats.py)

Revision ID: 0006_resign
Revises: 0005_game_address
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_resign"
down_revision = "0005_game_address"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("web_seats") as batch:
        batch.add_column(sa.Column("resigned_seq", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("resigned_round", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("web_seats") as batch:
        batch.drop_column("resigned_round")
        batch.drop_column("resigned_seq")
