"""events: what a bye is worth (match wins, Cup points, ranking points); NULL: the format's default

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 17:45:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

COLUMNS = ('bye_wins', 'bye_cup_points', 'bye_ranking_points')


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    for name in COLUMNS:
        op.add_column('events', sa.Column(name, sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('events') as b:
        for name in reversed(COLUMNS):
            b.drop_column(name)
