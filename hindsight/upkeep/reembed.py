"""`hindsight reembed`: every memory embedded again with the configured embedder.

Recall keeps answering from the old vectors while new ones fill a shadow column
(embedding_next) in batches, each committed, so an interrupted run resumes where it
stopped. Writes go on meanwhile: a new memory or a changed content has no new vector yet
and is picked up by a later batch. At the end, with writes held for a moment, the last
stragglers are embedded, the shadow column (already indexed) replaces the old one, and the
recorded embedder switches — all in one transaction.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import anyio

from ..data.db import Database, Session, Tx
from ..embedders.base import Embedder
from ..errors import InvalidInput

log = logging.getLogger(__name__)


async def _embed_rows(embedder: Embedder, tx: Tx, rows) -> int:
    vectors = await anyio.to_thread.run_sync(embedder.passages, [r["content"] for r in rows])
    return await tx.execute_count(
        "reembed_store",
        [r["agent_id"] for r in rows],
        [r["id"] for r in rows],
        [_text(v) for v in vectors],
        [r["content"] for r in rows],
    )


def _text(vector) -> str:
    """pgvector's text form (asyncpg has no codec for arrays of vectors)."""
    return "[" + ",".join(map(repr, vector.tolist())) + "]"


async def reembed(
    db: Database,
    embedder: Embedder,
    name: str,
    dimension: int,
    *,
    batch_size: int = 64,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run (or resume) the re-embed. `limit`: stop after about this many memories (run again
    to continue). Returns {status: finished|paused, embedded, remaining, job}."""
    async with db.session("re-embedding") as session:
        job = await _open_job(session, name, dimension)
        counts = await session.fetchrow("reembed_counts")
        total, done_before = counts["total"], counts["total"] - counts["todo"]
        if progress:
            progress(done_before, total)
        done = 0
        while limit is None or done < limit:
            size = batch_size if limit is None else min(batch_size, limit - done)
            rows = await session.fetch("reembed_batch", size)
            if not rows:
                break
            async with session.transaction() as tx:
                n = await _embed_rows(embedder, tx, rows)
                await tx.execute("reembed_progress", job["id"], n)
            done += len(rows)
            if progress:
                progress(done_before + done, total)
        remaining = (await session.fetchrow("reembed_counts"))["todo"]
        if remaining and limit is not None and done >= limit:
            return {"status": "paused", "embedded": done, "remaining": remaining, "job": job["id"]}
        done += await _switch(session, embedder, name, dimension, job["id"], batch_size)
        return {
            "status": "finished",
            "embedded": done,
            "remaining": 0,
            "job": job["id"],
            "embedder": name,
            "dimension": dimension,
        }


async def _open_job(session: Session, name: str, dimension: int):
    """The shadow column ready, and the unfinished job for this embedder (a new one if none)."""
    shadow = await session.fetchval("reembed_shadow_dimension")
    if shadow is not None and shadow != dimension:
        raise InvalidInput(
            "HINDSIGHT_EMBEDDER",
            f"a re-embed to a {shadow}-dimensional embedder is unfinished; "
            f"finish it with that embedder (this one gives {dimension})",
        )
    await session.execute_sized("reembed_prepare", dimension)
    job = await session.fetchrow("reembed_open_job")
    if job is not None and job["embedder"] != name:
        raise InvalidInput(
            "HINDSIGHT_EMBEDDER",
            f"a re-embed to {job['embedder']!r} (started "
            f"{job['started_at']:%Y-%m-%d %H:%M}) is unfinished; finish it "
            "with that embedder first",
        )
    if job is None:
        job = await session.fetchrow("reembed_new_job", name, dimension)
    return job


async def _switch(session: Session, embedder: Embedder, name: str, dimension: int, job: int, batch_size: int) -> int:
    """The new column's index, built while writes go on; then, with writes held, the last
    stragglers and the switch. Returns how many stragglers were embedded."""
    await session.execute("reembed_index", timeout=24 * 3600)
    done = 0
    async with session.transaction() as tx:
        await tx.execute("reembed_lock")
        while rows := await tx.fetch("reembed_batch", batch_size):
            done += await _embed_rows(embedder, tx, rows)
        await tx.execute("reembed_switch")
        await tx.execute("embedder_record", name, dimension)
        await tx.execute("reembed_finish", job)
    return done
