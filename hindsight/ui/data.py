"""What the pages read, as plain data, and the UI's one write of its own (dismissing a
possible conflict). Reads of single memories and every other correction go through
Memories and maintenance.restore, the code the tools use. Each takes the one Services
(hindsight.services): its reads (the read replicas when there are some), db (the primary,
for the write), memories, tz and decay_lambda."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from ..data.db import Database
from ..errors import NotFound
from ..rules import validate as v
from ..rules.scoring import RECALL_CUT
from ..services import Services
from ..store.memories import row_to_dict

DAYS = 30  # activity looks back this far; the forecast looks ahead as far
SOONEST = 8  # memories named in "fading next"
RUNS = 5
CONFLICTS = 100
ARCHIVE_PAGE = 50


async def agents(db: Database) -> list[str]:
    return [r["agent_id"] for r in await db.fetch("ui_agents")]


async def overview(s: Services, agent: str, now: datetime) -> dict[str, Any]:
    states = [dict(r) for r in await s.reads.fetch("stats_by_state", now, RECALL_CUT, agent)]
    archived = {r["archive_reason"]: r["n"] for r in await s.reads.fetch("stats_archived", agent)}
    histogram = [0] * 10
    for r in await s.reads.fetch("stats_decay_histogram", agent):
        histogram[r["bucket"]] = r["n"]
    return {
        "states": states,
        "archived": archived,
        "histogram": histogram,
        "activity": await activity(s, agent, now),
        "forecast": await forecast(s, agent, now),
        "conflicts": len(await s.reads.fetch("ui_open_conflicts", agent, CONFLICTS)),
        "runs": [dict(r) for r in await s.reads.fetch("recent_runs", RUNS)],
    }


async def activity(s: Services, agent: str, now: datetime) -> dict[str, Any]:
    """Per local day of the last DAYS days: stored, reinforced, corrected, maintenance."""
    today = now.astimezone(s.tz).date()
    days = [today - timedelta(days=DAYS - 1 - i) for i in range(DAYS)]
    first = datetime.combine(days[0], datetime.min.time(), s.tz)
    kinds = ("stored", "reinforced", "corrected", "maintenance")
    counts = {k: [0] * DAYS for k in kinds}
    for r in await s.reads.fetch("ui_activity_by_hour", agent, first, now + timedelta(minutes=1)):
        i = (r["hour"].astimezone(s.tz).date() - days[0]).days
        if 0 <= i < DAYS:
            for k in kinds:
                counts[k][i] += r[k]
    return {"days": days, **counts}


async def forecast(s: Services, agent: str, now: datetime) -> dict[str, Any]:
    """What leaves recall in the next DAYS days if nobody recalls it: decay below the cut
    (hindsight_decay at each future day), or expiry."""
    fading, expiring, first = [0] * DAYS, [0] * DAYS, []
    for r in await s.reads.fetch("ui_fading", agent, now, s.decay_lambda, RECALL_CUT, DAYS, SOONEST):
        fading[r["day"] - 1] = r["n"]
        first += [(r["day"], mid) for mid in r["first"]]
    for r in await s.reads.fetch("ui_expiring_by_day", agent, now, DAYS):
        expiring[min(max(r["day"], 1), DAYS) - 1] += r["n"]
    first = first[:SOONEST]
    briefs = {r["id"]: row_to_dict(r) for r in await s.reads.fetch("ui_briefs", agent, [mid for _, mid in first])}
    soonest = [{**briefs[mid], "day": day} for day, mid in first if mid in briefs]
    return {"fading": fading, "expiring": expiring, "soonest": soonest, "cut": RECALL_CUT}


async def memory_page(s: Services, agent: str, memory_id: Any, reveal: bool = False) -> dict[str, Any]:
    """One memory: live (through Memories.get, as get_memory reads it), archived, or only
    its history (forgotten). NotFound when the agent has none of the three."""
    mid = v.memory_id(memory_id)
    memory, where = None, "live"
    try:
        memory = await s.memories.get(agent, mid, reveal=reveal)
    except NotFound:
        row = await s.reads.fetchrow("ui_archived_memory", agent, mid)
        if row is not None:
            memory, where = row_to_dict(row), "archive"
    try:
        history = await s.memories.history(agent, mid)
    except NotFound:
        history = []
    if memory is None and not history:
        raise NotFound("memory_id", str(mid), agent)
    out: dict[str, Any] = {
        "id": str(mid),
        "memory": memory,
        "where": where if memory else "forgotten",
        "history": history,
        "own": memory is None or memory["agent_id"] == agent,
    }
    out.update(await _links(s, agent, mid, memory if out["own"] else None))
    return out


async def _links(s: Services, agent: str, mid: uuid.UUID, memory: dict[str, Any] | None) -> dict[str, Any]:
    """What superseded it, what it superseded, the possible conflicts both ways."""
    links = await s.reads.fetchrow("ui_memory_links", agent, mid)
    memory = memory or {}
    likely = [uuid.UUID(str(x)) for x in (links["likely_replaces"] if links else memory.get("likely_replaces") or [])]
    named = [uuid.UUID(str(x)) for x in (memory.get("invalidated_by"), memory.get("consolidated_into")) if x]
    briefs = {str(r["id"]): row_to_dict(r) for r in await s.reads.fetch("ui_briefs", agent, likely + named)}
    return {
        "likely_replaces": [briefs.get(str(x), {"id": str(x), "missing": True}) for x in likely],
        "replaced_by": briefs.get(str(memory.get("invalidated_by"))),
        "consolidated_into": briefs.get(str(memory.get("consolidated_into"))),
        "superseded": [row_to_dict(r) for r in await s.reads.fetch("ui_superseded_by", agent, mid)],
        "likely_replaced_by": [row_to_dict(r) for r in await s.reads.fetch("ui_likely_replaced_by", agent, mid)],
    }


async def conflicts(s: Services, agent: str) -> list[dict[str, Any]]:
    return [row_to_dict(r) for r in await s.reads.fetch("ui_open_conflicts", agent, CONFLICTS)]


async def archive(s: Services, agent: str, offset: int) -> dict[str, Any]:
    offset = v.integer("offset", offset, 0, 10_000_000)
    rows = await s.reads.fetch("ui_archive_list", agent, ARCHIVE_PAGE, offset)
    return {
        "rows": [row_to_dict(r) for r in rows],
        "total": await s.reads.fetchval("ui_archive_count", agent),
        "offset": offset,
        "page": ARCHIVE_PAGE,
    }
