"""Issue 29's stall, through the real stdio server: one store of 32 KB of pathological text
(tests/shapes.py) at a time, while recalls and lists run beside it on the same server (the
client sends them while the store is in flight, as an IDE's hooks and its model do). For each
shape: how long the store took, and how long the calls beside it took against the same calls
with nothing else running (a store that takes long must not hold them up).

    python benchmarks/hostile_store.py [--size 32768] [--shapes "one letter,base64"] [--server PATH]
                                       [--limit 300]

`--server`: another build's hindsight-server (the last landing's, to reproduce the stall);
`--limit`: seconds to wait for one store before giving up on it.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from rawrpc import NoAnswer, RawServer, server_env  # noqa: E402
from shapes import SHAPES  # noqa: E402

from hindsight.data import pg_embedded as embedded  # noqa: E402

DEFAULT_SHAPES = [
    "one letter",
    "digits",
    "alternating classes",
    "dotted",
    "CJK and Latin",
    "base64",
    "minified code",
    "key=value",
    "many emails",
    "many bare keys",
    "many identifiers",
]
BESIDE = [
    ("retrieve_memory", {"query": "how do we deploy the courier service?"}),
    ("list_memories", {"limit": 5}),
    ("retrieve_memory", {"query": "上周的部署失败了吗"}),
]


def fit(text: str, size: int) -> str:
    return text.encode("utf-8")[:size].decode("utf-8", errors="ignore")


async def timed(server: RawServer, tool: str, args: dict, limit: float) -> float:
    started = time.perf_counter()
    await server.call(tool, args, timeout=limit)
    return time.perf_counter() - started


async def beside(server: RawServer, done: asyncio.Event, limit: float) -> list[float]:
    """Calls beside the store, one after another, until the store is done."""
    took: list[float] = []
    i = 0
    while not done.is_set():
        tool, args = BESIDE[i % len(BESIDE)]
        took.append(await timed(server, tool, args, limit))
        i += 1
    return took


def ms(values: list[float], q: float) -> str:
    if not values:
        return "—"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.0f}"


async def run(args) -> None:
    exe = Path(sys.executable).parent / "hindsight-server"
    command = args.server or str(exe if exe.exists() else "hindsight-server")
    root = Path(tempfile.mkdtemp(prefix="hs-hostile-"))
    url = embedded.start(root / "home")
    store = other = RawServer([command], server_env(HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID="bench"))
    try:
        await store.start()
        for i in range(30):
            await store.call("store_memory", {"content": f"The courier service deploys through GitLab CI, step {i}."})
        quiet = []
        for i in range(30):
            tool, call_args = BESIDE[i % len(BESIDE)]
            quiet.append(await timed(other, tool, call_args, args.limit))
        print(f"calls beside nothing: p50 {ms(quiet, 0.5)} ms, max {ms(quiet, 1.0)} ms ({len(quiet)} calls)\n")
        print(f"| shape ({args.size} bytes) | store s | calls beside it | p50 ms | max ms |")
        print("| --- | --- | --- | --- | --- |")
        shapes = args.shapes.split(",") if args.shapes else DEFAULT_SHAPES
        for name in shapes:
            content = fit(SHAPES[name], args.size - 12) + f" {time.time_ns() % 10**10}"
            done = asyncio.Event()
            side = asyncio.create_task(beside(other, done, args.limit))
            started = time.perf_counter()
            try:
                await store.call("store_memory", {"content": content}, timeout=args.limit)
                took = f"{time.perf_counter() - started:.2f}"
            except NoAnswer:
                took = f"> {args.limit:.0f} (no answer)"
            done.set()
            calls = await side
            print(f"| {name} | {took} | {len(calls)} | {ms(calls, 0.5)} | {ms(calls, 1.0)} |", flush=True)
            if took.startswith(">"):
                break  # the server is still busy with it: later rows would measure that
    finally:
        if store.proc and store.proc.returncode is None:
            store.proc.kill()
        embedded.release()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=32 * 1024, help="bytes of UTF-8 per store")
    ap.add_argument("--shapes", help="comma-separated names from tests/shapes.py")
    ap.add_argument("--server", help="hindsight-server executable (default: the one beside this Python)")
    ap.add_argument("--limit", type=float, default=300.0)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
