"""What `hindsight doctor` checks, before any services are open (each a step it reports):
where the database is, pgvector, the vector search settings a pooled connection keeps, the
schema's revision, and whether the configured embedder loads."""

from __future__ import annotations

import asyncio
from typing import Callable

from ..config import Settings
from ..data import bootstrap, migrate
from ..data.db import ensure_pgvector, redact, settings_expected, settings_in_force
from ..embedders.base import create, describe


def database(settings: Settings, say: Callable[[str], None]) -> str:
    """The database's URL (the embedded one started when it is the one configured)."""
    return bootstrap.resolve_url(settings, say)


def shown(url: str) -> str:
    """A database URL as it may be printed: its password hidden."""
    return redact(url)


def pgvector(url: str) -> str:
    """pgvector's version in that database (installed there when missing)."""
    return asyncio.run(ensure_pgvector(url))


def search_settings(url: str) -> tuple[dict[str, str | None], dict[str, str]]:
    """The vector search settings as a pooled connection sees them, and what they must be."""
    return asyncio.run(settings_in_force(url)), settings_expected()


def schema(url: str) -> tuple[str | None, str]:
    """The schema's revision there (None: not migrated) and the newest this build knows."""
    return asyncio.run(migrate.current(url)), migrate.head()


def embedder(settings: Settings) -> tuple[str, int]:
    """The configured embedder's name and dimension."""
    return describe(settings)


def load_embedder(settings: Settings) -> None:
    """Load the configured embedder (raises when it cannot)."""
    create(settings)
