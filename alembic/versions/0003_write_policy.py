"""Write policy: dedup key, slots, guard flags, sealed content, history.

Revision ID: 0003
Revises: 0002
"""

from hindsight.data.migrate import execute_sql_file

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0003_write_policy.sql")


def downgrade() -> None:
    execute_sql_file("0003_write_policy.down.sql")
