"""The `hindsight` command line against a real database: import, recall, batch recall."""

import json
import subprocess
import sys
from pathlib import Path

import anyio
import asyncpg

from mcp_client import server_env


def hindsight(db_url, *args, stdin=None):
    exe = Path(sys.executable).parent / "hindsight"
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_EMBED_THREADS="1")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, input=stdin, timeout=300)


async def run(db_url, *args):
    return await anyio.to_thread.run_sync(lambda: hindsight(db_url, *args))


async def rows(db_url, sql, *params):
    conn = await asyncpg.connect(db_url)
    try:
        return await conn.fetch(sql, *params)
    finally:
        await conn.close()


LINES = [
    {"content": "Caroline: I went to the LGBTQ support group yesterday", "timestamp": "2023-05-08T13:56:00",
     "id": "D1:3", "metadata": {"speaker": "Caroline"}},
    {"text": "用户希望所有回复都使用中文", "timestamp": "2023-05-09T09:00:00Z", "id": 7,
     "memory_type": "semantic", "importance": 5, "tags": ["prefs"]},
    {"content": "Melanie: I painted a sunrise over the lake last week", "timestamp": "2023-06-01T10:00:00"},
]


async def test_import_keeps_timestamps_and_external_ids(db_url, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in LINES) + "\n\n", encoding="utf-8")
    done = await run(db_url, "import", str(src), "--agent", "conv")
    assert done.returncode == 0, done.stderr
    assert "imported 3 memories" in done.stderr and done.stdout == ""
    got = {r["content"]: r for r in await rows(db_url, "SELECT content, created_at, metadata, memory_type, importance, tags "
                                                        "FROM memories WHERE agent_id = 'conv'")}
    first = got[LINES[0]["content"]]
    assert first["created_at"].isoformat().startswith("2023-05-08T13:56:00")
    assert json.loads(first["metadata"]) == {"speaker": "Caroline", "external_id": "D1:3"}
    zh = got[LINES[1]["text"]]
    assert (zh["memory_type"], zh["importance"], zh["tags"]) == ("semantic", 5, ["prefs"])
    assert json.loads(zh["metadata"])["external_id"] == "7"

    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in [
        {"qid": "q1", "query": "When did Caroline go to the support group?", "k": 1},
        {"qid": "q2", "query": "回复用什么语言？", "k": 2, "as_of": "2023-07-01T00:00:00Z"},
        {"qid": "q3", "query": "what did Melanie paint?", "as_of": "2023-05-20T00:00:00Z"},
    ]), encoding="utf-8")
    done = await run(db_url, "recall", "--agent", "conv", "--batch", str(queries), "--top-k", "3", "--json")
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["qid"] for o in out] == ["q1", "q2", "q3"]
    assert len(out[0]["results"]) == 1 and out[0]["results"][0]["metadata"]["external_id"] == "D1:3"
    assert set(out[0]["results"][0]) == {"id", "content", "score", "created_at", "metadata"}
    assert out[1]["results"][0]["metadata"]["external_id"] == "7"
    assert LINES[2]["content"] not in [r["content"] for r in out[2]["results"]]  # not yet written on as_of

    table = await run(db_url, "recall", "--agent", "conv", "--query", "support group")
    assert table.returncode == 0 and "support group" in table.stdout.splitlines()[0]


async def test_bad_import_line_writes_nothing(db_url, tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(LINES[0]) + "\n" + json.dumps({"content": "x", "importance": 9}) + "\n")
    done = await run(db_url, "import", str(src), "--agent", "conv")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "hindsight import: error: line 2: importance: 9 is out of range; allowed: 1 to 5")
    assert await rows(db_url, "SELECT 1 FROM memories") == []
    src.write_text('{"content": "ok"}\nnot json\n')
    done = await run(db_url, "import", str(src))
    assert done.returncode == 2 and "line 2" in done.stderr and "not valid JSON" in done.stderr


async def test_cli_errors_are_one_line(db_url, tmp_path):
    missing = await run(db_url, "import", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "No such file" in missing.stderr
    both = await run(db_url, "recall")
    assert both.returncode == 2 and "--query or --batch" in both.stderr
    stored = await run(db_url, "store", "remember the milk", "--type", "semantic", "--json")
    assert stored.returncode == 0 and json.loads(stored.stdout)["status"] == "created"
    bad = await run(db_url, "store", "x", "--importance", "7")
    assert bad.returncode == 2 and bad.stderr.strip() == "hindsight store: error: importance: 7 is out of range; allowed: 1 to 5"


async def test_import_is_a_restore_no_filter_no_dedup_no_expiry(db_url, tmp_path):
    """should_store and dedup govern live writes; a restore keeps every record as given."""
    lines = [{"content": "ok", "timestamp": "2023-01-01T00:00:00Z"},          # chitchat: kept anyway
             {"content": "Same line twice", "timestamp": "2023-01-02T00:00:00Z", "importance": 1},
             {"content": "Same line twice", "timestamp": "2023-01-03T00:00:00Z", "importance": 1}]
    src = tmp_path / "restore.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    done = await run(db_url, "import", str(src), "--agent", "r")
    assert done.returncode == 0, done.stderr
    got = await rows(db_url, "SELECT content, expires_at, dedup_key FROM memories WHERE agent_id = 'r' ORDER BY created_at")
    assert [r["content"] for r in got] == ["ok", "Same line twice", "Same line twice"]
    assert all(r["expires_at"] is None and r["dedup_key"] is None for r in got)
    history = await rows(db_url, "SELECT action, call FROM memory_history WHERE agent_id = 'r'")
    assert [tuple(h) for h in history] == [("create", "import")] * 3
    # A live write of the same content afterwards is recognised as a duplicate.
    again = await run(db_url, "store", "--agent", "r", "--json", "Same line twice")
    assert json.loads(again.stdout)["status"] == "duplicate", again.stderr
