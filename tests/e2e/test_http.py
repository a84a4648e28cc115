"""The team server, end to end: two `hindsight-server --transport streamable-http` processes
over one PostgreSQL, the MCP SDK's streamable HTTP client with a bearer token from
`hindsight token create`. A memory stored through one server is recalled through the other
(stateless: no session affinity); a missing, wrong or revoked token gets 401 with
WWW-Authenticate; the token pins the agent as HINDSIGHT_AGENT_ID and HINDSIGHT_ALLOWED_AGENTS
pin stdio; a foreign Origin is refused; /healthz answers without secrets; tools carry their
titles and annotations."""

from __future__ import annotations

import contextlib
import json

import anyio
import http_server as hs
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


@contextlib.asynccontextmanager
async def _session(base: str, token: str):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        async with streamable_http_client(f"{base}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def _call(session: ClientSession, tool: str, **arguments) -> dict:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _post(base: str, token: str | None, **headers: str) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    sent = {"Accept": "application/json, text/event-stream", **headers}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return httpx2.post(f"{base}/mcp", json=body, headers=sent, timeout=10)


async def test_two_stateless_servers_share_one_memory_and_tokens_pin_the_agent(db_url):
    dev = hs.token(db_url, "--agent", "dev", "--name", "laptop")
    ops = hs.token(db_url, "--agent", "ops", "--allow", "dev", "--expires", "30d")
    assert dev["token"].startswith("hs_") and ops["expires_at"]
    with hs.servers(db_url) as (bases, procs):
        a, b = bases
        async with _session(a, dev["token"]) as one, _session(b, dev["token"]) as two:
            stored = await _call(one, "store_memory", content="The staging database is db-stage-02.",
                                 memory_type="semantic")  # fmt: skip
            assert stored["memory"]["agent_id"] == "dev"  # the token's agent, not the server's default
            found = await _call(two, "retrieve_memory", query="which host is the staging database?")
            assert found["memories"][0]["id"] == stored["id"]
            refused = await two.call_tool("retrieve_memory", {"query": "x", "agent_id": "ops"})
            assert refused.is_error and "agent_id" in refused.content[0].text
            tools = {t.name: t for t in (await two.list_tools()).tools}
            assert tools["delete_memory"].annotations.destructive_hint is True
            assert tools["retrieve_memory"].annotations.read_only_hint is True
            assert tools["retrieve_memory"].title == "Recall relevant memories"
        async with _session(b, ops["token"]) as three:  # ops may name dev (--allow dev)
            found = await _call(three, "retrieve_memory", query="staging database host", agent_id="dev")
            assert found["memories"][0]["id"] == stored["id"]
            assert (await _call(three, "list_memories"))["memories"] == []  # its own agent: ops

        async def writer(n: int) -> None:  # concurrent clients alternating between the servers
            async with _session(bases[n % 2], dev["token"]) as s:
                for i in range(5):
                    await _call(
                        s, "store_memory", content=f"Load note {n}-{i}: the build cache lives in bucket c{n}{i}."
                    )

        async with anyio.create_task_group() as tg:
            for n in range(4):
                tg.start_soon(writer, n)
        async with _session(a, dev["token"]) as s:
            listed = await _call(s, "list_memories", limit=50)
            assert sum(m["content"].startswith("Load note") for m in listed["memories"]) == 20

        health = httpx2.get(f"{a}/healthz", timeout=10).json()
        assert health["status"] == "ok" and "dev" not in json.dumps(health) and "postgres" not in json.dumps(health)
        for token in (None, "hs_" + "x" * 43, "not-a-token"):
            refused = _post(a, token)
            assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
            assert "dev" not in refused.text
        assert _post(a, dev["token"]).status_code == 200
        assert _post(a, dev["token"], Origin="http://evil.example").status_code in (403, 421)
        done = hs.cli(db_url, "token", "revoke", "laptop")
        assert done.returncode == 0 and dev["id"][:8] in done.stdout
        assert _post(b, dev["token"]).status_code == 401  # revoked: refused by every replica
        listed = json.loads(hs.cli(db_url, "token", "list", "--json").stdout)["tokens"]
        assert {t["name"]: bool(t["revoked_at"]) for t in listed} == {"laptop": True, None: False}
        assert all("hash" not in key for t in listed for key in t)
    logs = b"".join(p.stderr.read() for p in procs).decode()
    assert "refused POST /mcp" in logs and dev["token"] not in logs and ops["token"] not in logs


def test_token_create_refuses_bad_input(db_url):
    for args, field in ((("--agent", "bad agent"), "agent"), (("--expires", "90x"), "expires")):
        done = hs.cli(db_url, "token", "create", *args)
        assert done.returncode != 0 and field in done.stderr and "Traceback" not in done.stderr
    assert hs.cli(db_url, "token", "revoke", "nosuchtoken").returncode != 0
