"""The front door (hindsight.server.front): the connect requests answered before the MCP SDK
is up, in the SDK's own words; a call that comes first waits for the services; a start that
fails is told to that call and ends the process; SIGINT ends it at once with nothing lost."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time

import anyio
import asyncpg
import pytest
from conftest import free_port, tcp_url
from mcp_client import LAUNCH_DIR, server_command, server_env

from hindsight.server import handshake
from hindsight.server.front import Front

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
CLIENT = {"name": "test", "version": "1"}


def _initialize(version: str) -> list[dict]:
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]  # fmt: skip


MODERN = [
    {"jsonrpc": "2.0", "id": "probe", "method": "server/discover", "params": {"_meta": META}},
    {"jsonrpc": "2.0", "id": "listen:0", "method": "subscriptions/listen",
     "params": {"_meta": META, "notifications": {"toolsListChanged": True, "resourcesListChanged": True}}},
    {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}},
]  # fmt: skip


def _session(env: dict, messages: list[dict], until_id, extra_wait: float = 0.0) -> tuple[list[dict], str, int]:
    """Send `messages`, read until the answer with id `until_id` (only the SDK gives it), then
    close stdin; the answers in order, the server's stderr, its exit code."""
    proc = subprocess.Popen(
        [server_command()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        cwd=LAUNCH_DIR,
    )  # fmt: skip
    for message in messages:
        proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    answers = []
    while True:
        line = proc.stdout.readline()
        assert line, f"the server closed stdout; stderr: {proc.stderr.read().decode()[-2000:]}"
        answers.append(json.loads(line))
        if answers[-1].get("id") == until_id:
            break
    time.sleep(extra_wait)
    proc.stdin.close()
    code = proc.wait(timeout=120)
    answers += [json.loads(line) for line in proc.stdout.read().splitlines()]
    return answers, proc.stderr.read().decode(), code


@pytest.mark.parametrize("opening", [*handshake.HANDSHAKE_VERSIONS, "1999-01-01", "2026-07-28"])
async def test_the_early_answers_are_the_sdks_own_and_each_request_is_answered_once(db_url, opening):
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_LOG_LEVEL="INFO")
    messages = MODERN if opening == "2026-07-28" else _initialize(opening)
    answers, stderr, code = await anyio.to_thread.run_sync(lambda: _session(env, messages, 2, extra_wait=0.5))
    assert code == 0, stderr
    assert "early answer differs" not in stderr, stderr
    answered = sorted(str(a["id"]) for a in answers if "id" in a)  # the listen's too, when stdin closes
    assert answered == sorted(str(m["id"]) for m in messages if "id" in m), answers
    acks = [a for a in answers if a.get("method") == "notifications/subscriptions/acknowledged"]
    if opening == "2026-07-28":
        assert len(acks) == 1 and acks[0]["params"]["notifications"] == {
            "toolsListChanged": True,
            "resourcesListChanged": True,
        }
        assert answers[0]["result"]["supportedVersions"] == ["2026-07-28"]
    else:
        first = answers[0]["result"]
        assert first["protocolVersion"] == (opening if opening in handshake.HANDSHAKE_VERSIONS else "2025-11-25")
        assert first["serverInfo"]["name"] == "hindsight" and first["instructions"].startswith("Long-term memory")
    assert len(next(a for a in answers if a.get("id") == 2)["result"]["tools"]) == 9


def test_a_difference_from_the_sdk_is_logged_and_the_sdks_copy_is_not_sent(caplog):
    front = object.__new__(Front)  # no wire: only the comparison
    front._sent = {'"probe"': {"jsonrpc": "2.0", "id": "probe", "result": {"a": 1}}}
    assert front.answered('{"jsonrpc":"2.0","id":"probe","result":{"a":2}}') is True
    assert "early answer differs" in caplog.text
    assert front.answered('{"jsonrpc":"2.0","id":"probe","result":{"a":2}}') is False, "only once"


