"""The maintenance job on a real database: decay, archive and restore, consolidation,
concurrent runs, the scheduler, stats."""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from datetime import datetime, timedelta, timezone

import anyio
import pytest
from faced import faced
from mcp_client import server_env

from hindsight.config import Settings
from hindsight.data import migrate, queries
from hindsight.errors import ConfigError, InvalidInput
from hindsight.upkeep.maintenance import Maintenance, restore
from hindsight.upkeep.schedule import build


def hindsight(db_url, *args):
    """The installed script in its own process (two at once compete for the advisory lock)."""
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "hindsight"
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_EMBED_THREADS="1")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=300)


async def run_script(db_url, *args):
    return await anyio.to_thread.run_sync(lambda: hindsight(db_url, *args))


def at(days: float) -> datetime:
    return datetime.now(timezone.utc) + timedelta(days=days)


async def decay_of(db, mid: str) -> float:
    return await db.pool.fetchval("SELECT decay_score FROM memory_state WHERE id = $1", uuid.UUID(mid))


async def test_decay_follows_the_formula_is_idempotent_and_recovers_on_access(db, memories, recall):
    m = (await memories.store("a", "The staging cluster runs in eu-west-1", importance=2))["id"]
    keep = (await memories.store("a", "The user's name is Ada", importance=5))["id"]
    job = Maintenance(db, memories)
    r1 = await job.run(at(10))
    assert r1["status"] == "succeeded" and r1["decay"]["changed"] >= 1
    assert await decay_of(db, m) == pytest.approx(math.exp(-0.05 * 10), abs=0.002)
    assert await decay_of(db, keep) == 1.0  # importance 5 does not decay
    r2 = await job.run(at(10))  # the same day again
    assert r2["decay"]["changed"] == 0 and await decay_of(db, m) == pytest.approx(math.exp(-0.5), abs=0.002)
    await job.run(at(25))  # before it expires (30 days)
    assert await decay_of(db, m) < 0.3
    assert (await recall.retrieve("a", "where does the staging cluster run?"))["memories"][0]["id"] != m
    hits = await recall.retrieve("a", "where does the staging cluster run?", min_decay_score=0)
    assert hits["memories"][0]["id"] == m  # sunk, not gone
    await db.fetch("record_access", "a", [uuid.UUID(m)], [1], datetime.now(timezone.utc))
    assert await decay_of(db, m) == pytest.approx(1.0)  # recalled: strength back


async def test_an_unused_fact_or_procedure_stays_recallable_while_an_episode_fades(db, memories, recall):
    """Decay reorders facts and procedures; it hides only stale episodes (issue 10, class 7):
    after seven unused weeks a project fact is still in default recall, a same-importance
    episode of that time is not."""
    fact = (
        await memories.store(
            "a", "The granary warehouse lives in the eu-west-1 region", memory_type="semantic", importance=3
        )
    )["id"]
    how = (
        await memories.store(
            "a",
            "To rotate the warehouse credentials run `make rotate-creds` from ops/",
            memory_type="procedural",
            importance=3,
        )
    )["id"]
    episode = (
        await memories.store(
            "a", "Looked at the warehouse dashboards with Hana this morning", memory_type="episodic", importance=3
        )
    )["id"]
    await Maintenance(db, memories).run(at(60))
    assert await decay_of(db, fact) >= 0.3 and await decay_of(db, how) >= 0.3
    assert await decay_of(db, episode) < 0.3
    found = [m["id"] for m in (await recall.retrieve("a", "which region is the warehouse in?", top_k=10))["memories"]]
    assert fact in found and episode not in found
    found = [m["id"] for m in (await recall.retrieve("a", "how do I rotate the warehouse credentials?"))["memories"]]
    assert found[0] == how


