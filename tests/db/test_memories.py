"""The write path and single-memory reads against the real database and embedder."""

import asyncio
import uuid

import pytest
from conftest import count_rows
from faced import faced

from hindsight.errors import InvalidInput, NotFound
from hindsight.store.import_lines import parse_line
from hindsight.store.importer import import_records
from hindsight.store.transfer import export_lines


async def test_store_writes_what_was_given(memories, db):
    row = await memories.store(
        "alice",
        "Prefers polars over pandas",
        memory_type="semantic",
        session_id="s1",
        importance=4,
        metadata={"entities": ["polars"]},
        tags=["prefs"],
        shared=False,
    )
    stored = await db.pool.fetchrow(
        "SELECT agent_id, memory_type, content, importance, metadata, tags, session_id, "
        "vector_dims(embedding) AS dims, search_vector::text AS sv, content_hash FROM memories WHERE id = $1",
        uuid.UUID(row["id"]),
    )
    assert stored["agent_id"] == "alice" and stored["memory_type"] == "semantic"
    assert stored["content"] == "Prefers polars over pandas"
    assert stored["importance"] == 4 and stored["session_id"] == "s1" and stored["tags"] == ["prefs"]
    assert stored["metadata"] == {"entities": ["polars"]}
    assert stored["dims"] == 384
    assert "'polar'" in stored["sv"] and len(stored["content_hash"]) == 32


async def test_created_at_and_ttl(memories):
    past = (await memories.store("a", "Happened in 2023", created_at="2023-05-01T12:00:00Z"))["memory"]
    assert past["created_at"].startswith("2023-05-01T12:00:00")
    temp = (await memories.store("a", "Scratch note", ttl_seconds=60))["memory"]
    assert temp["expires_at"] is not None


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"content": ""}, "content"),
        ({"content": "x\x00y"}, "content"),
        ({"content": "x" * 40_000}, "content"),
        ({"content": "ok", "memory_type": "long"}, "memory_type"),
        ({"content": "ok", "importance": 0}, "importance"),
        ({"content": "ok", "importance": 6}, "importance"),
        ({"content": "ok", "metadata": ["not", "an", "object"]}, "metadata"),
        ({"content": "ok", "metadata": {"k": "nul\x00"}}, "metadata"),
        ({"content": "ok", "tags": "single"}, "tags"),
        ({"content": "ok", "ttl_seconds": 0}, "ttl_seconds"),
        ({"content": "ok", "shared": "yes"}, "shared"),
        ({"content": "ok", "created_at": "last tuesday"}, "created_at"),
    ],
)
async def test_bad_input_names_the_field_and_writes_nothing(memories, db, kwargs, field):
    content = kwargs.pop("content")
    with pytest.raises(InvalidInput) as err:
        await memories.store("a", content, **kwargs)
    assert err.value.field == field
    assert await count_rows(db) == 0


async def test_get_update_invalidate_delete(memories, recall):
    m = (await memories.store("a", "The build uses Python 3.10", memory_type="semantic"))["memory"]
    got = await faced(memories).get("a", m["id"])
    assert got["content"] == m["content"]

    updated = await faced(memories).update("a", m["id"], content="The build uses Python 3.11", importance=5)
    assert updated["content"] == "The build uses Python 3.11" and updated["importance"] == 5
    hits = await recall.retrieve("a", "which Python version does the build use?")
    assert hits["memories"][0]["content"] == "The build uses Python 3.11"

    newer = await memories.store("a", "The build uses Python 3.12", memory_type="semantic")
    inv = await faced(memories).invalidate("a", m["id"], "upgraded", replaced_by=newer["id"])
    assert inv["invalidated_at"] and inv["invalidation_reason"] == "upgraded"
    assert inv["invalidated_by"] == newer["id"]
    hits = await recall.retrieve("a", "which Python version does the build use?", top_k=10)
    assert [h["id"] for h in hits["memories"]] == [newer["id"]]
    assert (await faced(memories).get("a", m["id"]))["invalidated_at"]  # still there as history
    with pytest.raises(InvalidInput, match="already invalidated"):
        await faced(memories).invalidate("a", m["id"], "again")

    # deleting the replacement keeps the history row, unlinked
    assert await faced(memories).delete("a", newer["id"]) == {"deleted": True, "id": newer["id"]}
    assert (await faced(memories).get("a", m["id"]))["invalidated_by"] is None
    with pytest.raises(NotFound):
        await faced(memories).get("a", newer["id"])
    with pytest.raises(NotFound):
        await faced(memories).delete("a", newer["id"])


