"""Nightly decay at scale: N memories (default 1,000,000) in the real schema, the decay
step of `hindsight maintain` timed, and recall latency measured before and while it runs.

    python benchmarks/decay_1m.py [--rows 1000000] [--no-hnsw] [--url postgresql://...]

Rows are synthetic (random unit vectors, short texts, access counts and last access spread
over 60 days) and bulk-loaded with triggers off; the HNSW index is rebuilt afterwards
(building it row by row would take hours, which is not what is being measured). The
report gives the decay time, how many rows changed, the share of HOT updates (no index
touched) and recall p50/p95 from a second connection before and during the decay.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

from hindsight.config import Settings
from hindsight.data import bootstrap
from hindsight.data import pg_embedded as embedded
from hindsight.data.db import Database
from hindsight.embedders.base import AsyncEmbedder, create
from hindsight.recall.search import Recall
from hindsight.upkeep.maintenance import Maintenance

LOAD = """
INSERT INTO memories (agent_id, session_id, memory_type, content, content_hash, embedding, search_vector,
                      metadata, importance, created_at, stored_at, strength)
SELECT 'agent-' || (g % $3), NULL,
       (ARRAY['episodic','semantic','procedural'])[1 + g % 3],
       'memory ' || g || ' about ' || (ARRAY['deploys','pip','polars','the billing service','vpn','ci',
                                             'postgres','the proxy','docker','release notes'])[1 + g % 10]
           || ' noted on day ' || (g % 60),
       sha256(g::text::bytea),
       (SELECT array_agg(random() - 0.5)::vector(384) FROM generate_series(1, 384) WHERE g IS NOT NULL),
       to_tsvector('english', 'memory about ' || (ARRAY['deploys','pip','polars','billing','vpn','ci',
                                                       'postgres','proxy','docker','release'])[1 + g % 10]),
       jsonb_build_object('n', g),
       1 + (g % 5), now() - ((g % 90) || ' days')::interval, now() - ((g % 90) || ' days')::interval, 1.0
