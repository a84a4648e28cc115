"""Getting a database ready, as one synchronous step before anything serves:
choose it (external URL or embedded), check pgvector, migrate, check the embedder record."""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from ..config import Settings
from ..embedders import base as embed
from ..errors import ConfigError, EmbedderMismatch
from . import migrate
from . import pg_embedded as embedded
from .db import Session, connect_once, ensure_pgvector, translated

log = logging.getLogger(__name__)


Progress = Callable[[str], None]  # told of a slow step as it starts (the CLI prints it on stderr)


def resolve_url(settings: Settings, progress: Progress | None = None) -> str:
    """The external URL when one is set (never replaced by the embedded database, even if it
    fails), else the embedded server's, started or joined. `progress` hears of its first
    start, the slow one (initdb, as pg_embedded tells it: no PG_VERSION yet); a command's
    usual start of an existing one takes a fraction of a second and is not announced."""
    if settings.database_url:
        return settings.database_url
    if progress is not None and not (embedded.data_dir(settings.home) / "PG_VERSION").exists():
        progress(f"starting the embedded database in {settings.home} for the first time")
    return embedded.start(settings.home)


def prepare(
    settings: Settings, *, check_embedder: bool = True, check_role: bool = False, progress: Progress | None = None
) -> str:
    """Return a URL whose database is reachable, has pgvector, is at the newest schema and
    (optionally) agrees with the configured embedder and lets its role act for
    HINDSIGHT_AGENT_ID (the server's check; the CLI names agents itself). Raises
    HindsightError otherwise. `progress` hears of the slow steps: a start, a migration."""
    url = resolve_url(settings, progress)
    return make_ready(settings, url, check_embedder=check_embedder, check_role=check_role, progress=progress)


def make_ready(
    settings: Settings,
    url: str,
    *,
    check_embedder: bool = True,
    check_role: bool = False,
    progress: Progress | None = None,
) -> str:
    """`prepare`'s checks and migrations, on a database already chosen and started. One
    event loop when the schema is current (every start but the first after an upgrade): the
    command line starts at once."""
    name, dimension = embed.describe(settings) if check_embedder else (None, 0)
    current = asyncio.run(_checked(url, name, dimension, check_role, settings))
    if current != migrate.head():
        if progress is not None:
            progress("bringing the database schema up to date")
        migrate.upgrade(url)
        asyncio.run(_checked(url, name, dimension, check_role, settings))
    return url


async def _checked(url: str, name: str | None, dimension: int, check_role: bool, settings: Settings) -> str | None:
    """pgvector is there; then, on a current schema, the embedder record agrees (`name`) and
    the role may act for the agent (`check_role`). Returns the schema's revision."""
    await ensure_pgvector(url)
    current = await migrate.current(url)
    if current == migrate.head():
        if name is not None:
            await _check_embedder(url, name, dimension)
        if check_role:
            await _check_agent_role(url, settings.agent_id)
    return current


async def _check_agent_role(url: str, agent_id: str) -> None:
    """A login role limited to some agents (docs/sql.md) must be mapped to this server's."""
    conn = await connect_once(url)
    try:
        async with translated("checking the database role"):
            row = await Session(conn).fetchrow("role_agents")
    finally:
        await conn.close()
    if row["scoped"] and agent_id not in row["agents"]:
        raise ConfigError(
            f"the database role {row['role']!r} may act only for agents {row['agents']} "
            f"(hindsight_agent_roles), not for HINDSIGHT_AGENT_ID={agent_id!r}"
        )


async def _check_embedder(url: str, name: str, dimension: int) -> None:
    conn = await connect_once(url)
    try:
        await check_recorded(conn, name, dimension)
    finally:
        await conn.close()


async def check_recorded(conn, name: str, dimension: int) -> None:
    """Make the database's embedder record agree with the configured embedder.

    An empty database adopts the configured embedder (re-declaring the vector column if the
    dimension differs). A database holding memories written by another embedder is an
    error: mixing vectors from two models makes recall silently wrong.
    """
    session = Session(conn)
    row = await session.fetchrow("embedder_get")
    if row is not None and (row["name"], row["dimension"]) == (name, dimension):
        return  # the usual case, and all an agent's login role may check (it may not lock)
    async with session.transaction() as tx:
        await tx.execute("embedder_lock")
        row = await tx.fetchrow("embedder_get")
        if row is not None and (row["name"], row["dimension"]) == (name, dimension):
            return
        if row is not None and await tx.fetchval("memories_exist"):
            raise EmbedderMismatch(
                f"the database holds memories embedded by {row['name']} ({row['dimension']}-d) but "
                f"HINDSIGHT_EMBEDDER selects {name} ({dimension}-d). Set HINDSIGHT_EMBEDDER="
                f"{row['name']} to keep using them, or point HINDSIGHT_HOME / HINDSIGHT_DATABASE_URL "
                "at an empty database for the new embedder"
            )
        if await tx.fetchval("embedding_dimension") != dimension:
            if await tx.fetchval("memories_exist"):
                raise EmbedderMismatch(
                    f"the embedding column is not {dimension}-d and memories exist; "
                    f"set HINDSIGHT_EMBEDDER to the embedder that wrote them"
                )
            await tx.execute_sized("embedding_set_dimension", dimension)
        await tx.execute("embedder_record", name, dimension)
