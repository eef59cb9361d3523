"""boards: the playing field's corners as the staff confirmed them

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 14:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('boards', sa.Column('field_json', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('boards') as b:
        b.drop_column('field_json')
