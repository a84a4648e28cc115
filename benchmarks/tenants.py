"""Many agents in one database: does the vector channel still return an agent's own
nearest memories when its rows are a small share of one large HNSW index?

    python benchmarks/tenants.py [--small 2000x150] [--medium 120x5000] [--large 100000]
                                 [--rows copies|mixed] [--candidates N] [--variants LIST] [--queries 40]
                                 [--home DIR] [--keep] [--plans]

One embedded PostgreSQL holds every agent (1,000,000 memories by default: 2,000 agents of
150, 120 of 5,000 and one of 100,000); a second database holds the large agent alone, so
its latency can be compared in the same run. Rows are built as benchmarks/recall_latency.py
builds them: real e5 embeddings of 2,000 corpus texts plus small per-row noise, so every
agent shares one topic space, as coding agents do; so a 100,000-row agent holds each text
about 50 times as near-copies, which no HNSW graph can order. `--rows mixed` builds each row
from two random texts instead (no near-copies), the shape of real, deduplicated memories.
The HNSW index is built after the load (timed). With --keep the data stays in --home and a
later run with the same sizes reuses it.

For sample agents of each size, each variant of the vector statement (the product's
`candidate_vector` shape over `recall_filters`, at the product's candidate count,
hindsight.recall.statement.VECTOR_CANDIDATES, or `--candidates N`) is compared with an exact
scan of the agent's rows: overlap of its top 10 with the exact top 10, rows returned, and the
statement's time (p50 / p95 ms, round trip over a pooled connection). Variants:
  before      the statement as landed, with what its pooled connections really ran with
              (hnsw.iterative_scan off, ef_search 40: the SET was lost on release)
  settings    the same statement with the intended settings (relaxed_order, ef_search 64)
  product     what recall runs now: hindsight.rules.plans.vector_plan picks an exact scan
              of the agent's rows or an index, from the agent's row count; the index is the
              agent's own when the maintenance job built it one (rules.vector_indexes: agents
              of more than 20,000 rows that are under half the table), run here before measuring
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import corpus
from recall_latency import noisy_rows, pct

ALONE_DB = "tenants_alone"


def parse_size(text: str) -> tuple[int, int]:
    count, _, size = text.partition("x")
    return int(count), int(size)


def agents(args) -> list[tuple[str, int, int]]:
    """(agent, memories, seed): the seed picks its offset into the corpus and its noise, so
    the large agent alone gets exactly the rows it has in the shared database."""
    out = [(f"small-{i:04d}", args.small[1]) for i in range(args.small[0])]
    out += [(f"medium-{i:03d}", args.medium[1]) for i in range(args.medium[0])]
    out += [("large", args.large)]
    return [(agent, size, seed) for seed, (agent, size) in enumerate(out)]


def with_db(url: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


COLUMNS = ("agent_id", "id", "content", "content_hash", "embedding", "importance", "created_at", "stored_at")


def mixed_rows(texts, vectors, size: int, rng):
    """(i, content, embedding): each row two corpus texts drawn at random, its embedding the
    two texts' embeddings summed with small noise and renormalised: no row is a near-copy of
    another (a memory product merges near-copies; no HNSW graph can order them)."""
    for i in range(size):
        a, b = rng.integers(len(texts), size=2)
        vec = vectors[a] + vectors[b] + rng.normal(0, 0.015, vectors.shape[1]).astype(np.float32)
        yield i, f"{texts[a]} {texts[b]} [{i}]", vec / np.linalg.norm(vec)


def rows_of(agent: str, size: int, seed: int, texts, vectors, when: datetime, shape: str = "copies"):
    """An agent's rows as COPY records; its seed picks its corpus offset and its noise, so the
    large agent alone gets the same rows. `copies`: as recall_latency.bulk_load writes them
    (each corpus text again every 2,000 rows, plus noise); `mixed`: mixed_rows."""
    import uuid

    from hindsight.rules.text import content_hash

    rng = np.random.default_rng(seed)
    made = (
        mixed_rows(texts, vectors, size, rng)
        if shape == "mixed"
        else noisy_rows(texts, vectors, seed * 7919, size, rng)
    )
    for i, content, vec in made:
        yield (agent, uuid.uuid4(), content, content_hash(content), vec, 1 + i % 5, when, when)


async def load(db, plan, texts, vectors, shape: str = "copies") -> float:
    """Every agent's rows by COPY with the triggers off (this measures the vector channel:
    the keyword postings, tools and history the triggers keep are not needed), then each
    row's memory_state as the insert trigger would write it. A row-by-row load through
    insert_memory runs at about 300-800 rows/s here."""
    started = time.perf_counter()
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    async with db.pool.acquire() as conn:
        await conn.execute("SET session_replication_role = replica")
        await conn.execute("ALTER TABLE memories ALTER COLUMN search_vector SET DEFAULT ''::tsvector")
        batch = []
        for agent, size, seed in plan:
            batch.extend(rows_of(agent, size, seed, texts, vectors, when, shape))
            if len(batch) >= 20_000:
                await conn.copy_records_to_table("memories", records=batch, columns=COLUMNS)
                batch = []
        if batch:
            await conn.copy_records_to_table("memories", records=batch, columns=COLUMNS)
        await conn.execute("ALTER TABLE memories ALTER COLUMN search_vector DROP DEFAULT")
        await conn.execute(
            "INSERT INTO memory_state (agent_id, id, decay_score, stored_at, strength, importance, current, "
            "memory_type) SELECT agent_id, id, strength, stored_at, strength, importance, invalidated_at IS NULL, "
            "memory_type FROM memories"
        )
        await conn.execute("RESET session_replication_role")
    return time.perf_counter() - started


async def build_index(db) -> float:
    started = time.perf_counter()
    async with db.pool.acquire() as conn:
        await conn.execute("SET maintenance_work_mem = '6GB'; SET max_parallel_maintenance_workers = 1")
        await conn.execute(
            "CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)", timeout=7200
        )
        await conn.execute("RESET maintenance_work_mem; RESET max_parallel_maintenance_workers")
        await conn.execute("VACUUM ANALYZE memories", timeout=3600)
        await conn.execute("ANALYZE memory_state")
    return time.perf_counter() - started


async def prepare(url: str, plan, texts, vectors, rebuild: bool, shape: str = "copies") -> dict:
    from hindsight.data.db import Database

    db = await Database.open(url, max_size=4)
    try:
        have = await db.pool.fetchval("SELECT count(*) FROM memories")
        want = sum(size for _, size, _ in plan)
        indexed = await db.pool.fetchval("SELECT to_regclass('memories_embedding_hnsw') IS NOT NULL")
        if have == want and not rebuild:
            if indexed:
                return {"rows": have, "reused": True}
            return {"rows": have, "index_s": await build_index(db), "reused": "rows"}
        await db.pool.execute("TRUNCATE memories CASCADE")
        await db.pool.execute("DROP INDEX IF EXISTS memories_embedding_hnsw")
        async with db.session("dropping agent indexes") as session:  # the agents' own, from a run before
            for r in await session.fetch("agent_indexes"):
                await session.execute_built("agent_index_drop", r["name"])
        load_s = await load(db, plan, texts, vectors, shape)
        index_s = await build_index(db)
        return {"rows": want, "load_s": load_s, "index_s": index_s, "reused": False}
    finally:
        await db.close()


async def agent_indexes(url: str) -> dict:
    """What the maintenance job builds for the large agents (rules.vector_indexes), timed."""
    from hindsight.data.db import Database
    from hindsight.upkeep.agent_indexes import refresh

    db = await Database.open(url, max_size=1)
    try:
        report = await refresh(db)
        async with db.pool.acquire() as conn:
            await conn.execute("ANALYZE memories")
        return report
    finally:
        await db.close()


def statement() -> str:
    """The product's vector channel ($1-$12 and the plan flag $13) as a statement of its own."""
    from hindsight.data import queries

    return "WITH " + queries.get("candidate_vector") + "\nSELECT id FROM vector ORDER BY rank"


