"""boards: the agent's latest camera check

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 21:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('boards', sa.Column('camera_check', sa.Text(), nullable=True))
    op.add_column('boards', sa.Column('camera_checked_at', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('boards') as b:
        b.drop_column('camera_checked_at')
        b.drop_column('camera_check')
