"""the tournament desk: an event's format, each pairing's stage, byes, results and PRs

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 17:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy of the table: see 0003).
    op.add_column('events', sa.Column('desk_format', sa.String(length=16), nullable=True))
    op.add_column('events', sa.Column('desk_rounds', sa.Integer(), nullable=False, server_default='6'))
    op.add_column('events', sa.Column('entry_fee', sa.Integer(), nullable=False, server_default='100'))
    op.add_column('matches', sa.Column('stage', sa.String(length=16), nullable=False, server_default='swiss'))
    op.create_table('byes',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('round_id', sa.Integer(), nullable=False),
                    sa.Column('player_id', sa.Integer(), nullable=False),
                    sa.Column('stage', sa.String(length=16), nullable=False),
                    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], ondelete='CASCADE'),
                    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('round_id', 'player_id', name='uq_byes_round_player'))
    op.create_table('match_results',
                    sa.Column('match_id', sa.Integer(), nullable=False),
                    sa.Column('winner', sa.String(length=200), nullable=False),
                    sa.Column('source', sa.String(length=16), nullable=False),
                    sa.Column('entered_by', sa.String(length=100), nullable=False),
                    sa.Column('entered_at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('match_id'))
    op.create_table('match_prs',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('match_id', sa.Integer(), nullable=False),
                    sa.Column('player', sa.String(length=200), nullable=False),
                    sa.Column('source', sa.String(length=16), nullable=False),
                    sa.Column('pr', sa.Float(), nullable=True),
                    sa.Column('error_rate', sa.Float(), nullable=True),
                    sa.Column('decisions', sa.Integer(), nullable=True),
                    sa.Column('ply', sa.Integer(), nullable=True),
                    sa.Column('analysis_json', sa.Text(), nullable=False),
                    sa.Column('error', sa.Text(), nullable=False),
                    sa.Column('entered_by', sa.String(length=100), nullable=False),
                    sa.Column('at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('match_id', 'player', 'source', name='uq_match_prs_player_source'))


def downgrade() -> None:
    op.drop_table('match_prs')
    op.drop_table('match_results')
    op.drop_table('byes')
    with op.batch_alter_table('matches') as b:
        b.drop_column('stage')
    with op.batch_alter_table('events') as b:
        b.drop_column('entry_fee')
        b.drop_column('desk_rounds')
        b.drop_column('desk_format')
