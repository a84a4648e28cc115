"""Recall under a mixed load of concurrent clients, against a plain-vector baseline under
the same load in the same run.

    python benchmarks/concurrent_load.py [--clients 8] [--memories 100000] [--ops 48] [--rounds 2] [--home DIR]

One process holds what a team's server holds: one database pool (8 connections, as
`hindsight-server`), one embedder, shared by every client, as over HTTP. Each client runs
`--ops` operations back to back: three retrieves, then a store, and again. Two setups take
turns, `--rounds` times each, on the same rows:

- plain: the question embedded and one pgvector top-5 statement; a store embedded and one
  INSERT;
- hindsight: `Recall.retrieve(top_k=5)` and `Memories.store` (the write policy, dedup and
  supersession checks), as the tools call them.

The rows are loaded as `recall_latency.py` loads them (2,000 texts embedded for real, the
rest their noisy copies); `--home` keeps them for the next run. Every question is embedded
for real (no cache of query vectors, in both setups). Reports retrieve and store p50 / p95
per setup and their ratios, and where hindsight's retrieve time goes under load.
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
PLAIN_TOP5 = "SELECT id, content FROM memories WHERE agent_id = $1 ORDER BY embedding <=> $2 LIMIT 5"
# vector_sql and rows_sql: builds before the one statement after the embedding (issue 33)
STAGES = ("embed", "keyword_wait", "vector_sql", "rows_sql", "candidates_sql", "rank", "total")


class Plain:
    """The baseline: embed, then one statement."""

    def __init__(self, db, embedder):
        self.db, self.embedder = db, embedder

    async def retrieve(self, query: str) -> dict:
        vec = await self.embedder.query(query)
        await self.db.pool.fetch(PLAIN_TOP5, AGENT, vec)
        return {}

    async def store(self, text: str) -> None:
        from hindsight.rules.text import content_hash, keyword_text

        vec = await self.embedder.passage(text)
        await self.db.pool.execute(
            "INSERT INTO memories (agent_id, memory_type, content, content_hash, embedding, search_vector) "
            "VALUES ($1, 'episodic', $2, $3, $4, to_tsvector('english', $5))",
            AGENT,
            text,
            content_hash(text),
            vec,
            keyword_text(text),
        )


class Hindsight:
    """What the tools call."""

    def __init__(self, recall, memories):
        self.recall, self.memories = recall, memories

    async def retrieve(self, query: str) -> dict:
        await self.recall.retrieve(AGENT, query, top_k=5)
        return dict(self.recall.timings)

    async def store(self, text: str) -> None:
        await self.memories.store(AGENT, text)


async def load(setup, clients: int, ops: int, questions: list[str], texts: list[str]) -> dict:
    """`clients` concurrent clients, `ops` operations each (every fourth a store)."""
    retrieve_ms: list[float] = []
    store_ms: list[float] = []
    stages: list[dict] = []
    gate = asyncio.Event()

    async def client(c: int) -> None:
        await gate.wait()
        for k in range(ops):
            started = time.perf_counter()
            if k % 4 == 3:
                await setup.store(texts.pop())
                store_ms.append((time.perf_counter() - started) * 1000)
            else:
                timings = await setup.retrieve(questions[(c * ops + k) % len(questions)])
                retrieve_ms.append((time.perf_counter() - started) * 1000)
                stages.append(timings)

    tasks = [asyncio.ensure_future(client(c)) for c in range(clients)]
    began = time.perf_counter()
    gate.set()
    await asyncio.gather(*tasks)
    return {
        "retrieve": retrieve_ms,
        "store": store_ms,
        "stages": stages,
        "seconds": time.perf_counter() - began,
    }


async def run(args, url) -> list[tuple[str, dict]]:
    from hindsight.config import Settings
    from hindsight.data.db import Database
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.embedders.e5 import E5Small
    from hindsight.recall.search import Recall
    from hindsight.services.start import settle_heap
    from hindsight.store.memories import Memories
    from hindsight.store.prepare import WritePolicy

    db = await Database.open(url, max_size=8)
    embedder = AsyncEmbedder(E5Small(args.threads))
    recall = Recall(db, embedder)
    if args.vector_candidates:
        recall.vector_candidates = args.vector_candidates
    await recall.warm()
    memories = Memories(db, embedder, WritePolicy.from_settings(Settings.from_env()), reads=db)
    loaded = await db.pool.fetchval("SELECT count(*) FROM memories WHERE agent_id = $1", AGENT)
    if loaded < args.memories:
        base = corpus.memories(min(2000, args.memories))
        vectors = np.vstack([embedder.embedder.passages(base[i : i + 64]) for i in range(0, len(base), 64)])
        await bulk_load(db, AGENT, base, vectors, loaded, args.memories - loaded, np.random.default_rng(1))
        await db.pool.execute("ANALYZE memories; ANALYZE memory_terms")
    questions = corpus.queries(200)
    fresh = [f"{t} (run {time.time_ns()})" for t in corpus.memories(args.clients * args.ops * args.rounds + 16, seed=7)]
    setups = {"plain": Plain(db, embedder), "hindsight": Hindsight(recall, memories)}
    for setup in setups.values():  # warm: statements prepared, caches filled
        await load(setup, 2, 4, questions[-20:], fresh)
    if not args.unsettled:  # as the server does once it has loaded what it holds for its lifetime
        settle_heap()
    results = []
    for _ in range(args.rounds):
        for name, setup in setups.items():
            results.append((name, await load(setup, args.clients, args.ops, questions, fresh)))
            print(f"{name}: {results[-1][1]['seconds']:.1f} s", file=sys.stderr, flush=True)
    await db.close()
    return results


def report(args, results: list[tuple[str, dict]]) -> None:
    merged: dict[str, dict] = {}
    for name, r in results:
        into = merged.setdefault(name, {"retrieve": [], "store": [], "stages": [], "seconds": 0.0})
        for key in ("retrieve", "store", "stages"):
            into[key] += r[key]
        into["seconds"] += r["seconds"]
    print(
        f"\n{args.clients} clients, {args.memories} memories of one agent, {args.ops} operations each "
        f"(3 retrieves : 1 store), {args.rounds} rounds per setup, embedder threads "
        f"{os.environ.get('OMP_NUM_THREADS', 'default')}"
    )
    print(f"{'setup':<10} | {'ops/s':>6} | {'retrieve p50':>12} {'p95':>7} | {'store p50':>9} {'p95':>7}")
    for name, r in merged.items():
        n = len(r["retrieve"]) + len(r["store"])
        print(
            f"{name:<10} | {n / r['seconds']:>6.1f} | {statistics.median(r['retrieve']):>12.1f} "
            f"{pct(r['retrieve'], 95):>7.1f} | {statistics.median(r['store']):>9.1f} {pct(r['store'], 95):>7.1f}"
        )
    plain, ours = merged["plain"], merged["hindsight"]
    p50 = statistics.median(ours["retrieve"]) / statistics.median(plain["retrieve"])
    print(
        f"ratio hindsight / plain: retrieve p50 {p50:.2f}"
        f", p95 {pct(ours['retrieve'], 95) / pct(plain['retrieve'], 95):.2f}; store p50 "
        f"{statistics.median(ours['store']) / statistics.median(plain['store']):.2f}"
    )
    print("\nhindsight's retrieve under load (median / p95, ms; embed includes the wait for the embedder)")
    print(" | ".join(f"{s:>15}" for s in STAGES))
    print(
        " | ".join(
            f"{statistics.median([st.get(s, 0.0) for st in ours['stages']]):>6.1f} / "
            f"{pct([st.get(s, 0.0) for st in ours['stages']], 95):>6.1f}"
            for s in STAGES
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--ops", type=int, default=48, help="operations per client per round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None, help="embedder threads (default: as the server)")
    ap.add_argument("--home", help="keep the database in this HINDSIGHT_HOME (recall_latency.py's --home works)")
    ap.add_argument(
        "--unsettled",
        action="store_true",
        help="leave the heap as it is after loading (the server settles it: hindsight.services.start.settle_heap)",
    )
    ap.add_argument(
        "--vector-candidates",
        type=int,
        default=None,
        help="how many the statement after the embedding brings per channel (default: the build's VECTOR_CANDIDATES)",
    )
    args = ap.parse_args()

    from hindsight.config import Settings
    from hindsight.data import bootstrap
    from hindsight.data import pg_embedded as embedded

    with tempfile.TemporaryDirectory(prefix="hs-load-") as scratch:
        os.environ["HINDSIGHT_HOME"] = args.home or scratch
        os.environ.pop("HINDSIGHT_DATABASE_URL", None)
        url = bootstrap.prepare(Settings.from_env())
        try:
            results = asyncio.run(run(args, url))
        finally:
            embedded.release()
    report(args, results)


if __name__ == "__main__":
    main()
