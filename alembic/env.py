"""Alembic environment: the database URL comes from `hindsight migrate` (which passes it
in) or, when Alembic runs on its own, from hindsight's settings; the revisions run plain
SQL from sql/migrations."""

from alembic import context
from hindsight.config import Settings
from hindsight.data import bootstrap, migrate

url = context.config.attributes.get("database_url") or bootstrap.resolve_url(Settings.from_env())
migrate.run_env(context, url)