def landed_statement() -> str:
    """The vector channel as it was before the plan flag: the index for every agent."""
    from hindsight.data import queries

    filters = "\n".join("          " + line for line in queries.get("recall_filters").splitlines())
    return (
        "WITH vector AS (SELECT agent_id, id, row_number() OVER () AS rank FROM ("
        "SELECT agent_id, id FROM memories WHERE (agent_id = $1 OR ($2 AND shared))\n"
        f"{filters}\n ORDER BY embedding <=> $12 LIMIT $11) nearest)\n"
        "SELECT id FROM vector ORDER BY rank"
    )


EXACT = "SELECT id FROM memories WHERE agent_id = $1 ORDER BY (embedding <=> $2) + 0 LIMIT 10"
BEFORE_SETTINGS = "SET hnsw.iterative_scan = off; SET hnsw.ef_search = 40"
INTENDED_SETTINGS = "SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 64"


async def variant_runs(conn, agent: str, size: int, total: int, vecs, name: str, truths: dict, limit: int):
    """(overlap@10, rows, ms) per query for one agent and one variant."""
    from hindsight.recall.request import Filters
    from hindsight.rules.plans import vector_plan

    filters = Filters(agent, True, datetime.now(timezone.utc), None, None, None, None, None, 0.3)
    if name in ("before", "settings"):
        await conn.execute(BEFORE_SETTINGS if name == "before" else INTENDED_SETTINGS)
        sql, extra = landed_statement(), ()
    else:  # the product's plan, at its own settings or at another ef_search ("ef=200")
        await conn.execute("RESET hnsw.iterative_scan; RESET hnsw.ef_search")
        if name.startswith("ef="):
            await conn.execute(f"SET hnsw.ef_search = {int(name[3:])}")
        sql, extra = statement(), (vector_plan(size, total) == "exact",)
    out = []
    for n, vec in enumerate(vecs):
        if (agent, n) not in truths:
            truths[agent, n] = [r["id"] for r in await conn.fetch(EXACT, agent, vec)]
        truth = truths[agent, n]
        started = time.perf_counter()
        got = [r["id"] for r in await conn.fetch(sql, *filters, limit, vec, *extra)]
        ms = (time.perf_counter() - started) * 1000
        out.append((len(set(got[:10]) & set(truth)) / max(len(truth), 1), len(got), ms))
    await conn.execute("RESET hnsw.iterative_scan; RESET hnsw.ef_search")
    return out


