"""Recall latency at 10,000 and 100,000 memories in one agent (English and Chinese mix),
with a baseline measured in the same run: one plain pgvector top-k query (embedding
included). Also bulk-load and `hindsight import` throughput.

    python benchmarks/recall_latency.py [--sizes 10000,100000] [--queries 200] [--threads 1] [--home DIR]

Embedding 100k passages would take over an hour on this machine, so the bulk load embeds
2,000 distinct texts for real and gives each stored row the embedding of its base text
plus small noise (renormalised); every row's text is unique (a numbered suffix), so the
keyword statistics and indexes are those of 100k real rows. The queries are embedded for
real, every time, as the server does.

It ends with the floor of the one round trip recall makes after the embedding (issue 33):
plain statements on the same rows, each run right after an embedding of the same question
(after recall has run it, so their pages are as warm as they can be: a lower bound), the 50
nearest memories' keys, and their rows with the columns ranking reads, beside recall's own
statement and everything it does after the embedding, and the garbage collector's full
collections during each pass (the heap settled once loaded, as the server does; `--unsettled`:
not).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import corpus


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def noisy_rows(texts, base_vectors, start, n, rng):
    """(i, content, embedding) of rows start..start+n: corpus text i % len(texts) with a
    numbered suffix (unique text), its real embedding plus small noise, renormalised."""
    for i in range(start, start + n):
        base = i % len(texts)
        vec = base_vectors[base] + rng.normal(0, 0.015, base_vectors.shape[1]).astype(np.float32)
        vec /= np.linalg.norm(vec)
        yield i, f"{texts[base]} [{i}]", vec


async def bulk_load(db, agent, texts, base_vectors, start, n, rng):
    from hindsight.data import queries
    from hindsight.data.columns import NewMemory
    from hindsight.rules.text import content_hash, keyword_text

    sql = queries.get("insert_memory")
    rows = []
    for i, content, vec in noisy_rows(texts, base_vectors, start, n, rng):
        rows.append(
            NewMemory(
                agent_id=agent,
                id=None,
                session_id=None,
                memory_type="episodic",
                content=content,
                content_hash=content_hash(content),
                embedding=vec,
                search_vector=keyword_text(content),
                metadata={"tools_used": [corpus.TOOLS[i % len(corpus.TOOLS)]]},
                tags=[],
                importance=1 + i % 5,
                created_at=None,
                expires_at=None,
                shared=False,
                dedup_key=None,
                slot=None,
                flags=None,
                sealed=None,
                strength=None,
            )
        )
    for s in range(0, len(rows), 1000):
        async with db.pool.acquire() as conn, conn.transaction():
            await conn.executemany(sql, rows[s : s + 1000])


BASELINE = "plain top 5 (baseline)"
BASELINE_SQL = "SELECT id, content FROM memories WHERE agent_id = $1 ORDER BY embedding <=> $2 LIMIT 5"


# The floor of one round trip after the embedding (issue 33): the plain statement on the same
# rows, run right after a real embedding of the same question, as recall's statement is. The
# nearest 50 (recall's CANDIDATES) by the same index as the baseline: their keys alone, and with
# the columns ranking reads of a row (candidate_rows' own, without its neighbours, decay cut
# and what each replaced).
FLOORS = {
    "plain top 5": BASELINE_SQL,
    "nearest 50, keys": "SELECT agent_id, id, embedding <=> $2 AS distance FROM memories WHERE agent_id = $1 "
    "ORDER BY embedding <=> $2 LIMIT 50",
    "nearest 50, rows": "WITH nearest AS MATERIALIZED (SELECT agent_id, id, embedding <=> $2 AS distance "
    "FROM memories WHERE agent_id = $1 ORDER BY embedding <=> $2 LIMIT 50) "
    "SELECT m.id, m.agent_id, m.session_id, m.memory_type, m.content, m.metadata, m.tags, m.importance, m.flags, "
    "m.slot, m.created_at, m.shared, m.likely_replaces, st.decay_score, st.last_accessed, m.embedding, m.project, "
    "n.distance FROM nearest n JOIN memories m ON m.agent_id = n.agent_id AND m.id = n.id "
    "JOIN memory_state st ON st.agent_id = n.agent_id AND st.id = n.id",
}


async def measure(db, recall, embedder, agent, queries, floors=False, pauses=None):
    """Baseline and retrieve per question, retrieve's stages; with `floors`, each FLOORS
    statement's wall time right after an embedding of the question (ms). `pauses`: each full
    collection of the garbage collector meanwhile is appended to it (ms)."""
    base_ms, recall_ms, stages, floor_ms = [], [], [], {name: [] for name in FLOORS}
    for q in queries[:10]:  # warm caches
        await recall.retrieve(agent, q, top_k=5)
    with full_collections(pauses if pauses is not None else []):
        for q in queries:
            t = time.perf_counter()
            vec = await embedder.query(q)
            await db.pool.fetch(BASELINE_SQL, agent, vec)
            base_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            await recall.retrieve(agent, q, top_k=5)
            recall_ms.append((time.perf_counter() - t) * 1000)
            stages.append(dict(recall.timings, after_embed=recall_ms[-1] - recall.timings.get("embed", 0.0)))
            for name, sql in FLOORS.items() if floors else ():
                vec = await embedder.query(q)
                t = time.perf_counter()
                await db.pool.fetch(sql, agent, vec)
                floor_ms[name].append((time.perf_counter() - t) * 1000)
    return base_ms, recall_ms, stages, floor_ms


@contextlib.contextmanager
def full_collections(pauses: list[float]) -> Iterator[None]:
    """Each full (oldest generation) collection of the garbage collector while inside, in ms."""
    began: list[float] = []

    def timed(phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            began[:] = [time.perf_counter()]
        elif began:
            pauses.append((time.perf_counter() - began.pop()) * 1000)

    gc.callbacks.append(timed)
    try:
        yield
    finally:
        gc.callbacks.remove(timed)


def window_queries(n: int) -> list[str]:
    """Questions that name a time holding every stored row ("this year"): recall then adds the
    window channel (recall_vector_hinted): past 5,000 rows of the window, its nearest through the
    HNSW index, filtered to the window (rules/plans.py), else the latest 5,000 by similarity."""
    from hindsight.rules.text import CJK

    return [f"今年{q}" if CJK.search(q) else f"this year: {q}" for q in corpus.queries(n, seed=5)]


# vector_sql and rows_sql: builds before the one statement after the embedding (issue 33)
STAGES = (
    "embed",
    "keyword_wait",
    "vector_sql",
    "rows_sql",
    "candidates_sql",
    "rank",
    "total",
    "after_embed",
    "candidates",
)


class Recorded:
    """The database as recall sees it, keeping the name and arguments of each statement it
    runs (one planned ahead when it runs, with the embedding it was given): the plans are then
    those of recall's own calls, not a copy of them that can drift."""

    def __init__(self, db):
        self.db, self.calls = db, []

    def __getattr__(self, attr):
        method = getattr(self.db, attr)
        if attr == "plan_ahead":
            return self._plan_ahead
        if attr not in ("fetch", "fetchrow", "fetchval"):
            return method

        async def recorded(name, *args):
            self.calls.append((name, args))
            return await method(name, *args)

        return recorded

    async def _plan_ahead(self, name, args, late):
        planned, calls = await self.db.plan_ahead(name, args, late), self.calls

        class Run:
            async def fetch(self, value):
                calls.append((name, (*args[: late - 1], value, *args[late:])))
                return await planned.fetch(value)

        return planned and Run()


