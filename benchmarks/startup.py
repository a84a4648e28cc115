"""How fast a client is connected and served after it spawns `hindsight-server`, and how
fast the server ends on SIGINT — cold starts, the embedded database stopped before each.

    python benchmarks/startup.py [--starts 10] [--claude 5] [--server PATH] [--home DIR]

Each start spawns the server in a folder outside any git checkout on the same
HINDSIGHT_HOME and times, from the spawn:
  legacy   `initialize` (protocol 2025-11-25) answered, then the first tool result
           (list_memories: it waits for the database, the embedder and the lexicon)
  modern   what Claude Code sends (protocol 2026-07-28): `server/discover`, the
           acknowledgement of `subscriptions/listen`, `tools/list`, the first tool result
  SIGINT   from the signal to the process's exit (Claude Code escalates after 100 ms)
and then waits for the embedded PostgreSQL to stop (the server was its last holder), so the
next start is cold again. With --claude N, Claude Code itself (tests/node) runs N sessions
against a scripted model and its own MCP log gives "Successfully connected … in N ms".
--server runs another build (an older commit installed in its own virtualenv), so two
versions are compared on the same machine in the same session.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "startup-bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
LEGACY = [
    ("initialize", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "startup-bench", "version": "1"}}}),
    (None, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ("first tool result", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "list_memories", "arguments": {"limit": 1}}}),
]  # fmt: skip
MODERN = [
    ("server/discover", {"jsonrpc": "2.0", "id": "probe", "method": "server/discover", "params": {"_meta": META}}),
    ("listen acknowledged", {"jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
                             "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}),
    ("tools/list", {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": META}}),
    ("first tool result", {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                           "params": {"_meta": META, "name": "list_memories", "arguments": {"limit": 1}}}),
]  # fmt: skip


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _key(message: dict) -> str | None:
    """What an answer answers: a request id, or the listen stream's acknowledgement."""
    if "id" in message:
        return json.dumps(message["id"])
    if message.get("method") == "notifications/subscriptions/acknowledged":
        return json.dumps(message["params"]["_meta"].get("io.modelcontextprotocol/subscriptionId"))
    return None


def one_start(command: str, env: dict, sequence: list, cwd: str, limit: float = 120) -> dict[str, float]:
    """Spawn, send the whole sequence at once (as clients do), time each awaited answer; then SIGINT."""
    started = time.perf_counter()
    proc = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=cwd)  # fmt: skip
    for _, message in sequence:
        proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    waiting = {json.dumps(m["id"]): name for name, m in sequence if name}
    times: dict[str, float] = {}
    buffer = b""
    while waiting and time.perf_counter() - started < limit:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(proc.stdout.fileno(), 1 << 20)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            name = waiting.pop(_key(json.loads(line)) or "", None)
            if name:
                times[name] = (time.perf_counter() - started) * 1000
    stop = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
        times["SIGINT to exit"] = (time.perf_counter() - stop) * 1000
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        times["SIGINT to exit"] = float("inf")
    return times


def postmaster_gone(home: Path, seconds: float = 60) -> None:
    pidfile = home / "pgdata" / "postmaster.pid"
    deadline = time.monotonic() + seconds
    while pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.1)


def claude_connects(command: str, env: dict, sessions: int, work: Path) -> list[float]:
    """Claude Code's own connect time over `sessions` sessions, each a cold start."""
    sys.path.insert(0, str(ROOT / "tests"))
    from claude_code import ClaudeCode, installed
    from model_stub import ScriptedModel, load, text, tool

    if not installed():
        print("Claude Code is not installed (npm ci --prefix tests/node): no connect times", file=sys.stderr)
        return []
    server_env = {k: v for k, v in env.items() if k.startswith(("HINDSIGHT_", "OMP_"))}
    times = []
    with ScriptedModel() as model:
        claude = ClaudeCode(work / "user", model, server_env)
        config = work / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"hindsight": {"command": command, "env": server_env}}}))
        for _ in range(sessions):
            session = claude.run("List my memories.", work / "folder", [
                [load("mcp__hindsight__list_memories")], [tool("mcp__hindsight__list_memories", limit=1)], [text("ok")],
            ], mcp_config=config)  # fmt: skip
            ms = session.connected_ms()
            times.append(float(ms) if ms is not None else float("inf"))
            notes = [line for line in session.log_lines() if "timed out" in line or "failed" in line.lower()]
            print(f"  claude session: connected in {ms} ms{'; ' + ' | '.join(notes) if notes else ''}", file=sys.stderr)
            postmaster_gone(Path(env["HINDSIGHT_HOME"]))
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", type=int, default=10, help="cold starts per sequence")
    ap.add_argument("--claude", type=int, default=0, help="Claude Code sessions (its connect time)")
    ap.add_argument("--server", help="hindsight-server executable (default: the one beside this Python)")
    ap.add_argument("--home", help="HINDSIGHT_HOME to use (default: a new temporary one)")
    args = ap.parse_args()

    exe = Path(sys.executable).parent / "hindsight-server"
    command = args.server or str(exe if exe.exists() else shutil.which("hindsight-server"))
    work = Path(tempfile.mkdtemp(prefix="hs-startup-"))
    home = Path(args.home) if args.home else work / "home"
    (work / "folder").mkdir()
    env = {"HINDSIGHT_HOME": str(home), "OMP_NUM_THREADS": "1", "HINDSIGHT_LOG_LEVEL": "WARNING",
           "PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", str(work))}  # fmt: skip
    try:
        one_start(command, env, LEGACY, str(work / "folder"))  # the first start creates the database: not timed
        postmaster_gone(home)
        rows: dict[str, list[float]] = {}
        for i in range(args.starts):
            for label, sequence in (("legacy", LEGACY), ("modern", MODERN)):
                for name, ms in one_start(command, env, sequence, str(work / "folder")).items():
                    rows.setdefault(f"{label}: {name}", []).append(ms)
                postmaster_gone(home)
            print(f"  start {i + 1}/{args.starts} done", file=sys.stderr)
        if args.claude:
            rows["Claude Code: Successfully connected in"] = claude_connects(command, env, args.claude, work)
        print(f"\n{command}: {args.starts} cold starts each (ms from spawn; SIGINT: from the signal)\n")
        print(f"| {'step':<40} | {'p50':>8} | {'p95':>8} | {'max':>8} | {'n':>3} |")
        print(f"|{'-' * 42}|{'-' * 10}|{'-' * 10}|{'-' * 10}|{'-' * 5}|")
        for name, values in rows.items():
            if values:
                print(f"| {name:<40} | {pct(values, 50):8.0f} | {pct(values, 95):8.0f} | {max(values):8.0f} | "
                      f"{len(values):3d} |")  # fmt: skip
    finally:
        if not args.home:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
