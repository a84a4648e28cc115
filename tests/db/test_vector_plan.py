"""The vector channel scans a small agent's rows exactly and uses the HNSW index for an
agent that is most of it (hindsight.rules.plans.vector_plan, fed by the database's
counts); either way recall finds the agent's nearest memory and never another agent's. A
large agent that is a small share of the table gets an HNSW index of its own from the
maintenance job (rules.vector_indexes), and its vector channel is planned on it."""

import contextlib
from datetime import datetime, timezone

import numpy as np

from hindsight.data import ahead, queries
from hindsight.data.columns import NewMemory
from hindsight.recall.request import Filters
from hindsight.rules import plans, vector_indexes
from hindsight.rules.text import content_hash, keyword_text
from hindsight.upkeep import agent_indexes


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
    await _fill(db, "big", plans.EXACT_ALWAYS + 500, np.random.default_rng(1))
    await memories.store("small", "The release train leaves every second Thursday.", memory_type="semantic")
    await memories.store("small", "Staging runs on db-stage-02.", memory_type="semantic")
    assert (await recall._vector_plan("small"))[0] is True  # 2 rows of 2,502
    assert (await recall._vector_plan("big"))[0] is False  # most of the index is its own
    found = await recall.retrieve("small", "when does the release train leave?", top_k=5)
    assert found["memories"][0]["content"].startswith("The release train")
    assert {m["agent_id"] for m in found["memories"]} <= {"small"}
    assert "vector" in found["memories"][0]["channels"]


async def test_the_large_agent_recalls_through_the_index(db, recall):
    rng = np.random.default_rng(2)
    await _fill(db, "big", plans.EXACT_ALWAYS + 500, rng)
    row = await db.fetchrow("vector_plan_inputs", "big", plans.EXACT_MAX + 1)
    assert row["agent_rows"] == plans.EXACT_ALWAYS + 500  # counted (up to the cap)
    assert row["all_rows"] >= 0  # the planner's estimate: 0 until the table is analysed
    assert (await recall._vector_plan("big"))[0] is False
    found = await recall.retrieve("big", "synthetic memory", top_k=10)
    assert len(found["memories"]) == 10 and {m["agent_id"] for m in found["memories"]} == {"big"}


VECTOR_CHANNEL = "WITH {}\nSELECT agent_id, id, rank FROM vector ORDER BY rank"
LIMITS = vector_indexes.Thresholds(min_rows=200, share=0.9, keep_rows=100, keep_share=0.95)
BIG = 'o\'brien "ci" bot'  # agent ids are free text: the server quotes them in the index's DDL


async def _sql(db, sql: str, *args):
    async with db.session("test") as session:
        return await session._conn.fetch(sql, *args)


async def _vector_channel(db, agent: str, vec):
    filters = Filters(agent, True, datetime.now(timezone.utc), None, None, None, None, None, 0.0)
    return await _sql(db, VECTOR_CHANNEL.format(queries.get("candidate_vector")), *filters, 50, vec, False)


async def _index_of_plan(db, agent: str) -> str:
    """The vector index the index plan scans for the agent. With a few hundred rows the
    planner would sort them instead (as it should): sorting is switched off to ask it."""
    filters = Filters(agent, True, datetime.now(timezone.utc), None, None, None, None, None, 0.0)
    sql = "EXPLAIN " + VECTOR_CHANNEL.format(queries.get("candidate_vector"))
    async with db.session("test") as session:
        await session._conn.execute("SET enable_sort = off")
        plan = "\n".join(r[0] for r in await session._conn.fetch(sql, *filters, 50, [0.0] * 383 + [1.0], False))
    used = {word for word in plan.split() if word.startswith("memories_embedding_")}
    assert len(used) == 1, plan
    return used.pop()


async def _index_of_planned(db, agent: str) -> str:
    """The same, for recall's statement as it is planned while the query is embedded
    (hindsight.data.ahead: the agent's id and the plan written into the text, a generic plan)."""
    filters = Filters(agent, True, datetime.now(timezone.utc), None, None, None, None, None, 0.0)

    @contextlib.asynccontextmanager
    async def held():  # the test's connection, kept by the test
        yield conn

    async with db.session("test") as session:
        conn = session._conn
        await conn.execute("SET enable_sort = off")
        planned = await ahead.plan(held(), "recall_vector", [*filters, 50, None, False, [], [], []], 12)
        assert planned is not None
        sql = f'EXPLAIN EXECUTE "{planned._statement.get_name()}"(NULL)'  # the plan it made and keeps
        plan = "\n".join(r[0] for r in await conn.fetch(sql))
        await planned.abandon()
    used = {word for word in plan.split() if word.startswith("memories_embedding_")}
    assert len(used) == 1, plan
    return used.pop()


