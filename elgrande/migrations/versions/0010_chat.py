"""web: the table chat, mutes, reports and moderation: a table's chat setting, chat
lines, who mutes whom, players' reports, the moderators' log; a player's role, ban and
chat mute (elgrande/server/tables.py, elgrande/server/chat.py, moderation.py)

Revision ID: 0010_chat
Revises: 0009_ratings
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_chat"
down_revision = "0009_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0007_email (a batch copy would trip over foreign keys).
    op.add_column("web_users", sa.Column("role", sa.String(16), nullable=False,
                                         server_default="player"))
    op.add_column("web_users", sa.Column("banned_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("web_users", sa.Column("chat_muted_until", sa.DateTime(timezone=True),
                                         nullable=True))
    op.add_column("web_games", sa.Column("chat", sa.String(8), nullable=False,
                                         server_default="all"))
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(500), nullable=False),
        sa.Column("hidden", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_chat_messages_game", "chat_messages", ["game_id", "id"])
    op.create_table(
        "chat_mutes",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("muted_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["muted_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "muted_id"),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["reporter_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["target_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["message_id"], ["chat_messages.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_reports_target_id", "reports", ["target_id"])
    op.create_index("ix_reports_status", "reports", ["status"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("admin_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("detail", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["admin_id"], ["web_users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["target_id"], ["web_users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("moderation_log")
    op.drop_index("ix_reports_status", "reports")
    op.drop_index("ix_reports_target_id", "reports")
    op.drop_table("reports")
    op.drop_table("chat_mutes")
    op.drop_index("ix_chat_messages_game", "chat_messages")
    op.drop_table("chat_messages")
    op.drop_column("web_games", "chat")
    for column in ("chat_muted_until", "banned_at", "role"):
        op.drop_column("web_users", column)
