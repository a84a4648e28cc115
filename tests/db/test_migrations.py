"""Migrations and the embedder record, on real databases."""

import asyncpg
import pytest

from hindsight.data import migrate
from hindsight.data.bootstrap import check_recorded
from hindsight.errors import EmbedderMismatch


async def _tables(url):
    conn = await asyncpg.connect(url)
    try:
        return {r["tablename"] for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname='public'")}
    finally:
        await conn.close()


async def test_migrate_builds_schema_and_is_repeatable(empty_db_url):
    import anyio

    await anyio.to_thread.run_sync(migrate.upgrade, empty_db_url)
    assert {"memories", "hindsight_embedder", "alembic_version"} <= await _tables(empty_db_url)
    assert await migrate.current(empty_db_url) == migrate.head()
    await anyio.to_thread.run_sync(migrate.upgrade, empty_db_url)  # harmless the second time
    assert await migrate.current(empty_db_url) == migrate.head()


async def test_concurrent_migrations_wait_for_each_other(empty_db_url):
    """Two processes (two IDE windows starting at once) migrate the same empty database."""
    import os
    import subprocess
    import sys

    import anyio

    env = {**os.environ, "HINDSIGHT_DATABASE_URL": empty_db_url}
    cmd = [sys.executable, "-m", "hindsight.cli.main", "migrate"]

    def both():
        procs = [
            subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
        ]
        return [(p.wait(timeout=120), p.stderr.read()) for p in procs]

    results = await anyio.to_thread.run_sync(both)
    assert [code for code, _ in results] == [0, 0], results
    assert await migrate.current(empty_db_url) == migrate.head()


async def test_indexes_and_constraints_exist(db_url):
    conn = await asyncpg.connect(db_url)
    try:
        indexes = {
            r["indexdef"] for r in await conn.fetch("SELECT indexdef FROM pg_indexes WHERE tablename='memories'")
        }
        assert any("hnsw" in i and "vector_cosine_ops" in i for i in indexes)
        assert any("gin (search_vector)" in i for i in indexes)
        assert any("gin (metadata" in i for i in indexes)
        assert any("(agent_id, created_at DESC)" in i for i in indexes)
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute(
                "INSERT INTO memories (agent_id, memory_type, content, content_hash, embedding, search_vector)"
                " VALUES ('a', 'long-term', 'x', '\\x00', array_fill(0.1, ARRAY[384])::vector, ''::tsvector)"
            )
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute(
                "INSERT INTO memories (agent_id, importance, content, content_hash, embedding, search_vector)"
                " VALUES ('a', 9, 'x', '\\x00', array_fill(0.1, ARRAY[384])::vector, ''::tsvector)"
            )
    finally:
        await conn.close()


async def test_the_keyword_channel_reads_postings_from_the_index_alone(db_url):
    """memory_terms_impact carries memory_id (0011): a term's strongest postings come from the
    index without a visit to the table."""
    conn = await asyncpg.connect(db_url)
    try:
        for i in range(30):
            await conn.execute(
                "INSERT INTO memories (agent_id, memory_type, content, content_hash, embedding, search_vector)"
                " VALUES ('ix', 'episodic', $1, $2, array_fill(0.1, ARRAY[384])::vector, to_tsvector('english', $1))",
                f"pytest failed again on run {i}",
                bytes([i]),
            )
        await conn.execute("VACUUM memory_terms")
        await conn.execute("SET enable_seqscan = off")
        await conn.execute("SET enable_bitmapscan = off")
        plan = "\n".join(
            r[0]
            for r in await conn.fetch(
                "EXPLAIN (ANALYZE, COSTS OFF) SELECT memory_id, tf, doc_len FROM memory_terms"
                " WHERE agent_id = 'ix' AND term = 'fail' ORDER BY tf DESC, doc_len LIMIT 1000"
            )
        )
        assert "Index Only Scan using memory_terms_impact" in plan, plan
        assert "Heap Fetches: 0" in plan, plan
    finally:
        await conn.close()


async def test_empty_database_adopts_a_new_embedder(db_url):
    conn = await asyncpg.connect(db_url)
    try:
        await check_recorded(conn, "other-model", 768)
        assert (
            await conn.fetchval(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid='memories'::regclass AND attname='embedding'"
            )
            == 768
        )
        assert tuple(await conn.fetchrow("SELECT name, dimension FROM hindsight_embedder")) == ("other-model", 768)
    finally:
        await conn.close()


async def test_other_embedder_on_stored_memories_is_an_error(db_url, memories):
    await memories.store("a", "a memory embedded by e5-small")
    conn = await asyncpg.connect(db_url)
    try:
        with pytest.raises(EmbedderMismatch) as err:
            await check_recorded(conn, "other-model", 768)
        assert "e5-small" in str(err.value) and "HINDSIGHT_EMBEDDER=e5-small" in str(err.value)
        await check_recorded(conn, "e5-small", 384)  # the right one is fine
        assert await conn.fetchval("SELECT count(*) FROM memories") == 1
    finally:
        await conn.close()


def test_the_head_read_from_the_files_is_alembics():
    from alembic.script import ScriptDirectory

    assert migrate.head() == ScriptDirectory.from_config(migrate._config("")).get_current_head()
