"""events: the season an event counts towards (the season table of ranking points)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 18:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('events', sa.Column('season', sa.String(length=100), nullable=True))
    op.create_index('ix_events_season', 'events', ['season'])


def downgrade() -> None:
    op.drop_index('ix_events_season', 'events')
    with op.batch_alter_table('events') as b:
        b.drop_column('season')
