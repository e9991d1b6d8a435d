"""web: the coach's reviews of a seat's play, cached per game, seat and log length
(elgrande/server/tables.py, elgrande/server/reviews.py, docs/coach.md)

Revision ID: 0013_reviews
Revises: 0012_language
Create Date: 2026-12-10
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_reviews"
down_revision = "0012_language"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("upto", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["requested_by"], ["web_users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat", "upto", name="uq_reviews_game_seat_upto"),
    )
    op.create_index("ix_reviews_game_id", "reviews", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_reviews_game_id", "reviews")
    op.drop_table("reviews")