def _recording(db, calls: list):
    """The database as recall sees it, noting each statement's name and arguments in `calls`
    (a statement planned ahead when it runs, with the embedding it was given)."""

    class Run:
        def __init__(self, planned, statement, args, late):
            self.planned, self.statement, self.args, self.late = planned, statement, args, late

        async def fetch(self, value):
            calls.append((self.statement, (*self.args[: self.late - 1], value, *self.args[self.late :])))
            return await self.planned.fetch(value)

    class Spy:
        def __getattr__(self, name):
            async def call(statement, *args):
                if name == "plan_ahead":
                    planned = await db.plan_ahead(statement, *args)
                    return planned and Run(planned, statement, *args)
                calls.append((statement, args))
                return await getattr(db, name)(statement, *args)

            return call

    return Spy()


async def _own_indexes(db) -> dict[str, bool]:
    return {r["name"]: r["valid"] for r in await db.fetch("agent_indexes")}


async def test_a_large_agent_gets_its_own_index_and_its_vector_channel_is_planned_on_it(db):
    rng = np.random.default_rng(3)
    await _fill(db, BIG, 300, rng)
    await _fill(db, "mid", 120, rng)
    name = vector_indexes.index_name(BIG)

    dry = await agent_indexes.refresh(db, dry_run=True, limits=LIMITS)
    assert [b["agent_id"] for b in dry["built"]] == [BIG] and await _own_indexes(db) == {}
    report = await agent_indexes.refresh(db, limits=LIMITS)
    assert report["built"][0] | {"seconds": 0} == {"agent_id": BIG, "index": name, "rows": 300, "seconds": 0}
    assert await _own_indexes(db) == {name: True}
    again = await agent_indexes.refresh(db, limits=LIMITS)
    assert (again["built"], again["dropped"], again["kept"]) == ([], [], 1)  # nothing is rebuilt

    assert await _index_of_plan(db, BIG) == name
    assert await _index_of_plan(db, "mid") == "memories_embedding_hnsw"  # the shared one
    assert await _index_of_planned(db, BIG) == name  # as recall plans it, with the values in the text
    assert await _index_of_planned(db, "mid") == "memories_embedding_hnsw"
    for agent in (BIG, "mid"):  # either way: the agent's own rows, nearest first, a full count
        own = await _sql(db, "SELECT id, embedding FROM memories WHERE agent_id = $1 ORDER BY id LIMIT 3", agent)
        for row in own:
            found = await _vector_channel(db, agent, row["embedding"])
            assert len(found) == 50 and {r["agent_id"] for r in found} == {agent}
            assert found[0]["id"] == row["id"]  # a memory's own vector finds it first


async def test_an_index_goes_when_its_agent_shrinks_and_a_broken_one_is_built_again(db):
    await _fill(db, BIG, 300, np.random.default_rng(4))
    await _fill(db, "mid", 50, np.random.default_rng(5))
    name = vector_indexes.index_name(BIG)
    await agent_indexes.refresh(db, limits=LIMITS)
    await _sql(db, "UPDATE pg_index SET indisvalid = false WHERE indexrelid = $1::regclass", name)
    assert await _own_indexes(db) == {name: False}  # as an interrupted concurrent build leaves it
    report = await agent_indexes.refresh(db, limits=LIMITS)
    assert (report["dropped"], [b["index"] for b in report["built"]]) == ([name], [name])
    assert await _own_indexes(db) == {name: True}

    await _sql(db, "DELETE FROM memories WHERE agent_id = $1 AND id IN "
                   "(SELECT id FROM memories WHERE agent_id = $1 ORDER BY id LIMIT 150)", BIG)  # fmt: skip
    kept = await agent_indexes.refresh(db, limits=LIMITS)  # 150 rows: above keep_rows, it stays
    assert (kept["dropped"], kept["kept"]) == ([], 1)
    await _sql(db, "DELETE FROM memories WHERE agent_id = $1 AND id IN "
                   "(SELECT id FROM memories WHERE agent_id = $1 ORDER BY id LIMIT 60)", BIG)  # fmt: skip
    gone = await agent_indexes.refresh(db, limits=LIMITS)  # 90 rows: below keep_rows
    assert (gone["dropped"], gone["built"], gone["kept"]) == ([name], [], 0)
    assert await _own_indexes(db) == {}


