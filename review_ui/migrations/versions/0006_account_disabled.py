"""users: an account can be disabled (it keeps its name in the audit log, and cannot log in)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('users', sa.Column('disabled_at', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('users') as b:
        b.drop_column('disabled_at')
