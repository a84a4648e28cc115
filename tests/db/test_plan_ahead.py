"""Recall's statement after the embedding is planned while the query is embedded
(hindsight.data.ahead): the same rows as the statement run with parameters, planned once,
the connection given back as the pool had it, whatever the caller's values hold."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

from hindsight.data.db import Database
from hindsight.embedders.base import AsyncEmbedder
from hindsight.recall.search import Recall

NOW = datetime(2026, 6, 1, 2, 0, tzinfo=timezone.utc)
HOSTILE = "it's -- no comment\n'); DELETE FROM memories; -- \\' */ $1 $$ 中文"
TEXTS = [
    "The staging database is pg-stg-02; its password is in Vault",
    "部署之前必须先运行数据库迁移脚本",
    "pytest failed on test_login with a timeout against the staging database",
    "Prefers ruff over flake8 for new Python modules",
    f"A note that quotes a hostile string: {HOSTILE}",
]


class ByParameters:
    """The same database without plan_ahead: recall runs the statement as it did before."""

    def __init__(self, db: Database):
        self._db = db

    def __getattr__(self, name):
        if name == "plan_ahead":
            raise AttributeError(name)
        return getattr(self._db, name)


async def _fill(memories):
    for i, text in enumerate(TEXTS):
        await memories.store(
            "a",
            text,
            created_at=NOW - timedelta(days=3 + i),
            session_id=HOSTILE,
            tags=["db", HOSTILE],
            metadata={"note": HOSTILE, "tools_used": ["pytest"], "task_type": HOSTILE},
        )


def _seen(result):
    return [(m["id"], m["score"], m["similarity"]) for m in result["memories"]]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"tags": [HOSTILE]},
        {"metadata": {"note": HOSTILE}},
        {"session_id": HOSTILE, "task_type": HOSTILE, "tools": ["pytest", HOSTILE]},
        {"time_range": {"start": "2026-05-01T00:00:00Z", "end": "2026-05-30T00:00:00Z"}, "memory_type": "semantic"},
        {"project": HOSTILE.replace("\n", " ")},  # a project name holds no line break
    ],
)
async def test_a_statement_planned_ahead_returns_what_the_statement_with_parameters_returns(
    memories, db, embedder, options
):
    await _fill(memories)
    for query in ("staging database password", "数据库迁移", f"what does {HOSTILE} say?", "what failed last week?"):
        ahead = await Recall(db, AsyncEmbedder(embedder)).retrieve("a", query, top_k=5, as_of=NOW, **options)
        plain = await Recall(ByParameters(db), AsyncEmbedder(embedder)).retrieve(
            "a", query, top_k=5, as_of=NOW, **options
        )
        assert _seen(ahead) == _seen(plain), (query, options)
    if not options:
        assert _seen(ahead), "the unfiltered questions find memories"
    assert await db.pool.fetchval("SELECT count(*) FROM memories") == len(TEXTS)  # the hostile text wrote nothing


async def test_it_is_planned_once_and_the_connection_goes_back_as_the_pool_had_it(db_url, embedder):
    db = await Database.open(db_url, min_size=1, max_size=1)  # one connection: each call below reuses it
    try:
        await _fill_one(db, embedder)
        recall = Recall(db, AsyncEmbedder(embedder))
        await recall.retrieve("a", "staging database", top_k=3, as_of=NOW)  # the statement's types, once
        names, kept = [], []

        class Named:  # a planned statement; its server-side name noted before it runs
            def __init__(self, planned):
                self.planned = planned

            async def fetch(self, value):
                names.append(self.planned._statement.get_name())
                kept.append(self.planned)  # not collected: asyncpg would close its statement
                return await self.planned.fetch(value)

        class Watch:
            def __getattr__(self, name):
                async def call(statement, *args):
                    result = await getattr(db, name)(statement, *args)
                    return Named(result) if name == "plan_ahead" and result is not None else result

                return call

        result = await Recall(Watch(), AsyncEmbedder(embedder)).retrieve("a", "staging database", top_k=3, as_of=NOW)
        assert result["memories"] and len(names) == 1
        async with db.pool.acquire() as conn:
            assert await conn.fetchval("SHOW plan_cache_mode") == "force_custom_plan"
            # the statement recall ran: its generic plan chosen twice, by EXPLAIN EXECUTE while
            # the query was embedded and by the run (reused: a prepared statement keeps it),
            # and no custom plan, which the pool's force_custom_plan would have made at the run
            row = await conn.fetchrow(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1", names[0]
            )
            assert row is not None and (row["generic_plans"], row["custom_plans"]) == (2, 0)
    finally:
        await db.close()


async def _fill_one(db, embedder):
    from hindsight.store.memories import Memories

    await _fill(Memories(db, AsyncEmbedder(embedder)))


async def test_a_value_it_cannot_write_is_run_with_parameters(db_url):
    """A datetime without a zone is not written (the driver decides what it means): plan_ahead
    says so, and gives its connection back."""
    db = await Database.open(db_url, min_size=1, max_size=1)
    try:
        args = [None] * 22
        args[0], args[2] = "a", datetime(2026, 1, 1)
        assert await db.plan_ahead("recall_vector_hinted", args, 12) is None
        assert await asyncio.wait_for(db.fetchval("decay_computed_at"), 60) is None  # the one connection is back
    finally:
        await db.close()


async def test_a_recall_that_fails_after_it_was_planned_gives_its_connection_back(db_url, embedder):
    db = await Database.open(db_url, min_size=1, max_size=1)
    try:
        await _fill_one(db, embedder)
        ready = asyncio.Event()

        class Ready:
            def __getattr__(self, name):
                async def call(statement, *args):
                    result = await getattr(db, name)(statement, *args)
                    if name == "plan_ahead":
                        ready.set()
                    return result

                return call

        class Failing(AsyncEmbedder):
            async def query(self, text):
                await ready.wait()  # planned, holding the pool's one connection
                raise RuntimeError("the embedder broke")

        with pytest.raises(RuntimeError, match="the embedder broke"):
            await Recall(Ready(), Failing(embedder)).retrieve("a", "staging database", top_k=3, as_of=NOW)
        found = await asyncio.wait_for(
            Recall(db, AsyncEmbedder(embedder)).retrieve("a", "staging database", top_k=3, as_of=NOW), 60
        )
        assert found["memories"]
    finally:
        await db.close()


async def test_recalls_at_once_leave_the_planning_to_the_run_and_a_lone_one_plans_ahead(memories, db, embedder):
    """Planning ahead spends the database's CPU to shorten one recall's wait: beside other
    recalls that CPU is what they wait for, so recalls answered at once let the database plan
    their statement when it runs (rules.plans.plan_ahead), with the same rows."""
    await _fill(memories)
    asked: list[str] = []
    # each recall waits until both are under way, and again until both have decided how their
    # statement is planned: neither can finish before the other decides, however the cores are shared
    step_of = {"channel_keyword": "under way", "plan_ahead": "decided", "recall_vector": "decided"}
    reached = {"under way": 0, "decided": 0}
    barriers = {"under way": asyncio.Event(), "decided": asyncio.Event()}

    class Spy:
        def __getattr__(self, name):
            async def call(statement, *args):
                said = "plan_ahead" if name == "plan_ahead" else statement
                asked.append(said)
                step = step_of.get(said)
                if step is not None:
                    reached[step] += 1
                    if reached[step] == 2:
                        barriers[step].set()
                    await asyncio.wait_for(barriers[step].wait(), 60)
                return await getattr(db, name)(statement, *args)

            return call

    recall = Recall(Spy(), AsyncEmbedder(embedder))
    questions = ("staging database password", "数据库迁移")
    together = await asyncio.gather(*(recall.retrieve("a", q, top_k=3, as_of=NOW) for q in questions))
    assert "plan_ahead" not in asked and asked.count("recall_vector") == 2
    assert recall._running == 0  # both counted out
    asked.clear()
    for question, answered in zip(questions, together):
        alone = await recall.retrieve("a", question, top_k=3, as_of=NOW)
        assert _seen(alone) == _seen(answered) and _seen(alone)
    assert asked.count("plan_ahead") == 2 and "recall_vector" not in asked
