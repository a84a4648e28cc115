"""export → import into an empty database gives the same rows: memories, state, history."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import asyncpg
from cryptography.fernet import Fernet
from faced import faced

from hindsight.embedders.base import AsyncEmbedder
from hindsight.rules.privacy import Sealer
from hindsight.store.memories import Memories, WritePolicy
from hindsight.upkeep.maintenance import Maintenance

KEY = Fernet.generate_key().decode()
OLD_EXPORT = Path(__file__).resolve().parents[1] / "data" / "export_0.1.0.jsonl"  # written by hindsight 0.1.0 (e2c4b10)
OLD_KEY = "gEdXVL8FO6BY-elPaw1D9qs0_PZ3kopSRRQz5HcOMI8="  # the test key its sealed line used


async def dump(url: str) -> dict[str, list]:
    conn = await asyncpg.connect(url)
    try:
        cols = [
            r["attname"]
            for r in await conn.fetch(
                "SELECT attname FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attnum > 0 "
                "AND NOT attisdropped AND attname <> 'seq' ORDER BY attnum"
            )
        ]  # seq: this database's write order
        return {
            "columns": cols,
            "memories": [
                tuple(r) for r in await conn.fetch(f"SELECT {', '.join(c for c in cols)} FROM memories ORDER BY id")
            ],
            "state": [tuple(r) for r in await conn.fetch("SELECT * FROM memory_state ORDER BY id")],
            "archive": [
                tuple(v for k, v in r.items() if k != "seq")
                for r in await conn.fetch("SELECT * FROM memories_archive ORDER BY id")
            ],
            "history": [
                tuple(r)
                for r in await conn.fetch(
                    "SELECT agent_id, memory_id, action, at, call, reason, related_id, memory_type, content, metadata, "
                    "importance, slot, expires_at FROM memory_history ORDER BY memory_id, seq"
                )
            ],
        }
    finally:
        await conn.close()


async def test_export_import_round_trip_is_exact(cli, db, db_url, empty_db_url, embedder):
    m = Memories(db, AsyncEmbedder(embedder), WritePolicy(sealer=Sealer(KEY)))
    old = await m.store("a", "The user prefers pandas", memory_type="semantic", slot="pref:df", importance=4)
    await m.store("a", "The user prefers polars", memory_type="semantic", slot="pref:df", importance=4)
    await m.store("a", "Staging password is hunter2-staging", memory_type="semantic", tags=["ops"])
    fix = await m.store(
        "a",
        "pip needs PIP_CERT behind the proxy",
        memory_type="procedural",
        metadata={"tools_used": ["pip"], "outcome": "fixed"},
    )
    await m.store("a", "pip needs PIP_CERT behind the proxy", memory_type="procedural")  # reinforce
    await faced(m).update("a", fix["id"], importance=5)
    gone = await m.store("a", "Forget me: a note about lunch")
    await faced(m).delete("a", gone["id"])
    await m.store("a", "Never run migrations by hand", memory_type="procedural")  # guard flags
    scratch = await m.store("a", "Current branch: feature/export", memory_type="working", session_id="s1")
    await faced(m).invalidate("a", scratch["id"], "branch merged")
    await Maintenance(db, m).run(datetime.now(timezone.utc) + timedelta(days=3))  # decay
    await db.fetch("record_access", "a", [uuid.UUID(old["id"])], [2], datetime.now(timezone.utc))
    await m.store("b", "Another agent's memory")
    brief = await m.store("a", "Scratch: VPN gateway moves this week", importance=1)
    await Maintenance(db, m).run(datetime.now(timezone.utc) + timedelta(days=8))  # archives it (and decays)
    assert await db.pool.fetchval("SELECT count(*) FROM memories_archive WHERE id = $1", uuid.UUID(brief["id"])) == 1

    exported = await cli("export", "--agent", "a", HINDSIGHT_ENCRYPTION_KEY=KEY)
    assert exported.code == 0, exported.err
    assert "hunter2" not in exported.out  # sealed stays sealed
    lines = exported.out.splitlines()
    assert len(lines) == 8  # 6 memories, 1 archived, the deleted one's trail

    imported = await cli(
        "import", "-", "--agent", "a", stdin=exported.out, url=empty_db_url, HINDSIGHT_ENCRYPTION_KEY=KEY
    )
    assert imported.code == 0, imported.err
    before, after = await dump(db_url), await dump(empty_db_url)
    assert before["columns"] == after["columns"]
    only_a = [r for r in before["memories"] if r[before["columns"].index("agent_id")] == "a"]
    _diff(only_a, after["memories"], before["columns"])
    assert after["memories"] == only_a
    assert after["state"] == [r for r in before["state"] if r[0] == "a"]
    assert after["history"] == [r for r in before["history"] if r[0] == "a"]
    assert len(after["archive"]) == 1 and after["archive"] == [r for r in before["archive"] if r[0] == "a"]
    again = await cli("export", "--agent", "a", url=empty_db_url)
    assert again.out == exported.out  # export -> import -> export: byte for byte


def _diff(before, after, cols):
    for b, a in zip(before, after):
        for c, x, y in zip(cols, b, a):
            if x != y:
                print("DIFF", c, repr(x)[:120], repr(y)[:120])


async def test_a_hand_written_export_line_with_a_secret_is_still_redacted(cli, empty_db_url):
    line = {
        "format": "hindsight-export/1",
        "memory_id": str(uuid.uuid4()),
        "content": "db password: hunter2-x",
        "timestamp": "2026-01-01T00:00:00Z",
        "memory_type": "semantic",
        "importance": 3,
        "metadata": {},
        "tags": [],
        "session_id": None,
        "restore": {"history": []},
    }
    done = await cli(
        "import", "-", "--agent", "a", stdin=json.dumps(line) + "\n", url=empty_db_url, HINDSIGHT_ENCRYPTION_KEY=KEY
    )
    assert done.code == 0, done.err
    conn = await asyncpg.connect(empty_db_url)
    try:
        row = await conn.fetchrow("SELECT content, sealed FROM memories")
    finally:
        await conn.close()
    assert row["content"] == "db password: [REDACTED:password]" and row["sealed"] is not None


async def test_an_export_written_by_0_1_0_imports_and_exports_the_same_bytes(cli, empty_db_url):
    """Someone's backup from the first release: it imports, and exporting it again gives the
    same file, placeholders included ("[REDACTED:api_key]" is not redacted a second time)."""
    old = OLD_EXPORT.read_text(encoding="utf-8")
    done = await cli(
        "import", str(OLD_EXPORT), "--agent", "fixture", url=empty_db_url, HINDSIGHT_ENCRYPTION_KEY=OLD_KEY
    )
    assert done.code == 0, done.err
    assert "imported 9 memories and the history of 1 deleted memory" in done.err  # the trail is counted too
    again = await cli("export", "--agent", "fixture", url=empty_db_url)
    import difflib

    assert again.out == old, "\n".join(
        difflib.unified_diff(old.splitlines(), again.out.splitlines(), lineterm="", n=0)
    )[:3000]
    assert "my api key is [REDACTED:api_key]" in again.out and "[REDACTED:secret]" not in again.out
    sealed = next(json.loads(x) for x in old.splitlines() if "Staging password" in x)
    shown = await cli(
        "show",
        sealed["memory_id"],
        "--agent",
        "fixture",
        "--reveal",
        "--json",
        url=empty_db_url,
        HINDSIGHT_ENCRYPTION_KEY=OLD_KEY,
    )
    assert json.loads(shown.out)["memory"]["content"] == "Staging password is hunter2-staging"


async def test_importing_an_export_again_is_idempotent(cli, db_url):
    """Into the database it came from: nothing doubles, nothing fails; --on-conflict
    replace writes the file's version in place; the export stays byte-identical."""
    await cli("import", str(OLD_EXPORT), "--agent", "fixture", HINDSIGHT_ENCRYPTION_KEY=OLD_KEY)
    first = await cli("export", "--agent", "fixture")
    skipped = await cli("import", "-", "--agent", "fixture", stdin=first.out)
    assert skipped.code == 0, skipped.err
    assert skipped.err.splitlines()[-1] == "imported 0 memories for agent 'fixture'; 10 lines skipped (already present)"
    assert (await cli("export", "--agent", "fixture")).out == first.out
    replaced = await cli("import", "-", "--agent", "fixture", "--on-conflict", "replace", stdin=first.out)
    assert replaced.code == 0, replaced.err
    said = replaced.err.splitlines()[-1]
    assert (
        said.startswith("imported 9 memories") and said.endswith(" memories/s); 10 replaced") and "skipped" not in said
    )
    assert (await cli("export", "--agent", "fixture")).out == first.out
    conn = await asyncpg.connect(db_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM memories WHERE agent_id = 'fixture'") == 8
        assert await conn.fetchval("SELECT count(*) FROM memories_archive WHERE agent_id = 'fixture'") == 1
    finally:
        await conn.close()


async def test_a_memory_forgotten_since_the_export_stays_forgotten(cli, db_url):
    await cli("import", str(OLD_EXPORT), "--agent", "fixture", HINDSIGHT_ENCRYPTION_KEY=OLD_KEY)
    polars = next(json.loads(x)["memory_id"] for x in OLD_EXPORT.read_text().splitlines() if "polars" in x)
    assert (await cli("forget", polars, "--agent", "fixture", "--yes")).code == 0
    await cli("import", str(OLD_EXPORT), "--agent", "fixture")
    assert (await cli("show", polars, "--agent", "fixture")).code == 2
    await cli("import", str(OLD_EXPORT), "--agent", "fixture", "--on-conflict", "replace")
    assert (await cli("show", polars, "--agent", "fixture")).code == 0
