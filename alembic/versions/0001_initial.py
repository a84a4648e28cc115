"""The memories table, its indexes and the embedder record.

Revision ID: 0001
Revises:
"""

from hindsight.data.migrate import execute_sql_file

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0001_initial.sql")


def downgrade() -> None:
    execute_sql_file("0001_initial.down.sql")
