"""Getting a database ready, as one synchronous step before anything serves:
choose it (external URL or embedded), check pgvector, migrate, check the embedder record."""

from __future__ import annotations

import asyncio
import logging

from . import embed, embedded, migrate, queries
from .config import Settings
from .db import connect_once, ensure_pgvector, translated
from .errors import ConfigError

log = logging.getLogger(__name__)


def resolve_url(settings: Settings) -> str:
    """The external URL when one is set (never replaced by the embedded database, even if it
    fails), else the embedded server's, started or joined."""
    if settings.database_url:
        return settings.database_url
    return embedded.start(settings.home)


def prepare(settings: Settings, *, check_embedder: bool = True, check_role: bool = False) -> str:
    """Return a URL whose database is reachable, has pgvector, is at the newest schema and
    (optionally) agrees with the configured embedder and lets its role act for
    HINDSIGHT_AGENT_ID (the server's check; the CLI names agents itself). Raises
    HindsightError otherwise."""
    url = resolve_url(settings)
    asyncio.run(ensure_pgvector(url))
    migrate.upgrade(url)
    if check_embedder:
        name, dimension = embed.describe(settings)
        asyncio.run(_check_embedder(url, name, dimension))
    if check_role:
        asyncio.run(_check_agent_role(url, settings.agent_id))
    return url


async def _check_agent_role(url: str, agent_id: str) -> None:
    """A login role limited to some agents (docs/sql.md) must be mapped to this server's."""
    conn = await connect_once(url)
    try:
        async with translated("checking the database role"):
            row = await conn.fetchrow(queries.get("role_agents"))
    finally:
        await conn.close()
    if row["scoped"] and agent_id not in row["agents"]:
        raise ConfigError(f"the database role {row['role']!r} may act only for agents {row['agents']} "
                          f"(hindsight_agent_roles), not for HINDSIGHT_AGENT_ID={agent_id!r}")


async def _check_embedder(url: str, name: str, dimension: int) -> None:
    conn = await connect_once(url)
    try:
        await embed.check_recorded(conn, name, dimension)
    finally:
        await conn.close()
