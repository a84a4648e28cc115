"""Schema migrations: Alembic revisions in alembic/versions execute the plain SQL files in
sql/migrations. Run as its own step before the server serves, never inside its event loop;
an advisory lock makes concurrent runs (two IDE windows starting) wait for each other."""

from __future__ import annotations

import asyncio
import functools
import re
from pathlib import Path

import asyncpg

import hindsight

from ..errors import DatabaseError
from . import queries
from .db import SCHEMA_LOCK, SERVER_SETTINGS, Session


def alembic_dir() -> Path:
    """alembic/ beside the package in a checkout, or inside it in an installed wheel."""
    here = Path(hindsight.__file__).resolve().parent
    for candidate in (here / "alembic", here.parent / "alembic"):
        if (candidate / "env.py").exists():
            return candidate
    raise DatabaseError(f"the alembic migration scripts are missing near {here}; reinstall hindsight")


def _config(url: str):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(alembic_dir()))
    cfg.attributes["database_url"] = url
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema to `revision`. Synchronous: call it outside any event loop."""
    from alembic import command

    try:
        command.upgrade(_config(url), revision)
    except DatabaseError:
        raise
    except Exception as exc:
        raise DatabaseError(f"migrating the database failed: {exc.__class__.__name__}: {exc}") from exc


@functools.cache
def head() -> str:
    """The newest revision, read from the revision files themselves (importing Alembic to
    ask would cost a command line a quarter of a second on every start)."""
    named, below = set(), set()
    for path in (alembic_dir() / "versions").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        revision = re.search(r'^revision\s*=\s*"([^"]+)"', text, re.M)
        down = re.search(r'^down_revision\s*=\s*"([^"]+)"', text, re.M)
        if revision:
            named.add(revision[1])
        if down:
            below.add(down[1])
    heads = named - below
    if len(heads) != 1:
        raise DatabaseError(f"the migration scripts in {alembic_dir()} have {len(heads)} heads; reinstall hindsight")
    return heads.pop()


async def current(url: str) -> str | None:
    conn = await asyncpg.connect(url, server_settings=SERVER_SETTINGS)
    try:
        session = Session(conn)
        exists = await session.fetchval("alembic_version_exists")
        return await session.fetchval("alembic_version") if exists else None
    finally:
        await conn.close()


# ---- used by alembic/env.py and the revisions -------------------------------------------


def run_env(context, url: str) -> None:
    """The body of alembic/env.py: online migrations over asyncpg, on the database at `url`."""
    from sqlalchemy.ext.asyncio import create_async_engine
    from sqlalchemy.pool import NullPool

    def do_run(connection) -> None:
        context.configure(connection=connection, transaction_per_migration=False)
        with context.begin_transaction():
            connection.exec_driver_sql(queries.get("schema_lock"), (SCHEMA_LOCK,))
            context.run_migrations()

    async def main() -> None:
        engine = create_async_engine(
            "postgresql+asyncpg://",
            poolclass=NullPool,
            async_creator=lambda: asyncpg.connect(url, server_settings=SERVER_SETTINGS),
        )
        try:
            async with engine.connect() as connection:
                await connection.run_sync(do_run)
        finally:
            await engine.dispose()

    asyncio.run(main())


def execute_sql_file(filename: str) -> None:
    """Run one sql/migrations file on the migration's connection (multi-statement)."""
    from sqlalchemy.util import await_only

    from alembic import op

    raw = op.get_bind().connection.driver_connection  # the asyncpg connection
    await_only(raw.execute(queries.migration_sql(filename)))
