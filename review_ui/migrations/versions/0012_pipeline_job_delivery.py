"""pipeline_jobs: which queue message a job was sent in and which worker runs it (issue 18's job queue)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 20:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('pipeline_jobs', sa.Column('delivery', sa.String(length=64), nullable=False, server_default=''))
    op.add_column('pipeline_jobs', sa.Column('worker', sa.String(length=120), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('pipeline_jobs') as b:
        b.drop_column('worker')
        b.drop_column('delivery')
