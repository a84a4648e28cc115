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
from contextlib import aclosing
from datetime import datetime
from typing import Any

from ..data.columns import ArchivedMemory, HistoryRow, RestoredMemory
from ..data.db import Database
from ..embedders.base import Embedder
from ..embedders.pipeline import embedded_batches
from ..errors import InvalidInput
from ..rules import privacy
from ..rules import validate as v
from ..rules.text import content_hash, indexed_text
from .unit import locked

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
        line = {
            "format": FORMAT,
            "memory_id": str(row.pop("id")),
            "content": row.pop("content"),
            "timestamp": row.pop("created_at").isoformat(),
            "memory_type": row.pop("memory_type"),
            "importance": row.pop("importance"),
            "metadata": row.pop("metadata"),
            "tags": row.pop("tags"),
            "session_id": row.pop("session_id"),
        }
        if row.get("project") is not None:  # written only when there is one (older exports have none)
            line["project"] = row["project"]
        row.pop("project", None)
        row["history"] = history.pop(m["id"], [])
        if not row.get("likely_replaces"):  # written only when there is one (older exports have none)
            row.pop("likely_replaces", None)
        if isinstance(row.get("doc_len"), float) and row["doc_len"].is_integer():
            row["doc_len"] = int(row["doc_len"])  # weighted since 0006; whole as before when it is
        line["restore"] = {k: _json(val) for k, val in row.items()}
        lines.append(json.dumps(line, ensure_ascii=False))
    for memory_id, rows in history.items():  # deleted memories: their trail only
        lines.append(
            json.dumps(
                {"format": FORMAT, "memory_id": str(memory_id), "deleted": True, "history": rows}, ensure_ascii=False
            )
        )
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
        out = {
            k: (
                v.timestamp(k, restore.get(k))
                if k in _TIMES
                else v.memory_id(restore.get(k), k, required=False)
                if k in _IDS
                else base64.b64decode(restore[k])
                if k in _BYTES and restore.get(k)
                else restore.get(k)
            )
            for k in set(restore) | set(_TIMES) | set(_IDS) | set(_BYTES)
            if k != "history"
        }
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
        out.append(
            {
                **h,
                "at": v.timestamp("history.at", h["at"], required=True),
                "related_id": v.memory_id(h.get("related_id"), "history.related_id", required=False),
                "expires_at": v.timestamp("history.expires_at", h.get("expires_at")),
            }
        )
    return out


async def restore(
    db: Database,
    embedder: Embedder,
    agent_id: str,
    records: list[dict[str, Any]],
    batch_size: int = 64,
    progress=None,
    sealer: privacy.Sealer | None = None,
    on_conflict: str = "skip",
) -> dict[str, int]:
    """Write exported records exactly, in one transaction (supersession links may point
    forward in the file). Exported content is already redacted; a line that still holds a
    secret (written by hand) is redacted (and sealed, with a key) like any other write.

    A memory the agent already has (live, archived, or a deleted one's trail) is skipped,
    or with on_conflict="replace" removed with its history and written as exported."""
    agent_id = v.agent_id(agent_id)
    ids = [r["restore"]["memory_id"] for r in records]
    async with db.transaction("restoring an export", "import") as tx:
        await locked(tx, agent_id, "import")  # what is found present stays so until commit
        present = {row["id"] for row in await tx.fetch("restore_present", agent_id, ids)}
        todo = [r for r in records if r["restore"]["memory_id"] not in present or on_conflict == "replace"]
        memories = [_private(r, sealer) for r in todo if r["restore"]["kind"] == "memory"]
        await tx.fetchval("skip_history")
        if on_conflict == "replace" and present:
            await tx.execute("restore_remove_memories", agent_id, list(present))
            await tx.execute("restore_remove_history", agent_id, list(present))
        async with aclosing(embedded_batches(embedder, memories, batch_size)) as batches:
            async for batch, vectors in batches:
                live = [(r, vec) for r, vec in zip(batch, vectors) if r["restore"]["archived_at"] is None]
                await tx.executemany("restore_insert", [_live_row(agent_id, r, vec) for r, vec in live])
                await tx.executemany("restore_state", [_state_row(agent_id, r) for r, _ in live])
                await tx.executemany(
                    "restore_archive_insert",
                    [
                        _archived_row(agent_id, r, vec)
                        for r, vec in zip(batch, vectors)
                        if r["restore"]["archived_at"] is not None
                    ],
                )
                if progress:
                    progress(len(batch))
        await tx.executemany(
            "restore_history",
            [_history_row(agent_id, r["restore"]["memory_id"], h) for r in todo for h in r["restore"]["history"]],
        )
    if progress:
        progress(len(records) - len(memories))  # lines skipped, and deleted memories' trails
    replaced = len(present) if on_conflict == "replace" else 0
    return {
        "imported": len(memories),
        "skipped": len(records) - len(todo),
        "replaced": replaced,
        "trails": len(todo) - len(memories),
    }