WINDOW_QUERIES = 40
AFTER_EMBEDDING = ("recall_vector", "recall_vector_hinted")  # the rest run while the query is embedded
PLAN_QUERIES = 20


async def plans(db, recall, agent, queries):
    """EXPLAIN ANALYZE of each statement a retrieve runs, with the arguments recall passed,
    as prepared (custom plans), and of the plain top 5 on the same rows: the plans of the
    first query, and each statement's planning and execution times over the queries."""
    from hindsight.data import queries as catalogue
    from hindsight.recall.search import Recall

    recorded = Recorded(db)
    probe = Recall(recorded, recall.embedder, weights=recall.weights)
    first, times = {}, {}
    async with db.pool.acquire() as conn:
        for query in queries:
            recorded.calls.clear()
            await probe.retrieve(agent, query, top_k=5)
            runs = [(name, catalogue.get(name), args) for name, args in recorded.calls]
            runs.append((BASELINE, BASELINE_SQL, (agent, await recall.embedder.query(query))))
            for name, sql, args in runs:
                lines, planning, execution = await explained(conn, sql, args)
                first.setdefault(name, lines)
                times.setdefault(name, []).append((planning, execution))
    return first, times


async def explained(conn, sql, args) -> tuple[list[str], float, float]:
    """EXPLAIN ANALYZE of a statement as prepared with these arguments: its plan's lines, and
    the planning and execution times it reports (ms)."""
    lines = [r[0] for r in await conn.fetch("EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) " + sql, *args)]
    said = {line.split(":")[0]: float(line.split(":")[1].split()[0]) for line in lines if " Time: " in line}
    return lines, said["Planning Time"], said["Execution Time"]


