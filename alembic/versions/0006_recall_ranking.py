"""Recall ranking: write order, conversational context in the keyword index, type-aware decay.

Revision ID: 0006
Revises: 0005
"""

from hindsight.data.migrate import execute_sql_file

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    execute_sql_file("0006_recall_ranking.sql")


def downgrade() -> None:
    execute_sql_file("0006_recall_ranking.down.sql")
