"""players: withdrawn from the event after a round, and whether their attendance points are forfeited

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 18:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('players', sa.Column('withdrawn_after', sa.Integer(), nullable=True))
    op.add_column('players', sa.Column('forfeits_attendance', sa.Boolean(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('players') as b:
        b.drop_column('forfeits_attendance')
        b.drop_column('withdrawn_after')