async def test_dry_run_changes_nothing_and_runs_are_recorded(db, memories):
    await memories.store("a", "Short-lived note about the build", importance=1)
    before = await db.pool.fetch("SELECT id, decay_score FROM memory_state ORDER BY id")
    report = await Maintenance(db, memories).run(at(40), dry_run=True)
    assert report["decay"]["would_change"] == 1 and report["archive"]["would_archive_expired"] == 1
    assert await db.pool.fetch("SELECT id, decay_score FROM memory_state ORDER BY id") == before
    runs = await db.pool.fetch("SELECT status, dry_run, report FROM maintenance_runs")
    assert [(r["status"], r["dry_run"]) for r in runs] == [("succeeded", True)]


async def test_archive_and_restore_round_trip_with_reconciled_counts(db, memories, recall):
    brief = (await memories.store("a", "Temporary VPN password rotation notice", importance=1))["id"]
    old = (await memories.store("a", "Deploys go out on Fridays", slot="schedule:deploy"))["id"]
    new = (await memories.store("a", "Deploys go out on Thursdays", slot="schedule:deploy"))["id"]
    await memories.store("a", "The user prefers polars", importance=5)
    await db.pool.execute(
        "UPDATE memories SET invalidated_at = now() - interval '100 days' WHERE id = $1", uuid.UUID(old)
    )
    report = await Maintenance(db, memories).run(at(8))
    assert report["archive"] == {"archived_expired": 1, "archived_superseded": 1, "hook_sessions_forgotten": 0}
    counts = report["counts"]
    assert counts["reconciled"] and counts["before"]["live"] == 4 and counts["after"] == {"live": 2, "archived": 2}
    assert await db.pool.fetchval("SELECT count(*) FROM memories_archive") == 2
    history = await memories.history("a", brief)
    assert history[-1]["action"] == "archive" and history[0]["content"]  # archived, not forgotten

    back = await restore(db, "a", brief, datetime.now(timezone.utc))
    assert back["current"] and datetime.fromisoformat(back["expires_at"]) > datetime.now(timezone.utc)
    assert (await memories.history("a", brief))[-1]["action"] == "restore"
    hits = await recall.retrieve("a", "VPN password rotation")
    assert hits["memories"][0]["id"] == brief
    superseded = await restore(db, "a", old, datetime.now(timezone.utc))
    assert not superseded["current"]
    got = await faced(memories).get("a", old)
    assert got["invalidated_by"] == new and got["content"] == "Deploys go out on Fridays"
    assert await db.pool.fetchval("SELECT count(*) FROM memories") == 4
    with pytest.raises(Exception, match="in the archive"):
        await restore(db, "a", old, datetime.now(timezone.utc))


async def test_restore_refuses_to_duplicate_a_current_memory(db, memories):
    first = (await memories.store("a", "Use ruff", importance=1))["id"]
    await Maintenance(db, memories).run(at(8))
    await memories.store("a", "Use ruff")
    with pytest.raises(InvalidInput, match="holds the same content"):
        await restore(db, "a", first, datetime.now(timezone.utc))
    assert await db.pool.fetchval("SELECT count(*) FROM memories_archive") == 1


EPISODES = [
    "ImportError: no module named requests — fixed by activating the venv",
    "ImportError for requests again; activating the virtualenv fixed it",
    "Got ImportError: No module named 'requests', the venv was not activated; activating it fixed it",
    "ImportError no module named requests, solved by activating the venv first",
    "Again ImportError (requests) — the venv was not active; source .venv/bin/activate fixed it",
]


async def test_consolidation_folds_similar_episodes_once(db, memories):
    ids = [
        (await memories.store("a", text, memory_type="episodic", metadata={"tools_used": ["pip"]}))["id"]
        for text in EPISODES
    ]
    other = (await memories.store("a", "Lunch with the design team on Tuesday"))["id"]
    job = Maintenance(db, memories)
    report = await job.run(at(0.01))
    assert report["consolidation"]["created"] == 1 and report["consolidation"]["sources_marked"] >= 3
    semantic = await db.pool.fetch("SELECT id, content, metadata FROM memories WHERE memory_type = 'semantic'")
    assert len(semantic) == 1
    summary = semantic[0]
    assert summary["content"].startswith("Recurring (") and "ImportError" in summary["content"]
    meta = json.loads(summary["metadata"]) if isinstance(summary["metadata"], str) else summary["metadata"]
    linked = await db.pool.fetch("SELECT id FROM memories WHERE consolidated_into = $1", summary["id"])
    assert {str(r["id"]) for r in linked} == set(meta["consolidated_from"]) <= set(ids)
    assert meta["tools_used"] == ["pip"]
    assert await db.pool.fetchval("SELECT consolidated_into FROM memories WHERE id = $1", uuid.UUID(other)) is None
    again = await job.run(at(0.02))
    assert again["consolidation"]["clusters"] == 0
    assert await db.pool.fetchval("SELECT count(*) FROM memories WHERE memory_type = 'semantic'") == 1


