"""A memory's project, and the roots folders the IDE declared.

Revision ID: 0009
Revises: 0008
"""

from hindsight.data.migrate import execute_sql_file

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0009_project.sql")


def downgrade() -> None:
    execute_sql_file("0009_project.down.sql")
