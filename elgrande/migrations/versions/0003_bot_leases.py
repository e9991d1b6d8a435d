"""scale: bot-move leases (elgrande/scale/models.py)

Revision ID: 0003_bot_leases
Revises: 0002_web
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_bot_leases"
down_revision = "0002_web"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_leases",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_bot_leases_expires_at", "bot_leases", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_bot_leases_expires_at", table_name="bot_leases")
    op.drop_table("bot_leases")
