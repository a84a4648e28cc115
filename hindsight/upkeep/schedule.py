"""The maintenance job on a schedule: APScheduler 3.x AsyncIOScheduler, nightly at 03:00
by default (HINDSIGHT_MAINTENANCE_CRON, five cron fields, in HINDSIGHT_TIMEZONE or
the machine's local time). Missed runs coalesce into one; never two at once in this
process, and the database's advisory lock keeps other processes (a cron `hindsight
maintain`, a second scheduler) from doubling up.

It says when it will run next (at start and after every run) and what each run did, at
INFO on stderr: `docker compose logs scheduler` shows both."""

from __future__ import annotations

import asyncio
import logging
import signal
from datetime import datetime, timezone
from typing import Any, Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from ..config import Settings, cron_trigger
from .maintenance import Maintenance

log = logging.getLogger("hindsight.scheduler")


class Opened(Protocol):
    """What the schedule needs of the services it is handed (hindsight.services.Services)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def maintenance(self) -> Maintenance: ...


def summary(report: dict[str, Any]) -> str:
    """One line for a run's report (pure)."""
    if report.get("status") != "succeeded":
        return f"maintenance {report.get('status')}: {report.get('reason', '')}".rstrip(": ")
    decay, archive, cons = report["decay"], report["archive"], report["consolidation"]
    counts = report["counts"]
    return (
        f"maintenance succeeded in {report['seconds']} s: decay changed {decay['changed']} "
        f"({decay['sank_below']} sank below {decay['threshold']}, {decay['recovered']} recovered); "
        f"archived {archive['archived_expired']} expired and {archive['archived_superseded']} superseded; "
        f"consolidation made {cons['created']} memories from {cons['clusters']} clusters; "
        f"{counts['after']['live']} live, {counts['after']['archived']} archived"
        + ("" if counts["reconciled"] else " (COUNTS DO NOT RECONCILE: see maintenance_runs)")
    )


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M %Z").strip() if moment else "never"


def build(maintenance: Maintenance, expression: str, tz: str | None = None) -> AsyncIOScheduler:
    trigger = cron_trigger(expression, tz)

    async def job() -> None:
        try:
            report = await maintenance.run(datetime.now(timezone.utc), trigger="scheduler")
            log.info("%s", summary(report))
        except Exception:
            log.exception("maintenance run failed (recorded in maintenance_runs)")
        log.info("next maintenance run at %s", when(trigger.get_next_fire_time(None, datetime.now(timezone.utc))))

    scheduler = AsyncIOScheduler(timezone=trigger.timezone)
    scheduler.add_job(
        job,
        trigger,
        id="maintenance",
        name="hindsight maintenance",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=3600,
        replace_existing=True,
    )
    return scheduler


async def serve(services: Opened) -> None:
    settings = services.settings
    scheduler = build(services.maintenance, settings.maintenance_cron, settings.timezone)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before saying it runs: a stop from then on is clean
        loop.add_signal_handler(sig, stop.set)
    scheduler.start()
    job = scheduler.get_job("maintenance")
    log.info(
        "maintenance scheduled at %r (%s); next run at %s",
        settings.maintenance_cron,
        job.trigger.timezone,
        when(job.next_run_time),
    )
    await stop.wait()
    scheduler.shutdown(wait=False)
    log.info("scheduler stopped")
