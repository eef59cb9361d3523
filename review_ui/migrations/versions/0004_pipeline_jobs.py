"""pipeline jobs: footage segments observed and matches transcribed in the background

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 20:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('pipeline_jobs',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('kind', sa.String(length=16), nullable=False),
                    sa.Column('segment_id', sa.Integer(), nullable=True),
                    sa.Column('match_id', sa.Integer(), nullable=True),
                    sa.Column('state', sa.String(length=16), nullable=False),
                    sa.Column('attempts', sa.Integer(), nullable=False),
                    sa.Column('inputs', sa.Text(), nullable=False),
                    sa.Column('result_json', sa.Text(), nullable=False),
                    sa.Column('error', sa.Text(), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.Column('started_at', sa.DateTime(), nullable=True),
                    sa.Column('finished_at', sa.DateTime(), nullable=True),
                    sa.ForeignKeyConstraint(['segment_id'], ['segments.id'], ondelete='CASCADE'),
                    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('kind', 'segment_id', name='uq_pipeline_jobs_segment'))
    op.create_index('ix_pipeline_jobs_state', 'pipeline_jobs', ['state'])
    op.create_index('ix_pipeline_jobs_match_id', 'pipeline_jobs', ['match_id'])


def downgrade() -> None:
    op.drop_index('ix_pipeline_jobs_match_id', 'pipeline_jobs')
    op.drop_index('ix_pipeline_jobs_state', 'pipeline_jobs')
    op.drop_table('pipeline_jobs')