async def test_update_needs_a_field_and_checks_it(memories):
    m = await memories.store("a", "note")
    with pytest.raises(InvalidInput, match="at least one"):
        await faced(memories).update("a", m["id"])
    with pytest.raises(InvalidInput, match="importance"):
        await faced(memories).update("a", m["id"], importance=9)
    assert (await faced(memories).get("a", m["id"]))["importance"] == 3


async def test_invalidate_checks_replacement(memories):
    m = await memories.store("a", "old fact")
    other = await memories.store("b", "b's fact")
    with pytest.raises(InvalidInput, match="replaced_by"):
        await faced(memories).invalidate("a", m["id"], "x", replaced_by=m["id"])
    with pytest.raises(InvalidInput, match="replaced_by"):
        await faced(memories).invalidate("a", m["id"], "x", replaced_by=other["id"])
    with pytest.raises(InvalidInput, match="reason"):
        await faced(memories).invalidate("a", m["id"], "  ")
    assert (await faced(memories).get("a", m["id"]))["invalidated_at"] is None


async def test_agents_are_isolated(memories, recall):
    secret = await memories.store("bob", "Bob's deploy key lives in the vault")
    with pytest.raises(NotFound):
        await faced(memories).get("alice", secret["id"])
    for change in (
        faced(memories).update("alice", secret["id"], content="hijacked"),
        faced(memories).invalidate("alice", secret["id"], "mine now"),
        faced(memories).delete("alice", secret["id"]),
    ):
        with pytest.raises(NotFound):
            await change
    assert (await recall.retrieve("alice", "deploy key vault"))["memories"] == []
    assert (await faced(memories).list("alice"))["memories"] == []
    assert (await faced(memories).get("bob", secret["id"]))["content"] == "Bob's deploy key lives in the vault"


async def test_shared_memories_are_readable_not_writable(memories, recall):
    pref = (await memories.store("support", "The customer wants replies in Chinese", shared=True))["memory"]
    assert (await faced(memories).get("aftersales", pref["id"]))["content"] == pref["content"]
    hits = await recall.retrieve("aftersales", "what language does the customer want?")
    assert pref["id"] in [h["id"] for h in hits["memories"]]
    hits = await recall.retrieve("aftersales", "what language does the customer want?", include_shared=False)
    assert hits["memories"] == []
    for change in (
        faced(memories).update("aftersales", pref["id"], importance=1),
        faced(memories).invalidate("aftersales", pref["id"], "no"),
        faced(memories).delete("aftersales", pref["id"]),
    ):
        with pytest.raises(InvalidInput, match="only its owner"):
            await change
    assert (await faced(memories).get("support", pref["id"]))["importance"] == 3


async def test_one_id_in_two_agents_is_two_memories_in_recall(memories, recall, db, embedder):
    """An export imported into another agent keeps its ids, so another agent's shared memory
    may carry the id of one of the agent's own: recall shows each with its own row."""
    theirs = "Refunds over 100 dollars need a manager's approval"
    note = (await memories.store("support", theirs, shared=True))["memory"]
    lines = await export_lines(db, "support")
    await import_records(db, embedder, "aftersales", [parse_line(line, n) for n, line in enumerate(lines, 1)])
    ours = "Refunds over 100 dollars need a team lead's approval"
    await faced(memories).update("aftersales", note["id"], content=ours)
    hits = (await recall.retrieve("aftersales", "Who approves a refund over 100 dollars?", top_k=5))["memories"]
    assert sorted((h["agent_id"], h["content"]) for h in hits if h["id"] == note["id"]) == [
        ("aftersales", ours),
        ("support", theirs),
    ]


