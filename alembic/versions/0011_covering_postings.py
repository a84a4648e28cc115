"""The keyword channel's postings index covers memory_id (index-only scans).

Revision ID: 0011
Revises: 0010
"""

from hindsight.data.migrate import execute_sql_file

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0011_covering_postings.sql")


def downgrade() -> None:
    execute_sql_file("0011_covering_postings.down.sql")
