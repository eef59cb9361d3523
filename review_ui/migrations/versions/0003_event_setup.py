"""event set-up: rules profile and match length per event, players, rounds, pairings on matches, board tokens

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 09:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, never a batch table copy: SQLite drops the old table during a copy, and with foreign
    # keys on, that drop cascades to transcripts and segment links.
    op.add_column('events', sa.Column('rules_profile', sa.String(length=16), nullable=False, server_default='bmab'))
    op.add_column('events', sa.Column('match_length', sa.Integer(), nullable=False, server_default='7'))
    op.create_table('players',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('event_id', sa.Integer(), nullable=False),
                    sa.Column('name', sa.String(length=200), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('event_id', 'name', name='uq_players_event_name'))
    op.create_table('rounds',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('event_id', sa.Integer(), nullable=False),
                    sa.Column('number', sa.Integer(), nullable=False),
                    sa.Column('starts_at', sa.DateTime(), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('event_id', 'number', name='uq_rounds_event_number'))
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for col, table in (('round_id', 'rounds'), ('player_a_id', 'players'), ('player_b_id', 'players')):
        if sqlite:  # SQLite adds a column's foreign key only inline, in the ADD COLUMN itself
            op.execute(f'ALTER TABLE matches ADD COLUMN {col} INTEGER '
                       f'CONSTRAINT fk_matches_{col} REFERENCES {table} (id)')
        else:
            op.add_column('matches', sa.Column(col, sa.Integer(), nullable=True))
            op.create_foreign_key(f'fk_matches_{col}', 'matches', table, [col], ['id'])
    op.create_index('uq_matches_round_board', 'matches', ['round_id', 'board_id'], unique=True)
    op.add_column('boards', sa.Column('token_set_at', sa.DateTime(), nullable=True))


def downgrade() -> None:
    op.drop_column('boards', 'token_set_at')
    op.drop_index('uq_matches_round_board', 'matches')
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for col in ('player_b_id', 'player_a_id', 'round_id'):
        if sqlite:  # in place (SQLite >= 3.35); a batch copy would cascade-delete transcripts and segment links
            op.execute(f'ALTER TABLE matches DROP COLUMN {col}')
        else:
            op.drop_constraint(f'fk_matches_{col}', 'matches', type_='foreignkey')
            op.drop_column('matches', col)
    op.drop_table('rounds')
    op.drop_table('players')
    op.drop_column('events', 'match_length')
    op.drop_column('events', 'rules_profile')
