"""What the IDE's lifecycle hooks showed each session (hook_sessions, hook_shown).

Revision ID: 0012
Revises: 0011
"""

from hindsight.data.migrate import execute_sql_file

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0012_hook_sessions.sql")


def downgrade() -> None:
    execute_sql_file("0012_hook_sessions.down.sql")
