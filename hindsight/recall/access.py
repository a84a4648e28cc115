"""What recall returned, counted in the background: access_count and last_accessed are
written in batches, so a recall never waits on that UPDATE."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any

from ..data.db import Database

log = logging.getLogger(__name__)


class AccessRecorder:
    """Collects which memories recall returned and writes access_count / last_accessed in
    batches from a background task, so recall never waits on that UPDATE."""

    def __init__(self, db: Database, interval: float = 1.0):
        self.db = db
        self.interval = interval
        self._pending: dict[str, dict[Any, int]] = {}
        self._last: dict[str, datetime] = {}

    def record(self, agent_id: str, ids: list, when: datetime) -> None:
        counts = self._pending.setdefault(agent_id, {})
        for mid in ids:
            counts[mid] = counts.get(mid, 0) + 1
        self._last[agent_id] = max(when, self._last.get(agent_id, when))

    async def flush(self) -> None:
        pending, self._pending = self._pending, {}
        last, self._last = self._last, {}
        for agent, counts in pending.items():
            await self.db.fetch("record_access", agent, list(counts), list(counts.values()), last[agent])

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.flush()
            except Exception:  # the database hiccuped; counts of that round are dropped
                log.warning("recording recall access failed", exc_info=True)
