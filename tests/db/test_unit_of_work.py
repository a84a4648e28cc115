"""Every live write of an agent (store, update, restore from the archive, import of plain and
of exported lines, the page's "not a conflict") is one unit of work: it waits for the agent's
write lock, so the duplicate and slot checks of one see what the others did (store/unit.py)."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta, timezone

import asyncpg
from faced import faced

from hindsight import services
from hindsight.store.import_lines import read_records
from hindsight.store.importer import import_records
from hindsight.store.unit import unit_of_work
from hindsight.upkeep.maintenance import Maintenance, restore

NOW = datetime.now(timezone.utc)


async def _held_by_another(db_url: str, agent: str):
    """A connection holding `agent`'s write lock in an open transaction."""
    conn = await asyncpg.connect(db_url)
    tx = conn.transaction()
    await tx.start()
    await conn.fetchval("SELECT pg_advisory_xact_lock(7401, hashtext($1))", agent)
    return conn, tx


async def _waits_for_the_lock(db_url: str, agent: str, write) -> object:
    conn, tx = await _held_by_another(db_url, agent)
    task = asyncio.ensure_future(write())
    try:
        await asyncio.sleep(1.0)
        assert not task.done(), "the write went ahead while another held the agent's write lock"
    finally:
        await tx.rollback()
        await conn.close()
    return await asyncio.wait_for(task, 60)


def _lines(*texts: str) -> list[dict]:
    records, bad = read_records(json.dumps({"content": t}) for t in texts)
    assert not bad
    return records


async def test_store_and_update_wait_for_the_lock(db_url, memories):
    stored = await _waits_for_the_lock(db_url, "a", lambda: memories.store("a", "The build runs on Gradle 8.7"))
    assert stored["status"] == "created"
    updated = await _waits_for_the_lock(db_url, "a", lambda: faced(memories).update("a", stored["id"], importance=5))
    assert updated["importance"] == 5


async def test_an_import_waits_for_the_lock_and_plans_under_it(db_url, db, embedder, memories):
    counts = await _waits_for_the_lock(
        db_url, "a", lambda: import_records(db, embedder, "a", _lines("Staging is at stage.example.org"))
    )
    assert counts["imported"] == 1
    listed = await faced(memories).list("a")
    assert [m["content"] for m in listed["memories"]] == ["Staging is at stage.example.org"]


async def test_a_restore_from_the_archive_and_the_pages_dismissal_wait_for_the_lock(db_url, db, memories):
    first = (await memories.store("a", "Use ruff", importance=1))["id"]
    await Maintenance(db, memories).run(NOW + timedelta(days=8 * 365))  # importance 1 expires: archived
    assert await db.pool.fetchval("SELECT count(*) FROM memories_archive") == 1
    restored = await _waits_for_the_lock(db_url, "a", lambda: restore(db, "a", first, datetime.now(timezone.utc)))
    assert str(restored["restored"]) == str(first) and restored["current"]
    old = await memories.store("a", "The API gateway runs on port 8080", memory_type="semantic")
    new = await memories.store("a", "The API gateway moved to port 9090", memory_type="semantic")
    replaces = await db.pool.fetchval("SELECT likely_replaces FROM memories WHERE id = $1", new["id"])
    if not replaces:
        await db.pool.execute(
            "UPDATE memories SET likely_replaces = ARRAY[$2::uuid] WHERE id = $1", new["id"], old["id"]
        )
    await _waits_for_the_lock(
        db_url, "a", lambda: memories.dismiss_conflict(services.dismiss_request("a", new["id"], old["id"]))
    )
    assert not await db.pool.fetchval("SELECT likely_replaces FROM memories WHERE id = $1", new["id"])


async def test_another_agents_write_does_not_wait(db_url, memories):
    conn, tx = await _held_by_another(db_url, "a")
    try:
        stored = await asyncio.wait_for(memories.store("b", "Agent b's note about Kafka retries"), 30)
        assert stored["status"] == "created"
    finally:
        await tx.rollback()
        await conn.close()


async def test_a_unit_of_work_sees_what_the_one_before_it_wrote(db, memories):
    first = await memories.store("a", "Use pnpm in this repo", slot="package-manager")
    async with unit_of_work(db, "a", "checking", "test") as unit:
        assert str(await unit.slot_holder("package-manager")) == str(first["id"])
        assert await unit.slot_holder("nothing-here") is None
        assert await unit.equal("semantic", None) is None