async def measure(url: str, samples: list[tuple[str, int]], total: int, vecs, variants, limit: int) -> dict:
    from hindsight.data.db import Database

    db = await Database.open(url, max_size=1)
    table, truths = {}, {}
    try:
        async with db.pool.acquire() as conn:
            # warm the caches the way a running server that serves them all has them: one agent
            # of each size, so the large agent's own index is not read cold by the first variant
            for agent, size in {size: (agent, size) for agent, size in samples}.values():
                await variant_runs(conn, agent, size, total, vecs[:5], "product", truths, limit)
            for name in variants:
                for agent, size in samples:
                    runs = await variant_runs(conn, agent, size, total, vecs, name, truths, limit)
                    table.setdefault((name, size), []).extend(runs)
    finally:
        await db.close()
    return table


async def explain(url: str, agent: str, size: int, total: int, vec, limit: int) -> list[str]:
    from hindsight.data.db import Database
    from hindsight.recall.request import Filters
    from hindsight.rules.plans import vector_plan

    filters = Filters(agent, True, datetime.now(timezone.utc), None, None, None, None, None, 0.3)
    plan = vector_plan(size, total)
    db = await Database.open(url, max_size=1)
    try:
        async with db.pool.acquire() as conn:
            args = (*filters, limit, vec, plan == "exact")
            await conn.fetch(statement(), *args)
            rows = await conn.fetch("EXPLAIN (ANALYZE, BUFFERS) " + statement(), *args)
        return [f"the vector channel ({plan}) for {agent}, {size} memories of {total}:"] + [r[0] for r in rows]
    finally:
        await db.close()


def report(title: str, table: dict, limit: int) -> None:
    print(f"\n{title}")
    rows_of = f"rows of {limit}"
    print(f"{'variant':>9} | {'agent size':>10} | {'overlap@10':>10} | {rows_of:>10} | {'p50 ms':>7} | {'p95 ms':>7}")
    for (name, size), runs in table.items():
        overlap = statistics.mean(r[0] for r in runs)
        rows = statistics.mean(r[1] for r in runs)
        ms = [r[2] for r in runs]
        print(
            f"{name:>9} | {size:>10} | {overlap:>10.3f} | {rows:>10.1f} | {statistics.median(ms):>7.2f} | "
            f"{pct(ms, 95):>7.2f}"
        )


