"""Many clients storing to one agent at once: stores per second against the embedder's own
passage rate in the same run, and whether every write landed once.

    python benchmarks/store_throughput.py [--clients 8] [--texts 240] [--memories 10000] [--home DIR]

One process holds what a team's server holds: one pool of 8 connections and one embedder,
shared by every client. The agent first holds `--memories` memories (loaded as
recall_latency.py loads them). Then:

1. the embedder alone: the same texts embedded one after another, as the write path embeds
   them (passages per second);
2. `--clients` clients store `--texts` new texts through `Memories.store` (the write policy,
   the duplicate and supersession checks, the agent's write lock), every text sent twice, by
   two different clients, so that each write races its twin.

Reports both rates and their ratio (the target is at least 0.8), store p50 / p95, and the
audit: each text current exactly once, both of its calls answered with that memory's id.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import corpus
from recall_latency import bulk_load, pct

AGENT = "bench"


def texts(n: int) -> list[str]:
    """Distinct texts: corpus sentences, each with its own numbers (no two are near-duplicates)."""
    stamp = time.time_ns() % 10**9
    return [f"{t} (note {stamp}-{i}, build {i * 7919 % 100003})" for i, t in enumerate(corpus.memories(n, seed=3))]


async def embedder_rate(embedder, sample: list[str]) -> float:
    started = time.perf_counter()
    for text in sample:
        await embedder.passage(text)
    return len(sample) / (time.perf_counter() - started)


async def stores(memories, batch: list[str], clients: int) -> tuple[float, list[float], list[tuple[str, dict]]]:
    """Every text twice, by two clients; returns (seconds, latencies in ms, (text, answer))."""
    calls = [(t, c) for i, t in enumerate(batch) for c in (i % clients, (i + clients // 2) % clients)]
    queues: list[list[str]] = [[] for _ in range(clients)]
    for text, c in calls:
        queues[c].append(text)
    took: list[float] = []
    answers: list[tuple[str, dict]] = []

    async def client(mine: list[str]) -> None:
        for text in mine:
            started = time.perf_counter()
            answers.append((text, await memories.store(AGENT, text)))
            took.append((time.perf_counter() - started) * 1000)

    began = time.perf_counter()
    await asyncio.gather(*(client(q) for q in queues))
    return time.perf_counter() - began, took, answers


async def audit(db, answers: list[tuple[str, dict]]) -> dict:
    """Each text current once, and both of its calls answered with that memory's id."""
    ids_by_text: dict[str, set] = {}
    for text, answer in answers:
        ids_by_text.setdefault(text, set()).add(answer["id"])
    rows = await db.pool.fetch(
        "SELECT content, count(*) AS n, min(id::text) AS id FROM memories "
        "WHERE agent_id = $1 AND invalidated_at IS NULL AND content = ANY($2::text[]) GROUP BY content",
        AGENT,
        list(ids_by_text),
    )
    found = {r["content"]: (r["n"], r["id"]) for r in rows}
    return {
        "texts": len(ids_by_text),
        "lost": sorted(t for t in ids_by_text if t not in found),
        "stored twice": sorted(t for t, (n, _) in found.items() if n > 1),
        "answered with another id": sorted(t for t, ids in ids_by_text.items() if ids != {found.get(t, (0, None))[1]}),
    }


def under_lock(memories) -> list[float]:
    """Times each write's work under the lock (Memories._write, which runs right after
    begin_write takes it), in ms."""
    held: list[float] = []
    inner = memories._write

    async def timed(*a, **k):
        started = time.perf_counter()
        try:
            return await inner(*a, **k)
        finally:
            held.append((time.perf_counter() - started) * 1000)

    memories._write = timed
    return held


async def run(args, url) -> None:
    from hindsight.config import Settings
    from hindsight.data.db import Database
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.embedders.e5 import E5Small
    from hindsight.store.memories import Memories
    from hindsight.store.prepare import WritePolicy

    db = await Database.open(url, max_size=8)
    embedder = AsyncEmbedder(E5Small())
    memories = Memories(db, embedder, WritePolicy.from_settings(Settings.from_env()), reads=db)
    loaded = await db.pool.fetchval("SELECT count(*) FROM memories WHERE agent_id = $1", AGENT)
    if loaded < args.memories:
        base = corpus.memories(min(2000, args.memories))
        vectors = np.vstack([embedder.embedder.passages(base[i : i + 64]) for i in range(0, len(base), 64)])
        await bulk_load(db, AGENT, base, vectors, loaded, args.memories - loaded, np.random.default_rng(1))
        await db.pool.execute("ANALYZE memories; ANALYZE memory_terms")
    held = under_lock(memories)
    warm = texts(16)
    for text in warm:  # statements prepared, caches filled
        await memories.store(AGENT, text)
    batch = texts(args.texts)
    rate = await embedder_rate(embedder, [f"{t} (alone)" for t in batch[: min(len(batch), 120)]])
    held.clear()
    seconds, took, answers = await stores(memories, batch, args.clients)
    found = await audit(db, answers)
    await db.close()
    per_second = len(answers) / seconds
    print(
        f"\n{args.clients} clients, {found['texts']} texts each stored twice ({len(answers)} calls), "
        f"one agent of {loaded if loaded >= args.memories else args.memories} memories, "
        f"embedder threads {os.environ.get('OMP_NUM_THREADS', 'default')}"
    )
    print(f"embedder alone: {rate:.1f} passages/s")
    print(
        f"stores: {per_second:.1f} /s, ratio to the embedder {per_second / rate:.2f}; "
        f"latency p50 {statistics.median(took):.0f} ms, p95 {pct(took, 95):.0f} ms"
    )
    print(
        f"under the agent's write lock (from the lock taken to the last statement before commit): "
        f"p50 {statistics.median(held):.1f} ms, p95 {pct(held, 95):.1f} ms, "
        f"{sum(held) / 1000 / seconds:.0%} of the run's time"
    )
    print(
        f"audit: lost {len(found['lost'])}, stored twice {len(found['stored twice'])}, "
        f"answered with another id {len(found['answered with another id'])}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--texts", type=int, default=240)
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--home", help="keep the database in this HINDSIGHT_HOME")
    args = ap.parse_args()

    from hindsight.config import Settings
    from hindsight.data import bootstrap
    from hindsight.data import pg_embedded as embedded

    with tempfile.TemporaryDirectory(prefix="hs-stores-") as scratch:
        os.environ["HINDSIGHT_HOME"] = args.home or scratch
        os.environ.pop("HINDSIGHT_DATABASE_URL", None)
        url = bootstrap.prepare(Settings.from_env())
        try:
            asyncio.run(run(args, url))
        finally:
            embedded.release()


if __name__ == "__main__":
    main()
