"""Alembic environment: the database URL comes from hindsight's own settings (or from
`hindsight migrate`, which passes it in); the revisions run plain SQL from sql/migrations."""

from alembic import context
from hindsight.data.migrate import run_env

run_env(context)
