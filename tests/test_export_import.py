"""export → import into an empty database gives the same rows: memories, state, history."""

from __future__ import annotations

import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import anyio
import asyncpg
from cryptography.fernet import Fernet

from hindsight.embed import AsyncEmbedder
from hindsight.maintenance import Maintenance
from hindsight.memories import Memories, WritePolicy
from hindsight.privacy import Sealer
from mcp_client import server_env

KEY = Fernet.generate_key().decode()


def cli(url: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "hindsight"
    env = server_env(HINDSIGHT_DATABASE_URL=url, HINDSIGHT_EMBED_THREADS="1", HINDSIGHT_ENCRYPTION_KEY=KEY)
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, input=stdin, timeout=300)


async def dump(url: str) -> dict[str, list]:
    conn = await asyncpg.connect(url)
    try:
        cols = [r["attname"] for r in await conn.fetch(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attnum > 0 "
            "AND NOT attisdropped AND attname <> 'seq' ORDER BY attnum")]  # seq: this database's write order
        return {
            "columns": cols,
            "memories": [tuple(r) for r in await conn.fetch(
                f"SELECT {', '.join(c for c in cols)} FROM memories ORDER BY id")],
            "state": [tuple(r) for r in await conn.fetch("SELECT * FROM memory_state ORDER BY id")],
            "archive": [tuple(v for k, v in r.items() if k != "seq")
                        for r in await conn.fetch("SELECT * FROM memories_archive ORDER BY id")],
            "history": [tuple(r) for r in await conn.fetch(
                "SELECT agent_id, memory_id, action, at, call, reason, related_id, memory_type, content, metadata, "
                "importance, slot, expires_at FROM memory_history ORDER BY memory_id, seq")],
        }
    finally:
        await conn.close()


async def test_export_import_round_trip_is_exact(db, db_url, empty_db_url, embedder):
    m = Memories(db, AsyncEmbedder(embedder), WritePolicy(sealer=Sealer(KEY)))
    old = await m.store("a", "The user prefers pandas", memory_type="semantic", slot="pref:df", importance=4)
    await m.store("a", "The user prefers polars", memory_type="semantic", slot="pref:df", importance=4)
    await m.store("a", "Staging password is hunter2-staging", memory_type="semantic", tags=["ops"])
    fix = await m.store("a", "pip needs PIP_CERT behind the proxy", memory_type="procedural",
                        metadata={"tools_used": ["pip"], "outcome": "fixed"})
    await m.store("a", "pip needs PIP_CERT behind the proxy", memory_type="procedural")  # reinforce
    await m.update("a", fix["id"], importance=5)
    gone = await m.store("a", "Forget me: a note about lunch")
    await m.delete("a", gone["id"])
    await m.store("a", "Never run migrations by hand", memory_type="procedural")       # guard flags
    scratch = await m.store("a", "Current branch: feature/export", memory_type="working", session_id="s1")
    await m.invalidate("a", scratch["id"], "branch merged")
    await Maintenance(db, m).run(datetime.now(timezone.utc) + timedelta(days=3))       # decay
    await db.fetch("record_access", "a", [uuid.UUID(old["id"])], [2], datetime.now(timezone.utc))
    await m.store("b", "Another agent's memory")
    brief = await m.store("a", "Scratch: VPN gateway moves this week", importance=1)
    await Maintenance(db, m).run(datetime.now(timezone.utc) + timedelta(days=8))      # archives it (and decays)
    assert await db.pool.fetchval("SELECT count(*) FROM memories_archive WHERE id = $1", uuid.UUID(brief["id"])) == 1

    exported = await anyio.to_thread.run_sync(lambda: cli(db_url, "export", "--agent", "a"))
    assert exported.returncode == 0, exported.stderr
    assert "hunter2" not in exported.stdout  # sealed stays sealed
    lines = exported.stdout.splitlines()
    assert len(lines) == 8  # 6 memories, 1 archived, the deleted one's trail

    imported = await anyio.to_thread.run_sync(lambda: cli(empty_db_url, "import", "-", "--agent", "a",
                                                          stdin=exported.stdout))
    assert imported.returncode == 0, imported.stderr
    before, after = await dump(db_url), await dump(empty_db_url)
    assert before["columns"] == after["columns"]
    only_a = [r for r in before["memories"] if r[before["columns"].index("agent_id")] == "a"]
    _diff(only_a, after["memories"], before["columns"])
    assert after["memories"] == only_a
    assert after["state"] == [r for r in before["state"] if r[0] == "a"]
    assert after["history"] == [r for r in before["history"] if r[0] == "a"]
    assert len(after["archive"]) == 1 and after["archive"] == [r for r in before["archive"] if r[0] == "a"]


def _diff(before, after, cols):
    for b, a in zip(before, after):
        for c, x, y in zip(cols, b, a):
            if x != y:
                print("DIFF", c, repr(x)[:120], repr(y)[:120])


async def test_a_hand_written_export_line_with_a_secret_is_still_redacted(empty_db_url):
    line = {"format": "hindsight-export/1", "memory_id": str(uuid.uuid4()), "content": "db password: hunter2-x",
            "timestamp": "2026-01-01T00:00:00Z", "memory_type": "semantic", "importance": 3, "metadata": {},
            "tags": [], "session_id": None, "restore": {"history": []}}
    done = await anyio.to_thread.run_sync(lambda: cli(empty_db_url, "import", "-", "--agent", "a",
                                                      stdin=__import__("json").dumps(line) + "\n"))
    assert done.returncode == 0, done.stderr
    conn = await asyncpg.connect(empty_db_url)
    try:
        row = await conn.fetchrow("SELECT content, sealed FROM memories")
    finally:
        await conn.close()
    assert row["content"] == "db password: [REDACTED:password]" and row["sealed"] is not None
