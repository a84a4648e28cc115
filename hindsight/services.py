"""The services a command works with, opened once and handed to it: the pool, the
embedder, the write path (Memories) and the read path (Recall).

The CLI opens them for each command (procrastinate's `execute_command` shape) and the
scheduler for its lifetime; the embedder is loaded only by a command that reaches for it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import AsyncIterator

from .config import Settings
from .data.db import Database
from .embedders import base as embed
from .embedders import bulk as bulk_embed
from .embedders.base import AsyncEmbedder, Embedder
from .recall.search import Recall
from .store.memories import Memories, WritePolicy


@dataclass
class Services:
    settings: Settings
    db: Database
    url: str
    _closers: list = field(default_factory=list, repr=False)

    @cached_property
    def embedder(self) -> Embedder:
        return embed.create(self.settings)

    @cached_property
    def async_embedder(self) -> AsyncEmbedder:
        return AsyncEmbedder(self.embedder)

    @cached_property
    def memories(self) -> Memories:
        return Memories(self.db, self.async_embedder, self.write_policy)

    @cached_property
    def write_policy(self) -> WritePolicy:
        return WritePolicy.from_settings(self.settings)

    @cached_property
    def recall(self) -> Recall:
        return Recall(self.db, self.async_embedder, tz=self.settings.zone())

    @cached_property
    def bulk_embedder(self) -> Embedder:
        """The embedder for many texts at once: one engine per core (see bulk_embed)."""
        found = bulk_embed.create_bulk(self.settings)
        if hasattr(found, "close"):
            self._closers.append(found.close)
        return found

    def agent(self, given: str | None) -> str:
        return given or self.settings.agent_id


@contextlib.asynccontextmanager
async def opened(settings: Settings, url: str, *, pool_size: int = 4) -> AsyncIterator[Services]:
    db = await Database.open(url, max_size=pool_size)
    services = Services(settings, db, url)
    try:
        yield services
    finally:
        for close in services._closers:
            close()
        await db.close()
