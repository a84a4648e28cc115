"""Faults an operator meets: a server killed under concurrent writers, the embedded
postmaster killed under a running server, every holder of the embedded database killed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time

import asyncpg
from mcp_client import server_command
from rawrpc import NoAnswer, RawServer, is_tool_error, server_env, structured


def _postmaster(home) -> int | None:
    try:
        pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, 0)
        return pid
    except (FileNotFoundError, ValueError, IndexError, ProcessLookupError):
        return None


def _postgres_processes(home) -> list[str]:
    out = subprocess.run(["pgrep", "-af", f"postgres -D {home / 'pgdata'}"], capture_output=True, text=True)
    return out.stdout.splitlines()


async def _gone(home, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _postmaster(home) is None and not _postgres_processes(home):
            return True
        await asyncio.sleep(0.2)
    return False


async def test_kill_9_under_concurrent_writers_loses_no_acknowledged_write(db_url):
    server = RawServer([server_command()], server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="w"))
    await server.start()
    acked: dict[str, str] = {}
    sent: set[str] = set()

    async def writer(n: int) -> None:
        for i in range(10_000):
            content = f"writer {n} note {i}: the queue drained at step {i}"
            sent.add(content)
            try:
                answer = await server.call("store_memory", {"content": content}, timeout=60)
            except NoAnswer:
                return
            acked[structured(answer)["id"]] = content

    writers = [asyncio.ensure_future(writer(n)) for n in range(4)]
    while len(acked) < 40:
        await asyncio.sleep(0.05)
    server.proc.kill()
    await asyncio.gather(*writers)
    await server.proc.wait()
    conn = await asyncpg.connect(db_url)
    try:
        stored = {str(r["id"]): r["content"] for r in await conn.fetch("SELECT id, content FROM memories")}
    finally:
        await conn.close()
    lost = [i for i, content in acked.items() if stored.get(i) != content]
    print(
        f"acknowledged {len(acked)}, stored {len(stored)}, lost {len(lost)}, "
        f"stored but not acknowledged {len(set(stored) - set(acked))}"
    )
    assert lost == []
    assert set(stored.values()) <= sent  # nothing but what the writers sent
    assert len(set(stored) - set(acked)) <= 4  # at most the calls in flight at the kill


async def test_killed_postmaster_is_restarted_by_the_server_within_seconds(pg_tmp):
    home = pg_tmp / "home"
    server = RawServer([server_command()], server_env(HINDSIGHT_HOME=str(home)))
    await server.start()
    kept = structured(await server.call("store_memory", {"content": "written before the crash"}))["id"]
    os.kill(_postmaster(home), signal.SIGKILL)
    killed = time.monotonic()
    answers = []
    while time.monotonic() - killed < 30:
        answer = await server.call("get_memory", {"memory_id": kept}, timeout=30)
        answers.append((round(time.monotonic() - killed, 2), not is_tool_error(answer)))
        if not is_tool_error(answer):
            break
        await asyncio.sleep(0.2)
    print(f"answers after the kill (seconds, ok): {answers}")
    assert answers[-1][1] and answers[-1][0] <= 5.0, answers
    assert sum(1 for _, ok in answers if not ok) <= 2
    assert server.proc.returncode is None  # the same server process, not a restarted one
    stored = structured(await server.call("store_memory", {"content": "written after the restart"}))
    assert stored["status"] == "created"
    await server.close()
    assert await _gone(home), _postgres_processes(home)


async def test_kill_9_of_every_holder_leaves_nothing_after_the_next_start_and_exit(pg_tmp):
    home = pg_tmp / "home"
    env = server_env(HINDSIGHT_HOME=str(home))
    first, second = RawServer([server_command()], env), RawServer([server_command()], env)
    await first.start()
    await second.start()
    structured(await first.call("store_memory", {"content": "two windows, both about to crash"}))
    holders = json.loads((home / "pgdata" / ".handle_pids.json").read_text())
    assert sorted(holders) == sorted([first.proc.pid, second.proc.pid])
    for s in (first, second):
        s.proc.kill()
        await s.proc.wait()
    assert _postmaster(home) is not None  # orphaned, as expected after kill -9
    third = RawServer([server_command()], env)
    await third.start()
    listed = structured(await third.call("list_memories", {}))
    assert [m["content"] for m in listed["memories"]] == ["two windows, both about to crash"]
    assert json.loads((home / "pgdata" / ".handle_pids.json").read_text()) == [third.proc.pid]
    assert await third.close() == 0
    assert await _gone(home), _postgres_processes(home)
    assert json.loads((home / "pgdata" / ".handle_pids.json").read_text()) == []
