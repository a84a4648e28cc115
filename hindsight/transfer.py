"""`hindsight export` and the exact-restore half of `hindsight import`.

An export line is an import line (content, timestamp, memory_type, importance, metadata,
tags, session_id) plus `memory_id` and `restore`: every other column, the memory's state
and its history. Importing it into an empty database gives the same rows; vectors are
computed again by the configured embedder. Archived memories come back to the archive. Memories
that were deleted leave a line with `deleted: true` and their history (whose content was
blanked when they were deleted).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections import defaultdict
from datetime import datetime
from typing import Any

import anyio

from . import privacy, validate as v
from .db import Database
from .embed import Embedder
from .errors import InvalidInput
from .text import content_hash, indexed_text

FORMAT = "hindsight-export/1"
_TIMES = ("stored_at", "updated_at", "expires_at", "invalidated_at", "last_accessed", "archived_at")
_IDS = ("invalidated_by", "consolidated_into")
_BYTES = ("sealed", "dedup_key")


def _json(value: Any) -> Any:
    if isinstance(value, list):
        return [_json(item) for item in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


async def export_lines(db: Database, agent_id: str) -> list[str]:
    agent_id = v.agent_id(agent_id)
    history: dict[Any, list[dict]] = defaultdict(list)
    for h in await db.fetch("export_history", agent_id):
        history[h["memory_id"]].append({k: _json(val) for k, val in dict(h).items() if k != "memory_id"})
    lines = []
    rows = list(await db.fetch("export_memories", agent_id)) + list(await db.fetch("export_archive", agent_id))
    for m in rows:
        row = dict(m)
        line = {"format": FORMAT, "memory_id": str(row.pop("id")), "content": row.pop("content"),
                "timestamp": row.pop("created_at").isoformat(), "memory_type": row.pop("memory_type"),
                "importance": row.pop("importance"), "metadata": row.pop("metadata"), "tags": row.pop("tags"),
                "session_id": row.pop("session_id")}
        row["history"] = history.pop(m["id"], [])
        line["restore"] = {k: _json(val) for k, val in row.items()}
        lines.append(json.dumps(line, ensure_ascii=False))
    for memory_id, rows in history.items():  # deleted memories: their trail only
        lines.append(json.dumps({"format": FORMAT, "memory_id": str(memory_id), "deleted": True, "history": rows},
                                ensure_ascii=False))
    return lines


def parse_restore(obj: dict[str, Any], lineno: int) -> dict[str, Any]:
    """A line written by export: checked, with types back."""
    try:
        mid = v.memory_id(obj.get("memory_id"), "memory_id")
        if obj.get("deleted"):
            return {"kind": "history", "memory_id": mid, "history": _history(obj.get("history"))}
        restore = obj.get("restore")
        if not isinstance(restore, dict):
            raise InvalidInput("restore", "must be the object export wrote")
        out = {k: (v.timestamp(k, restore.get(k)) if k in _TIMES else
                   v.memory_id(restore.get(k), k, required=False) if k in _IDS else
                   base64.b64decode(restore[k]) if k in _BYTES and restore.get(k) else
                   restore.get(k))
               for k in set(restore) | set(_TIMES) | set(_IDS) | set(_BYTES) if k != "history"}
        out["likely_replaces"] = [v.memory_id(i, "likely_replaces") for i in restore.get("likely_replaces") or []]
        out.update(kind="memory", memory_id=mid, history=_history(restore.get("history")))
        return out
    except (InvalidInput, ValueError, TypeError) as exc:
        raise InvalidInput(f"line {lineno}: restore", str(exc)) from None


def _history(rows: Any) -> list[dict[str, Any]]:
    if not isinstance(rows, list):
        raise InvalidInput("history", "must be a list")
    out = []
    for h in rows:
        out.append({**h, "at": v.timestamp("history.at", h["at"], required=True),
                    "related_id": v.memory_id(h.get("related_id"), "history.related_id", required=False),
                    "expires_at": v.timestamp("history.expires_at", h.get("expires_at"))})
    return out


async def restore(db: Database, embedder: Embedder, agent_id: str, records: list[dict[str, Any]],
                  batch_size: int = 64, progress=None, sealer: privacy.Sealer | None = None) -> int:
    """Write exported records exactly, in one transaction (supersession links may point
    forward in the file). Exported content is already redacted; a line that still holds a
    secret (written by hand) is redacted (and sealed, with a key) like any other write."""
    agent_id = v.agent_id(agent_id)
    memories = [r for r in records if r["restore"]["kind"] == "memory"]
    for r in memories:
        scrubbed = privacy.scrub(r["content"], r["metadata"] or {})
        if scrubbed.changed:
            if r["restore"]["sealed"] is None and sealer is not None:
                r["restore"]["sealed"] = sealer.seal(r["content"], r["metadata"] or {})
            r["content"], r["metadata"] = scrubbed.content, scrubbed.metadata
    vectors = []
    for start in range(0, len(memories), batch_size):
        batch = memories[start:start + batch_size]
        vectors += list(await anyio.to_thread.run_sync(embedder.passages, [r["content"] for r in batch]))
        if progress:
            progress(len(batch))
    async with db.transaction("restoring an export", "import") as tx:
        await tx.fetchval("skip_history")
        for r, vec in zip(memories, vectors):
            x = r["restore"]
            if x["archived_at"] is not None:  # it was in the archive: back there, as it was
                await tx.fetchval(
                    "restore_archive_insert", agent_id, x["memory_id"], r["session_id"], r["memory_type"],
                    r["content"], content_hash(r["content"]), vec, indexed_text(r["content"], r["metadata"], r["tags"]),
                    r["metadata"], r["tags"], r["importance"], r["created_at"], x["stored_at"], x["updated_at"],
                    x["expires_at"], x["invalidated_at"], x.get("invalidation_reason"), x["invalidated_by"],
                    bool(x.get("shared")), x["dedup_key"], x.get("slot"), x.get("flags") or [], x["sealed"],
                    x.get("strength", 1.0), x.get("reinforce_count", 0), x["consolidated_into"],
                    x.get("decay_score", 1.0), x.get("access_count", 0), x["last_accessed"], x.get("doc_len", 0),
                    x["archived_at"], x.get("archive_reason") or "restored")
                continue
            await tx.fetchval(
                "restore_insert", agent_id, x["memory_id"], r["session_id"], r["memory_type"], r["content"],
                content_hash(r["content"]), vec, indexed_text(r["content"], r["metadata"], r["tags"]), r["metadata"], r["tags"],
                r["importance"], r["created_at"], x["stored_at"], x["updated_at"], x["expires_at"],
                x["invalidated_at"], x.get("invalidation_reason"), x["invalidated_by"], bool(x.get("shared")),
                x["dedup_key"], x.get("slot"), x.get("flags") or [], x["sealed"], x.get("strength", 1.0),
                x.get("reinforce_count", 0), x["consolidated_into"], x["likely_replaces"])
            await tx.fetchval("restore_state", agent_id, x["memory_id"], x.get("decay_score", 1.0),
                              x.get("access_count", 0), x["last_accessed"])
        for r in records:
            x = r["restore"]
            for h in x["history"]:
                await tx.fetchval("restore_history", agent_id, x["memory_id"], h["action"], h["at"], h["call"],
                                  h.get("reason"), h["related_id"], h.get("memory_type"), h.get("content"),
                                  h.get("metadata"), h.get("importance"), h.get("slot"), h["expires_at"])
    return len(memories)
