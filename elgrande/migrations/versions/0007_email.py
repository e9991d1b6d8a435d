"""web: email notifications: a player's address, its confirmation and preference; the
outbox of emails to send; the turns already announced (elgrande/server/tables.py,
elgrande/server/mail/)

Revision ID: 0007_email
Revises: 0006_resign
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_email"
down_revision = "0006_resign"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN: SQLite does it in place, where a batch (table copy) would trip
    # over the foreign keys that point at web_users (as in 0004_accounts).
    op.add_column("web_users", sa.Column("email", sa.String(254), nullable=True))
    op.add_column("web_users", sa.Column("email_confirmed", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))
    op.add_column("web_users", sa.Column("email_pref", sa.String(8), nullable=False,
                                         server_default="turn"))
    op.add_column("web_users", sa.Column("email_digest_at", sa.DateTime(timezone=True),
                                         nullable=True))
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("to_addr", sa.String(254), nullable=False),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("unsubscribe_url", sa.String(500), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["web_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_mail_outbox_user_id", "mail_outbox", ["user_id"])
    op.create_index("ix_mail_outbox_to_addr", "mail_outbox", ["to_addr"])
    op.create_index("ix_mail_outbox_status", "mail_outbox", ["status"])
    op.create_index("ix_mail_outbox_created_at", "mail_outbox", ["created_at"])
    op.create_table(
        "mail_turns",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["web_games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("mail_turns")
    op.drop_index("ix_mail_outbox_created_at", "mail_outbox")
    op.drop_index("ix_mail_outbox_status", "mail_outbox")
    op.drop_index("ix_mail_outbox_to_addr", "mail_outbox")
    op.drop_index("ix_mail_outbox_user_id", "mail_outbox")
    op.drop_table("mail_outbox")
    for column in ("email_digest_at", "email_pref", "email_confirmed", "email"):
        op.drop_column("web_users", column)
