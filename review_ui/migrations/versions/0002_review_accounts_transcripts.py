"""review page: accounts, sessions, transcripts, revisions, audit log

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 18:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('users',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('username', sa.String(length=100), nullable=False),
                    sa.Column('password_hash', sa.String(length=200), nullable=False),
                    sa.Column('role', sa.String(length=16), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('username'))
    op.create_table('user_sessions',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('token_hash', sa.String(length=64), nullable=False),
                    sa.Column('csrf_token', sa.String(length=64), nullable=False),
                    sa.Column('user_id', sa.Integer(), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.Column('expires_at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('token_hash'))
    op.create_table('transcripts',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('match_id', sa.Integer(), nullable=False),
                    sa.Column('version', sa.Integer(), nullable=False),
                    sa.Column('doc_json', sa.Text(), nullable=False),
                    sa.Column('report_json', sa.Text(), nullable=False),
                    sa.Column('status', sa.String(length=32), nullable=False),
                    sa.Column('approved_by', sa.String(length=100), nullable=False),
                    sa.Column('approved_at', sa.DateTime(), nullable=True),
                    sa.Column('submitted_at', sa.DateTime(), nullable=True),
                    sa.Column('updated_by', sa.String(length=100), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.Column('updated_at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('match_id'))
    op.create_table('transcript_revisions',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('transcript_id', sa.Integer(), nullable=False),
                    sa.Column('version', sa.Integer(), nullable=False),
                    sa.Column('doc_json', sa.Text(), nullable=False),
                    sa.Column('created_at', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['transcript_id'], ['transcripts.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'))
    op.create_index('ix_transcript_revisions_transcript_id', 'transcript_revisions', ['transcript_id'])
    op.create_table('audit_log',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('at', sa.DateTime(), nullable=False),
                    sa.Column('username', sa.String(length=100), nullable=False),
                    sa.Column('match_id', sa.Integer(), nullable=True),
                    sa.Column('action', sa.String(length=64), nullable=False),
                    sa.Column('target', sa.String(length=200), nullable=False),
                    sa.Column('before', sa.Text(), nullable=False),
                    sa.Column('after', sa.Text(), nullable=False),
                    sa.Column('version', sa.Integer(), nullable=True),
                    sa.PrimaryKeyConstraint('id'))
    op.create_index('ix_audit_log_match_id', 'audit_log', ['match_id'])


def downgrade() -> None:
    op.drop_index('ix_audit_log_match_id', 'audit_log')
    op.drop_table('audit_log')
    op.drop_index('ix_transcript_revisions_transcript_id', 'transcript_revisions')
    op.drop_table('transcript_revisions')
    op.drop_table('transcripts')
    op.drop_table('user_sessions')
    op.drop_table('users')
