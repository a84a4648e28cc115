"""End to end: the real `hindsight-server` over stdio, driven by the MCP SDK's client."""

import json
import subprocess
import uuid

import anyio
import asyncpg
import pytest
from mcp.shared.exceptions import MCPError
from mcp_client import LAUNCH_DIR, mcp_client, server_command, server_env

TOOLS = {
    "store_memory",
    "retrieve_memory",
    "get_memory",
    "update_memory",
    "invalidate_memory",
    "delete_memory",
    "list_memories",
    "record_interaction",
    "hook",  # the IDE's lifecycle hooks (hindsight hooks install), not for the model
}


async def test_tools_store_recall_isolation_and_bad_input(db_url):
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="alice", HINDSIGHT_ALLOWED_AGENTS="bob")
    async with mcp_client(env) as c:
        listed = await c.session.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        for tool in listed.tools:
            assert len(tool.description or "") > 60, f"{tool.name} needs a description saying when to call it"

        stored = await c.call(
            "store_memory",
            content="For data work the user prefers polars over pandas",
            memory_type="semantic",
            importance=4,
            metadata={"entities": ["polars"]},
        )
        assert stored["status"] == "created"
        mid = stored["id"]
        await c.call("store_memory", content="Deploys go through the staging cluster first")
        bob = await c.call("store_memory", content="Bob's private note about polars", agent_id="bob")

        found = await c.call("retrieve_memory", query="Which dataframe library should I use?", top_k=3)
        top = found["memories"][0]
        assert top["id"] == mid
        assert {"id", "content", "memory_type", "created_at", "score", "metadata"} <= set(top)
        assert top["metadata"] == {"entities": ["polars"]}
        assert bob["id"] not in [m["id"] for m in found["memories"]]

        # isolation: alice cannot touch bob's memory, and the server keeps answering
        text = await c.error("get_memory", memory_id=bob["id"])
        assert "memory_id" in text and "alice" in text
        assert "memory_id" in await c.error("delete_memory", memory_id=bob["id"])
        assert (await c.call("get_memory", memory_id=bob["id"], agent_id="bob"))["content"].startswith("Bob")

        # bad input: a clear error naming the field, nothing written, still serving
        cases = [
            ({"content": "x", "importance": 9}, "importance"),
            ({"content": "x", "memory_type": "forever"}, "memory_type"),
            ({"importance": 2}, "content"),
            ({"content": ""}, "content"),
            ({"content": "nul\x00byte"}, "content"),
            ({"content": "x" * 40_000}, "content"),
            ({"content": "x", "metadata": [1, 2]}, "metadata"),
            ({"content": "x", "importance": "high"}, "importance"),
            ({"content": "x", "agent_id": "has space"}, "agent_id"),
        ]
        for args, field in cases:
            message = await c.error("store_memory", **args)
            assert field in message, (args, message)
        assert "memory_id" in await c.error("get_memory", memory_id="not-a-uuid")
        assert "memory_id" in await c.error("get_memory", memory_id=str(uuid.uuid4()))
        assert "reason" in await c.error("invalidate_memory", memory_id=mid)
        listing = await c.call("list_memories")
        assert len(listing["memories"]) == 2  # nothing the bad calls sent was written

        # the lifecycle through the tools
        new = await c.call("store_memory", content="For data work the user now prefers duckdb", memory_type="semantic")
        inv = await c.call("invalidate_memory", memory_id=mid, reason="user switched", replaced_by=new["id"])
        assert inv["invalidated_at"] and inv["invalidated_by"] == new["id"]
        found = await c.call("retrieve_memory", query="Which dataframe library should I use?", top_k=5)
        assert mid not in [m["id"] for m in found["memories"]]
        upd = await c.call("update_memory", memory_id=new["id"], importance=5)
        assert upd["importance"] == 5
        assert (await c.call("delete_memory", memory_id=new["id"]))["deleted"] is True

    conn = await asyncpg.connect(db_url)
    try:
        counts = dict(await conn.fetch("SELECT agent_id, count(*) FROM memories GROUP BY 1"))
    finally:
        await conn.close()
    assert counts == {"alice": 2, "bob": 1}


