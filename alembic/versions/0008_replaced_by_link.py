"""The replaced-by link without ON DELETE SET NULL (Citus refuses it): NO ACTION and a trigger.

Revision ID: 0008
Revises: 0007
"""

from hindsight.data.migrate import execute_sql_file

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0008_replaced_by_link.sql")


def downgrade() -> None:
    execute_sql_file("0008_replaced_by_link.down.sql")
