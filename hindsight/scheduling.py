"""The maintenance job on a schedule: APScheduler 3.x AsyncIOScheduler, nightly at 03:00
by default (HINDSIGHT_MAINTENANCE_CRON, five cron fields, server local time). Missed runs
coalesce into one; never two at once in this process, and the database's advisory lock
keeps other processes (a cron `hindsight maintain`, a second scheduler) from doubling up."""

from __future__ import annotations

import asyncio
import logging
import signal
from datetime import datetime, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from .config import Settings, cron_trigger
from .db import Database
from .embed import AsyncEmbedder, create as create_embedder
from .maintenance import Maintenance
from .memories import Memories, WritePolicy

log = logging.getLogger("hindsight.scheduler")


def build(maintenance: Maintenance, expression: str) -> AsyncIOScheduler:
    async def job() -> None:
        try:
            report = await maintenance.run(datetime.now(timezone.utc), trigger="scheduler")
            log.info("maintenance %s: %s", report.get("status"), {k: report.get(k) for k in ("decay", "archive", "counts")})
        except Exception:
            log.exception("maintenance run failed (recorded in maintenance_runs); the next one is still scheduled")

    scheduler = AsyncIOScheduler()
    scheduler.add_job(job, cron_trigger(expression), id="maintenance", name="hindsight maintenance",
                      coalesce=True, max_instances=1, misfire_grace_time=3600, replace_existing=True)
    return scheduler


async def serve(settings: Settings, url: str) -> None:
    db = await Database.open(url, max_size=4)
    try:
        memories = Memories(db, AsyncEmbedder(create_embedder(settings)), WritePolicy.from_settings(settings))
        scheduler = build(Maintenance(db, memories), settings.maintenance_cron)
        scheduler.start()
        job = scheduler.get_job("maintenance")
        log.info("maintenance scheduled %r; next run %s", settings.maintenance_cron, job.next_run_time)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        scheduler.shutdown(wait=False)
        log.info("scheduler stopped")
    finally:
        await db.close()
