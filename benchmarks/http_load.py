"""Concurrent clients against one and against two stateless HTTP servers over one PostgreSQL.

    python benchmarks/http_load.py [--clients 8] [--seconds 60]

A fresh HINDSIGHT_HOME (embedded PostgreSQL); `hindsight-server --transport streamable-http`
processes; each client (the MCP SDK's streamable HTTP client, one bearer token) alternates
store_memory and retrieve_memory for the time given, round-robin over the servers, each call
on a fresh connection to a server of its turn (as a load balancer would spread them). Reports
calls/s, errors and p50 / p95 latency per setup, and checks that every acknowledged store is
in the database (lost writes).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

BIN = Path(sys.executable).parent
TOPICS = ["the staging database", "the deploy pipeline", "the flaky test", "the proxy settings", "the cache bucket"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def servers(env: dict, n: int):
    ports = [free_port() for _ in range(n)]
    procs = [
        subprocess.Popen([str(BIN / "hindsight-server"), "--transport", "streamable-http", "--port", str(p)],
                         env=env, stderr=subprocess.DEVNULL)
        for p in ports
    ]  # fmt: skip
    try:
        for port in ports:
            deadline = time.monotonic() + 180
            while True:
                with contextlib.suppress(httpx2.HTTPError):
                    if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise SystemExit("a server did not become healthy")
                time.sleep(0.5)
        yield [f"http://127.0.0.1:{p}/mcp" for p in ports]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)


async def client(n: int, urls: list[str], token: str, until: float, out: dict) -> None:
    i = 0
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        while time.monotonic() < until:
            url = urls[(n + i) % len(urls)]
            started = time.perf_counter()
            try:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        if i % 2 == 0:
                            content = f"Client {n} note {i}: {TOPICS[i % len(TOPICS)]} changed at step {i}."
                            result = await session.call_tool("store_memory", {"content": content})
                            if not result.is_error:
                                out["stored"].add(result.structured_content["id"])
                        else:
                            result = await session.call_tool(
                                "retrieve_memory", {"query": f"what about {TOPICS[i % 5]}?"}
                            )
                if result.is_error:
                    out["errors"].append(result.content[0].text[:200])
            except Exception as exc:
                out["errors"].append(f"{type(exc).__name__}: {exc}"[:200])
            out["ms"].append((time.perf_counter() - started) * 1000)
            i += 1


async def run(urls: list[str], token: str, clients: int, seconds: float) -> dict:
    out = {"stored": set(), "errors": [], "ms": []}
    until = time.monotonic() + seconds
    started = time.perf_counter()
    await asyncio.gather(*(client(n, urls, token, until, out) for n in range(clients)))
    wall = time.perf_counter() - started
    ms = sorted(out["ms"])
    return {
        "servers": len(urls),
        "calls": len(ms),
        "calls_per_s": round(len(ms) / wall, 2),
        "errors": len(out["errors"]),
        "first_errors": out["errors"][:3],
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
        "stored": out["stored"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="hs-http-load-"))
    env = {**os.environ, "HINDSIGHT_HOME": str(home), "HINDSIGHT_AGENT_ID": "load", "OMP_NUM_THREADS": "1"}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    try:
        subprocess.run([str(BIN / "hindsight"), "migrate"], env=env, check=True, capture_output=True)
        made = subprocess.run([str(BIN / "hindsight"), "token", "create", "--agent", "load", "--json"], env=env,
                              check=True, capture_output=True, text=True)  # fmt: skip
        token = json.loads(made.stdout)["token"]
        results = []
        for n in (1, 2):
            with servers(env, n) as urls:
                results.append(asyncio.run(run(urls, token, args.clients, args.seconds)))
        stored = set().union(*(r.pop("stored") for r in results))
        exported = subprocess.run([str(BIN / "hindsight"), "export", "--agent", "load"], env=env, check=True,
                                  capture_output=True, text=True).stdout  # fmt: skip
        present = {json.loads(line)["memory_id"] for line in exported.splitlines() if line.strip()}
        print(json.dumps({"clients": args.clients, "seconds": args.seconds, "runs": results}, indent=1))
        ratio = results[1]["calls_per_s"] / max(results[0]["calls_per_s"], 1e-9)
        print(f"two servers / one: {ratio:.2f}x calls/s; acknowledged stores {len(stored)}, "
              f"lost {len(stored - present)}")  # fmt: skip
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