def plan_table(size, times, n):
    print(f"\nstatements at {size} (EXPLAIN ANALYZE, {n} queries; median / p95, ms)")
    print(f"{'statement':>24} | {'when':>15} | {'per retrieve':>12} | {'planning':>15} | {'execution':>15}")
    for name, xs in times.items():
        when = "after embedding" if name in (*AFTER_EMBEDDING, BASELINE) else "while embedding"
        plan, run = [x[0] for x in xs], [x[1] for x in xs]
        print(
            f"{name:>24} | {when:>15} | {len(xs) / n:>12.2f} | {statistics.median(plan):>6.2f} / "
            f"{pct(plan, 95):>6.2f} | {statistics.median(run):>6.2f} / {pct(run, 95):>6.2f}"
        )


async def run(args, url):
    from hindsight.data.db import Database
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.embedders.e5 import E5Small
    from hindsight.recall.search import Recall
    from hindsight.services.start import settle_heap

    db = await Database.open(url, max_size=8)
    embedder = AsyncEmbedder(E5Small(args.threads))
    recall = Recall(db, embedder)
    if args.vector_candidates:
        recall.vector_candidates = args.vector_candidates
    await recall.warm()  # the lexicon, as the server loads it at start
    agent = "bench"
    texts = corpus.memories(min(2000, max(args.sizes)))  # the base texts, embedded for real
    t = time.perf_counter()
    base_vectors = np.vstack([embedder.embedder.passages(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    embed_rate = len(texts) / (time.perf_counter() - t)
    rng = np.random.default_rng(1)
    queries = corpus.queries(args.queries)
    loaded, table = await db.pool.fetchval("SELECT count(*) FROM memories WHERE agent_id = $1", agent), []
    pauses: list[tuple[object, list[float]]] = []  # per pass: the garbage collector's full collections (ms)
    for size in args.sizes:
        load_rate = 0.0  # already there (--home kept from an earlier run)
        if size > loaded:
            t = time.perf_counter()
            await bulk_load(db, agent, texts, base_vectors, loaded, size - loaded, rng)
            load_rate = (size - loaded) / (time.perf_counter() - t)
            loaded = size
            await db.pool.execute("ANALYZE memories; ANALYZE memory_terms")
        if not args.unsettled:  # as the server does once it has loaded what it holds for its lifetime
            settle_heap()
        for n in range(1, args.passes):  # the same questions again: every page they touch read once already
            pauses.append((f"{size}, {n}", []))
            base_ms, recall_ms, stages, floor_ms = await measure(
                db, recall, embedder, agent, queries, floors=True, pauses=pauses[-1][1]
            )
            table.append((f"{size}, {n}", load_rate, base_ms, recall_ms, stages, floor_ms, None, ([], [], [])))
        size_label = f"{size}, {args.passes}" if args.passes > 1 else size
        pauses.append((size_label, []))
        base_ms, recall_ms, stages, floor_ms = await measure(
            db, recall, embedder, agent, queries, floors=True, pauses=pauses[-1][1]
        )
        windowed = (await measure(db, recall, embedder, agent, window_queries(WINDOW_QUERIES)))[:3]
        times = None  # per statement (planning, execution), with --plans
        if args.plans:
            first, times = await plans(db, recall, agent, queries[:PLAN_QUERIES])
            for name, lines in first.items():
                print(f"--- plan of {name} at {size} ---\n" + "\n".join(lines), file=sys.stderr)
        table.append((size_label, load_rate, base_ms, recall_ms, stages, floor_ms, times, windowed))
        print(f"measured {size}", file=sys.stderr, flush=True)
    await db.close()
    return embed_rate, table, pauses


def import_rate(home, n=1000):
    """`hindsight import` end to end (embedding included) on n memories."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        for i, text in enumerate(corpus.memories(n, seed=99)):
            fh.write(
                json.dumps(
                    {"content": text, "timestamp": f"2024-01-01T00:{i % 60:02d}:00Z", "id": i}, ensure_ascii=False
                )
                + "\n"
            )
    exe = Path(sys.executable).parent / "hindsight"
    env = {**os.environ, "HINDSIGHT_HOME": home}
    t = time.perf_counter()
    subprocess.run(
        [str(exe), "import", fh.name, "--agent", "import-bench"], check=True, env=env, stderr=subprocess.DEVNULL
    )
    os.unlink(fh.name)
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--threads", type=int, default=None, help="embedder threads (default: as the server)")
    ap.add_argument("--plans", action="store_true", help="print EXPLAIN ANALYZE of recall's statements (stderr)")
    ap.add_argument(
        "--passes",
        type=int,
        default=1,
        help="ask the questions this many times, each pass reported (size, pass): the first touches pages the "
        "database has not read since it started, the later ones find them in its buffers",
    )
    ap.add_argument(
        "--home",
        help="keep the database in this HINDSIGHT_HOME and reuse it next time (compare two builds on the same "
        "rows: run each build's python on it in turn); the import rate is then not measured",
    )
    ap.add_argument(
        "--unsettled",
        action="store_true",
        help="leave the heap as it is after loading (the server moves it out of the garbage collector's sight: "
        "hindsight.services.start.settle_heap)",
    )
    ap.add_argument(
        "--vector-candidates",
        type=int,
        default=None,
        help="how many the statement after the embedding brings per channel (default: the build's VECTOR_CANDIDATES)",
    )
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]

    from hindsight.config import Settings
    from hindsight.data import bootstrap

    with tempfile.TemporaryDirectory(prefix="hs-latency-") as scratch:
        home = args.home or scratch
        os.environ["HINDSIGHT_HOME"] = home
        os.environ.pop("HINDSIGHT_DATABASE_URL", None)
        url = bootstrap.prepare(Settings.from_env())
        try:
            embed_rate, table, pauses = asyncio.run(run(args, url))
            imp = float("nan") if args.home else import_rate(home, n=min(1000, max(args.sizes)))
        finally:
            from hindsight.data import pg_embedded as embedded

            embedded.release()  # stop the embedded server before its folder is removed

    print(
        f"\nrecall latency, one agent, {args.queries} queries (EN/ZH), embedder threads "
        f"{os.environ.get('OMP_NUM_THREADS', '1')}"
    )
    print(
        f"{'memories':>9} | {'baseline p50':>12} {'p95':>6} | {'retrieve p50':>12} {'p95':>6} | "
        f"{'ratio p50':>9} {'p95':>5} | {'bulk rows/s':>11}"
    )
    for size, load_rate, base, rec, *_ in table:
        print(
            f"{size:>9} | {statistics.median(base):>12.1f} {pct(base, 95):>6.1f} | "
            f"{statistics.median(rec):>12.1f} {pct(rec, 95):>6.1f} | "
            f"{statistics.median(rec) / statistics.median(base):>9.2f} {pct(rec, 95) / pct(base, 95):>5.2f} | "
            f"{load_rate:>11.0f}"
        )
    print(f"passage embedding: {embed_rate:.1f} texts/s; `hindsight import` end to end: {imp:.1f} memories/s")
    print("\nwhere retrieve's time goes (median / p95, ms; candidates = rows ranked)")
    print(f"{'memories':>9} | " + " | ".join(f"{s:>16}" for s in STAGES))
    for size, _, _, _, stages, *_ in table:
        cells = []
        for name in STAGES:
            xs = [st.get(name, 0.0) for st in stages]
            cells.append(f"{statistics.median(xs):>7.1f} / {pct(xs, 95):>6.1f}")
        print(f"{size:>9} | " + " | ".join(cells))
    print(
        "\nafter the embedding: recall against the floor of one round trip (each statement right after an"
        " embedding of the question; median / p95, ms)"
    )
    for size, _, _, _, stages, floor_ms, *_ in table:
        cells = {"retrieve, all after the embedding": [st["after_embed"] for st in stages]}
        cells["retrieve, its statement"] = [st.get("candidates_sql", 0.0) for st in stages]
        cells.update(floor_ms)
        print(
            f"{size:>9} | " + " | ".join(f"{n} {statistics.median(x):.2f} / {pct(x, 95):.2f}" for n, x in cells.items())
        )
    print(
        "\nthe garbage collector's full collections during each pass (the baseline's and recall's questions and the"
        f" floors'){' (the heap not settled: --unsettled)' if args.unsettled else ''}"
    )
    for size, ms in pauses:
        longest = f"{max(ms):.1f}" if ms else "-"
        print(f"{size!s:>9} | {len(ms)} collections, {sum(ms):.1f} ms in all, the longest {longest} ms")
    print(f'\nquestions that name a time holding every row ("this year"; the window channel), {WINDOW_QUERIES} queries')
    for size, *_, (base, rec, stages) in table:
        if not rec:  # asked in the last pass only
            continue
        statement = [st.get("candidates_sql", 0.0) for st in stages]
        print(
            f"{size:>9} | baseline {statistics.median(base):.1f} / {pct(base, 95):.1f} | retrieve "
            f"{statistics.median(rec):.1f} / {pct(rec, 95):.1f} | statement after the embedding "
            f"{statistics.median(statement):.1f} / {pct(statement, 95):.1f} ms (median / p95)"
        )
    for size, *_, times, _ in table:
        if times is not None:
            plan_table(size, times, min(PLAN_QUERIES, args.queries))


if __name__ == "__main__":
    main()