def test_the_door_answers_only_what_it_knows():
    door = handshake.Door("hindsight", "1", "hi")
    assert door.reply({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}}) is None
    assert door.era == "sdk", "a malformed opening is the SDK's to answer, and so is all that follows"
    assert door.reply(_initialize("2025-11-25")[0]) is None
    legacy = handshake.Door("hindsight", "1", "hi")
    assert legacy.reply(_initialize("2025-06-18")[0])["result"]["protocolVersion"] == "2025-06-18"
    assert legacy.reply(MODERN[0]) is None and legacy.reply(_initialize("2025-06-18")[0]) is None
    modern = handshake.Door("hindsight", "1", "hi")
    assert modern.reply(MODERN[0])["result"]["resultType"] == "complete"
    assert modern.reply(_initialize("2025-11-25")[0]) is None, "initialize on a modern connection: the SDK refuses it"
    odd = {**MODERN[1], "params": {"_meta": META, "notifications": {"resourceSubscriptions": ["memory://a/profile"]}}}
    assert modern.reply(odd) is None, "a listen for resource updates is the SDK's"
    unversioned = {"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {}}
    assert handshake.Door("hindsight", "1", "hi").reply(unversioned) is None


async def test_a_call_before_the_services_open_waits_for_them(pg_tmp):
    """A fresh home: the first call comes while the embedded database is being created."""
    env = server_env(HINDSIGHT_HOME=str(pg_tmp / "home"))
    stored = {"name": "store_memory", "arguments": {"content": "Stored before the database was up"}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": stored}
    answers, stderr, code = await anyio.to_thread.run_sync(
        lambda: _session(env, [*_initialize("2025-11-25")[:2], call], 2)
    )
    assert code == 0, stderr
    result = next(a for a in answers if a.get("id") == 2)["result"]
    assert result["isError"] is False and result["structuredContent"]["status"] == "created"


async def test_a_start_that_fails_tells_the_waiting_call_and_exits_2(tmp_path):
    env = server_env(HINDSIGHT_DATABASE_URL=tcp_url(free_port()), HINDSIGHT_HOME=str(tmp_path / "unused"))
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_memories", "arguments": {}}}
    answers, stderr, code = await anyio.to_thread.run_sync(
        lambda: _session(env, [*_initialize("2025-11-25")[:2], call], 2)
    )
    assert answers[0]["result"]["serverInfo"]["name"] == "hindsight", "the handshake was answered at once"
    result = next(a for a in answers if a.get("id") == 2)["result"]
    assert result["isError"] is True and "cannot connect" in result["content"][0]["text"]
    assert code == 2
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("hindsight-server: error:") and "cannot connect" in last
    assert not (tmp_path / "unused").exists(), "never a fallback to the embedded database"


async def test_sigint_ends_the_server_at_once_and_loses_no_acknowledged_write(pg_tmp):
    """Stores acknowledged before SIGINT are all kept; those in flight are whole or absent;
    the embedded database is stopped (the server was its last holder)."""
    from rawrpc import RawServer, structured

    home = pg_tmp / "home"
    env = server_env(HINDSIGHT_HOME=str(home))
    server = RawServer([server_command()], env)
    await server.start()
    kept = [
        structured(await server.call("store_memory", {"content": f"Acknowledged memory number {i}"}))["id"]
        for i in range(5)
    ]
    flying = [
        asyncio.ensure_future(server.call("store_memory", {"content": f"In flight memory {i}"}, timeout=30))
        for i in range(4)
    ]
    await asyncio.sleep(0.05)
    started = time.monotonic()
    server.proc.send_signal(signal.SIGINT)
    code = await server.proc.wait()
    took = time.monotonic() - started
    for call in flying:
        call.cancel()
    assert code == 0
    assert took < 5, f"SIGINT took {took:.2f} s"  # about 20 ms here; benchmarks/startup.py measures it
    print(f"SIGINT to exit: {took * 1000:.0f} ms")

    from hindsight.data import pg_embedded as embedded

    url = embedded.start(home)  # a new holder: waits for the stopping server, then starts it
    try:
        conn = await asyncpg.connect(url)
        try:
            ids = {str(r["id"]) for r in await conn.fetch("SELECT id FROM memories")}
            assert set(kept) <= ids
            assert (
                await conn.fetchval(
                    "SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_state s WHERE s.id = m.id)"
                    " OR NOT EXISTS (SELECT 1 FROM memory_history h WHERE h.memory_id = m.id AND h.action = 'create')"
                )
                == 0
            ), "every memory whole: its state and its history"
        finally:
            await conn.close()
    finally:
        embedded.release(home=home)  # this home's only: the session's own server stays up