def _rpc(method, params=None, id=None):
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if id is not None:
        msg["id"] = id
    return json.dumps(msg) + "\n"


async def test_stdout_carries_only_mcp_messages(db_url):
    """Every byte the server writes to stdout is a JSON-RPC message; logs go to stderr."""
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_LOG_LEVEL="DEBUG")
    requests = "".join(
        [
            _rpc(
                "initialize",
                {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
                id=1,
            ),
            _rpc("notifications/initialized"),
            _rpc("tools/call", {"name": "store_memory", "arguments": {"content": "raw client note"}}, id=2),
            _rpc("tools/call", {"name": "store_memory", "arguments": {"content": "x", "importance": 0}}, id=3),
            _rpc("tools/call", {"name": "retrieve_memory", "arguments": {"query": "raw note"}}, id=4),
        ]
    )

    def run():
        """Send each request and read stdout until its answer; close stdin at the end (a
        client that hangs up cancels what is still running)."""
        proc = subprocess.Popen(
            [server_command()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=LAUNCH_DIR,
        )
        out = []
        try:
            for line in requests.splitlines(keepends=True):
                proc.stdin.write(line)
                proc.stdin.flush()
                if '"id"' not in line:
                    continue
                while True:
                    got = proc.stdout.readline()
                    assert got, f"server closed stdout; stderr: {proc.stderr.read()[-2000:]}"
                    out.append(got)
                    if "id" in json.loads(got):
                        break
            proc.stdin.close()
            out.extend(proc.stdout.readlines())
            proc.wait(timeout=60)
            return "".join(out), proc.stderr.read(), proc.returncode
        finally:
            if proc.poll() is None:
                proc.kill()

    stdout, stderr, code = await anyio.to_thread.run_sync(run)
    assert code == 0, stderr[-2000:]
    lines = [line for line in stdout.splitlines() if line.strip()]
    messages = [json.loads(line) for line in lines]  # fails on any stray output
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[3]["result"]["isError"] is True
    assert "importance" in by_id[3]["result"]["content"][0]["text"]
    assert by_id[4]["result"]["structuredContent"]["memories"][0]["content"] == "raw client note"
    assert "hindsight" in stderr, "logs belong on stderr"


async def test_resources_and_guidance_prompt(db_url):
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="alice")
    async with mcp_client(env) as c:
        await c.call(
            "store_memory", content="The user prefers polars over pandas", memory_type="semantic", importance=5
        )
        await c.call("store_memory", content="Deploys need two approvals", memory_type="semantic", importance=3)
        await c.call("store_memory", content="Fixed the flaky login test", memory_type="episodic")
        templates = await c.session.list_resource_templates()
        assert {t.uri_template for t in templates.resource_templates} == {
            "memory://{agent_id}/profile",
            "memory://{agent_id}/recent",
        }
        profile = (await c.session.read_resource("memory://alice/profile")).contents[0].text
        lines = [x for x in profile.splitlines() if x.startswith("- ")]
        assert lines == ["- The user prefers polars over pandas", "- Deploys need two approvals"]
        recent = (await c.session.read_resource("memory://alice/recent")).contents[0].text
        assert "[episodic] Fixed the flaky login test" in recent.splitlines()[2]
        with pytest.raises(MCPError) as refused:  # another agent: refused, whether it exists or not
            await c.session.read_resource("memory://bob/profile")
        assert refused.value.error.code == -32602 and refused.value.error.message.startswith("agent_id:")
        prompts = await c.session.list_prompts()
        assert [p.name for p in prompts.prompts] == ["memory_guidance"]
        en = await c.session.get_prompt("memory_guidance", {})
        zh = await c.session.get_prompt("memory_guidance", {"language": "zh"})
        assert "retrieve_memory" in en.messages[0].content.text and "检索" in zh.messages[0].content.text
