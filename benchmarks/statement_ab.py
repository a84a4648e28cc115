"""One statement of recall, this build's text against another revision's, on the same rows and
with the same arguments, interleaved on one held connection: what a change to sql/ costs,
without the embedder's noise around it.

    python benchmarks/statement_ab.py --against REV [--home DIR] [--size 100000] \
        [--queries 30] [--rounds 6] [--statement recall_vector]

The rows are recall_latency.py's (one agent, "bench"; `--home` shares them with it, loading
only what is missing). Recall runs each query once through a recorder that keeps the
arguments it passes to the statement; then each recorded call runs `--rounds` times under
both texts in random order: wall time (the round trip, rows decoded), and EXPLAIN ANALYZE's
planning and execution. The other revision's statement is read with `git show REV:sql/queries/…`
and its fragments expanded as the build expands its own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import recall_latency as rl  # noqa: E402


def other_statement(rev: str, name: str) -> str:
    from hindsight.data import queries

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=HERE.parent, check=True, capture_output=True, text=True).stdout

    files = [f for f in git("ls-tree", "--name-only", rev, "sql/queries/").split() if f.endswith(".sql")]
    statements = queries.catalogue({f: git("show", f"{rev}:{f}") for f in files})
    if name not in statements:
        sys.exit(f"{rev} has no statement {name!r}")
    return statements[name]


async def run(args, url) -> None:
    from hindsight.data import queries
    from hindsight.data.db import Database
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.embedders.e5 import E5Small
    from hindsight.recall.search import Recall

    texts = {"this build": queries.get(args.statement), args.against: other_statement(args.against, args.statement)}
    db = await Database.open(url, max_size=4)
    embedder = AsyncEmbedder(E5Small(None))
    agent = "bench"
    loaded = await db.pool.fetchval("SELECT count(*) FROM memories WHERE agent_id = $1", agent)
    if loaded < args.size:
        base = corpus.memories(min(2000, args.size))
        vectors = np.vstack([embedder.embedder.passages(base[i : i + 64]) for i in range(0, len(base), 64)])
        await rl.bulk_load(db, agent, base, vectors, loaded, args.size - loaded, np.random.default_rng(1))
        await db.pool.execute("ANALYZE memories; ANALYZE memory_terms")
    recorded = rl.Recorded(db)
    recall = Recall(recorded, embedder)
    calls = []
    for query in corpus.queries(args.queries):
        recorded.calls.clear()
        await recall.retrieve(agent, query, top_k=5)
        calls += [a for name, a in recorded.calls if name == args.statement]
    if not calls:
        sys.exit(f"recall did not run {args.statement} for these queries")
    arity = {k: max(int(n) for n in re.findall(r"\$(\d+)", t)) for k, t in texts.items()}  # a revision may
    # take fewer parameters (recall_vector_hinted gained $22): each text gets the first it takes
    wall: dict[str, list[float]] = {k: [] for k in texts}
    plan: dict[str, list[float]] = {k: [] for k in texts}
    execution: dict[str, list[float]] = {k: [] for k in texts}
    order = random.Random(7)
    async with db.pool.acquire() as conn:
        for _ in range(args.rounds):
            for call in calls:
                for build in order.sample(list(texts), len(texts)):
                    started = time.perf_counter()
                    await conn.fetch(texts[build], *call[: arity[build]])
                    wall[build].append((time.perf_counter() - started) * 1000)
                    _, planning, executing = await rl.explained(conn, texts[build], call[: arity[build]])
                    plan[build].append(planning)
                    execution[build].append(executing)
    await db.close()
    rows = max(loaded, args.size)
    print(
        f"\n{args.statement} at {rows} memories, {len(calls)} recorded calls x {args.rounds} rounds (median / p95, ms)"
    )
    print(f"{'build':>12} | {'wall':>15} | {'planning':>15} | {'execution':>15}")
    for build in texts:
        print(
            f"{build:>12} | "
            + " | ".join(
                f"{statistics.median(xs):>6.2f} / {rl.pct(xs, 95):>6.2f}"
                for xs in (wall[build], plan[build], execution[build])
            )
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", required=True, help="the git revision whose statement to compare")
    ap.add_argument("--statement", default="recall_vector")
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--home", help="the HINDSIGHT_HOME whose rows to use (recall_latency.py --home DIR makes them)")
    args = ap.parse_args()

    from hindsight.config import Settings
    from hindsight.data import bootstrap

    with tempfile.TemporaryDirectory(prefix="hs-statement-") as scratch:
        os.environ["HINDSIGHT_HOME"] = args.home or scratch
        os.environ.pop("HINDSIGHT_DATABASE_URL", None)
        url = bootstrap.prepare(Settings.from_env())
        try:
            asyncio.run(run(args, url))
        finally:
            from hindsight.data import pg_embedded as embedded

            embedded.release()


if __name__ == "__main__":
    main()