async def run(args, url: str, alone_url: str) -> None:
    from hindsight.embedders.e5 import E5Small

    embedder = E5Small(1)
    texts = corpus.memories(args.texts)
    vectors = np.vstack([embedder.passages(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    vecs = [embedder.query(q) for q in corpus.queries(args.queries)]
    plan = agents(args)
    total = sum(size for _, size, _ in plan)
    shared = await prepare(url, plan, texts, vectors, args.rebuild, args.rows)
    alone = await prepare(alone_url, plan[-1:], texts, vectors, args.rebuild, args.rows)
    print(f"shared database: {shared}; the large agent alone: {alone}", flush=True)
    for where, at in (("shared database", url), ("the large agent alone", alone_url)):
        print(f"{where}, the maintenance job's agent indexes: {await agent_indexes(at)}", flush=True)
    samples = [(a, n) for a, n, _ in plan if a.startswith("small-")][: args.sample]
    samples += [(a, n) for a, n, _ in plan if a.startswith("medium-")][: max(args.sample // 2, 1)]
    samples += [("large", args.large)]
    variants = (*args.variants, *(f"ef={n}" for n in args.efs))
    table = await measure(url, samples, total, vecs, variants, args.candidates)
    by_alone = await measure(alone_url, [("large", args.large)], args.large, vecs, variants, args.candidates)
    report(
        f"{total:,} memories ({args.rows} rows) across {len(plan):,} agents, {args.queries} queries per sample agent",
        table,
        args.candidates,
    )
    report(f"the large agent alone in its database ({args.large:,} memories)", by_alone, args.candidates)
    for name in variants:
        shared_p95 = pct([r[2] for r in table[(name, args.large)]], 95)
        alone_p95 = pct([r[2] for r in by_alone[(name, args.large)]], 95)
        print(
            f"{name}: the large agent's p95 shared / alone = {shared_p95:.2f} / {alone_p95:.2f} ms "
            f"= {shared_p95 / alone_p95:.2f}x"
        )
    if args.plans:
        small = samples[0]
        for agent, size in (small, ("large", args.large)):
            print("\n" + "\n".join(await explain(url, agent, size, total, vecs[0], args.candidates)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", type=parse_size, default=(2000, 150), help="COUNTxSIZE (default 2000x150)")
    ap.add_argument("--medium", type=parse_size, default=(120, 5000), help="COUNTxSIZE (default 120x5000)")
    ap.add_argument("--large", type=int, default=100_000, help="memories of the one large agent")
    ap.add_argument(
        "--texts", type=int, default=2000, help="corpus texts embedded for real (the rows are noisy copies)"
    )
    ap.add_argument("--queries", type=int, default=40, help="queries per sample agent")
    ap.add_argument("--sample", type=int, default=20, help="small agents sampled (half as many medium)")
    ap.add_argument(
        "--rows",
        choices=("copies", "mixed"),
        default="copies",
        help="copies: each corpus text again every 2,000 rows plus noise (recall_latency's rows); mixed: each "
        "row two random texts summed (no near-copies). Give each shape its own --home",
    )
    ap.add_argument("--home", help="HINDSIGHT_HOME of the data (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep --home for the next run")
    ap.add_argument("--rebuild", action="store_true", help="load again even when --home has the data")
    ap.add_argument("--plans", action="store_true", help="EXPLAIN ANALYZE for a small and the large agent")
    ap.add_argument(
        "--efs",
        type=lambda t: [int(x) for x in t.split(",") if x],
        default=[],
        help="also the product's plan at these hnsw.ef_search values, e.g. 100,200",
    )
    ap.add_argument(
        "--variants",
        type=lambda t: [x for x in t.split(",") if x],
        default=["before", "settings", "product"],
        help="which of before, settings, product to run, in this order (default: all three). The first two "
        "walk the shared index for the large agent and push its own index out of the cache: product alone "
        "measures it as a server that serves only the product's statement has it",
    )
    ap.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="rows the vector statement brings (default: the product's, recall.statement.VECTOR_CANDIDATES)",
    )
    args = ap.parse_args()
    if not set(args.variants) <= {"before", "settings", "product"}:
        ap.error(f"--variants: one or more of before, settings, product, not {','.join(args.variants)}")
    if args.candidates is None:
        from hindsight.recall.statement import VECTOR_CANDIDATES

        args.candidates = VECTOR_CANDIDATES
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    from hindsight.config import Settings
    from hindsight.data import bootstrap, migrate
    from hindsight.data import pg_embedded as embedded
    from hindsight.data.db import ensure_pgvector

    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="hs-tenants-"))
    os.environ["HINDSIGHT_HOME"] = str(home)
    os.environ.pop("HINDSIGHT_DATABASE_URL", None)
    try:
        url = bootstrap.prepare(Settings.from_env())
        alone_url = with_db(url, ALONE_DB)
        asyncio.run(create_database(url, ALONE_DB))
        asyncio.run(ensure_pgvector(alone_url))
        migrate.upgrade(alone_url)
        asyncio.run(run(args, url, alone_url))
    finally:
        embedded.release()
        if not args.keep:
            import shutil

            shutil.rmtree(home, ignore_errors=True)


async def create_database(url: str, name: str) -> None:
    from hindsight.data.db import connect_once

    conn = await connect_once(url)
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


if __name__ == "__main__":
    main()
