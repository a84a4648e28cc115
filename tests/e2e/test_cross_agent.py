"""A server pinned to its agent: every tool and resource refuses another agent with the same
words whether that agent exists or not, changes nothing, and HINDSIGHT_ALLOWED_AGENTS opens
exactly what it names."""

from __future__ import annotations

import uuid

import asyncpg
import pytest
from mcp.shared.exceptions import MCPError
from mcp_client import mcp_client, server_env


def _calls(target: dict) -> list[tuple[str, dict]]:
    """One call of every tool, naming another agent; ids of that agent's memories."""
    return [
        ("store_memory", {"content": "planted by another agent"}),
        ("record_interaction", {"content": "I prefer tabs over spaces (planted)"}),
        ("retrieve_memory", {"query": "vault code"}),
        ("list_memories", {}),
        ("get_memory", {"memory_id": target["get"]}),
        ("update_memory", {"memory_id": target["update"], "importance": 5}),
        ("invalidate_memory", {"memory_id": target["invalidate"], "reason": "planted"}),
        ("delete_memory", {"memory_id": target["delete"]}),
    ]


async def _snapshot(url: str) -> list[tuple]:
    conn = await asyncpg.connect(url)
    try:
        return [
            tuple(r)
            for r in await conn.fetch(
                "SELECT agent_id, id, content, importance, invalidated_at FROM memories ORDER BY id"
            )
        ]
    finally:
        await conn.close()


async def test_every_tool_and_resource_refuses_another_agent_alike(db_url):
    async with mcp_client(server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="A")) as a:
        ids = [
            (
                await a.call(
                    "store_memory", content=f"A's private note {i}: the vault code is 7731", memory_type="semantic"
                )
            )["id"]
            for i in range(4)
        ]
    target = dict(zip(("get", "update", "invalidate", "delete"), ids))
    before = await _snapshot(db_url)
    async with mcp_client(server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="B")) as b:
        for tool, args in _calls(target):
            existing = await b.error(tool, **args, agent_id="A")
            unknown = await b.error(tool, **args, agent_id=f"nobody-{uuid.uuid4().hex[:6]}")
            assert existing == unknown, tool  # reveals nothing about A
            assert existing.startswith("agent_id: may only name this server's own agent"), existing
            assert "7731" not in existing and ids[0] not in existing
        for kind in ("profile", "recent"):
            for agent in ("A", "nobody-at-all"):
                with pytest.raises(MCPError) as refused:
                    await b.session.read_resource(f"memory://{agent}/{kind}")
                assert refused.value.error.code == -32602
                assert refused.value.error.message.startswith("agent_id: may only name this server's own agent")
        own = (await b.session.read_resource("memory://B/profile")).contents[0].text
        assert "(nothing yet)" in own and "7731" not in own
        assert (await b.call("list_memories"))["memories"] == []
    assert await _snapshot(db_url) == before  # nothing written, changed or deleted


async def test_allowed_agents_open_exactly_what_they_name(db_url):
    async with mcp_client(server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="A")) as a:
        mine = await a.call("store_memory", content="A's note about the deploy window", memory_type="semantic")
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="B", HINDSIGHT_ALLOWED_AGENTS="A, C")
    async with mcp_client(env) as b:
        assert (await b.call("get_memory", memory_id=mine["id"], agent_id="A"))["content"].startswith("A's note")
        assert "deploy window" in (await b.session.read_resource("memory://A/profile")).contents[0].text
        assert (await b.call("store_memory", content="C's first note", agent_id="C"))["status"] == "created"
        assert (await b.error("list_memories", agent_id="D")).startswith("agent_id: may only name")
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="B", HINDSIGHT_ALLOWED_AGENTS="*")
    async with mcp_client(env) as b:
        assert len((await b.call("list_memories", agent_id="A"))["memories"]) == 1


async def test_a_misspelled_agent_argument_is_refused_not_written_to_the_default_agent(db_url):
    async with mcp_client(server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="A")) as a:
        message = await a.error("store_memory", content="for the other agent", agentId="other")
        assert message.startswith("'agentId': is not a parameter of store_memory (did you mean agent_id?)")
        assert (await a.call("list_memories"))["memories"] == []
