"""Decay over a simulated 90 days: `hindsight maintain` run once a day (as cron would, with
--now moved forward a day each time) over a few typical memories, printing decay_score by
day. One memory is recalled on days 20 and 50 to show recovery; the importance-1 note
expires after a week and is archived; recall's default cut-off is 0.3.

    python benchmarks/decay_simulation.py [--days 90] [--every 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import uuid
from datetime import datetime, timedelta, timezone

from hindsight.config import Settings
from hindsight.data import bootstrap
from hindsight.data import pg_embedded as embedded
from hindsight.data.db import Database
from hindsight.embedders.base import AsyncEmbedder, create
from hindsight.rules.scoring import RECALL_CUT
from hindsight.store.memories import Memories
from hindsight.upkeep.maintenance import Maintenance

ARCHETYPES = [
    ("imp1 note", "Scratch: the build took 4 minutes today", 1),
    ("imp2 pref", "The user likes short commit messages", 2),
    ("imp3 fact", "The staging cluster runs in eu-west-1", 3),
    ("imp3 recalled d20,d50", "The billing service retries three times", 3),
    ("imp3 sweeping", "Never deploy on Fridays", 3),
    ("imp4 fact", "The production database is PostgreSQL 16", 4),
    ("imp5 fact", "The user's name is Ada", 5),
]
RECALLED = {20, 50}


async def simulate(url: str, days: int, every: int) -> None:
    db = await Database.open(url)
    memories = Memories(db, AsyncEmbedder(create(Settings.from_env())))
    ids = {}
    for name, text, importance in ARCHETYPES:
        ids[name] = (await memories.store("sim", text, importance=importance, memory_type="semantic"))["id"]
    job = Maintenance(db, memories)
    start = datetime.now(timezone.utc)
    names = [a[0] for a in ARCHETYPES]
    print(f"decay_score by day (recall skips < {RECALL_CUT}: marked *; 'archived' once moved to the archive)")
    print("day  " + "".join(f"{n:>22}" for n in names))
    for day in range(0, days + 1):
        now = start + timedelta(days=day, hours=3)
        if day in RECALLED:
            await db.fetch("record_access", "sim", [uuid.UUID(ids["imp3 recalled d20,d50"])], [1], now)
        report = await job.run(now)
        assert report["status"] == "succeeded" and report["counts"]["reconciled"], report
        if day % every and day not in RECALLED and day != days:
            continue
        rows = {
            str(r["id"]): r["decay_score"]
            for r in await db.pool.fetch("SELECT id, decay_score FROM memory_state WHERE agent_id = 'sim'")
        }
        cells = []
        for n in names:
            score = rows.get(ids[n])
            cells.append("archived" if score is None else f"{score:.3f}{'*' if score < RECALL_CUT else ' '}")
        print(f"{day:>3}  " + "".join(f"{c:>22}" for c in cells))
    await db.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--every", type=int, default=1, help="print every Nth day")
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="hs-decay-sim-")
    os.environ["HINDSIGHT_HOME"] = home
    try:
        url = bootstrap.prepare(Settings.from_env())
        asyncio.run(simulate(url, args.days, args.every))
    finally:
        embedded.release()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
