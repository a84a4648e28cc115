"""Bounded work per call: the embedder sees at most one e5 window while keyword search keeps
the whole text, and a call the client cancels stops before it writes."""

from __future__ import annotations

import asyncio

import asyncpg
import numpy as np
from mcp_client import server_command
from rawrpc import RawServer, server_env, structured

from hindsight.embedders.e5 import E5Small

LONG = " ".join(f"step {i}: the build log line number {i} says ok;" for i in range(1200))[: 32 * 1024 - 40]


def test_the_embedder_sees_the_head_that_fits_one_window(embedder: E5Small):
    head = embedder.head(LONG)
    assert LONG.startswith(head) and 500 < len(head) < 2000  # 256 tokens of this text
    assert embedder._model.token_count(head) <= embedder.max_tokens < embedder._model.token_count(LONG[: len(head) + 1])
    whole, just_head = embedder.passages([LONG, head])
    assert np.allclose(whole, just_head)  # the tail costs nothing: it is not embedded
    short = "The user prefers polars over pandas"
    assert embedder.head(short) == short
    assert (
        embedder.head("中文" * 5000)
        and embedder._model.token_count(embedder.head("中文" * 5000)) <= embedder.max_tokens
    )


async def test_keyword_search_still_finds_the_end_of_a_32_kb_memory(memories, recall):
    stored = await memories.store("a", LONG + " zebracorn", memory_type="procedural")
    found = await recall.retrieve("a", "zebracorn")
    assert found["memories"][0]["id"] == stored["id"] and "keyword" in found["memories"][0]["channels"]


async def test_a_recall_is_answered_while_a_long_store_is_still_embedding(db_url):
    server = RawServer([server_command()], server_env(HINDSIGHT_DATABASE_URL=db_url))
    await server.start()
    try:
        structured(await server.call("store_memory", {"content": "Deploys go through staging first"}))
        order = []
        _, store = server.send("tools/call", {"name": "store_memory", "arguments": {"content": LONG}})
        _, recall = server.send("tools/call", {"name": "retrieve_memory", "arguments": {"query": "deploys"}})
        await server.proc.stdin.drain()
        for name, future in (("store", store), ("recall", recall)):
            future.add_done_callback(lambda _, name=name: order.append(name))
        await asyncio.gather(store, recall)
        assert order == ["recall", "store"]  # queries do not queue behind a passage's embedding
        assert structured(recall.result())["memories"][0]["content"] == "Deploys go through staging first"
    finally:
        await server.close()


async def test_a_cancelled_call_stops_before_it_writes_and_the_server_keeps_serving(db_url):
    server = RawServer([server_command()], server_env(HINDSIGHT_DATABASE_URL=db_url))
    await server.start()
    try:
        request_id, answer = server.send(
            "tools/call", {"name": "store_memory", "arguments": {"content": LONG + " cancelcorn"}}
        )
        await server.notify("notifications/cancelled", {"requestId": request_id, "reason": "user pressed stop"})
        done, _ = await asyncio.wait([answer], timeout=5)
        assert not done  # a cancelled request is never answered
        assert structured(await server.call("list_memories", {}))["memories"] == []  # still serving
        await asyncio.sleep(2)  # had it kept running, it would have written by now
    finally:
        await server.close()
    conn = await asyncpg.connect(db_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM memories") == 0
    finally:
        await conn.close()
