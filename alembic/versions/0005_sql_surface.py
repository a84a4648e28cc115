"""SQL surface: comments, views, read-only and agent-scoped roles, row-level security.

Revision ID: 0005
Revises: 0004
"""

from hindsight.data.migrate import execute_sql_file

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0005_sql_surface.sql")


def downgrade() -> None:
    execute_sql_file("0005_sql_surface.down.sql")
