"""web: accounts, lobby games and their seats (elgrande/server/models.py)

Revision ID: 0002_web
Revises: 0001_matches
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_web"
down_revision = "0001_matches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("is_guest", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "web_games",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("invite_token", sa.String(64), nullable=False, unique=True),
        sa.Column("creator_id", sa.Integer(), sa.ForeignKey("web_users.id"), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), nullable=True, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "web_seats",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("web_games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("web_users.id"), nullable=True),
        sa.Column("invited_name", sa.String(40), nullable=True),
        sa.Column("bot_level", sa.String(16), nullable=True),
        sa.UniqueConstraint("game_id", "seat", name="uq_web_seats_seat"),
    )
    op.create_index("ix_web_seats_game_id", "web_seats", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_web_seats_game_id", table_name="web_seats")
    op.drop_table("web_seats")
    op.drop_table("web_games")
    op.drop_table("web_users")
