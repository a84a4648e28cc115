"""Maintenance: decay function, archive, runs, narrow heap rows for HOT updates.

Revision ID: 0004
Revises: 0003
"""

from hindsight.data.migrate import execute_sql_file

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0004_maintenance.sql")


def downgrade() -> None:
    execute_sql_file("0004_maintenance.down.sql")
