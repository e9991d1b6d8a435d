"""web: the box rules at a table: a game's rule set, Veto holders' "no veto this turn /
this round", and the open veto windows waiting for their holders (elgrande/server/tables.py,
elgrande/server/veto.py)

Revision ID: 0011_veto
Revises: 0010_chat
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_veto"
down_revision = "0010_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0007_email (a batch copy would trip over foreign keys).
    op.add_column("web_games", sa.Column("rules", sa.String(8), nullable=False,
                                         server_default="yucata"))
    op.create_table(
        "veto_preferences",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(8), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("active", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_table(
        "veto_waits",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index("ix_veto_waits_deadline", "veto_waits", ["deadline"])


def downgrade() -> None:
    op.drop_index("ix_veto_waits_deadline", "veto_waits")
    op.drop_table("veto_waits")
    op.drop_table("veto_preferences")
    op.drop_column("web_games", "rules")