async def test_the_maintenance_run_reports_the_agents_indexes(db, memories):
    from hindsight.upkeep.maintenance import Maintenance, MaintenanceConfig

    await _fill(db, BIG, 300, np.random.default_rng(6))
    await _fill(db, "mid", 50, np.random.default_rng(7))
    run = Maintenance(db, memories, MaintenanceConfig(vector_indexes=LIMITS))
    report = await run.run(datetime.now(timezone.utc))
    assert report["status"] == "succeeded" and report["counts"]["reconciled"]
    assert [b["agent_id"] for b in report["agent_indexes"]["built"]] == [BIG]
    assert report["config"]["vector_indexes"]["min_rows"] == 200


async def test_a_question_that_names_a_wide_window_reads_the_agents_latest_rows_by_its_index(db, recall):
    """The window channel (recall_vector_hinted) takes the latest 5,000 rows of the window in
    the order of memories_agent_created: the agent's own and others' shared rows apart. One
    condition `agent_id = $1 OR shared` made it read every row of the table and sort them
    all (a question naming "this year" took 0.5 s at 100,000 memories; benchmarks/README.md)."""
    from hindsight.recall.search import Recall

    await _fill(db, "big", plans.EXACT_ALWAYS + 500, np.random.default_rng(4))
    await _fill(db, "other", 300, np.random.default_rng(5))
    await _sql(db, "ANALYZE memories")
    calls: list = []
    spy = _recording(db, calls)
    found = await Recall(spy, recall.embedder).retrieve("big", "what happened this year?", top_k=5)
    assert found["memories"] and {m["agent_id"] for m in found["memories"]} == {"big"}
    (args,) = [args for statement, args in calls if statement == "recall_vector_hinted"]
    async with db.session("test") as session:  # a few thousand rows: a scan of them all, or two bitmaps
        # ORed, cost less; asked for a plan that reads by index, the old condition still had none
        await session._conn.execute("SET enable_bitmapscan = off; SET enable_seqscan = off")
        sql = "EXPLAIN " + queries.get("recall_vector_hinted")
        plan = "\n".join(r[0] for r in await session._conn.fetch(sql, *args))
    assert "Seq Scan on memories" not in plan, plan
    by_time = plan.split("Index Scan using memories_agent_created")  # the agent's rows, latest first
    assert len(by_time) > 1 and "Index Cond: ((agent_id = 'big'::text)" in by_time[1].split("->")[0], plan


async def test_a_window_of_more_rows_than_the_latest_it_orders_is_searched_through_the_index(db, recall, monkeypatch):
    """A window holding more of the agent's rows than the window channel orders exactly
    (plans.WINDOW_LATEST, lowered here from 5,000 so that a test can hold such a window),
    in an agent the index serves, is searched through the HNSW index, filtered to the window:
    its nearest rows, not the nearest of its latest. A narrower window, or an agent scanned
    exactly, is counted as before."""
    from hindsight.recall.search import Recall
    from hindsight.rules import timeparse

    await _fill(db, "big", plans.EXACT_ALWAYS + 500, np.random.default_rng(8))
    await _fill(db, "small", 40, np.random.default_rng(9))
    await _sql(db, "ANALYZE memories")
    year = timeparse.resolve("this year", datetime.now(timezone.utc), timezone.utc)
    assert await recall._plans_of("big", year) == (False, False)  # 2,500 rows: ordered exactly
    assert await recall._plans_of("small", year) == (True, False)  # scanned exactly anyway
    monkeypatch.setattr(plans, "WINDOW_LATEST", 1000)
    assert await recall._plans_of("big", year) == (False, True)
    assert await recall._plans_of("big", None) == (False, False)
    typed = Filters("big", True, datetime.now(timezone.utc), "semantic", None, None, None, None, 0.0)
    assert await recall._plans_of("big", year, typed) == (False, False)  # a caller's filter: ordered exactly

    calls: list = []
    spy = _recording(db, calls)
    found = await Recall(spy, recall.embedder).retrieve("big", "synthetic memories of this year", top_k=10)
    assert len(found["memories"]) == 10 and {m["agent_id"] for m in found["memories"]} == {"big"}
    assert all("time" in m["channels"] for m in found["memories"])
    (args,) = [args for statement, args in calls if statement == "recall_vector_hinted"]
    assert args[-1] is True  # $22: the window by the index
    async with db.session("test") as session:  # a few thousand rows: sorting them costs less (as it
        await session._conn.execute("SET enable_sort = off")  # should); switched off to ask for the plan
        sql = "EXPLAIN (ANALYZE, COSTS OFF) " + queries.get("recall_vector_hinted")
        plan = "\n".join(r[0] for r in await session._conn.fetch(sql, *args))
    scans = plan.split("Index Scan using memories_embedding_hnsw")
    assert len(scans) == 3, plan  # the vector channel's, and the window's
    assert "created_at >= " in scans[2].split("->")[0], plan  # the window's filter, in the index scan
    assert "using memories_agent_created" not in plan, plan  # the agent's latest rows are not read
