"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}
"""

from hindsight.migrate import execute_sql_file

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("${up_revision}.sql")


def downgrade() -> None:
    execute_sql_file("${up_revision}.down.sql")