def _private(r: dict[str, Any], sealer: privacy.Sealer | None) -> dict[str, Any]:
    scrubbed = privacy.scrub(r["content"], r["metadata"] or {})
    if not scrubbed.changed:
        return r
    x = dict(r["restore"])
    if x["sealed"] is None and sealer is not None:
        x["sealed"] = sealer.seal(r["content"], r["metadata"] or {})
    return dict(r, content=scrubbed.content, metadata=scrubbed.metadata, restore=x)


def _columns(agent_id: str, r: dict[str, Any], vec) -> dict[str, Any]:
    """The columns memories and memories_archive share, by name."""
    x = r["restore"]
    return dict(
        agent_id=agent_id,
        id=x["memory_id"],
        session_id=r["session_id"],
        memory_type=r["memory_type"],
        content=r["content"],
        content_hash=content_hash(r["content"]),
        embedding=vec,
        search_vector=indexed_text(r["content"], r["metadata"], r["tags"]),
        metadata=r["metadata"],
        tags=r["tags"],
        importance=r["importance"],
        created_at=r["created_at"],
        stored_at=x["stored_at"],
        updated_at=x["updated_at"],
        expires_at=x["expires_at"],
        invalidated_at=x["invalidated_at"],
        invalidation_reason=x.get("invalidation_reason"),
        invalidated_by=x["invalidated_by"],
        shared=bool(x.get("shared")),
        dedup_key=x["dedup_key"],
        slot=x.get("slot"),
        flags=x.get("flags") or [],
        sealed=x["sealed"],
        strength=x.get("strength", 1.0),
        reinforce_count=x.get("reinforce_count", 0),
        consolidated_into=x["consolidated_into"],
        project=r.get("project"),
    )


def _live_row(agent_id: str, r: dict[str, Any], vec) -> RestoredMemory:
    return RestoredMemory(**_columns(agent_id, r, vec), likely_replaces=r["restore"].get("likely_replaces") or [])


def _state_row(agent_id: str, r: dict[str, Any]) -> tuple:
    x = r["restore"]
    return (agent_id, x["memory_id"], x.get("decay_score", 1.0), x.get("access_count", 0), x["last_accessed"])


def _archived_row(agent_id: str, r: dict[str, Any], vec) -> ArchivedMemory:
    x = r["restore"]
    return ArchivedMemory(
        **_columns(agent_id, r, vec),
        decay_score=x.get("decay_score", 1.0),
        access_count=x.get("access_count", 0),
        last_accessed=x["last_accessed"],
        doc_len=x.get("doc_len", 0),
        archived_at=x["archived_at"],
        archive_reason=x.get("archive_reason") or "restored",
    )


def _history_row(agent_id: str, memory_id: Any, h: dict[str, Any]) -> HistoryRow:
    return HistoryRow(
        agent_id=agent_id,
        memory_id=memory_id,
        action=h["action"],
        at=h["at"],
        call=h["call"],
        reason=h.get("reason"),
        related_id=h["related_id"],
        memory_type=h.get("memory_type"),
        content=h.get("content"),
        metadata=h.get("metadata"),
        importance=h.get("importance"),
        slot=h.get("slot"),
        expires_at=h["expires_at"],
    )
