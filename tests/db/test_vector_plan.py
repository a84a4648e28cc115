"""The vector channel scans a small agent's rows exactly and uses the HNSW index for an
agent that is most of it (hindsight.rules.scoring.vector_plan, fed by the database's
counts); either way recall finds the agent's nearest memory and never another agent's."""

import numpy as np

from hindsight.data.columns import NewMemory
from hindsight.rules import scoring
from hindsight.rules.text import content_hash, keyword_text


def _row(agent: str, i: int, vec: np.ndarray) -> NewMemory:
    content = f"synthetic memory {i} of {agent}"
    return NewMemory(
        agent_id=agent, id=None, session_id=None, memory_type="episodic", content=content,
        content_hash=content_hash(content), embedding=vec, search_vector=keyword_text(content), metadata={},
        tags=[], importance=3, created_at=None, expires_at=None, shared=False, dedup_key=None, slot=None,
        flags=None, sealed=None, strength=None,
    )  # fmt: skip


async def _fill(db, agent: str, n: int, rng) -> None:
    vecs = rng.normal(size=(n, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    async with db.transaction("filling") as tx:
        await tx.executemany("insert_memory", [tuple(_row(agent, i, v)) for i, v in enumerate(vecs)])


async def test_a_small_agent_beside_a_large_one_is_scanned_exactly(db, recall, memories):
    await _fill(db, "big", scoring.EXACT_ALWAYS + 500, np.random.default_rng(1))
    await memories.store("small", "The release train leaves every second Thursday.", memory_type="semantic")
    await memories.store("small", "Staging runs on db-stage-02.", memory_type="semantic")
    assert await recall._exact_scan("small") is True  # 2 rows of 2,502
    assert await recall._exact_scan("big") is False  # most of the index is its own
    found = await recall.retrieve("small", "when does the release train leave?", top_k=5)
    assert found["memories"][0]["content"].startswith("The release train")
    assert {m["agent_id"] for m in found["memories"]} <= {"small"}
    assert "vector" in found["memories"][0]["channels"]


async def test_the_large_agent_recalls_through_the_index(db, recall):
    rng = np.random.default_rng(2)
    await _fill(db, "big", scoring.EXACT_ALWAYS + 500, rng)
    row = await db.fetchrow("vector_plan_inputs", "big", scoring.EXACT_MAX + 1)
    assert row["agent_rows"] == scoring.EXACT_ALWAYS + 500  # counted (up to the cap)
    assert row["all_rows"] >= 0  # the planner's estimate: 0 until the table is analysed
    assert await recall._exact_scan("big") is False
    found = await recall.retrieve("big", "synthetic memory", top_k=10)
    assert len(found["memories"]) == 10 and {m["agent_id"] for m in found["memories"]} == {"big"}
