"""The team server, end to end: two `hindsight-server --transport streamable-http` processes
over one PostgreSQL, the MCP SDK's streamable HTTP client with a bearer token from
`hindsight token create`. A memory stored through one server is recalled through the other
(stateless: no session affinity); a missing, wrong or revoked token gets 401 with
WWW-Authenticate; the token pins the agent as HINDSIGHT_AGENT_ID and HINDSIGHT_ALLOWED_AGENTS
pin stdio; a foreign Origin is refused; /healthz answers without secrets; tools carry their
titles and annotations. The wire: GET answers 405 (stateless: no event stream), an unusable
JSON-RPC body gets a one-line error with its id, a request whose headers or body do not
arrive in time is closed while others are served, resources and refusals follow the token."""

from __future__ import annotations

import contextlib
import json
import socket
import time

import anyio
import http_server as hs
import httpx2
import pytest
from conftest import TEMPLATE, _scratch_database
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


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


# One server for the tests of the wire below, with a short read deadline (the default is 30 s).
READ_SECONDS = 3


@pytest.fixture(scope="module")
async def wire(pg_url, template_url):
    """(base URL, tokens) of one HTTP server over a fresh database, HINDSIGHT_HTTP_READ_TIMEOUT=3."""
    async for url in _scratch_database(pg_url, "t", TEMPLATE):
        made = {
            "alice": hs.token(url, "--agent", "alice")["token"],
            "lead": hs.token(url, "--agent", "lead", "--allow", "alice,carol")["token"],
        }
        with hs.servers(url, 1, HINDSIGHT_HTTP_READ_TIMEOUT=str(READ_SECONDS)) as (bases, _):
            yield bases[0], made


def _one_line_error(answer: httpx2.Response) -> dict:
    """The JSON-RPC error of an answer: one line, in our words (no pydantic, no links)."""
    assert "\n" not in answer.text and answer.headers["content-type"].startswith("application/json"), answer.text
    error = answer.json()["error"]
    for library in ("pydantic", "http://", "https://", "input_value", "validation error"):
        assert library not in error["message"].lower(), error["message"]
    return error


def test_get_and_delete_answer_405_at_once_the_server_is_stateless(wire):
    base, tokens = wire
    for method, token in (("GET", tokens["alice"]), ("GET", None), ("DELETE", tokens["alice"])):
        headers = {"Accept": "text/event-stream, application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        answer = httpx2.request(method, f"{base}/mcp", headers=headers, timeout=10)  # was: an endless stream
        assert answer.status_code == 405 and answer.headers["allow"] == "POST", (method, answer.text)
        error = _one_line_error(answer)
        assert error["code"] == -32600 and "POST" in error["message"] and answer.json()["id"] is None


UNUSABLE = [  # (body, JSON-RPC code, the id the error must carry)
    (b'{"jsonrpc": "2.0", "id": 7, "method": "ping"', -32700, None),  # cut off
    (b"", -32700, None),
    (b'[{"jsonrpc": "2.0", "id": 7, "method": "ping"}]', -32600, None),  # a batch
    (b"[]", -32600, None),  # an empty batch
    (b'"ping"', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 7}', -32600, 7),  # no method
    (b'{"jsonrpc": "2.0", "id": "q-1", "params": {}}', -32600, "q-1"),
    (b'{"jsonrpc": "2.0", "id": 7, "method": ["ping"]}', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]}', -32600, 7),
    (b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}', -32600, None),
]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])  # the SDK's two HTTP paths
def test_unusable_json_rpc_gets_one_line_errors_with_the_requests_id(wire, era):
    base, tokens = wire
    headers = {
        "Authorization": f"Bearer {tokens['alice']}", "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json", "MCP-Protocol-Version": era,
    }  # fmt: skip
    for body, code, request_id in UNUSABLE:
        answer = httpx2.post(f"{base}/mcp", content=body, headers=headers, timeout=10)
        assert answer.status_code == 400, (body, answer.text)
        error = _one_line_error(answer)
        assert (error["code"], answer.json()["id"]) == (code, request_id), (body, answer.text)
    for field, body in (("method", UNUSABLE[5][0]), ("params", UNUSABLE[8][0]), ("jsonrpc", UNUSABLE[9][0])):
        answer = httpx2.post(f"{base}/mcp", content=body, headers=headers, timeout=10)
        assert answer.json()["error"]["message"].startswith(f"Invalid Request: {field}: "), answer.text
    if era == "2025-11-25":  # a usable message still goes through (2026-07-28's ping needs more _meta)
        fine = httpx2.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 8, "method": "ping"}, headers=headers)
        assert fine.status_code == 200 and fine.json() == {"jsonrpc": "2.0", "id": 8, "result": {}}


