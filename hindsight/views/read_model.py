"""The operators' read model (hindsight/views): plain data for the UI's pages and the CLI's
`stats` and `show`; rendering is the faces' own. Reads go to `reads` (the replicas when
there are some); single live memories come through Memories.get and .history, the code the
tools use."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from ..data.db import Reader
from ..data.records import row_to_dict
from ..errors import NotFound
from ..rules import validate as v
from ..rules.scoring import RECALL_CUT
from ..store import requests
from ..store.memories import Memories

DAYS = 30  # activity looks back this far; the forecast looks ahead as far
SOONEST = 8  # memories named in "fading next"
RUNS = 5
CONFLICTS = 100
ARCHIVE_PAGE = 50


@dataclass
class Views:
    reads: Reader  # the replicas when there are some, else the primary
    primary: Reader  # for what a write follows at once (a prefix typed to forget or restore)
    memories: Memories
    tz: tzinfo
    decay_lambda: float

    async def agents(self) -> list[str]:
        """Every agent with a memory."""
        return [r["agent_id"] for r in await self.reads.fetch("ui_agents")]

    async def stats(self, agent_id: str | None, now: datetime) -> dict[str, Any]:
        """`hindsight stats`: counts by agent, type and state, a decay histogram, the last runs."""
        states = [dict(r) for r in await self.reads.fetch("stats_by_state", now, RECALL_CUT, agent_id)]
        archived = [dict(r) for r in await self.reads.fetch("stats_archived", agent_id)]
        histogram = {
            f"{r['bucket'] / 10:.1f}-{(r['bucket'] + 1) / 10:.1f}": r["n"]
            for r in await self.reads.fetch("stats_decay_histogram", agent_id)
        }
        runs = [dict(r) for r in await self.reads.fetch("recent_runs", RUNS)]
        return {"by_state": states, "archived": archived, "decay_histogram": histogram, "runs": runs}

    async def overview(self, agent: str, now: datetime) -> dict[str, Any]:
        """The UI's first page: the same counts for one agent, its activity, what fades next."""
        states = [dict(r) for r in await self.reads.fetch("stats_by_state", now, RECALL_CUT, agent)]
        archived = {r["archive_reason"]: r["n"] for r in await self.reads.fetch("stats_archived", agent)}
        histogram = [0] * 10
        for r in await self.reads.fetch("stats_decay_histogram", agent):
            histogram[r["bucket"]] = r["n"]
        return {
            "states": states,
            "archived": archived,
            "histogram": histogram,
            "activity": await self.activity(agent, now),
            "forecast": await self.forecast(agent, now),
            "conflicts": len(await self.reads.fetch("ui_open_conflicts", agent, CONFLICTS)),
            "runs": [dict(r) for r in await self.reads.fetch("recent_runs", RUNS)],
        }

    async def activity(self, agent: str, now: datetime) -> dict[str, Any]:
        """Per local day of the last DAYS days: stored, reinforced, corrected, maintenance."""
        today = now.astimezone(self.tz).date()
        days = [today - timedelta(days=DAYS - 1 - i) for i in range(DAYS)]
        first = datetime.combine(days[0], datetime.min.time(), self.tz)
        kinds = ("stored", "reinforced", "corrected", "maintenance")
        counts = {k: [0] * DAYS for k in kinds}
        for r in await self.reads.fetch("ui_activity_by_hour", agent, first, now + timedelta(minutes=1)):
            i = (r["hour"].astimezone(self.tz).date() - days[0]).days
            if 0 <= i < DAYS:
                for k in kinds:
                    counts[k][i] += r[k]
        return {"days": days, **counts}

    async def forecast(self, agent: str, now: datetime) -> dict[str, Any]:
        """What leaves recall in the next DAYS days if nobody recalls it: decay below the cut
        (hindsight_decay at each future day), or expiry."""
        fading, expiring, first = [0] * DAYS, [0] * DAYS, []
        for r in await self.reads.fetch("ui_fading", agent, now, self.decay_lambda, RECALL_CUT, DAYS, SOONEST):
            fading[r["day"] - 1] = r["n"]
            first += [(r["day"], mid) for mid in r["first"]]
        for r in await self.reads.fetch("ui_expiring_by_day", agent, now, DAYS):
            expiring[min(max(r["day"], 1), DAYS) - 1] += r["n"]
        first = first[:SOONEST]
        wanted = [mid for _, mid in first]
        briefs = {r["id"]: row_to_dict(r) for r in await self.reads.fetch("ui_briefs", agent, wanted)}
        soonest = [{**briefs[mid], "day": day} for day, mid in first if mid in briefs]
        return {"fading": fading, "expiring": expiring, "soonest": soonest, "cut": RECALL_CUT}

    async def memory_page(self, agent: str, memory_id: Any, reveal: bool = False) -> dict[str, Any]:
        """One memory: live (through Memories.get, as get_memory reads it), archived, or only
        its history (forgotten). NotFound when the agent has none of the three."""
        mid = v.memory_id(memory_id)
        memory, where = None, "live"
        try:
            memory = (await self.memories.get(requests.get(agent, mid, reveal))).json()
        except NotFound:
            row = await self.reads.fetchrow("ui_archived_memory", agent, mid)
            if row is not None:
                memory, where = row_to_dict(row), "archive"
        try:
            history = await self.memories.history(agent, mid)
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
        out.update(await self._links(agent, mid, memory if out["own"] else None))
        return out

    async def _links(self, agent: str, mid: uuid.UUID, memory: dict[str, Any] | None) -> dict[str, Any]:
        """What superseded it, what it superseded, the possible conflicts both ways."""
        links = await self.reads.fetchrow("ui_memory_links", agent, mid)
        memory = memory or {}
        listed = links["likely_replaces"] if links else memory.get("likely_replaces") or []
        likely = [uuid.UUID(str(x)) for x in listed]
        named = [uuid.UUID(str(x)) for x in (memory.get("invalidated_by"), memory.get("consolidated_into")) if x]
        briefs = {str(r["id"]): row_to_dict(r) for r in await self.reads.fetch("ui_briefs", agent, likely + named)}
        return {
            "likely_replaces": [briefs.get(str(x), {"id": str(x), "missing": True}) for x in likely],
            "replaced_by": briefs.get(str(memory.get("invalidated_by"))),
            "consolidated_into": briefs.get(str(memory.get("consolidated_into"))),
            "superseded": [row_to_dict(r) for r in await self.reads.fetch("ui_superseded_by", agent, mid)],
            "likely_replaced_by": [row_to_dict(r) for r in await self.reads.fetch("ui_likely_replaced_by", agent, mid)],
        }

    async def shown(self, agent: str, mid: uuid.UUID, reveal: bool = False) -> dict[str, Any]:
        """`hindsight show`: the memory, live or archived (NotFound when neither), and its
        history (none for another agent's shared memory: its history is the owner's)."""
        try:
            memory = (await self.memories.get(requests.get(agent, mid, reveal))).json()
        except NotFound:
            row = await self.primary.fetchrow("show_archived", agent, mid)
            if row is None:
                raise
            memory = row_to_dict(row)
        try:
            history = await self.memories.history(agent, mid)
        except NotFound:
            history = []
        return {"memory": memory, "history": history}

    async def ids_starting(self, agent: str, prefix: str) -> list[uuid.UUID]:
        """The agent's memories (live or archived) whose id starts with `prefix`, on the
        primary: a command that names one this way changes it next."""
        return [r["id"] for r in await self.primary.fetch("resolve_id_prefix", agent, prefix)]

    async def conflicts(self, agent: str) -> list[dict[str, Any]]:
        return [row_to_dict(r) for r in await self.reads.fetch("ui_open_conflicts", agent, CONFLICTS)]

    async def archive(self, agent: str, offset: int) -> dict[str, Any]:
        offset = v.integer("offset", offset, 0, 10_000_000) or 0
        rows = await self.reads.fetch("ui_archive_list", agent, ARCHIVE_PAGE, offset)
        return {
            "rows": [row_to_dict(r) for r in rows],
            "total": await self.reads.fetchval("ui_archive_count", agent),
            "offset": offset,
            "page": ARCHIVE_PAGE,
        }
