"""The maintenance job: decay, archive, consolidation, large agents' vector indexes — one run,
recorded.

Run by `hindsight maintain` (cron) or the scheduler (APScheduler, nightly). A PostgreSQL
advisory lock lets one run work at a time across every process; a run that finds the
lock taken is recorded as skipped. Every run reconciles counts: rows live + archived
before equal rows live + archived after, plus what consolidation created.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from ..data.db import Database
from ..errors import InvalidInput, NotFound
from ..rules import consolidation, policy, scoring, vector_indexes
from ..rules import validate as v
from ..store.memories import Memories
from ..store.unit import locked
from . import agent_indexes

log = logging.getLogger(__name__)

DECAY_LAMBDA = 0.05  # per day: a half-life of about 14 days at importance 2
PAGES_PER_BATCH = 2000  # decay commits every this many heap pages
ARCHIVE_BATCH = 5000
HOOK_SESSION_DAYS = 30  # a hook session not seen for this long is forgotten (hook_sessions, hook_shown)


@dataclass(frozen=True)
class MaintenanceConfig:
    decay_lambda: float = DECAY_LAMBDA
    archive_superseded_after: timedelta = timedelta(days=90)
    consolidate_window: timedelta = timedelta(days=30)
    consolidate_threshold: float = consolidation.DEFAULT_THRESHOLD
    consolidate_min_size: int = consolidation.MIN_CLUSTER
    pages_per_batch: int = PAGES_PER_BATCH
    vector_indexes: vector_indexes.Thresholds = vector_indexes.Thresholds()


class Maintenance:
    def __init__(self, db: Database, memories: Memories | None, config: MaintenanceConfig | None = None):
        self.db = db
        self.memories = memories  # consolidation writes through the normal write path
        self.config = config or MaintenanceConfig()

    async def run(self, now: datetime, *, dry_run: bool = False, trigger: str = "cli") -> dict[str, Any]:
        """One run. Returns its report; raises (after recording the failure) on error."""
        async with self.db.session("maintenance") as lock:
            if not await lock.fetchval("maintenance_try_lock"):
                run_id = await self.db.fetchval("run_start", now, dry_run, trigger, "skipped")
                report = {"status": "skipped", "reason": "another maintenance run holds the lock", "run": run_id}
                await self.db.fetchval("run_finish", run_id, "skipped", report, None)
                return report
            try:
                run_id = await self.db.fetchval("run_start", now, dry_run, trigger, "running")
                report: dict[str, Any] = {
                    "run": run_id,
                    "as_of": now.isoformat(),
                    "dry_run": dry_run,
                    "config": _config_json(self.config),
                }
                try:
                    before = dict(await self.db.fetchrow("counts"))
                    started = time.perf_counter()
                    report["decay"] = await self.decay(now, dry_run)
                    report["archive"] = await self.archive(now, dry_run)
                    report["consolidation"] = await self.consolidate(now, dry_run)
                    report["agent_indexes"] = await agent_indexes.refresh(self.db, dry_run, self.config.vector_indexes)
                    after = dict(await self.db.fetchrow("counts"))
                    created = report["consolidation"].get("created", 0)
                    report["counts"] = {
                        "before": before,
                        "after": after,
                        "reconciled": before["live"] + before["archived"] + created
                        == after["live"] + after["archived"],
                    }
                    report["seconds"] = round(time.perf_counter() - started, 2)
                    report["status"] = "succeeded"
                    await self.db.fetchval("run_finish", run_id, "succeeded", report, None)
                    return report
                except Exception as exc:
                    await self.db.fetchval("run_finish", run_id, "failed", report, f"{type(exc).__name__}: {exc}")
                    raise
            finally:
                await lock.fetchval("maintenance_unlock")

    async def decay(self, now: datetime, dry_run: bool) -> dict[str, Any]:
        lam = self.config.decay_lambda
        preview = dict(await self.db.fetchrow("decay_preview", now, lam, scoring.RECALL_CUT))
        if dry_run:
            return {
                "would_change": preview["changed"],
                "sinking_below": preview["sinking"],
                "recovering": preview["recovering"],
                "threshold": scoring.RECALL_CUT,
            }
        started = time.perf_counter()
        pages = await self.db.fetchval("table_pages")
        step = self.config.pages_per_batch
        changed = 0
        async with self.db.session("decay") as session:
            for first in range(0, pages + 1, step):
                changed += await session.execute_count("decay_pages", now, lam, (first, 0), (first + step, 0))
        return {
            "changed": changed,
            "sank_below": preview["sinking"],
            "recovered": preview["recovering"],
            "threshold": scoring.RECALL_CUT,
            "pages": pages,
            "seconds": round(time.perf_counter() - started, 2),
        }

    async def archive(self, now: datetime, dry_run: bool) -> dict[str, Any]:
        after = self.config.archive_superseded_after
        if dry_run:
            preview = dict(await self.db.fetchrow("archive_preview", now, after))
            return {"would_archive_expired": preview["expired"], "would_archive_superseded": preview["superseded"]}
        moved = {"expired": 0, "superseded": 0}
        for kind in ("superseded", "expired"):
            while True:
                async with self.db.transaction("archiving", "maintain", f"archive: {kind}") as tx:
                    await tx.execute("history_action", "archive")
                    n = await tx.execute_count("archive_batch", now, after, kind, ARCHIVE_BATCH)
                moved[kind] += n
                if n == 0:
                    break
        # what the IDE's hooks showed sessions not seen for HOOK_SESSION_DAYS: no longer needed
        forgot = await self.db.fetchval("hook_forget_sessions", now - timedelta(days=HOOK_SESSION_DAYS))
        return {
            "archived_expired": moved["expired"],
            "archived_superseded": moved["superseded"],
            "hook_sessions_forgotten": forgot,
        }

    async def consolidate(self, now: datetime, dry_run: bool) -> dict[str, Any]:
        window = (now - self.config.consolidate_window, now)
        agents = [r["agent_id"] for r in await self.db.fetch("agents_with_episodes", *window)]
        found, created, reinforced, sources = [], 0, 0, 0
        for agent in agents:
            rows = await self.db.fetch("consolidation_candidates", agent, *window, consolidation.MAX_CANDIDATES)
            for cluster in consolidation.clusters(
                rows, self.config.consolidate_threshold, self.config.consolidate_min_size
            ):
                summary = consolidation.summarise(cluster)
                found.append({"agent_id": agent, "size": len(cluster.members), "content": summary.content})
                if dry_run or self.memories is None:
                    continue
                result = await self.memories.store(
                    agent,
                    summary.content,
                    memory_type="semantic",
                    importance=summary.importance,
                    metadata=summary.metadata,
                    call="maintain",
                    reason="consolidation",
                )
                created += result["status"] == "created"
                reinforced += result["status"] == "duplicate"
                new_id = result["id"]
                async with self.db.transaction("consolidating", "maintain", "consolidated") as tx:
                    sources += await tx.execute_count(
                        "mark_consolidated", agent, [m["id"] for m in cluster.members], uuid.UUID(new_id)
                    )
        out: dict[str, Any] = {"clusters": len(found), "examples": found[:5]}
        if not dry_run:
            out.update(created=created, reinforced=reinforced, sources_marked=sources)
        return out


def _config_json(config: MaintenanceConfig) -> dict[str, Any]:
    out = asdict(config)
    for key, value in out.items():
        if isinstance(value, timedelta):
            out[key] = f"{value.days} days"
    return json.loads(json.dumps(out))


async def restore(db: Database, agent_id: str, memory_id: Any, now: datetime, call: str = "restore") -> dict[str, Any]:
    """Bring one memory back from the archive. An expired one gets a fresh lifetime from its
    importance; a superseded one comes back as history (still invalidated). `call` names
    the caller in memory_history."""
    agent_id = v.agent_id(agent_id)
    mid = v.memory_id(memory_id)
    row = await db.fetchrow("archived_memory", agent_id, mid)
    if row is None:
        raise NotFound("memory_id", f"{mid} in the archive", agent_id)
    expires = row["expires_at"]
    if row["invalidated_at"] is None and expires is not None and expires <= now:
        expires = policy.expires_at(row["importance"], row["memory_type"], None, now)
    why = f"restored from archive ({row['archive_reason']})"
    async with db.transaction("restoring a memory", call, why) as tx:
        await tx.execute("history_action", "restore")
        if row["invalidated_at"] is None:  # it becomes current: the checks of every live write
            unit = await locked(tx, agent_id, call, why)
            twin = await unit.equal(row["memory_type"], row["dedup_key"])
            if twin is not None:
                raise InvalidInput(
                    "memory_id", f"memory {twin} holds the same content now; restoring {mid} would duplicate it"
                )
            holder = await unit.slot_holder(row["slot"])
            if holder is not None:
                raise InvalidInput(
                    "memory_id",
                    f"slot {row['slot']!r} is held by memory {holder} now; invalidate it first or restore as history",
                )
        restored = await tx.fetchval("restore_memory", agent_id, mid, expires)
        await tx.fetchval("restore_state_fresh", agent_id, mid, row["access_count"], now)
        decay = await tx.fetchval("memory_decay", agent_id, mid)
    return {
        "restored": str(restored),
        "reason": row["archive_reason"],
        "expires_at": expires.isoformat() if expires else None,
        "current": row["invalidated_at"] is None,
        "decay_score": decay,
    }


async def forget_archived(db: Database, agent_id: str, memory_id: Any, call: str = "cli forget") -> dict[str, Any]:
    """Delete an archived memory for good (its history keeps the trail, without content)."""
    agent_id = v.agent_id(agent_id)
    mid = v.memory_id(memory_id)
    async with db.transaction("forgetting an archived memory", call) as tx:
        gone = await tx.fetchval("forget_archived", agent_id, mid)
    if gone is None:
        raise NotFound("memory_id", str(mid), agent_id)
    return {"deleted": True, "id": str(mid), "archived": True}
