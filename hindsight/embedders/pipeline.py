"""Embed the next batch while the caller writes this one.

Bulk import is embedding-bound; the database's share of the work (inserts, index and
trigger maintenance, in the PostgreSQL process) can overlap it. `embedded_batches`
keeps exactly one batch embedding in a worker thread while the caller's loop body runs.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Sequence

import anyio

from .base import Embedder


def _start(embedder: Embedder, batch: Sequence[dict[str, Any]]) -> asyncio.Task:
    texts = [r["content"] for r in batch]
    return asyncio.ensure_future(anyio.to_thread.run_sync(embedder.passages, texts))


async def embedded_batches(
    embedder: Embedder, records: Sequence[dict[str, Any]], batch_size: int
) -> AsyncIterator[tuple[Sequence[dict[str, Any]], Any]]:
    """Yield (batch, vectors) for consecutive batches of `records` (by their "content")."""
    batches = [records[i : i + batch_size] for i in range(0, len(records), batch_size)]
    if not batches:
        return
    task = _start(embedder, batches[0])
    try:
        for n, batch in enumerate(batches):
            vectors = await task
            task = _start(embedder, batches[n + 1]) if n + 1 < len(batches) else None
            yield batch, vectors
    finally:
        if task is not None and not task.done():  # the caller stopped early: let the thread finish quietly
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
