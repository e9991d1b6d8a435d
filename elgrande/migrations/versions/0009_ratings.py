"""web: ratings, results and players' statistics: a table is rated or friendly; each
finished game's seats, placements and scores; each player's rating, its history and
their totals per player count and per action card; the computer levels' ratings from
their calibration pool (elgrande/server/tables.py, elgrande/server/ratings.py,
docs/ratings.md)

Revision ID: 0009_ratings
Revises: 0008_clocks
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_ratings"
down_revision = "0008_clocks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0007_email (a batch copy would trip over foreign keys).
    op.add_column("web_games", sa.Column("rated", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))
    # A player's games ("My games", the lobby) without reading every seat.
    op.create_index("ix_web_seats_user_id", "web_seats", ["user_id"])
    op.create_table(
        "player_ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Integer(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_index("ix_player_ratings_display", "player_ratings", ["display"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "game_id", name="uq_rating_history_game"),
    )
    op.create_index("ix_rating_history_user", "rating_history", ["user_id", "id"])
    op.create_table(
        "game_outcomes",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("note", sa.String(80), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_table(
        "game_results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot_level", sa.String(16), nullable=True),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("margin", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating_change", sa.Integer(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_game_results_user_time", "game_results",
                    ["user_id", "finished_at", "game_id"])
    op.create_index("ix_game_results_user_rated_time", "game_results",
                    ["user_id", "rated", "finished_at", "game_id"])
    op.create_table(
        "player_count_stats",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("score_sum", sa.Integer(), nullable=False),
        sa.Column("margin_sum", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "players"),
    )
    op.create_table(
        "player_card_stats",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card", sa.String(4), nullable=False),
        sa.Column("taken", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "card"),
    )
    op.create_table(
        "bot_ratings",
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("calibrated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("level"),
    )


def downgrade() -> None:
    op.drop_table("bot_ratings")
    op.drop_table("player_card_stats")
    op.drop_table("player_count_stats")
    op.drop_index("ix_game_results_user_rated_time", "game_results")
    op.drop_index("ix_game_results_user_time", "game_results")
    op.drop_table("game_results")
    op.drop_table("game_outcomes")
    op.drop_index("ix_rating_history_user", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_player_ratings_display", "player_ratings")
    op.drop_table("player_ratings")
    op.drop_index("ix_web_seats_user_id", "web_seats")
    op.drop_column("web_games", "rated")