async def test_look_alike_short_notes_are_not_consolidated(db, memories):
    """Issue 29's reproduction: these three became "Recurring (3 times …): tags json test"."""
    for text in ("tags json test", "md secret test", "json test fact"):
        await memories.store("a", text, memory_type="episodic")
    report = await Maintenance(db, memories).run(at(0.01))
    assert report["consolidation"]["clusters"] == 0
    assert await db.pool.fetchval("SELECT count(*) FROM memories WHERE memory_type = 'semantic'") == 0
    assert await db.pool.fetchval("SELECT count(*) FROM memories WHERE consolidated_into IS NOT NULL") == 0


async def test_concurrent_runs_do_the_work_once(db, db_url, memories):
    for n in range(6):
        await memories.store("a", f"Fact {n} about the billing service", importance=2, memory_type="semantic")
    job = Maintenance(db, memories)
    # A run that finds the lock taken is recorded as skipped and does nothing.
    async with db.pool.acquire() as holder:
        assert await holder.fetchval(queries.get("maintenance_try_lock"))
        skipped = await job.run(at(5))
        await holder.fetchval(queries.get("maintenance_unlock"))
    assert skipped["status"] == "skipped"
    # Two processes at once: however they overlap, the decay happens once.
    when = at(5).isoformat()
    a, b = await asyncio.gather(
        run_script(db_url, "maintain", "--json", "--now", when), run_script(db_url, "maintain", "--json", "--now", when)
    )
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    reports = [json.loads(a.stdout), json.loads(b.stdout)]
    changed = sum(r["decay"]["changed"] for r in reports if r["status"] == "succeeded")
    assert changed == 6
    statuses = await db.pool.fetch("SELECT status FROM maintenance_runs ORDER BY id")
    assert [r["status"] for r in statuses][0] == "skipped"


async def test_scheduler_job_is_configured_runs_the_job_and_says_what_it_did(db, memories, caplog):
    scheduler = build(Maintenance(db, memories), "0 3 * * *", "Asia/Shanghai")
    job = scheduler.get_job("maintenance")
    assert job.coalesce is True and job.max_instances == 1
    assert str(job.trigger) == "cron[month='*', day='*', day_of_week='*', hour='3', minute='0']"
    assert str(job.trigger.timezone) == "Asia/Shanghai"
    await memories.store("a", "Note for the nightly run", importance=1)
    with caplog.at_level("INFO", logger="hindsight.scheduler"):
        await job.func()
    assert await db.pool.fetchval("SELECT trigger FROM maintenance_runs") == "scheduler"
    said = [r.getMessage() for r in caplog.records if r.name == "hindsight.scheduler"]
    assert said[0].startswith("maintenance succeeded in ") and "decay changed" in said[0]
    assert "archived 0 expired and 0 superseded" in said[0] and "1 live, 0 archived" in said[0]
    assert said[1].startswith("next maintenance run at ") and said[1].endswith("03:00 CST")
    with pytest.raises(ConfigError, match="HINDSIGHT_MAINTENANCE_CRON"):
        Settings.from_env({"HINDSIGHT_MAINTENANCE_CRON": "every night"})
    with pytest.raises(ConfigError, match="HINDSIGHT_TIMEZONE='Mars/Base' is not a time zone"):
        Settings.from_env({"HINDSIGHT_TIMEZONE": "Mars/Base"})


