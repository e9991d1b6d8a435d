"""web: a registered player's language (docs/i18n.md): NULL until the player picks one,
so the browser's Accept-Language decides until then (elgrande/server/tables.py,
elgrande/server/i18n/)

Revision ID: 0012_language
Revises: 0011_veto
Create Date: 2026-12-09
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_language"
down_revision = "0011_veto"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, as in 0007_email (a batch copy would trip over foreign keys).
    op.add_column("web_users", sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    op.drop_column("web_users", "language")