async def test_recall_drops_expired_and_filters(memories, recall, db):
    gone = await memories.store("a", "Temporary token rotates hourly", ttl_seconds=3600)
    await db.pool.execute(
        "UPDATE memories SET expires_at = now() - interval '1 second' WHERE id = $1", uuid.UUID(gone["id"])
    )
    keep = await memories.store(
        "a",
        "Tokens for the staging API rotate daily",
        memory_type="procedural",
        tags=["staging"],
        metadata={"tools_used": ["curl"]},
    )
    hits = await recall.retrieve("a", "token rotation", top_k=10)
    assert [h["id"] for h in hits["memories"]] == [keep["id"]]
    hit = hits["memories"][0]
    assert set(hit) >= {"id", "content", "memory_type", "created_at", "score", "metadata", "channels"}
    assert hits["token_estimate"] > 0
    assert (await recall.retrieve("a", "token rotation", memory_type="semantic"))["memories"] == []
    assert (await recall.retrieve("a", "token rotation", tags=["prod"]))["memories"] == []
    assert len((await recall.retrieve("a", "token", metadata={"tools_used": ["curl"]}))["memories"]) == 1
    listed = await faced(memories).list("a", include_invalidated=True)
    assert {m["id"] for m in listed["memories"]} == {gone["id"], keep["id"]}
    assert [m["id"] for m in (await faced(memories).list("a"))["memories"]] == [keep["id"]]


async def test_recall_finds_chinese_with_a_chinese_query(memories, recall):
    zh = await memories.store("a", "用户希望所有代码注释都用中文书写", memory_type="semantic")
    await memories.store("a", "The CI pipeline runs on GitHub Actions")
    await memories.store("a", "Database backups run nightly at 02:00")
    hits = await recall.retrieve("a", "代码注释应该用什么语言？", top_k=1)
    assert hits["memories"][0]["id"] == zh["id"]
    assert "keyword" in hits["memories"][0]["channels"]


async def test_list_pages_newest_first(memories):
    ids = [(await memories.store("a", f"event {i}", created_at=f"2024-01-0{i + 1}T00:00:00Z"))["id"] for i in range(5)]
    page1 = await faced(memories).list("a", limit=2)
    page2 = await faced(memories).list("a", limit=2, offset=2)
    assert [m["id"] for m in page1["memories"] + page2["memories"]] == ids[::-1][:4]
    with pytest.raises(InvalidInput, match="limit"):
        await faced(memories).list("a", limit=0)


async def test_concurrent_stores_all_land(memories, db):
    await asyncio.gather(*(memories.store("a", f"parallel note {i}") for i in range(8)))
    assert await count_rows(db) == 8


async def test_updating_a_memory_that_is_no_longer_current_says_so(memories):
    old = await memories.store("a", "Standups are at 09:30", memory_type="semantic")
    new = await memories.store("a", "Standups moved to 10:00", memory_type="semantic", supersedes=old["id"])
    changed = await faced(memories).update("a", old["id"], importance=4)
    assert changed["importance"] == 4
    assert f"superseded by {new['id']}" in changed["warning"] and "recall does not return it" in changed["warning"]
    current = await faced(memories).update("a", new["id"], importance=4)
    assert "warning" not in current


async def test_a_list_with_shared_memories_pages_through_both_newest_first(memories):
    """list_memories reads the agent's own rows and other agents' shared ones apart (each by
    its index) and pages through them together: every memory once, newest first."""
    from datetime import datetime, timedelta, timezone

    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    written = {}
    for i in range(7):  # interleaved in time: own, shared by another agent, an unshared one of theirs
        agent, shared = [("lister", False), ("other", True), ("other", False)][i % 3]
        stored = await memories.store(
            agent, f"note {i} about the release train", shared=shared, created_at=start + timedelta(hours=i)
        )
        written[stored["memory"]["id"]] = (agent, shared)
    visible = [mid for mid, (agent, shared) in written.items() if agent == "lister" or shared][::-1]
    pages = [await faced(memories).list("lister", include_shared=True, limit=2, offset=offset) for offset in (0, 2, 4)]
    assert [m["id"] for page in pages for m in page["memories"]] == visible
    own = await faced(memories).list("lister", limit=10)
    assert [m["id"] for m in own["memories"]] == [mid for mid in visible if written[mid][0] == "lister"]
