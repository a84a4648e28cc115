"""The vector search settings hold on every pooled connection, read back where they must
hold: asyncpg's pool runs RESET ALL when a connection is released, so a SET made when the
connection opened lasts one acquire (recall then ran with pgvector's defaults, 40 rows at
most and no iterative scan). They travel in the startup packet instead."""

import asyncio

from hindsight.data.db import SERVER_SETTINGS, Database, settings_expected, settings_in_force

EXPECTED = {"iterative_scan": "relaxed_order", "ef_search": "64", "plan_cache_mode": "force_custom_plan"}


async def test_settings_survive_acquire_and_release(db_url):
    assert settings_expected() == EXPECTED
    db = await Database.open(db_url, min_size=1, max_size=1)  # one connection, reused every time
    try:
        for _ in range(5):
            assert dict(await db.fetchrow("vector_settings")) == EXPECTED
            async with db.transaction("a write's transaction") as tx:  # released after a transaction too
                assert dict(await tx.fetchrow("vector_settings")) == EXPECTED
            await db.fetchval("memories_exist")  # and after other statements
    finally:
        await db.close()


async def test_settings_hold_on_every_connection_of_a_busy_pool(db_url):
    db = await Database.open(db_url, min_size=1, max_size=4)
    try:
        for _ in range(3):
            seen = await asyncio.gather(*(db.fetchrow("vector_settings") for _ in range(12)))
            assert all(dict(row) == EXPECTED for row in seen)
    finally:
        await db.close()


async def test_settings_hold_after_recall_used_the_vector_index(db_url, recall, memories):
    await memories.store("agent-s", "The staging database lives on db-stage-02.", memory_type="semantic")
    await recall.retrieve("agent-s", "where is the staging database?")
    assert await settings_in_force(db_url) == EXPECTED


async def test_a_set_made_when_the_connection_opens_does_not_survive_the_pool(db_url):
    """Why the settings travel in the startup packet: the pool's reset undoes a session SET."""

    async def set_on_open(conn):
        await conn.execute("SET hnsw.ef_search = 99")

    import asyncpg

    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=1, init=set_on_open)
    try:
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_setting('hnsw.ef_search', true)") == "99"
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_setting('hnsw.ef_search', true)") != "99"
    finally:
        await pool.close()
    assert SERVER_SETTINGS["hnsw.ef_search"] == EXPECTED["ef_search"]


async def test_a_connection_given_back_after_the_answer_is_reset_before_anyone_reuses_it(db_url):
    """The pool's reset runs after the caller has its answer (Database._release_soon), not
    before: the next caller still gets the connection reset — a session SET and a session
    advisory lock left on it are gone."""
    db = await Database.open(db_url, min_size=1, max_size=1)  # one connection: the next acquire waits for it
    try:
        for _ in range(3):
            async with db.session("a session that leaves state behind") as session:
                await session._conn.execute("SET work_mem = '7MB'")
                assert await session._conn.fetchval("SELECT pg_try_advisory_lock(7400999)")
            async with db.session("the next caller") as session:
                assert await session._conn.fetchval("SHOW work_mem") != "7MB"
                held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7400999"
                assert await session._conn.fetchval(held) == 0
    finally:
        await db.close()


async def test_close_waits_for_the_connections_still_on_their_way_back(db_url):
    db = await Database.open(db_url, min_size=1, max_size=4)
    await asyncio.gather(*(db.fetchrow("vector_settings") for _ in range(8)))
    await db.close()  # returns once every connection is back and closed, none left in use
    assert db.pool.is_closing() and not db._releasing
