"""events: live viewing of the boards (public, or with a read-only viewer token)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 00:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003). Off by default: positions are personal data.
    op.add_column('events', sa.Column('live_public', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column('events', sa.Column('live_token_hash', sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('events') as b:
        b.drop_column('live_token_hash')
        b.drop_column('live_public')
