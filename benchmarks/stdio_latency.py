"""p50/p95 of store_memory and retrieve_memory through the MCP stdio client, against the
real `hindsight-server` subprocess on a fresh embedded database.

    python benchmarks/stdio_latency.py [--memories 1000] [--queries 200] [--server PATH]

--server runs another build of the server (e.g. an older commit installed in its own
virtualenv) so two versions can be compared in the same session on the same machine.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpus
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--server", help="hindsight-server executable (default: the one beside this Python)")
    args = ap.parse_args()

    home = tempfile.mkdtemp(prefix="hs-bench-")
    exe = Path(sys.executable).parent / "hindsight-server"
    env = {
        "HINDSIGHT_HOME": home,
        "OMP_NUM_THREADS": "1",
        "HINDSIGHT_LOG_LEVEL": "WARNING",
        "PATH": os.environ.get("PATH", ""),
    }
    command = args.server or str(exe if exe.exists() else "hindsight-server")
    params = StdioServerParameters(command=command, env=env)
    store_ms, recall_ms = [], []
    try:
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            for text in corpus.memories(args.memories):
                t = time.perf_counter()
                res = await s.call_tool("store_memory", {"content": text})
                store_ms.append((time.perf_counter() - t) * 1000)
                assert not res.is_error, res.content[0].text
            for q in corpus.queries(args.queries):
                t = time.perf_counter()
                res = await s.call_tool("retrieve_memory", {"query": q, "top_k": 5})
                recall_ms.append((time.perf_counter() - t) * 1000)
                assert not res.is_error, res.content[0].text
    finally:
        shutil.rmtree(home, ignore_errors=True)

    print(f"stdio MCP client -> {command}, embedded PostgreSQL, {args.memories} memories")
    print(f"{'call':<16}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}")
    for name, xs in (("store_memory", store_ms), ("retrieve_memory", recall_ms)):
        print(f"{name:<16}{len(xs):>6}{statistics.median(xs):>10.1f}{pct(xs, 95):>10.1f}{statistics.mean(xs):>10.1f}")


if __name__ == "__main__":
    asyncio.run(main())
