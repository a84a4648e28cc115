"""Bearer tokens of the HTTP transport.

Revision ID: 0010
Revises: 0009
"""

from hindsight.data.migrate import execute_sql_file

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0010_tokens.sql")


def downgrade() -> None:
    execute_sql_file("0010_tokens.down.sql")
