"""Large agents' own vector indexes, kept by the maintenance job (rules.vector_indexes).

Each is a partial HNSW index (WHERE agent_id = the agent), built and dropped CONCURRENTLY so
that writes go on meanwhile; recall needs nothing else: its statements are planned for the
agent at hand, and the planner picks the agent's index when there is one.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ..data.db import Database
from ..rules import vector_indexes

log = logging.getLogger(__name__)

BUILD_SECONDS = 6 * 3600  # one index build may take this long (100,000 rows: about 90 s here)


async def refresh(
    db: Database, dry_run: bool = False, limits: vector_indexes.Thresholds = vector_indexes.Thresholds()
) -> dict[str, Any]:
    """Build the indexes the rule wants and drop those it no longer does; the report names
    the agents and how long each build took."""
    async with db.session("agent_indexes") as session:
        counts = {r["agent_id"]: r["n"] for r in await session.fetch("agent_row_counts", limits.keep_rows)}
        total = await session.fetchval("agent_rows_total")
        existing = {r["name"]: r["valid"] for r in await session.fetch("agent_indexes")}
        plan = vector_indexes.plan(counts, total, existing, limits)
        report: dict[str, Any] = {
            "kept": plan.kept,
            "dropped": list(plan.drop),
            "built": [{"agent_id": agent, "index": name, "rows": counts[agent]} for name, agent in plan.create],
        }
        if dry_run:
            return report
        for name in plan.drop:
            await session.execute_built("agent_index_drop", name, timeout=BUILD_SECONDS)
            log.info("dropped the vector index %s", name)
        for built, (name, agent) in zip(report["built"], plan.create):
            started = time.perf_counter()
            await session.execute_built("agent_index_create", name, agent, timeout=BUILD_SECONDS)
            built["seconds"] = round(time.perf_counter() - started, 1)
            log.info("built the vector index of agent %r (%d rows) in %.1f s", agent, counts[agent], built["seconds"])
        return report
