"""Bulk import (a restore path): JSONL records written as given, embedded in batches.

A line: {"content" | "text", "timestamp"?, "memory_type"?, "importance"?, "metadata"?,
"tags"?, "id"?, "session_id"?}. `timestamp` becomes created_at; `id` (an external id) is
kept as metadata.external_id. Every line is checked before anything is written.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

import anyio

from . import privacy, queries, transfer, validate as v
from .db import Database
from .embed import Embedder
from .errors import InvalidInput
from .text import content_hash, indexed_text

KNOWN = {"content", "text", "timestamp", "memory_type", "importance", "metadata", "tags", "id", "session_id"}
RESTORE_KEYS = {"format", "memory_id", "restore", "deleted", "history"}  # lines written by `hindsight export`


def parse_line(line: str, lineno: int) -> dict[str, Any] | None:
    """One JSONL line -> a checked record, or None for a blank line."""
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise InvalidInput(f"line {lineno}", f"is not valid JSON ({exc.msg})") from None
    if not isinstance(obj, dict):
        raise InvalidInput(f"line {lineno}", "must be a JSON object")
    unknown = set(obj) - KNOWN - (RESTORE_KEYS if "memory_id" in obj else set())
    if unknown:
        raise InvalidInput(f"line {lineno}", f"unknown keys {sorted(unknown)}; allowed: {sorted(KNOWN)}")
    restore = transfer.parse_restore(obj, lineno) if "memory_id" in obj else None
    if restore is not None and restore["kind"] == "history":
        return {"restore": restore}
    try:
        content = v.content(obj.get("content", obj.get("text")))
        metadata = dict(v.metadata(obj.get("metadata")) or {})
        if obj.get("id") is not None:
            if not isinstance(obj["id"], (str, int)):
                raise InvalidInput("id", "must be a string or a number")
            metadata["external_id"] = str(obj["id"])
        return {
            "content": content,
            "created_at": v.timestamp("timestamp", obj.get("timestamp")),
            "memory_type": v.memory_type(obj.get("memory_type", "episodic")),
            "importance": v.importance(obj.get("importance", 3)),
            "metadata": v.metadata(metadata),
            "tags": v.tags(obj.get("tags")) or [],
            "session_id": v.identifier("session_id", obj.get("session_id")),
            "restore": restore,
        }
    except InvalidInput as exc:
        raise InvalidInput(f"line {lineno}: {exc.field}", exc.problem) from None


def read_records(lines: Iterable[str]) -> list[dict[str, Any]]:
    records = []
    for n, line in enumerate(lines, 1):
        record = parse_line(line, n)
        if record is not None:
            records.append(record)
    return records


async def import_records(db: Database, embedder: Embedder, agent_id: str, records: list[dict[str, Any]],
                         batch_size: int = 64, progress: Callable[[int], None] | None = None,
                         sealer: privacy.Sealer | None = None) -> int:
    """Embed and insert `records` in batches (one transaction each). Returns how many.

    A restore keeps records as given: no should_store, no dedup, no supersession, no
    expiry from importance. Privacy still holds: secrets are redacted (sealed with a key)."""
    agent_id = v.agent_id(agent_id)
    exact = [r for r in records if r.get("restore")]
    if exact:  # lines written by `hindsight export`: every column as given
        if len(exact) != len(records):
            raise InvalidInput("file", "mixes exported lines (with memory_id) and plain lines; import them separately")
        return await transfer.restore(db, embedder, agent_id, records, batch_size, progress, sealer)
    done = 0
    for start in range(0, len(records), batch_size):
        batch = [_private(r, sealer) for r in records[start:start + batch_size]]
        vectors = await anyio.to_thread.run_sync(embedder.passages, [r["content"] for r in batch])
        rows = [(agent_id, None, r["session_id"], r["memory_type"], r["content"], content_hash(r["content"]),
                 vec, indexed_text(r["content"], r["metadata"], r["tags"]), r["metadata"], r["tags"], r["importance"],
                 r["created_at"], None, False, None, None, None, r["sealed"], None)
                for r, vec in zip(batch, vectors)]
        async with db.transaction("importing memories", "import") as tx:
            await tx.conn.executemany(queries.get("insert_memory"), rows)
        done += len(batch)
        if progress:
            progress(len(batch))
    return done


def _private(record: dict[str, Any], sealer: privacy.Sealer | None) -> dict[str, Any]:
    scrubbed = privacy.scrub(record["content"], record["metadata"] or {})
    if not scrubbed.changed:
        return dict(record, sealed=None)
    sealed = sealer.seal(record["content"], record["metadata"] or {}) if sealer else None
    return dict(record, content=scrubbed.content, metadata=scrubbed.metadata, sealed=sealed)