def test_a_body_over_4_mb_gets_413_declared_or_not(wire):
    base, tokens = wire
    headers = {"Authorization": f"Bearer {tokens['alice']}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}  # fmt: skip
    big = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * (4 * 1024 * 1024) + b'"}}'

    def chunked():  # no Content-Length: found while reading
        for start in range(0, len(big), 65536):
            yield big[start : start + 65536]

    for content in (big, chunked()):
        answer = httpx2.post(f"{base}/mcp", content=content, headers=headers, timeout=30)
        assert answer.status_code == 413 and "at most 4194304 bytes" in _one_line_error(answer)["message"]


def _slow(base: str, token: str, kind: str) -> socket.socket:
    """A connection with a request that never finishes: part of its headers, or all of them and
    part of its body, or headers that keep coming a byte at a time (`dribble`, fed by the test)."""
    port = int(base.rsplit(":", 1)[1])
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
    ).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall({"headers": head[:40], "body": head + b"\r\n" + body[:10], "dribble": head + b"X-Slow: "}[kind])
    sock.setblocking(False)
    return sock


def test_slow_requests_are_closed_after_the_deadline_and_never_hold_the_server(wire):
    base, tokens = wire
    opened = time.monotonic()
    slow = {kind: _slow(base, tokens["alice"], kind) for kind in ("headers", "body", "dribble")}
    heard = {kind: b"" for kind in slow}
    closed: dict[str, float] = {}
    answered_meanwhile = 0
    ping = {"Authorization": f"Bearer {tokens['alice']}", "Accept": "application/json, text/event-stream"}
    while len(closed) < len(slow) and time.monotonic() - opened < 6 * READ_SECONDS:
        for kind, sock in slow.items():
            if kind in closed:
                continue
            try:
                if kind == "dribble":
                    sock.send(b"a")  # one more byte of a header that never ends
                chunk = sock.recv(65536)
            except BlockingIOError:
                continue
            except (ConnectionResetError, BrokenPipeError):
                chunk = b""
            heard[kind] += chunk
            if not chunk:
                closed[kind] = time.monotonic() - opened
        if not closed:  # all three are still open: the server answers others all the same
            answer = httpx2.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=ping,
                                 timeout=10)  # fmt: skip
            assert answer.status_code == 200 and answer.json()["result"] == {}
            answered_meanwhile += 1
        time.sleep(0.2)
    for sock in slow.values():
        sock.close()
    assert answered_meanwhile >= 2, answered_meanwhile
    assert set(closed) == set(slow), f"still open after {6 * READ_SECONDS} s: {set(slow) - set(closed)}"
    for kind, after in closed.items():
        assert READ_SECONDS - 0.5 <= after <= 3 * READ_SECONDS, (kind, after)
        status, _, rest = heard[kind].partition(b"\r\n")
        assert status == b"HTTP/1.1 408 Request Timeout", (kind, heard[kind])
        message = json.loads(rest.partition(b"\r\n\r\n")[2])["error"]["message"]
        assert f"did not arrive within {READ_SECONDS} s" in message, message


async def test_resources_follow_the_tokens_agent_and_refusals_name_a_token(wire):
    base, tokens = wire
    async with _session(base, tokens["alice"]) as alice:
        await _call(alice, "store_memory", content="Alice deploys on Thursdays.", memory_type="semantic")
        listed = {str(r.uri) for r in (await alice.list_resources()).resources}
        assert listed == {"memory://alice/profile", "memory://alice/recent"}  # was: the server's agent's
        for uri in sorted(listed):
            text = (await alice.read_resource(uri)).contents[0].text
            assert "agent alice" in text and "Alice deploys on Thursdays." in text, text
        refusals = []
        for agent in ("server-default", "bob", "nobody-at-all"):
            with pytest.raises(MCPError) as refused:
                await alice.read_resource(f"memory://{agent}/profile")
            refusals.append(refused.value.error.message.replace(agent, "X"))
            fix = f"hindsight token create --agent alice --allow {agent}"
            assert fix in refused.value.error.message and "HINDSIGHT_ALLOWED_AGENTS" not in refusals[-1]
            tool = await alice.call_tool("retrieve_memory", {"query": "deploys", "agent_id": agent})
            assert tool.is_error and tool.content[0].text == refused.value.error.message
        assert len(set(refusals)) == 1  # the same words whether that agent exists or not
    async with _session(base, tokens["lead"]) as lead:  # --allow alice,carol
        listed = {str(r.uri) for r in (await lead.list_resources()).resources}
        assert listed == {"memory://lead/profile", "memory://lead/recent"}
        assert "Alice deploys" in (await lead.read_resource("memory://alice/profile")).contents[0].text
        with pytest.raises(MCPError) as refused:
            await lead.read_resource("memory://bob/recent")
        assert "hindsight token create --agent lead --allow alice,bob,carol" in refused.value.error.message