async def test_the_scheduler_says_when_it_runs_next_at_the_default_log_level(db_url):
    """`hindsight scheduler` (and `docker compose logs scheduler`) shows its plan; libraries
    stay quiet (no alembic INFO lines)."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_TIMEZONE="UTC")
    env.pop("HINDSIGHT_LOG_LEVEL")  # the default
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "hindsight"), "scheduler"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = await anyio.to_thread.run_sync(proc.stderr.readline)
        deadline = time.monotonic() + 60
        while "next run at" not in line and line and time.monotonic() < deadline:
            line = await anyio.to_thread.run_sync(proc.stderr.readline)
    finally:
        proc.send_signal(signal.SIGTERM)
        rest = await anyio.to_thread.run_sync(lambda: proc.communicate(timeout=60))
    assert "INFO hindsight.scheduler: maintenance scheduled at '0 3 * * *' (UTC); next run at " in line
    assert line.rstrip().endswith("03:00 UTC")
    assert proc.returncode == 0 and "scheduler stopped" in rest[1]
    assert "alembic" not in line + rest[1] and rest[0] == ""


async def test_stats_and_maintain_cli(cli, memories):
    await memories.store("a", "Fact about stats", importance=1)
    done = await cli("maintain", "--json", "--now", at(8).isoformat())
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["status"] == "succeeded" and report["archive"]["archived_expired"] == 1
    stats = await cli("stats", "--json")
    data = json.loads(stats.out)
    assert data["archived"] == [{"agent_id": "a", "archive_reason": "expired", "n": 1}]
    assert data["runs"][0]["status"] == "succeeded"
    table = await cli("stats")
    assert table.code == 0 and "last maintenance runs" in table.out
    assert max(len(line) for line in table.out.splitlines()) <= 80
    bad = await cli("maintain", "--now", "yesterday")
    assert bad.code == 2 and "--now" in bad.err
    text = await cli("maintain", "--dry-run", "--now", at(9).isoformat())  # text unless --json
    lines = text.out.splitlines()
    assert text.code == 0 and len(lines) == 6 and lines[0].startswith("dry run ") and "nothing changed" in lines[0]
    assert [line.split(":")[0] for line in lines[1:]] == [
        "decay", "archive", "consolidation", "vector indexes per agent", "memories"
    ]  # fmt: skip
    assert lines[1].startswith("decay: would rescore ") and "{" not in text.out and "config" not in text.out


async def test_a_restored_memory_comes_back_fresh_and_default_recall_finds_it(cli, db, memories, recall):
    """Archived after fading: `hindsight restore` brings it back as if just recalled, so the
    default recall (decay_score >= 0.3) returns it, and the next nightly run keeps it there."""
    faded = (await memories.store("a", "The VPN gateway for the Berlin office is vpn-ber-2", importance=1))["id"]
    await Maintenance(db, memories).run(at(13))  # faded (exp(-0.1·13) = 0.27), expired, archived
    archived = await db.pool.fetchval("SELECT decay_score FROM memories_archive WHERE id = $1", uuid.UUID(faded))
    assert archived < 0.3
    said = await cli("restore", faded[:8], "--agent", "a", "--json")
    assert said.code == 0, said.err
    back = json.loads(said.out)
    assert back["current"] and back["decay_score"] == 1.0
    hits = await recall.retrieve("a", "VPN gateway Berlin office")
    assert hits["memories"][0]["id"] == faded
    await Maintenance(db, memories).run(at(0.5))  # tonight's run: recomputed from the restore, not the past
    assert await decay_of(db, faded) >= 0.9


async def test_migrations_go_down_and_up_again(db_url):
    from alembic import command

    await anyio.to_thread.run_sync(lambda: command.downgrade(migrate._config(db_url), "0002"))
    assert await migrate.current(db_url) == "0002"
    await anyio.to_thread.run_sync(migrate.upgrade, db_url)
    assert await migrate.current(db_url) == migrate.head()
