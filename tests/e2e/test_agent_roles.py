"""Isolation the database enforces on an external PostgreSQL (a real server over TCP with
passwords): one login role per agent, mapped in hindsight_agent_roles; row-level security
keyed by that role holds even against a server that would act for anyone, and a session
setting widens nothing."""

from __future__ import annotations

import subprocess

import anyio
import asyncpg
import pytest
from conftest import tcp_url
from mcp_client import mcp_client, server_command, server_env

from hindsight.data import migrate
from hindsight.data.bootstrap import check_recorded

DB = "hs_roles"


@pytest.fixture(scope="module")
async def roles_db(tcp_postgres):
    admin = await asyncpg.connect(tcp_url(tcp_postgres))
    try:
        await admin.execute(f"CREATE DATABASE {DB}")
    finally:
        await admin.close()
    owner_url = tcp_url(tcp_postgres, db=DB)
    await anyio.to_thread.run_sync(migrate.upgrade, owner_url)
    conn = await asyncpg.connect(owner_url)
    try:
        await check_recorded(conn, "e5-small", 384)
        for role, agent in (("srv_sales", "sales"), ("srv_support", "support")):
            await conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw-{role}' IN ROLE hindsight_agent_writer")
            await conn.execute("INSERT INTO hindsight_agent_roles VALUES ($1, $2)", role, agent)
    finally:
        await conn.close()
    return {
        "owner": owner_url,
        "sales": tcp_url(tcp_postgres, "srv_sales", "pw-srv_sales", DB),
        "support": tcp_url(tcp_postgres, "srv_support", "pw-srv_support", DB),
    }


async def _rows(url: str) -> dict:
    conn = await asyncpg.connect(url)
    try:
        return {(r["agent_id"], r["content"]) for r in await conn.fetch("SELECT agent_id, content FROM memories")}
    finally:
        await conn.close()


async def test_a_server_logged_in_as_one_agent_cannot_touch_another_even_when_it_tries(roles_db, tmp_path):
    home = str(tmp_path / "unused")
    support_env = server_env(
        HINDSIGHT_DATABASE_URL=roles_db["support"], HINDSIGHT_AGENT_ID="support", HINDSIGHT_HOME=home
    )
    async with mcp_client(support_env) as support:
        private = await support.call(
            "store_memory", content="Support escalation phone code is 4471", memory_type="semantic"
        )
        shared = await support.call(
            "store_memory", content="Warranty covers two years", memory_type="semantic", shared=True
        )
    # a server that would act for any agent (a compromised or misconfigured one)
    sales_env = server_env(
        HINDSIGHT_DATABASE_URL=roles_db["sales"],
        HINDSIGHT_AGENT_ID="sales",
        HINDSIGHT_ALLOWED_AGENTS="*",
        HINDSIGHT_HOME=home,
    )
    async with mcp_client(sales_env) as sales:
        await sales.call("store_memory", content="Q3 target is 120 deals", memory_type="semantic")
        as_support = {"agent_id": "support"}
        assert "database refused" in await sales.error("store_memory", content="planted by sales", **as_support)
        assert "database refused" in await sales.error(
            "record_interaction", content="I prefer tabs, planted by sales", **as_support
        )
        listed = await sales.call("list_memories", include_shared=True, **as_support)
        assert [m["id"] for m in listed["memories"]] == [shared["id"]]
        found = await sales.call("retrieve_memory", query="escalation phone code", **as_support)
        assert private["id"] not in [m["id"] for m in found["memories"]]
        for tool, args in (
            ("get_memory", {}),
            ("update_memory", {"importance": 1}),
            ("invalidate_memory", {"reason": "x"}),
            ("delete_memory", {}),
        ):
            assert "memory_id" in await sales.error(tool, memory_id=private["id"], **args, **as_support)
        profile = (await sales.session.read_resource("memory://support/profile")).contents[0].text
        assert "4471" not in profile and "Warranty covers two years" in profile  # shared with all: readable
    assert await _rows(roles_db["owner"]) == {
        ("support", "Support escalation phone code is 4471"),
        ("support", "Warranty covers two years"),
        ("sales", "Q3 target is 120 deals"),
    }


async def test_setting_a_session_variable_or_role_widens_nothing(roles_db):
    conn = await asyncpg.connect(roles_db["owner"])
    try:
        await conn.execute(
            "INSERT INTO memories (agent_id, memory_type, content, content_hash, embedding, "
            "search_vector) VALUES ('support', 'semantic', 'support secret plan', '\\x01', "
            "array_fill(0.1, ARRAY[384])::vector, to_tsvector('english', 'support secret plan'))"
        )
        shared = sorted(
            r[0] for r in await conn.fetch("SELECT content FROM memories WHERE agent_id = 'support' AND shared")
        )
    finally:
        await conn.close()
    conn = await asyncpg.connect(roles_db["sales"])
    try:
        await conn.execute("SET hindsight.agent_id = 'support'")
        for table in ("memory_history", "memory_terms", "term_stats", "agent_stats", "memory_tools"):
            assert await conn.fetchval(f"SELECT count(*) FROM {table} WHERE agent_id = 'support'") == 0, table
        # of support's memories, only the one shared with all (and its state) is readable
        assert (
            sorted(r[0] for r in await conn.fetch("SELECT content FROM memories WHERE agent_id = 'support'")) == shared
        )
        assert await conn.fetchval("SELECT count(*) FROM memory_state WHERE agent_id = 'support'") == len(shared)
        assert await conn.execute("UPDATE memories SET importance = 1 WHERE agent_id = 'support'") == "UPDATE 0"
        assert await conn.execute("DELETE FROM memories WHERE agent_id = 'support'") == "DELETE 0"
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute(
                "INSERT INTO memories (agent_id, memory_type, content, content_hash, embedding, "
                "search_vector) VALUES ('support', 'semantic', 'x', '\\x02', "
                "array_fill(0.1, ARRAY[384])::vector, ''::tsvector)"
            )
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("INSERT INTO hindsight_agent_roles VALUES ('srv_sales', 'support')")
        assert [tuple(r) for r in await conn.fetch("SELECT * FROM hindsight_agent_roles")] == [("srv_sales", "sales")]
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("SET ROLE srv_support")
        await conn.execute("SET ROLE hindsight_agent_writer")  # the group role is mapped to no agent
        assert await conn.fetchval("SELECT count(*) FROM memories WHERE NOT shared") == 0
    finally:
        await conn.close()
    assert ("support", "support secret plan") in await _rows(roles_db["owner"])


async def test_a_server_whose_role_is_not_mapped_to_its_agent_refuses_to_start(roles_db, tmp_path):
    env = server_env(
        HINDSIGHT_DATABASE_URL=roles_db["sales"], HINDSIGHT_AGENT_ID="support", HINDSIGHT_HOME=str(tmp_path / "unused")
    )
    done = await anyio.to_thread.run_sync(
        lambda: subprocess.run([server_command()], input="", capture_output=True, text=True, env=env, timeout=120)
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "'srv_sales' may act only for agents ['sales']" in done.stderr and "pw-srv_sales" not in done.stderr
