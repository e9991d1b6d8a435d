"""web: turn clocks: a clocked game's pace, each human seat's clock, the turns a computer
played for an absent player, and each player's time zone (elgrande/server/tables.py,
elgrande/server/clocks/)

Revision ID: 0008_clocks
Revises: 0007_email
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_clocks"
down_revision = "0007_email"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0007_email (a batch copy would trip over foreign keys).
    op.add_column("web_users", sa.Column("time_zone", sa.String(64), nullable=False,
                                         server_default="UTC"))
    op.create_table(
        "game_clocks",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_table(
        "seat_clocks",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bank", sa.Float(), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("remind_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("away_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paused_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("holiday_used", sa.Float(), nullable=False),
        sa.Column("timeouts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_seat_clocks_deadline", "seat_clocks", ["deadline"])
    op.create_index("ix_seat_clocks_remind_at", "seat_clocks", ["remind_at"])
    op.create_table(
        "stand_in_turns",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )


def downgrade() -> None:
    op.drop_table("stand_in_turns")
    op.drop_index("ix_seat_clocks_remind_at", "seat_clocks")
    op.drop_index("ix_seat_clocks_deadline", "seat_clocks")
    op.drop_table("seat_clocks")
    op.drop_table("game_clocks")
    op.drop_column("web_users", "time_zone")
