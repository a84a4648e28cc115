"""BM25 term statistics, tool and entity indexes.

Revision ID: 0002
Revises: 0001
"""

from hindsight.data.migrate import execute_sql_file

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0002_recall_channels.sql")


def downgrade() -> None:
    execute_sql_file("0002_recall_channels.down.sql")