FROM generate_series($1::bigint, $2::bigint) AS g
"""


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


async def stat(db: Database) -> tuple[int, int]:
    await asyncio.sleep(11)  # idle backends report their table statistics within 10 s
    row = await db.pool.fetchrow(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'memory_state'"
    )
    return row["n_tup_upd"], row["n_tup_hot_upd"]


async def recall_loop(recall: Recall, agents: int, stop: asyncio.Event, out: list[float]) -> None:
    queries = [
        "how do we deploy?",
        "pip proxy error",
        "which dataframe library?",
        "billing service timeouts",
        "vpn access",
        "postgres upgrade",
        "docker build cache",
        "release notes process",
    ]
    i = 0
    while not stop.is_set():
        t = time.perf_counter()
        await recall.retrieve(f"agent-{i % agents}", queries[i % len(queries)], top_k=5)
        out.append((time.perf_counter() - t) * 1000)
        i += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--agents", type=int, default=100)
    ap.add_argument("--no-hnsw", action="store_true", help="skip rebuilding the HNSW index")
    ap.add_argument("--url", help="an external database (default: a fresh embedded one)")
    ap.add_argument("--recall-seconds", type=float, default=20)
    args = ap.parse_args()

    home = None
    if args.url:
        url = args.url
    else:
        home = tempfile.mkdtemp(prefix="hs-decay-")
        os.environ["HINDSIGHT_HOME"] = home
        url = bootstrap.prepare(Settings.from_env())
    try:
        asyncio.run(run(url, args))
    finally:
        if home:
            embedded.release()
            shutil.rmtree(home, ignore_errors=True)


async def run(url: str, args) -> None:
    db = await Database.open(url, max_size=4)
    print(f"loading {args.rows:,} rows ...", file=sys.stderr)
    t = time.perf_counter()
    async with db.pool.acquire() as conn:
        await conn.execute("DROP INDEX IF EXISTS memories_embedding_hnsw")
        await conn.execute("SET session_replication_role = replica")  # bulk load: no triggers
        step = 50_000
        for first in range(1, args.rows + 1, step):
            await conn.execute(LOAD, first, min(first + step - 1, args.rows), args.agents, timeout=600)
        await conn.execute("SET session_replication_role = origin")
        # what the skipped triggers would have written: state rows (some recalled, some not)
        await conn.execute(
            "INSERT INTO memory_state (agent_id, id, decay_score, access_count, last_accessed, stored_at, strength, "
            "importance, current, memory_type) SELECT agent_id, id, 1.0, (hashtext(id::text) & 7) % 7, "
            "CASE WHEN hashtext(id::text) % 3 = 0 THEN NULL "
            "ELSE now() - ((abs(hashtext(id::text)) % 60) || ' days')::interval END, stored_at, strength, "
            "importance, true, memory_type FROM memories",
            timeout=3600,
        )
        await conn.execute(
            "INSERT INTO agent_stats (agent_id, n_docs, total_len) "
            "SELECT agent_id, count(*), sum(doc_len) FROM memories GROUP BY agent_id "
            "ON CONFLICT (agent_id) DO NOTHING",
            timeout=3600,
        )
    print(f"  loaded in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    if not args.no_hnsw:
        t = time.perf_counter()
        async with db.pool.acquire() as conn:
            await conn.execute("SET maintenance_work_mem = '3GB'")
            await conn.execute("SET max_parallel_maintenance_workers = 2")
            await conn.execute(
                "CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)",
                timeout=4 * 3600,
            )
        print(f"  HNSW index built in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    await db.pool.execute("VACUUM (ANALYZE) memories", timeout=3600)
    await db.pool.execute("VACUUM (ANALYZE) memory_state", timeout=3600)
    size = await db.pool.fetchrow(
        "SELECT pg_size_pretty(pg_relation_size('memory_state')) AS heap, "
        "pg_size_pretty(pg_total_relation_size('memories')) AS total, "
        "(SELECT count(*) FROM memories) AS n, "
        "(pg_relation_size('memory_state') / current_setting('block_size')::int) AS pages"
    )

    recall = Recall(db, AsyncEmbedder(create(Settings.from_env())))
    base: list[float] = []
    stop = asyncio.Event()
    loop_task = asyncio.create_task(recall_loop(recall, args.agents, stop, base))
    await asyncio.sleep(args.recall_seconds)
    stop.set()
    await loop_task

    upd0, hot0 = await stat(db)
    during: list[float] = []
    stop = asyncio.Event()
    loop_task = asyncio.create_task(recall_loop(recall, args.agents, stop, during))
    now = datetime.now(timezone.utc) + timedelta(days=1)
    t = time.perf_counter()
    report = await Maintenance(db, None).decay(now, dry_run=False)
    decay_s = time.perf_counter() - t
    stop.set()
    await loop_task
    upd1, hot1 = await stat(db)
    t = time.perf_counter()
    again = await Maintenance(db, None).decay(now, dry_run=False)
    again_s = time.perf_counter() - t

    print(
        f"memories: {size['n']:,} rows ({size['total']} with indexes and TOAST; HNSW index "
        f"{'built' if not args.no_hnsw else 'not built'}); memory_state heap {size['heap']} ({size['pages']:,} pages)"
    )
    print(
        f"decay: {report['changed']:,} rows changed in {decay_s:.1f} s "
        f"({report['changed'] / max(decay_s, 1e-9):,.0f} rows/s); HOT updates {hot1 - hot0:,} of {upd1 - upd0:,} "
        f"({(hot1 - hot0) / max(upd1 - upd0, 1):.1%})"
    )
    print(f"decay again at the same moment (idempotence): {again['changed']:,} rows changed in {again_s:.1f} s")
    for name, xs in (("recall before decay", base), ("recall during decay", during)):
        if xs:
            print(f"{name:<22} n={len(xs):>4}  p50 {statistics.median(xs):6.1f} ms  p95 {pct(xs, 95):6.1f} ms")
    await db.close()


if __name__ == "__main__":
    main()
