"""The SQL surface for DBAs: comments everywhere, views, read-only and agent-scoped roles
with row-level security, and docs/sql.md's queries running as the read-only role."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import asyncpg
import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "sql.md"


async def test_every_table_and_column_is_commented(db):
    missing = await db.pool.fetch(
        "SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') AND c.relname NOT IN ('alembic_version') "
        "AND col_description(c.oid, a.attnum) IS NULL AND c.relkind = 'r'"
    )
    assert [tuple(r) for r in missing] == []
    tables = await db.pool.fetch(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND relkind IN ('r', 'v') AND relname <> 'alembic_version' "
        "AND obj_description(c.oid) IS NULL"
    )
    assert [r["relname"] for r in tables] == []


async def test_agent_scope_sees_its_mapped_agents_and_readonly_sees_all_and_writes_nothing(db, memories):
    await memories.store("support", "The customer Li Wei prefers phone calls", memory_type="semantic")
    await memories.store("support", "Warranty covers two years", memory_type="semantic", shared=True)
    await memories.store("sales", "Q3 target is 120 deals", memory_type="semantic")
    bot = f"support_bot_{uuid.uuid4().hex[:8]}"  # roles are cluster-wide: a name of this test's own
    await db.pool.execute(f"CREATE ROLE {bot} IN ROLE hindsight_agent_scope")
    await db.pool.execute(f"INSERT INTO hindsight_agent_roles VALUES ('{bot}', 'sales')")
    try:
        async with db.pool.acquire() as conn:
            async with conn.transaction():
                await conn.execute(f"SET LOCAL ROLE {bot}")
                await conn.execute("SET LOCAL hindsight.agent_id = 'support'")  # a setting widens nothing
                seen = await conn.fetch("SELECT agent_id, content FROM active_memories ORDER BY content")
                assert [tuple(r) for r in seen] == [
                    ("sales", "Q3 target is 120 deals"),
                    ("support", "Warranty covers two years"),
                ]
                assert {r["agent_id"] for r in await conn.fetch("SELECT agent_id FROM memory_history")} == {"sales"}
            async with conn.transaction():
                await conn.execute("SET LOCAL ROLE hindsight_agent_scope")  # no agent mapped: only shared rows
                await conn.execute("SET LOCAL hindsight.agent_id = 'sales'")
                assert [r["content"] for r in await conn.fetch("SELECT content FROM memories")] == [
                    "Warranty covers two years"
                ]
            async with conn.transaction():
                await conn.execute("SET LOCAL ROLE hindsight_readonly")
                assert await conn.fetchval("SELECT count(*) FROM memories") == 3
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute("DELETE FROM memories")
        assert await db.pool.fetchval("SELECT count(*) FROM memories") == 3
    finally:
        await db.pool.execute(f"DROP ROLE {bot}")


async def test_docs_sql_queries_run_as_the_readonly_role(db, memories):
    await memories.store(
        "dev",
        "pip install failed behind the proxy",
        memory_type="procedural",
        metadata={"tools_used": ["pip"], "outcome": "failure"},
    )
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 8
    async with db.pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL ROLE hindsight_readonly")
        results = [await conn.fetch(sql) for sql in blocks]
    assert results[0][0]["content"] == "pip install failed behind the proxy"
