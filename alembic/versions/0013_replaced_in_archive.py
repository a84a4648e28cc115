"""The archive's replaced-by index: recall reads what a memory replaced there too.

Revision ID: 0013
Revises: 0012
"""

from hindsight.data.migrate import execute_sql_file

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0013_replaced_in_archive.sql")


def downgrade() -> None:
    execute_sql_file("0013_replaced_in_archive.down.sql")
