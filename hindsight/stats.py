"""`hindsight stats`: counts by agent, type and state, a decay histogram, the last runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .db import Database
from .maintenance import MIN_RECALL_DECAY


async def collect(db: Database, agent_id: str | None, now: datetime) -> dict[str, Any]:
    states = [dict(r) for r in await db.fetch("stats_by_state", now, MIN_RECALL_DECAY, agent_id)]
    archived = [dict(r) for r in await db.fetch("stats_archived", agent_id)]
    histogram = {f"{r['bucket'] / 10:.1f}-{(r['bucket'] + 1) / 10:.1f}": r["n"]
                 for r in await db.fetch("stats_decay_histogram", agent_id)}
    runs = [dict(r) for r in await db.fetch("recent_runs", 5)]
    return {"by_state": states, "archived": archived, "decay_histogram": histogram, "runs": runs}


def render(data: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title="memories by agent, type and state")
    cols = ["agent_id", "memory_type", "current", "invalidated", "expired", "consolidated", "faded", "needs_review"]
    for c in cols:
        t.add_column(c, justify="left" if c in ("agent_id", "memory_type") else "right")
    for row in data["by_state"]:
        t.add_row(*(str(row[c]) for c in cols))
    console.print(t)
    if data["archived"]:
        a = Table(title="archived")
        for c in ("agent_id", "archive_reason", "n"):
            a.add_column(c)
        for row in data["archived"]:
            a.add_row(row["agent_id"], row["archive_reason"], str(row["n"]))
        console.print(a)
    h = Table(title=f"decay_score of current memories (recall skips < {MIN_RECALL_DECAY})")
    h.add_column("decay")
    h.add_column("memories", justify="right")
    for bucket, n in data["decay_histogram"].items():
        h.add_row(bucket, str(n))
    console.print(h)
    r = Table(title="last maintenance runs")
    for c in ("id", "started_at", "as_of", "status", "dry_run", "trigger", "seconds"):
        r.add_column(c)
    for run in data["runs"]:
        r.add_row(str(run["id"]), f"{run['started_at']:%Y-%m-%d %H:%M:%S}", f"{run['as_of']:%Y-%m-%d %H:%M}",
                  run["status"], str(run["dry_run"]), run["trigger"], str((run["report"] or {}).get("seconds", "")))
    console.print(r)
