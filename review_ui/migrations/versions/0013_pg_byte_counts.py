"""byte counts as 64-bit integers: segments and purged segments up to 2 GiB and more, a board's free disk

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 20:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

COLUMNS = (('segments', 'bytes'), ('purge_log', 'bytes'), ('heartbeats', 'spool_bytes'),
           ('heartbeats', 'free_disk_bytes'))


def upgrade() -> None:
    # PostgreSQL's INTEGER is 32-bit: a 2 GiB segment or a 100 GB free disk does not fit. SQLite's INTEGER is
    # already 64-bit, so nothing changes there (and no batch table copy: see 0003).
    if op.get_bind().dialect.name == 'sqlite':
        return
    for table, column in COLUMNS:
        op.alter_column(table, column, type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        return
    for table, column in COLUMNS:
        op.alter_column(table, column, type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=False)
