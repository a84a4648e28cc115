"""Agent roles: row-level security keyed by the login role, hindsight_agent_writer.

Revision ID: 0007
Revises: 0006
"""

from hindsight.data.migrate import execute_sql_file

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0007_agent_roles.sql")


def downgrade() -> None:
    execute_sql_file("0007_agent_roles.down.sql")
