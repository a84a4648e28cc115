"""hindsight reembed on a real database: interrupted, resumed, switched — recall works throughout."""

from __future__ import annotations

import json
import uuid

from test_cli import rows


async def test_interrupted_reembed_resumes_and_switches(cli, db_url, memories, recall, db):
    texts = [
        "The user prefers polars over pandas",
        "Deploys need two approvals",
        "部署前必须先运行数据库迁移",
        "pip fails behind the proxy without PIP_CERT",
        "The staging cluster runs in eu-west-1",
        "Lunch is at noon on Tuesdays",
    ]
    ids = [(await memories.store("a", t))["id"] for t in texts]
    # Spoil the stored vectors: recall by meaning finds nothing useful until re-embedded.
    await db.pool.execute(
        "UPDATE memories SET embedding = (SELECT array_agg(0.05)::vector(384) FROM generate_series(1, 384))"
    )
    paused = await cli("reembed", "--batch-size", "2", "--limit", "4")
    assert paused.code == 0, paused.err
    first = json.loads(paused.out)
    assert first == {"status": "paused", "embedded": 4, "remaining": 2, "job": first["job"]}
    assert "run it again to continue" in paused.err
    # Recall still answers from the old column meanwhile, and writes go on.
    assert (await recall.retrieve("a", "which dataframe library?"))["memories"]
    ids.append((await memories.store("a", "The VPN needs a hardware token"))["id"])

    done = await cli("reembed", "--batch-size", "2")
    assert done.code == 0, done.err
    second = json.loads(done.out)
    assert second["status"] == "finished" and second["embedded"] == 3 and second["job"] == first["job"]
    jobs = await rows(db_url, "SELECT embedded, finished_at FROM reembed_jobs")
    assert len(jobs) == 1 and jobs[0]["embedded"] == 7 and jobs[0]["finished_at"] is not None
    columns = await rows(
        db_url,
        "SELECT attname FROM pg_attribute WHERE attrelid = 'memories'::regclass "
        "AND attname LIKE 'embedding%' AND NOT attisdropped",
    )
    assert [c["attname"] for c in columns] == ["embedding"]
    index = await rows(db_url, "SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding_hnsw'")
    assert "hnsw (embedding vector_cosine_ops)" in index[0]["indexdef"]
    assert (await rows(db_url, "SELECT name FROM hindsight_embedder"))[0]["name"] == "e5-small"

    # the pool prepared its statements before the switch: they must re-prepare by themselves
    hits = await recall.retrieve("a", "which dataframe library does the user like?")
    assert hits["memories"][0]["id"] == ids[0] and "vector" in hits["memories"][0]["channels"]
    hit = await recall.retrieve("a", "hardware token for VPN")
    assert hit["memories"][0]["id"] == ids[-1]
    nothing = await cli("reembed")
    assert json.loads(nothing.out)["status"] == "finished"
    assert await db.pool.fetchval("SELECT count(*) FROM memories WHERE id = ANY($1)", [uuid.UUID(i) for i in ids]) == 7
