"""Hostile calls against the real `hindsight-server` over stdio (tests/fuzzcases.py), many
more than CI runs: every call must be answered within 5 s, none with an internal error or
internals in its text, every malformed line with the JSON-RPC error it deserves, stdout
pure JSON-RPC, and no row written, lost or changed by a refused call.

    python benchmarks/fuzz.py [--cases 10000] [--seed 1] [--server PATH]
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
import fuzzcases  # noqa: E402
from rawrpc import RawServer, server_env, structured  # noqa: E402

from hindsight.data import pg_embedded as embedded  # noqa: E402


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--server", help="hindsight-server executable (default: the one beside this Python)")
    args = ap.parse_args()
    exe = Path(sys.executable).parent / "hindsight-server"
    command = args.server or str(exe if exe.exists() else "hindsight-server")
    root = Path(tempfile.mkdtemp(prefix="hs-fuzz-"))
    url = embedded.start(root / "home")
    log = root / "server.log"
    server = RawServer(
        [command],
        server_env(HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID="fuzz", HINDSIGHT_LOG_LEVEL="INFO"),
        stderr=log.open("w"),
    )
    try:
        await server.start()
        ids = [
            structured(await server.call("store_memory", {"content": f"seed memory {i} about deploys"}))["id"]
            for i in range(12)
        ]
        before = await fuzzcases.rows(url)
        t0 = time.monotonic()
        report = await fuzzcases.run(server, fuzzcases.cases(args.seed, args.cases, ids), limit=5.0)
        seconds = time.monotonic() - t0
        code = await server.close()
        audit = fuzzcases.audit(before, await fuzzcases.rows(url), report)
        text = log.read_text()
    finally:
        if server.proc and server.proc.returncode is None:
            server.proc.kill()
        embedded.release()
        shutil.rmtree(root, ignore_errors=True)
    print(f"fuzz of {command}: seed {args.seed}, {seconds:.0f} s, exit code {code}")
    print(fuzzcases.summary(report, audit))
    print(
        f"stdout lines that were not JSON-RPC: {len(server.stray)}; tracebacks in the log: "
        f"{text.count('Traceback')}; internal errors logged: {text.count('failed unexpectedly')}"
    )
    for name, items in (
        ("hangs", report.hangs),
        ("internal", report.internal),
        ("wrong replies", report.wrong_reply),
        ("valid calls failed", report.valid_failed),
    ):
        for item in items[:5]:
            print(f"  {name}: {item}")
    bad = (
        report.hangs
        or report.internal
        or report.wrong_reply
        or report.valid_failed
        or server.stray
        or audit["written by refused calls"]
        or audit["lost"]
        or audit["changed by refused calls"]
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
